package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// sandboxHome is HOME inside the isolating backends: an empty directory
// private to the run.
const sandboxHome = "/home/sandbox"

// A backend turns a prepared [Server] into a command to start.
type backend interface {
	name() string
	// command returns the process to start. Stdio, the process group and
	// the cgroup are set by the caller.
	command(s *Server) (*process, error)
}

// A process is a started (or about to be started) server process and the
// backend-specific hooks around it.
type process struct {
	cmd *exec.Cmd
	// childFiles are closed in the parent once the child started.
	childFiles []*os.File
	// parentFiles are closed at shutdown.
	parentFiles []*os.File
	// release, when set, runs after the child is in its cgroups and lets
	// it proceed; it returns spawn errors the child reports.
	release func(ctx context.Context, s *Server) error
	// signal, when set, delivers a signal to the server inside the
	// sandbox (the process group holds only the sandbox's outer process).
	signal func(syscall.Signal)
	// kill, when set, kills what the process group kill may not reach at
	// once, and waits for it to be gone.
	kill func()
	// noGroupSignal keeps graceful signals off the process group (whose
	// leader would die and take the sandbox down at once).
	noGroupSignal bool
	// exitStatus, when set, reports the server's own exit status (the
	// direct child is an init or bwrap that relays it).
	exitStatus func() (code *int, sig string, ok bool)
	// cleanup runs at Close.
	cleanup    func() error
	mechanisms []string
}

func (p *process) closeParentFiles() {
	for _, f := range p.parentFiles {
		f.Close()
	}
}

// chooseBackend resolves o.Backend to a working backend.
func chooseBackend(o Options) (backend, []string, error) {
	switch o.Backend {
	case BackendNone:
		return noneBackend{}, []string{"no isolation: the server runs as a plain child process with mcpvet's privileges"}, nil
	case BackendAuto:
		// Isolating backends are added by the builtin and bwrap files.
		for _, b := range isolatingBackends(o) {
			if err := b.available(); err == nil {
				return b, nil, nil
			}
		}
		return nil, nil, fmt.Errorf("choosing sandbox backend: %w", ErrNoIsolation)
	default:
		for _, b := range isolatingBackends(o) {
			if b.name() == o.Backend {
				if err := b.available(); err != nil {
					return nil, nil, fmt.Errorf("sandbox backend %s: %w", o.Backend, err)
				}
				return b, nil, nil
			}
		}
		return nil, nil, fmt.Errorf("unknown sandbox backend %q (valid: auto, builtin, bwrap, none)", o.Backend)
	}
}

// ErrNoIsolation is returned by [Launch] with backend "auto" when neither
// bwrap nor Linux namespaces work on this machine. Backend "none" runs
// without isolation when asked explicitly.
var ErrNoIsolation = errors.New("no isolation available: neither bwrap nor Linux namespaces work here (use backend none to run without isolation)")

// An isolatingBackend can tell whether it works on this machine.
type isolatingBackend interface {
	backend
	available() error
}

// noneBackend runs the server as a plain child process.
type noneBackend struct{}

func (noneBackend) name() string { return BackendNone }

func (noneBackend) command(s *Server) (*process, error) {
	path, err := lookPath(s.argv[0], lookEnv(s.env, "PATH"))
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: s.argv, Env: s.env, Dir: s.dir}
	p := &process{cmd: cmd}
	if rl := stageRlimits(s); len(rl) > 0 && hooked.Load() {
		return limitedNoneProcess(p, path, s, rl)
	}
	p.release = func(context.Context, *Server) error {
		// No init helper: apply per-process rlimits after the fact for
		// what the cgroups do not cover.
		p.mechanisms = append(p.mechanisms, prlimitChild(cmd.Process.Pid, s.opts.Limits, s.cg)...)
		// Only the session (no controlling terminal) confines it; read
		// that back like the isolating backends do.
		if m, err := confinement(cmd.Process.Pid); err == nil {
			p.mechanisms = append(p.mechanisms, m...)
		}
		return nil
	}
	return p, nil
}

// limitExecArgv0 marks the limit stage of backend none: argv is
// [limitExecArgv0, stageIdentity(0, rlimits), path, server argv...], and
// descriptor 3 reports a failure.
const limitExecArgv0 = "mcpvet-limit-exec"

// limitedNoneProcess starts the server of backend none through the limit
// stage (this binary again), which sets the rlimit fallbacks and execs the
// server: set with prlimit after start, as before, they came after the
// server had already run for a while, so its start ran without them (a Go
// server's runtime sometimes started under a 16 MiB RLIMIT_DATA and died
// later, a memory bomb at start was never limited). release returns once
// the server was exec'd, or the failure: an exec error exactly as
// exec.Cmd's own.
func limitedNoneProcess(p *process, path string, s *Server, rl map[int]uint64) (*process, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.cmd.Path = "/proc/self/exe"
	p.cmd.Args = append([]string{limitExecArgv0, stageIdentity(0, rl), path}, s.argv...)
	p.cmd.ExtraFiles = []*os.File{w}
	p.childFiles = []*os.File{w}
	p.release = func(context.Context, *Server) error {
		msg, _ := io.ReadAll(io.LimitReader(r, 4096))
		r.Close()
		if len(msg) > 0 {
			if n, err := strconv.Atoi(string(msg)); err == nil {
				return &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(n)}
			}
			return errors.New(string(msg))
		}
		p.mechanisms = append(p.mechanisms, rlimitMechanisms(rl)...)
		if m, err := confinement(p.cmd.Process.Pid); err == nil {
			p.mechanisms = append(p.mechanisms, m...)
		}
		return nil
	}
	p.cleanup = func() error {
		r.Close() // again after release: harmless
		return nil
	}
	return p, nil
}

// runLimitExec is the limit stage of backend none (see
// [limitedNoneProcess]): it sets the rlimits and execs the server, and
// reports a failure on descriptor 3 (an exec errno in decimal).
func runLimitExec() int {
	runtime.LockOSThread() // never unlocked: the thread execs or exits
	errPipe := os.NewFile(3, "exec-status")
	syscall.CloseOnExec(3)
	// The parent-death signal mcpvet set belongs to this process's first
	// thread; sandbox.Main may run on another one (the main goroutine
	// moves between threads), whose signal is 0, and the thread that execs
	// becomes the server: without re-arming it here, a server exec'd from
	// such a thread outlives a killed mcpvet (a spinning server was left
	// with parent 1 in CI). Until the exec the first thread's signal still
	// kills this stage, so the parent seen here is mcpvet, alive.
	parent := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		errPipe.WriteString("limit stage: prctl PR_SET_PDEATHSIG: " + err.Error())
		return 127
	}
	if os.Getppid() != parent {
		errPipe.WriteString("limit stage: mcpvet ended before the server started")
		return 127
	}
	if len(os.Args) < 4 {
		errPipe.WriteString("limit stage: missing arguments")
		return 127
	}
	_, rl, err := parseStageIdentity(os.Args[1])
	if err != nil {
		errPipe.WriteString("limit stage: " + err.Error())
		return 127
	}
	err = execLimited(os.Args[2], os.Args[3:], os.Environ(), rl)
	if errno, ok := err.(syscall.Errno); ok {
		errPipe.WriteString(strconv.Itoa(int(errno)))
	} else {
		errPipe.WriteString(err.Error())
	}
	return 127
}

// lookPath resolves name against the server's PATH (not mcpvet's).
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// rlimitsFor returns the per-process rlimits standing in for the cgroup
// limits that are not available.
func rlimitsFor(lim Limits, cgMemory, cgCPU bool) map[int]uint64 {
	// Keys are RLIMIT_* values.
	r := map[int]uint64{}
	if lim.MemoryBytes > 0 && !cgMemory {
		// RLIMIT_DATA, not RLIMIT_AS: V8 and the Go race detector reserve
		// huge PROT_NONE address ranges that AS would count.
		r[unix.RLIMIT_DATA] = uint64(lim.MemoryBytes)
	}
	if lim.CPUTime > 0 && !cgCPU {
		r[unix.RLIMIT_CPU] = uint64((lim.CPUTime + 999_999_999) / 1_000_000_000)
	}
	return r
}

var rlimitNames = map[int]string{unix.RLIMIT_DATA: "data", unix.RLIMIT_CPU: "cpu", unix.RLIMIT_NPROC: "nproc"}

// prlimitChild applies rlimits to a started process.
func prlimitChild(pid int, lim Limits, cg *cgroupSet) []string {
	set := map[int]uint64{}
	for res, v := range rlimitsFor(lim, cg.limitsMemory(), cg.measuresCPU()) {
		hard := v
		if res == unix.RLIMIT_CPU {
			hard = v + 1 // SIGXCPU first, SIGKILL a second later
		}
		if unix.Prlimit(pid, res, &unix.Rlimit{Cur: v, Max: hard}, nil) == nil {
			set[res] = v
		}
	}
	return rlimitMechanisms(set)
}

// rlimitMechanisms names the rlimits in rl, sorted.
func rlimitMechanisms(rl map[int]uint64) []string {
	var out []string
	for res := range rl {
		out = append(out, "rlimit:"+rlimitNames[res])
	}
	slices.Sort(out)
	return out
}

// signalName returns "SIGKILL" style names.
func signalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(sig))
}
