package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// hooked is set by [Main]: only then may the sandbox re-execute the
// current binary as its init helper.
var hooked atomic.Bool

// initEnv marks a process as the sandbox init helper. It is the only
// variable in the helper's environment besides GORACE; the server gets the
// environment from the helper's configuration instead.
const initEnv = "MCPVET_SANDBOX_INIT"

// initArgv0 is the helper's argv[0], visible in ps.
const initArgv0 = "mcpvet-sandbox-init"

// Descriptors the helper inherits.
const (
	initConfigFD = 3 // configuration JSON; EOF releases the helper
	initStatusFD = 4 // events, one JSON object a line
)

// Main runs the sandbox's init helper when the current process was
// re-executed as one, and returns otherwise. Programs that launch servers
// with the builtin backend (cmd/mcpvet, and tests through TestMain) must
// call it first thing in main:
//
//	func main() {
//		sandbox.Main()
//		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
//	}
//
// When the process is an init helper, Main never returns. Without the call,
// the builtin backend reports itself unavailable.
func Main() {
	hooked.Store(true)
	if len(os.Args) == 0 {
		return
	}
	switch {
	case os.Args[0] == initArgv0 && os.Getenv(initEnv) == "1":
		os.Exit(runInit())
	case os.Args[0] == bwrapStageArgv0 && os.Geteuid() == 0:
		os.Exit(runBwrapStage())
	case os.Args[0] == limitExecArgv0:
		os.Exit(runLimitExec())
	case os.Args[0] == execStageArgv0 && os.Getppid() == 1:
		// Only ever the child of the helper, pid 1 of the sandbox.
		os.Exit(runExecStage())
	}
}

// MaybeRunInit is another name for [Main].
func MaybeRunInit() { Main() }

// initConfig tells the helper how to build the sandbox and what to run.
type initConfig struct {
	// Root is an empty host directory the new root is built on (any
	// other place might hide a bind source).
	Root string   `json:"root"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// Binds are host paths mounted read-only at the same path.
	Binds    []initBind    `json:"binds"`
	Symlinks []initSymlink `json:"symlinks"`
	// Devices are bound from the host's /dev by name.
	Devices []string `json:"devices"`
	// Writable tmpfs directories (the run's /tmp and HOME) and their size.
	Tmpfs     []string `json:"tmpfs"`
	TmpfsSize int64    `json:"tmpfsSize"`
	// LoopbackUp brings lo up (the helper is in a new network namespace).
	LoopbackUp bool `json:"loopbackUp"`
	// UID and GID, when non-zero, are what the server runs as (the helper
	// runs as real root, without a user namespace).
	UID int `json:"uid"`
	GID int `json:"gid"`
	// Rlimits maps RLIMIT_* to soft limits (hard = soft, or soft+1 for CPU).
	Rlimits map[int]uint64 `json:"rlimits"`
}

type initBind struct {
	Path string `json:"path"`
	Dir  bool   `json:"dir"`
	// Writable keeps the bind writable; Source, when set, is bound at
	// Path instead of Path itself (/dev/null masking a file).
	Writable bool   `json:"writable,omitempty"`
	Source   string `json:"source,omitempty"`
}

type initSymlink struct {
	Target string `json:"target"`
	Path   string `json:"path"`
}

// initEvent is one line on the status descriptor.
type initEvent struct {
	Event string `json:"event"` // "started", "spawn_error", "setup_error", "exit"
	Error string `json:"error,omitempty"`
	Code  *int   `json:"code,omitempty"`
	Sig   string `json:"signal,omitempty"`
}

// runInit is the helper: pid 1 of the new pid namespace. It builds the new
// root, starts the server, forwards termination signals, reaps orphans,
// and exits when the server does (which kills whatever is left in the
// namespace).
func runInit() int {
	syscall.CloseOnExec(initStatusFD) // the server must not inherit it
	status := os.NewFile(initStatusFD, "status")
	report := func(ev initEvent) {
		data, _ := json.Marshal(ev)
		status.Write(append(data, '\n'))
	}
	cfgFile := os.NewFile(initConfigFD, "config")
	data, err := io.ReadAll(io.LimitReader(cfgFile, 16<<20))
	cfgFile.Close()
	var cfg initConfig
	if err == nil {
		err = json.Unmarshal(data, &cfg)
	}
	if err != nil {
		report(initEvent{Event: "setup_error", Error: "reading sandbox configuration: " + err.Error()})
		return 125
	}
	if err := setupRoot(&cfg); err != nil {
		report(initEvent{Event: "setup_error", Error: err.Error()})
		return 125
	}
	// Route termination signals to everything else in the namespace.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	path, err := lookPath(cfg.Argv[0], lookEnv(cfg.Env, "PATH"))
	var pid int
	if err == nil {
		pid, err = startServer(&cfg, path)
	}
	if err != nil {
		report(initEvent{Event: "spawn_error", Error: err.Error()})
		return 127
	}
	report(initEvent{Event: "started"})
	go func() {
		for sig := range sigs {
			// kill(-1) from pid 1 reaches every other process in the namespace.
			_ = syscall.Kill(-1, sig.(syscall.Signal))
		}
	}()
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			report(initEvent{Event: "setup_error", Error: "waiting for server: " + err.Error()})
			return 125
		}
		if wpid != pid {
			continue // a reaped orphan
		}
		if ws.Signaled() {
			report(initEvent{Event: "exit", Sig: signalName(ws.Signal())})
			return 128 + int(ws.Signal())
		}
		code := ws.ExitStatus()
		report(initEvent{Event: "exit", Code: &code})
		return code
	}
}

// startServer starts the server as the helper's child, in a new session
// (no controlling terminal), with no capabilities, no_new_privs and the
// seccomp filter. Those are per thread and a child inherits them from the
// thread that forks it, so the helper confines its own (locked) thread and
// forks from it. Rlimits, however, cannot be set between fork and exec
// from Go, and setting them in the helper would bind the helper too, so
// when there are any the child is first an exec stage (this binary again)
// that sets them, confines itself and execs the server; its exec failure
// comes back on a close-on-exec pipe.
func startServer(cfg *initConfig, path string) (int, error) {
	attr := &syscall.ProcAttr{
		Dir:   cfg.Dir,
		Env:   cfg.Env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setsid: true},
	}
	if len(cfg.Rlimits) == 0 {
		// The calling goroutine stays locked to this thread for good:
		// the helper's main loop only waits for children from here on.
		runtime.LockOSThread()
		if err := confineThread(); err != nil {
			return 0, err
		}
		if cfg.UID != 0 {
			attr.Sys.Credential = &syscall.Credential{Uid: uint32(cfg.UID), Gid: uint32(cfg.GID), Groups: []uint32{}}
		}
		pid, err := syscall.ForkExec(path, cfg.Argv, attr)
		if err != nil {
			return 0, &os.PathError{Op: "fork/exec", Path: path, Err: err}
		}
		return pid, nil
	}
	stage, err := json.Marshal(execStage{Rlimits: cfg.Rlimits, UID: cfg.UID, GID: cfg.GID})
	if err != nil {
		return 0, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	attr.Files = append(attr.Files, w.Fd())
	argv := append([]string{execStageArgv0, string(stage), path}, cfg.Argv...)
	pid, err := syscall.ForkExec("/proc/self/exe", argv, attr)
	w.Close()
	if err != nil {
		return 0, fmt.Errorf("starting exec stage: %w", err)
	}
	msg, _ := io.ReadAll(io.LimitReader(r, 4096))
	if len(msg) > 0 {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
		return 0, errors.New(string(msg))
	}
	return pid, nil
}

// execStageArgv0 marks the exec stage; see startServer.
const execStageArgv0 = "mcpvet-sandbox-exec"

// execStage is what the exec stage applies before it execs the server.
type execStage struct {
	// Rlimits maps RLIMIT_* to soft limits (hard = soft, or soft+1 for CPU).
	Rlimits map[int]uint64 `json:"rlimits,omitempty"`
	// UID and GID, when non-zero, are what the server runs as.
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
}

// runExecStage applies the settings in os.Args[1] and execs os.Args[2]
// with argv os.Args[3:]. Descriptor 3 reports a failure.
func runExecStage() int {
	runtime.LockOSThread() // never unlocked: the thread execs or exits
	errPipe := os.NewFile(3, "exec-status")
	syscall.CloseOnExec(3)
	fail := func(err error) int {
		errPipe.WriteString(err.Error())
		return 127
	}
	if len(os.Args) < 4 {
		return fail(errors.New("exec stage: missing arguments"))
	}
	var st execStage
	if err := json.Unmarshal([]byte(os.Args[1]), &st); err != nil {
		return fail(fmt.Errorf("exec stage: %w", err))
	}
	rl := map[int]unix.Rlimit{}
	for res, v := range st.Rlimits {
		hard := v
		if res == unix.RLIMIT_CPU {
			hard = v + 1 // SIGXCPU first, SIGKILL a second later
		}
		rl[res] = unix.Rlimit{Cur: v, Max: hard}
	}
	// Only stdin, stdout and stderr cross the exec.
	markInheritedCloseOnExec()
	if err := confineSelf(st.UID, st.GID); err != nil {
		return fail(fmt.Errorf("exec stage: %w", err))
	}
	// The rlimits last, with the exec (see execLimited): Go code run
	// after a low RLIMIT_DATA could die of it before the server starts.
	err := execLimited(os.Args[2], os.Args[3:], os.Environ(), rl)
	if _, ok := err.(*rlimitError); ok {
		return fail(err)
	}
	return fail(&os.PathError{Op: "fork/exec", Path: os.Args[2], Err: err})
}

// setupRoot builds the sandbox's root file system and pivots into it, then
// applies the remaining process settings.
func setupRoot(cfg *initConfig) error {
	newRoot := cfg.Root
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	if err := unix.Mount("tmpfs", newRoot, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=16m"); err != nil {
		return fmt.Errorf("mounting root tmpfs: %w", err)
	}
	// The writable directories come first, so that binds below them (a
	// command under /tmp) are not hidden.
	if err := mountTmpfs(newRoot, cfg); err != nil {
		return err
	}
	if err := mountBinds(newRoot, cfg.Binds); err != nil {
		return err
	}
	if err := makeSymlinks(newRoot, cfg.Symlinks); err != nil {
		return err
	}
	if err := setupDev(filepath.Join(newRoot, "/dev"), cfg.Devices); err != nil {
		return err
	}
	if err := mountProc(newRoot); err != nil {
		return err
	}
	if err := pivotInto(newRoot); err != nil {
		return err
	}
	_ = unix.Sethostname([]byte("mcpvet-sandbox"))
	if cfg.LoopbackUp {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	if cfg.Dir != "" {
		if err := unix.Chdir(cfg.Dir); err != nil {
			return fmt.Errorf("entering %s: %w", cfg.Dir, err)
		}
	}
	return nil
}

// mountTmpfs mounts the writable directories of cfg under newRoot: /tmp
// shared sticky, the others (HOME) the server user's own.
func mountTmpfs(newRoot string, cfg *initConfig) error {
	for _, d := range cfg.Tmpfs {
		target := filepath.Join(newRoot, d)
		if err := os.MkdirAll(target, 0o755); err != nil {
			return err
		}
		opts := fmt.Sprintf("mode=1777,size=%d", cfg.TmpfsSize)
		if d != "/tmp" {
			opts = fmt.Sprintf("mode=0700,uid=%d,gid=%d,size=%d", cfg.UID, cfg.GID, cfg.TmpfsSize)
		}
		if err := unix.Mount("tmpfs", target, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
			return fmt.Errorf("mounting tmpfs on %s: %w", d, err)
		}
	}
	return nil
}

// mountBinds binds each host path (or its Source) at the same path under
// newRoot, read-only unless Writable.
func mountBinds(newRoot string, binds []initBind) error {
	for _, b := range binds {
		target := filepath.Join(newRoot, b.Path)
		if err := makeMountpoint(target, b.Dir); err != nil {
			return err
		}
		src := b.Path
		if b.Source != "" {
			src = b.Source
		}
		if err := unix.Mount(src, target, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding %s: %w", b.Path, err)
		}
		if b.Writable {
			// nosuid and nodev: a set-id file or a device node in an
			// --expose-rw folder gives nothing inside.
			if err := remountBind(target, false); err != nil {
				return fmt.Errorf("binding %s nosuid: %w", b.Path, err)
			}
			continue
		}
		if err := remountReadOnly(target); err != nil {
			return fmt.Errorf("binding %s read-only: %w", b.Path, err)
		}
	}
	return nil
}

// makeSymlinks creates the layout's symlinks under newRoot.
func makeSymlinks(newRoot string, links []initSymlink) error {
	for _, l := range links {
		path := filepath.Join(newRoot, l.Path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(l.Target, path); err != nil {
			return fmt.Errorf("creating symlink %s: %w", l.Path, err)
		}
	}
	return nil
}

// mountProc mounts the sandbox's own /proc under newRoot.
func mountProc(newRoot string) error {
	proc := filepath.Join(newRoot, "/proc")
	if err := os.MkdirAll(proc, 0o555); err != nil {
		return err
	}
	if err := unix.Mount("proc", proc, "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	return nil
}

// pivotInto makes newRoot the root, detaches the old root and makes the
// new one read-only.
func pivotInto(newRoot string) error {
	oldRoot := filepath.Join(newRoot, ".oldroot")
	if err := os.Mkdir(oldRoot, 0o700); err != nil {
		return err
	}
	if err := unix.PivotRoot(newRoot, oldRoot); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return err
	}
	if err := unix.Unmount("/.oldroot", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detaching the old root: %w", err)
	}
	if err := os.Remove("/.oldroot"); err != nil {
		return err
	}
	if err := remountReadOnly("/"); err != nil {
		return fmt.Errorf("making the root read-only: %w", err)
	}
	return nil
}

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

// remountReadOnly makes the mount at target read-only, keeping the flags
// the kernel locks (in a user namespace, nosuid, nodev and noexec cannot be
// cleared).
func remountReadOnly(target string) error { return remountBind(target, true) }

// remountBind makes the bind mount at target nosuid and nodev, and
// read-only when ro, keeping the flags the kernel locks.
func remountBind(target string, ro bool) error {
	var st unix.Statfs_t
	if err := unix.Statfs(target, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_NOSUID | unix.MS_NODEV)
	if ro {
		flags |= unix.MS_RDONLY
	}
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME},
		{unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st.Flags&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	return unix.Mount("", target, "", flags, "")
}

// setupDev mounts a minimal /dev: a tmpfs with the named device nodes bound
// from the host, /dev/shm, and the usual symlinks.
func setupDev(dev string, devices []string) error {
	if err := os.MkdirAll(dev, 0o755); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=1m"); err != nil {
		return fmt.Errorf("mounting /dev: %w", err)
	}
	for _, d := range devices {
		if strings.ContainsRune(d, '/') {
			continue
		}
		target := filepath.Join(dev, d)
		if err := makeMountpoint(target, false); err != nil {
			return err
		}
		if err := unix.Mount("/dev/"+d, target, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding /dev/%s: %w", d, err)
		}
	}
	if err := os.Mkdir(filepath.Join(dev, "shm"), 0o1777); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", filepath.Join(dev, "shm"), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=1777,size=64m"); err != nil {
		return fmt.Errorf("mounting /dev/shm: %w", err)
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return err
		}
	}
	return nil
}

// loopbackUp sets IFF_UP on "lo" with SIOCSIFFLAGS (no netlink, no
// iproute2 needed).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	return nil
}
