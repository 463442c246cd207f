package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// bwrap as root. Started by root, bwrap makes a user namespace owned by
// root in which the server's "nobody" is host root (uid_map "65534 0 1"):
// the server reads every 0600 file of an exposed folder and leaves
// root-owned, set-id files in an --expose-rw folder. So bwrap is started as
// the run's own unprivileged uid ([runUID], like builtin's server), and its
// user namespace maps nobody to that uid. That uid cannot reach a folder
// below a 0700 one (/root, a go-build or t.TempDir folder), so a stage
// helper (the re-executed binary, in a mount namespace of its own) binds
// each such source first into a staging folder the uid can reach, then
// drops to the uid and execs bwrap, which binds from the staging folder.
// Nothing of the staging is visible outside the helper's mount namespace.

// bwrapStageArgv0 marks the stage helper: argv is
// [bwrapStageArgv0, uid, stageDir, n, src_0 ... src_n-1, bwrap, args...].
const bwrapStageArgv0 = "mcpvet-bwrap-stage"

// stageBwrapSources rewrites the sources of bwrap's --bind and --ro-bind
// in args that lie outside the system folders and /etc to stageDir/i, and
// returns the rewritten args and the sources in order.
func stageBwrapSources(args []string, stageDir string) ([]string, []string) {
	out := slices.Clone(args)
	var srcs []string
	for i := 0; i+2 < len(out); i++ {
		if out[i] != "--bind" && out[i] != "--ro-bind" {
			continue
		}
		src := out[i+1]
		if src == "/dev/null" || underSystemDir(src) || slices.Contains(systemDirs, src) || slices.Contains(etcFiles, src) || within(src, "/etc") {
			i += 2
			continue
		}
		out[i+1] = filepath.Join(stageDir, strconv.Itoa(len(srcs)))
		srcs = append(srcs, src)
		i += 2
	}
	return out, srcs
}

// runBwrapStage is the stage helper: it makes its mount namespace private,
// mounts a tmpfs on stageDir (a folder of its own), binds each source
// there, drops to the uid (no groups) and execs bwrap with the rest of
// argv. It returns only on failure.
func runBwrapStage() int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "mcpvet bwrap stage: %v\n", err)
		return 126
	}
	// mcpvet, whose death must end the sandbox (see the re-arm below).
	parent := os.Getppid()
	a := os.Args
	if len(a) < 5 || os.Geteuid() != 0 {
		return fail(errors.New("bad invocation"))
	}
	uid, rl, err := parseStageIdentity(a[1])
	if err != nil || uid <= 0 {
		return fail(fmt.Errorf("uid %q", a[1]))
	}
	stageDir := a[2]
	n, err := strconv.Atoi(a[3])
	if err != nil || n < 0 || len(a) < 5+n {
		return fail(fmt.Errorf("source count %q", a[3]))
	}
	srcs, rest := a[4:4+n], a[4+n:]
	// Private first: the host's mounts are often shared, and a bind made
	// here would otherwise propagate to them.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fail(fmt.Errorf("making mounts private: %w", err))
	}
	if err := unix.Mount("tmpfs", stageDir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m"); err != nil {
		return fail(fmt.Errorf("mounting the staging folder: %w", err))
	}
	for i, src := range srcs {
		fi, err := os.Stat(src)
		if err != nil {
			return fail(err)
		}
		target := filepath.Join(stageDir, strconv.Itoa(i))
		if err := makeMountpoint(target, fi.IsDir()); err != nil {
			return fail(err)
		}
		if err := unix.Mount(src, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fail(fmt.Errorf("staging %s: %w", src, err))
		}
	}
	if err := syscall.Setgroups(nil); err != nil {
		return fail(fmt.Errorf("setgroups: %w", err))
	}
	if err := syscall.Setresgid(uid, uid, uid); err != nil {
		return fail(fmt.Errorf("setresgid: %w", err))
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fail(fmt.Errorf("setresuid: %w", err))
	}
	// The change of uid cleared the parent-death signal mcpvet set
	// (prctl(2): it is reset when the credentials change). Without it,
	// bwrap is not killed when mcpvet dies before bwrap's own
	// --die-with-parent takes over, and the sandbox runs on, orphaned
	// (a spinning server outlived its test binary for 30 minutes, issue
	// 22). Re-arm it, and end here if mcpvet is already gone. It
	// survives the exec of bwrap (not set-id, no file capabilities). The
	// signal belongs to a thread: set it on the thread that execs.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		return fail(fmt.Errorf("prctl PR_SET_PDEATHSIG: %w", err))
	}
	if os.Getppid() != parent {
		return fail(errors.New("mcpvet ended before the sandbox started"))
	}
	// The rlimits last, with the exec (see execLimited): Go code run
	// after a low RLIMIT_DATA could die of it before bwrap starts.
	err = execLimited(rest[0], rest, os.Environ(), rl)
	if _, ok := err.(*rlimitError); ok {
		return fail(err)
	}
	return fail(&os.PathError{Op: "fork/exec", Path: rest[0], Err: err})
}

// stageRlimits returns the rlimit fallbacks of s's limits (what its cgroups
// do not cover), as [prlimitChild] would set them.
func stageRlimits(s *Server) map[int]uint64 {
	if s.cg == nil {
		return rlimitsFor(s.opts.Limits, false, false)
	}
	return rlimitsFor(s.opts.Limits, s.cg.limitsMemory(), s.cg.measuresCPU())
}

// stageIdentity encodes the stage helper's uid and rlimits as one argument:
// "UID" then ",RES=SOFT" per rlimit in resource order (the hard limit is
// the soft one, plus a second for RLIMIT_CPU, as [prlimitChild] sets it).
func stageIdentity(uid int, rl map[int]uint64) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(uid))
	for _, res := range slices.Sorted(maps.Keys(rl)) {
		fmt.Fprintf(&b, ",%d=%d", res, rl[res])
	}
	return b.String()
}

// parseStageIdentity reads [stageIdentity]'s encoding.
func parseStageIdentity(s string) (int, map[int]unix.Rlimit, error) {
	parts := strings.Split(s, ",")
	uid, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, nil, err
	}
	rl := map[int]unix.Rlimit{}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		res, err1 := strconv.Atoi(k)
		soft, err2 := strconv.ParseUint(v, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return 0, nil, fmt.Errorf("rlimit %q", p)
		}
		hard := soft
		if res == unix.RLIMIT_CPU {
			hard = soft + 1 // SIGXCPU first, SIGKILL a second later
		}
		rl[res] = unix.Rlimit{Cur: soft, Max: hard}
	}
	return uid, rl, nil
}

// makeMountpoint creates target as a folder (dir) or an empty file, with
// its parents, to mount over.
func makeMountpoint(target string, dir bool) error {
	if dir {
		if err := os.MkdirAll(target, 0o755); err != nil {
			return fmt.Errorf("creating mount point: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("creating mount point: %w", err)
	}
	if _, err := os.Lstat(target); err == nil {
		return nil // a file in a folder bound before (a masked one)
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("creating mount point: %w", err)
	}
	return f.Close()
}
