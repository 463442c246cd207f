package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// bwrapBackend isolates with bubblewrap: the same root as builtin (see
// rootLayout), built by bwrap instead of the init helper.
type bwrapBackend struct {
	allowNetwork bool
	// record is the file of a saved availability pass, "" for none.
	record string
}

func (bwrapBackend) name() string { return BackendBwrap }

// available checks once per process that bwrap is on PATH and runs a
// program in the sandbox we ask for (user namespaces may be disabled).
func (b bwrapBackend) available() error {
	if os.Geteuid() == 0 && !hooked.Load() {
		return errors.New("the program did not call sandbox.Main at start (as root, bwrap is started by the re-executed program as the run's own uid)")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		return errors.New("bwrap is not on PATH")
	}
	return bwrapAvailability.get(b.record, func() error { return probeBackend(b) })
}

func (b bwrapBackend) command(s *Server) (*process, error) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, err
	}
	if err := checkHostExec(s); err != nil {
		return nil, err
	}
	root := os.Geteuid() == 0
	args, mechanisms := bwrapNamespaceArgs(b.allowNetwork, root)
	args = append(args, bwrapLayoutArgs(s)...)
	prog, err := seccompBPF()
	if err != nil {
		return nil, err
	}
	fds, err := newBwrapFDs(prog)
	if err != nil {
		return nil, err
	}
	// The environment is bwrap's own, which it hands to the server through
	// execve: --setenv would put every value (secrets, canaries) on bwrap's
	// command line, readable by anyone in /proc. bwrap execvp()s argv[0]
	// with that PATH, like the other backends; argv[0] stays what the plan
	// says.
	args = append(args, "--json-status-fd", "3", "--block-fd", "4", "--seccomp", "5", "--")
	args = append(args, s.argv...)
	p := &process{mechanisms: mechanisms}
	p.childFiles = []*os.File{fds.statusW, fds.blockR, fds.seccompR}
	p.parentFiles = []*os.File{fds.blockW}
	p.cmd = &exec.Cmd{
		Path:       bwrap,
		Args:       append([]string{"bwrap"}, args...),
		Env:        append([]string{}, s.env...),
		Dir:        "/",
		ExtraFiles: p.childFiles,
	}
	if root {
		// bwrap runs as the run's unprivileged uid, started through the
		// stage helper (see bwrap_stage.go).
		uid := runUID(s.runID)
		staged, srcs := stageBwrapSources(p.cmd.Args[1:], s.runDir)
		// The rlimit fallbacks are set by the stage helper before it drops
		// to the run's uid: bwrap's pid 1 then lives in a user namespace
		// of that uid, where prlimit from the host answers EPERM.
		rl := stageRlimits(s)
		argv := append([]string{bwrapStageArgv0, stageIdentity(uid, rl), s.runDir, strconv.Itoa(len(srcs))}, srcs...)
		p.mechanisms = append(p.mechanisms, rlimitMechanisms(rl)...)
		p.cmd.Path = "/proc/self/exe"
		p.cmd.Args = append(append(argv, bwrap), staged...)
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
		p.mechanisms = append(p.mechanisms, "uid:"+strconv.Itoa(uid))
	}
	st := newBwrapStatus(fds.statusR)
	p.release = bwrapRelease(p, st, fds.blockW, bwrap)
	p.exitStatus = st.exitStatus
	p.noGroupSignal = true
	p.signal = func(sig syscall.Signal) {
		if pid := st.childPid(); pid > 0 {
			// bwrap's pid 1 reaper ignores signals: signal its children,
			// the server first among them.
			for _, d := range descendants(pid) {
				_ = syscall.Kill(d, sig)
			}
		}
	}
	return p, nil
}

// checkHostExec returns the spawn error execve would give for the server's
// command. bwrap reports an exec failure only on stderr: check on the host
// (the sandbox sees the same paths) to return a proper spawn error.
func checkHostExec(s *Server) error {
	path, err := lookPath(s.argv[0], lookEnv(s.env, "PATH"))
	if err != nil {
		return err
	}
	if err := unix.Access(path, unix.X_OK); err != nil {
		return &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	if fi, err := os.Stat(path); err != nil || fi.IsDir() {
		if err == nil {
			err = syscall.EACCES
		}
		return &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return nil
}

// bwrapNamespaceArgs returns bwrap's namespace and privilege flags, and
// the mechanisms they stand for. root: mcpvet runs as root, and the
// server as nobody inside, which is the run's unprivileged uid outside
// (the command runs bwrap as that uid, see bwrap_stage.go).
func bwrapNamespaceArgs(allowNetwork, root bool) (args, mechanisms []string) {
	args = []string{"--unshare-all", "--die-with-parent", "--new-session", "--hostname", "mcpvet-sandbox"}
	mechanisms = []string{"bwrap", "mountns", "pidns", "ipcns", "utsns"}
	if allowNetwork {
		args = append(args, "--share-net")
	} else {
		mechanisms = append(mechanisms, "netns")
	}
	// bwrap always sets no_new_privs; --cap-drop ALL empties every
	// capability set (as root bwrap would keep them). What took effect is
	// read back after start.
	args = append(args, "--unshare-user", "--cap-drop", "ALL")
	if root {
		args = append(args, "--uid", strconv.Itoa(sandboxUID), "--gid", strconv.Itoa(sandboxUID))
		mechanisms = append(mechanisms, "userns")
	} else {
		mechanisms = append(mechanisms, "userns")
	}
	return args, mechanisms
}

// bwrapLayoutArgs returns bwrap's flags for the server's file system: the
// same root as builtin (see [rootLayout]), the writable exposures, the
// masked files and a /dev of its own, read-only but for /tmp, HOME and
// /dev/shm, starting in [Server.sandboxDir].
func bwrapLayoutArgs(s *Server) []string {
	size := strconv.Itoa(sandboxTmpfsSize)
	// Writable directories first, so binds below them stay visible.
	args := []string{"--size", size, "--tmpfs", "/tmp", "--size", size, "--perms", "0700", "--tmpfs", sandboxHome}
	binds, links := rootLayout(s)
	for _, bd := range binds {
		args = append(args, "--ro-bind", bd.Path, bd.Path)
	}
	for _, l := range links {
		args = append(args, "--symlink", l.Target, l.Path)
	}
	for _, p := range s.writableBinds() {
		args = append(args, "--bind", p, p)
	}
	for _, p := range s.masked {
		args = append(args, "--ro-bind", "/dev/null", p)
	}
	// A /dev of its own instead of --dev, which would bind /dev/tty.
	args = append(args, "--proc", "/proc", "--tmpfs", "/dev")
	for _, d := range devices {
		args = append(args, "--dev-bind", "/dev/"+d, "/dev/"+d)
	}
	for _, l := range [][2]string{{"/proc/self/fd", "/dev/fd"}, {"/proc/self/fd/0", "/dev/stdin"}, {"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"}} {
		args = append(args, "--symlink", l[0], l[1])
	}
	return append(args, "--perms", "1777", "--tmpfs", "/dev/shm", "--remount-ro", "/", "--chdir", s.sandboxDir())
}

// bwrapFDs are the pipes bwrap starts with: its --json-status-fd stream,
// the --block-fd that holds the sandbox before exec until released, and
// the --seccomp program, already written and its write end closed.
type bwrapFDs struct {
	statusR, statusW, blockR, blockW, seccompR *os.File
}

// newBwrapFDs opens bwrap's pipes and writes the seccomp program prog; on
// error it closes what it opened.
func newBwrapFDs(prog []byte) (*bwrapFDs, error) {
	var files []*os.File
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	fds, err := func() (*bwrapFDs, error) {
		var fds bwrapFDs
		var err error
		if fds.statusR, fds.statusW, err = pipe(); err != nil {
			return nil, err
		}
		if fds.blockR, fds.blockW, err = pipe(); err != nil {
			return nil, err
		}
		var seccompW *os.File
		if fds.seccompR, seccompW, err = pipe(); err != nil {
			return nil, err
		}
		// The program is a few hundred bytes: it fits in the pipe at once.
		if _, err := seccompW.Write(prog); err != nil {
			return nil, fmt.Errorf("writing seccomp filter: %w", err)
		}
		seccompW.Close()
		return &fds, nil
	}()
	if err != nil {
		for _, f := range files {
			f.Close()
		}
	}
	return fds, err
}

// bwrapRelease returns p's release: once bwrap reports the sandbox's pid
// 1 (blocked before exec), it moves the sandbox into the server's cgroups,
// sets the rlimit fallbacks, arms p.kill, lets the sandbox proceed through
// blockW and reads back what took effect.
func bwrapRelease(p *process, st *bwrapStatus, blockW *os.File, bwrap string) func(context.Context, *Server) error {
	return func(ctx context.Context, s *Server) error {
		pid, err := st.waitChild(ctx)
		if err != nil {
			return err
		}
		// The sandbox is blocked before exec: move every bwrap process
		// into the cgroups that must be joined after start, and set the
		// rlimit fallbacks on the sandbox's pid 1, which the server
		// inherits.
		for _, d := range append([]int{pid}, descendants(pid)...) {
			if err := s.cg.attach(d, true); err != nil && s.cg.tracks() {
				s.warn(err.Error())
			}
		}
		for _, m := range prlimitChild(pid, s.opts.Limits, s.cg) {
			if !slices.Contains(p.mechanisms, m) { // the stage helper may have set it
				p.mechanisms = append(p.mechanisms, m)
			}
		}
		armPidfdKill(p, pid)
		if _, err := blockW.Write([]byte{1}); err != nil {
			return fmt.Errorf("releasing bwrap: %w", err)
		}
		blockW.Close()
		p.mechanisms = append(p.mechanisms, readBack(s, pid, bwrap)...)
		return nil
	}
}

// armPidfdKill sets p.kill to kill the sandbox's pid 1 and wait for its
// namespace to empty. Killing bwrap kills the sandbox only asynchronously
// (through --die-with-parent); the kill goes through a pidfd so that a
// reused pid is never hit. p.kill stays unset when no pidfd can be opened.
func armPidfdKill(p *process, pid int) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	pidfd := os.NewFile(uintptr(fd), "pidfd")
	p.parentFiles = append(p.parentFiles, pidfd)
	p.kill = func() {
		_ = unix.PidfdSendSignal(int(pidfd.Fd()), unix.SIGKILL, nil, 0)
		// A pidfd polls readable once the process has exited; pid
		// 1 of a namespace exits after all the others.
		fds := []unix.PollFd{{Fd: int32(pidfd.Fd()), Events: unix.POLLIN}}
		_, _ = unix.Poll(fds, 2000)
	}
}

func cutEnv(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// bwrapStatus reads bwrap's --json-status-fd stream: {"child-pid": N}
// first, {"exit-code": N} when the command exits.
type bwrapStatus struct {
	child chan int // the sandbox pid 1 (host pid), or 0 at EOF
	done  chan struct{}
	mu    sync.Mutex
	pid   int
	exit  *int
}

func newBwrapStatus(r *os.File) *bwrapStatus {
	st := &bwrapStatus{child: make(chan int, 1), done: make(chan struct{})}
	go func() {
		defer close(st.done)
		defer r.Close()
		dec := json.NewDecoder(r)
		sent := false
		for {
			var ev struct {
				ChildPid *int `json:"child-pid"`
				ExitCode *int `json:"exit-code"`
			}
			if err := dec.Decode(&ev); err != nil {
				break
			}
			st.mu.Lock()
			if ev.ChildPid != nil && !sent {
				st.pid = *ev.ChildPid
				st.child <- *ev.ChildPid
				sent = true
			}
			if ev.ExitCode != nil {
				st.exit = ev.ExitCode
			}
			st.mu.Unlock()
		}
		if !sent {
			st.child <- 0
		}
	}()
	return st
}

func (st *bwrapStatus) waitChild(ctx context.Context) (int, error) {
	select {
	case pid := <-st.child:
		if pid == 0 {
			return 0, errors.New("bwrap exited before starting the sandbox")
		}
		return pid, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("waiting for bwrap: %w", ctx.Err())
	}
}

func (st *bwrapStatus) childPid() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.pid
}

// exitStatus returns the command's status as bwrap reported it. bwrap
// reports a death by signal N as 128+N.
func (st *bwrapStatus) exitStatus() (*int, string, bool) {
	waitFor(st.done, time.Second)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.exit == nil {
		return nil, "", false
	}
	if c := *st.exit; c > 128 && c < 128+65 {
		return nil, signalName(syscall.Signal(c - 128)), true
	}
	c := *st.exit
	return &c, "", true
}

// descendants lists the descendants of root (not root itself), from /proc.
func descendants(root int) []int {
	var out []int
	forEachProc(func(p procInfo, under func(int) bool) {
		if p.pid != root && under(root) {
			out = append(out, p.pid)
		}
	})
	return out
}
