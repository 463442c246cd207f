package sandbox

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/internal/timeline"

	"github.com/mcpvet/mcpvet/vocab"
)

// The helper binds host paths itself: it runs as root, or in a user
// namespace as the invoking user, so it can reach whatever that user can.
// (Descriptors opened by the parent would not do: they belong to the
// parent's mount namespace, and binding from them fails with EINVAL.)

// systemDirs are exposed read-only in the isolating backends (or recreated
// as symlinks where the host has symlinks, as on merged-/usr systems).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcFiles is the minimal /etc: name resolution, users, TLS roots, the
// dynamic linker cache, time zone, alternatives (for /usr/bin symlinks).
var etcFiles = []string{
	"/etc/passwd", "/etc/group", "/etc/hosts", "/etc/host.conf", "/etc/resolv.conf", "/etc/nsswitch.conf",
	"/etc/gai.conf", "/etc/protocols", "/etc/services", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/alternatives", "/etc/localtime", "/etc/os-release",
	"/etc/mime.types", "/etc/java-17-openjdk", "/etc/python3", "/etc/mcpvet-sandbox-nonexistent",
}

// devices are the nodes bound into /dev. Never tty: a server has no
// terminal to talk to (see confine.go).
var devices = []string{"null", "zero", "full", "random", "urandom"}

// sandboxTmpfsSize bounds the writable /tmp and HOME (each); tmpfs pages
// also count against the memory limit.
const sandboxTmpfsSize = 256 << 20

// sandboxUID is the user the server sees itself as inside bwrap's user
// namespace (nobody).
const sandboxUID = 65534

// runUID returns the unprivileged host uid a builtin server runs as when
// mcpvet runs as root: one per run (in 200000..999999, a range no distro
// allocates), so that RLIMIT_NPROC, which counts per user, is per server
// and servers cannot signal or trace each other.
func runUID(runID string) int {
	h := sha256.Sum256([]byte(runID))
	return 200000 + int(binary.BigEndian.Uint32(h[:4])%800000)
}

// builtinBackend isolates with namespaces created by clone and an init
// helper (the re-executed binary, see [Main]) that builds the root.
type builtinBackend struct {
	allowNetwork bool
	// record is the file of a saved availability pass, "" for none.
	record string
}

func (builtinBackend) name() string { return BackendBuiltin }

// available checks once per process that the helper starts, builds a root
// and runs a program (or finds that check's pass saved, see
// availability.go).
func (b builtinBackend) available() error {
	if !helperLinked {
		return errors.New("built without cgo: the builtin backend's init helper is C (build with CGO_ENABLED=1)")
	}
	return builtinAvailability.get(b.record, func() error { return probeBackend(b) })
}

// checkServer is the server of b's availability check: "true", started
// in no host folder (WorkDirNone), so that it sees, and the check walks,
// nothing of the working directory (issue 25: with the working directory
// exposed, the check walked the whole folder for files to mask: 0.2 s in
// a source tree, more in a home folder).
func checkServer(b backend) *Server {
	plan := &vocab.Plan{Transport: vocab.TransportStdio, Command: "true"}
	o := (&Options{Backend: BackendNone, WorkDir: WorkDirNone, Limits: Limits{Wall: 20 * time.Second}, TerminateGrace: time.Second}).resolve()
	s := &Server{plan: plan, opts: o, backend: b, runID: newRunID(), stderr: newTailBuffer(stderrTailBytes, 1<<20)}
	s.initChannels()
	return s
}

// probeBackend launches "true" through b and checks that it exits 0.
func probeBackend(b backend) error {
	backendProbes.Add(1)
	s := checkServer(b)
	if err := s.prepare(context.Background()); err != nil {
		s.removeRunDir()
		return err
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.start(ctx); err != nil {
		return fmt.Errorf("probe: %w (stderr %q)", err, s.stderr.String())
	}
	info := s.Info(10 * time.Second)
	if info.ExitCode == nil || *info.ExitCode != 0 {
		return fmt.Errorf("probe: true exited with %v %s (stderr %q)", info.ExitCode, info.Signal, info.StderrTail)
	}
	return nil
}

func (b builtinBackend) command(s *Server) (*process, error) {
	cfg := initConfig{
		Root:       filepath.Join(s.runDir, "root"),
		Argv:       s.argv,
		Env:        s.env,
		Dir:        s.sandboxDir(),
		Devices:    devices,
		Tmpfs:      []string{"/tmp", sandboxHome},
		TmpfsSize:  sandboxTmpfsSize,
		LoopbackUp: !b.allowNetwork,
	}
	p := &process{}
	fail := func(err error) (*process, error) {
		p.closeParentFiles()
		for _, f := range p.childFiles {
			f.Close()
		}
		return nil, err
	}
	cfg.Binds, cfg.Symlinks = rootLayout(s)
	cfg.Binds = append(cfg.Binds, exposeBinds(s)...)
	attr := &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS,
	}
	p.mechanisms = []string{"mountns", "pidns", "ipcns", "utsns"}
	if !b.allowNetwork {
		attr.Cloneflags |= syscall.CLONE_NEWNET
		p.mechanisms = append(p.mechanisms, "netns")
	}
	if os.Geteuid() == 0 {
		// The helper keeps root to build the sandbox; the server runs as
		// an unprivileged uid of its own (set in the server's process
		// between fork and exec, with every capability dropped,
		// no_new_privs and the seccomp filter; what took effect is read
		// back after start).
		uid := runUID(s.runID)
		cfg.UID, cfg.GID = uid, uid
		p.mechanisms = append(p.mechanisms, "uid:"+strconv.Itoa(uid))
	} else {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		p.mechanisms = append(p.mechanisms, "userns")
	}
	rl := rlimitsFor(s.opts.Limits, s.cg.limitsMemory(), s.cg.measuresCPU())
	if s.opts.Limits.Processes > 0 && !s.cg.limitsProcesses() && cfg.UID != 0 {
		// Only with a uid of the run's own: in a user namespace the
		// count would include all of the invoking user's processes.
		rl[unix.RLIMIT_NPROC] = uint64(s.opts.Limits.Processes)
	}
	cfg.Rlimits = rl
	p.mechanisms = append(p.mechanisms, rlimitMechanisms(rl)...)
	filter, err := seccompBPF()
	if err != nil {
		return fail(err)
	}
	cfgData, err := cfg.encode(filter, lastCap())
	if err != nil {
		return fail(fmt.Errorf("encoding sandbox configuration: %w", err))
	}
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		cfgR.Close()
		cfgW.Close()
		return fail(err)
	}
	// The helper's descriptors 3 and 4 (CONFIG_FD, STATUS_FD in
	// init_helper.c): the configuration records (see [initConfig.encode];
	// EOF releases the helper) and the events, one JSON object a line.
	p.childFiles = []*os.File{cfgR, statusW}
	p.parentFiles = []*os.File{cfgW, statusR}
	p.cmd = &exec.Cmd{
		Path:        "/proc/self/exe",
		Args:        []string{initArgv0},
		Env:         []string{initEnv + "=1"},
		Dir:         "/",
		ExtraFiles:  p.childFiles,
		SysProcAttr: attr,
	}
	events := newEventReader(statusR)
	p.release = func(ctx context.Context, s *Server) error {
		if _, err := cfgW.Write(cfgData); err != nil {
			return fmt.Errorf("configuring sandbox: %w", err)
		}
		cfgW.Close()
		if err := events.waitStarted(ctx); err != nil {
			return err
		}
		timeline.Mark("sandbox: helper reports the server started")
		// "started" comes after the server's exec: the helper's child
		// is the server now.
		p.mechanisms = append(p.mechanisms, readBack(s, p.cmd.Process.Pid, "")...)
		return nil
	}
	p.exitStatus = events.exitStatus
	p.signal = func(sig syscall.Signal) { _ = p.cmd.Process.Signal(sig) }
	return p, nil
}

func slicesContains(list []string, s string) bool {
	return slices.Contains(list, s)
}

// rootLayout returns the read-only binds and symlinks of the sandbox's
// root: each exposed host path at the same place, symlinks recreated (and
// their targets exposed when outside the system directories).
func rootLayout(s *Server) ([]initBind, []initSymlink) {
	var binds []initBind
	var links []initSymlink
	addBind := func(path string) {
		if fi, err := os.Stat(path); err == nil {
			binds = append(binds, initBind{Path: path, Dir: fi.IsDir()})
		}
	}
	for _, spec := range exposedPaths(s) {
		fi, err := os.Lstat(spec)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 && slicesContains(systemDirs, spec) {
			if target, err := os.Readlink(spec); err == nil {
				links = append(links, initSymlink{Target: target, Path: spec})
			}
			continue
		}
		real, err := filepath.EvalSymlinks(spec)
		if err != nil {
			continue
		}
		if real != spec {
			// Expose the target at its own path and the link (when the
			// link itself is a symlink) at the requested one.
			if !underSystemDir(real) {
				addBind(real)
			}
			if fi.Mode()&os.ModeSymlink != 0 && !underSystemDir(spec) {
				if target, err := os.Readlink(spec); err == nil {
					links = append(links, initSymlink{Target: target, Path: spec})
				}
			}
			continue
		}
		addBind(spec)
	}
	return binds, links
}

// exposedPaths lists the host paths a server sees read-only: system
// directories, the minimal /etc, the installed package, and the command
// itself when it lives elsewhere.
func exposedPaths(s *Server) []string {
	paths := append(append([]string{}, systemDirs...), etcFiles...)
	paths = append(paths, s.readOnly...)
	if cmd, err := lookPath(s.argv[0], lookEnv(s.env, "PATH")); err == nil && filepath.IsAbs(cmd) && !underSystemDir(cmd) && !underAny(cmd, s.readOnly) && !slicesContains(s.readOnly, cmd) {
		paths = append(paths, cmd)
	}
	return paths
}

// underAny reports whether p is in one of dirs.
func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

func underSystemDir(p string) bool {
	for _, d := range systemDirs {
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// eventReader reads the helper's status events.
type eventReader struct {
	started chan error    // receives the outcome of the start, once
	done    chan struct{} // closed at EOF
	mu      sync.Mutex
	exit    *initEvent
}

func newEventReader(r *os.File) *eventReader {
	e := &eventReader{started: make(chan error, 1), done: make(chan struct{})}
	go func() {
		defer close(e.done)
		defer r.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 4096), 64<<10)
		first := true
		for sc.Scan() {
			var ev initEvent
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			switch ev.Event {
			case "started":
				if first {
					e.started <- nil
				}
			case "spawn_error":
				if first {
					e.started <- errors.New(ev.Error)
				}
			case "setup_error":
				if first {
					e.started <- fmt.Errorf("setting up sandbox: %s", ev.Error)
				}
			case "exit":
				e.mu.Lock()
				e.exit = &ev
				e.mu.Unlock()
			}
			first = false
		}
		if first {
			e.started <- errors.New("sandbox init helper exited before starting the server")
		}
	}()
	return e
}

func (e *eventReader) waitStarted(ctx context.Context) error {
	select {
	case err := <-e.started:
		return err
	case <-ctx.Done():
		return fmt.Errorf("waiting for the sandbox to start: %w", ctx.Err())
	}
}

// exitStatus returns the server's exit status as the helper reported it.
// It is called once the helper has exited, when the pipe is at EOF or about
// to be.
func (e *eventReader) exitStatus() (*int, string, bool) {
	waitFor(e.done, time.Second)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.exit == nil {
		return nil, "", false
	}
	return e.exit.Code, e.exit.Sig, true
}
