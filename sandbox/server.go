package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/timeline"
	"github.com/mcpvet/mcpvet/vocab"
)

// Info is what the sandbox knows about one server run. It is a snapshot:
// call [Server.Info] again for fresh values.
type Info struct {
	// Backend is the backend that ran the server ("builtin", "bwrap",
	// "none"), or "remote" for HTTP servers.
	Backend string
	// Network reports whether the server had network access at run time.
	Network bool
	// SpawnError is set when the process could not be started (ENOENT,
	// EACCES, ...).
	SpawnError string
	Exited     bool
	// ExitCode is the exit status when the process exited normally.
	ExitCode *int
	// Signal names the signal that ended the process ("SIGKILL").
	Signal string
	// StderrTail is the last 4 KiB of stderr.
	StderrTail string
	// StdoutNoise holds the first 512 bytes of stdout lines that were not
	// JSON-RPC (banners, logs, garbage), newline separated.
	StdoutNoise string
	// LimitExceeded names the limit that got the server killed: one of the
	// Limit constants, or "".
	LimitExceeded string
	// LimitDetail says more about how the limit ended the server, when
	// that changes what the user should do: a server that died at start
	// under RLIMIT_DATA (the memory limit without a writable memory
	// cgroup) could not reserve what its runtime needs to start, and
	// --memory is to be raised (see [DataLimitAtStart]).
	LimitDetail string
	// Started is when the process was started (zero if it never was).
	Started time.Time
	// Canaries maps each secret variable that got a canary to its value.
	Canaries map[string]string
	// Warnings are notes for the report: missing isolation, truncated
	// stderr, the HTTP transport used.
	Warnings []string
	// Mechanisms lists what enforced isolation and limits, such as
	// "userns", "pidns", "netns", "mountns", "cgroup2", "cgroup1:memory",
	// "rlimit:data".
	Mechanisms []string
	// Limits are the limits in force, defaults filled in.
	Limits Limits
	// Redirects describes cross-origin redirects a remote answered and
	// that were not followed because the plan's headers belong to its
	// origin.
	Redirects []string
	// HTTP is the first HTTP answer of a remote server, nil before one.
	HTTP *HTTPOutcome
	// StderrSecrets names the canaries seen anywhere on stderr (not just
	// in StderrTail), as "NAME" or "NAME (encoding)"; never the values.
	StderrSecrets []string
	// WorkDir is the host folder the server started in ("" when it ran in
	// its private HOME); Home is its HOME when that is the real one
	// (backend none).
	WorkDir string
	Home    string
	// Exposed lists the host paths the server saw besides the system.
	Exposed []Exposure
	// Refused says, one line each, which paths the server was named or
	// would have been given and did not see, and why.
	Refused []string
	// InstalledVersion is the version of the package actually installed
	// (a dist-tag such as latest resolved), when known.
	InstalledVersion string
	// SDK names the MCP SDK the installed package depends on, when found
	// in its dependencies; SDKEvidence says where.
	SDK, SDKEvidence string
}

// A Server is one launched (or launchable) MCP server. Its methods are safe
// for concurrent use.
type Server struct {
	plan     *vocab.Plan
	opts     Options
	backend  backend // nil for remote servers
	runID    string
	runDir   string // private temp dir holding home/ and tmp/
	argv     []string
	dir      string   // working directory
	readOnly []string // host paths the server needs read-only (package folder)
	exposed  []Exposure
	refused  []string // paths not exposed, one line each saying why
	masked   []string // host files hidden inside exposed folders
	workDir  string   // host folder the server starts in, "" for its HOME
	env      []string
	canaries map[string]string
	remote   *remoteTransport
	// localHTTP: the server runs in the sandbox and speaks HTTP on a port
	// of the sandbox's network namespace (see localHTTPTransport).
	localHTTP bool
	netns     *os.File // the sandbox's network namespace, once found
	// installed is the package version actually installed, when known;
	// sdk and sdkWhy the MCP SDK among its dependencies.
	installed, sdk, sdkWhy string

	mu         sync.Mutex
	started    bool
	closed     bool
	startTime  time.Time
	spawnErr   string
	exited     bool
	exitCode   *int
	signal     string
	limit      string
	noise      []byte
	warnings   []string
	mechanisms []string
	redirects  []string
	// stderrWatch searches all of stderr for the canaries.
	stderrWatch *stderrWatch
	http        *HTTPOutcome

	proc       *process
	cg         *cgroupSet
	stdin      *os.File
	stdout     *os.File
	stderrR    *os.File
	stderr     *tailBuffer
	msgs       chan jsonrpc.Message
	connClosed chan struct{}
	exitedCh   chan struct{}
	stopCh     chan struct{} // stops the monitor
	writeMu    sync.Mutex
	wg         sync.WaitGroup
	termOnce   sync.Once
	closeOnce  sync.Once
	closeErr   error
	sawOOM     atomic.Bool // stderr showed an allocation failure
	stdoutSeen atomic.Bool // the process wrote a byte to stdout
	// limitDetail is Info.LimitDetail; guarded by mu.
	limitDetail string
}

// Launch prepares plan for running: it validates the plan, installs its
// package if any, and picks a backend. For stdio plans the process starts
// when the returned server's [Server.Transport] is connected; for remote
// plans nothing is contacted until then.
//
// Pre-launch outcomes that belong to the server (it needs configuration,
// its package does not exist, its runtime is missing, ...) are returned as
// a *[LaunchError]. Any other error is an infrastructure failure. The
// caller must Close the returned server.
func Launch(ctx context.Context, plan *vocab.Plan, opts *Options) (*Server, error) {
	if plan == nil {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "no plan")
	}
	if plan.Status != "" {
		return nil, &LaunchError{Status: plan.Status, Detail: plan.StatusDetail}
	}
	o := opts.resolve()
	s := &Server{
		plan:   plan,
		opts:   o,
		runID:  newRunID(),
		stderr: newTailBuffer(stderrTailBytes, o.Limits.StderrBytes),
	}
	s.initChannels()
	switch plan.Transport {
	case vocab.TransportStreamable, vocab.TransportSSE:
		if isLocalHTTP(plan) {
			// Installed and started here; reached inside the sandbox.
			if le := localHTTPUnsupported(plan, &o); le != nil {
				return nil, le
			}
			s.localHTTP = true
			break
		}
		rt, err := newRemoteTransport(ctx, s, plan)
		if err != nil {
			return nil, err
		}
		s.remote = rt
		return s, nil
	case vocab.TransportStdio, "":
	default:
		return nil, launchErrorf(vocab.StatusInvalidPlan, "unknown transport %q", plan.Transport)
	}
	if plan.Command == "" && plan.Package == nil {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "stdio plan has neither command nor package")
	}
	if plan.Package == nil || plan.Package.RegistryType != "oci" {
		// OCI images run in their container engine instead (see installOCI).
		b, warns, err := chooseBackend(o)
		if err != nil {
			return nil, err
		}
		s.backend = b
		s.warnings = append(s.warnings, warns...)
	}
	if err := s.prepare(ctx); err != nil {
		s.removeRunDir()
		return nil, err
	}
	return s, nil
}

func (s *Server) initChannels() {
	s.msgs = make(chan jsonrpc.Message, 16)
	s.connClosed = make(chan struct{})
	s.exitedCh = make(chan struct{})
	s.stopCh = make(chan struct{})
}

func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// prepare creates the run directory, installs the package and computes argv
// and the environment.
func (s *Server) prepare(ctx context.Context) error {
	sweepLeftoversOnce()
	dir, err := os.MkdirTemp("", runDirPrefix+ownerTag()+"-")
	if err != nil {
		return fmt.Errorf("creating run directory: %w", err)
	}
	s.runDir = dir
	for _, sub := range []string{"home", "tmp", "root"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o777); err != nil {
			return fmt.Errorf("creating run directory: %w", err)
		}
	}
	s.dir = filepath.Join(dir, "home")
	var pkgEnv map[string]string
	if s.plan.Package != nil {
		entry, err := install(ctx, s.plan.Package, &s.opts, s.plan.Source)
		if err != nil {
			return err
		}
		s.argv = append(entry.argv, s.plan.Args...)
		if entry.dir != "" {
			s.readOnly = append(s.readOnly, entry.dir)
		}
		s.readOnly = append(s.readOnly, entry.readOnly...)
		s.warnings = append(s.warnings, entry.warnings...)
		pkgEnv = entry.env
		s.installed, s.sdk, s.sdkWhy = installedVersion(s.plan.Package, entry), entry.sdk, entry.sdkWhy
		if entry.runner != nil {
			s.backend = entry.runner
		}
	} else {
		s.argv = append([]string{s.plan.Command}, s.plan.Args...)
	}
	env, canaries, err := buildEnv(s.plan, pkgEnv, s.opts.Env, s.homeDir())
	if err != nil {
		return err
	}
	s.env, s.canaries = env, canaries
	s.stderrWatch = newStderrWatch(canaries)
	switch {
	case s.backend == nil:
	case s.backend.name() == BackendNone:
		// No isolation: the server runs where its client would run it.
		if d := workDirOf(s.plan, &s.opts); d != "" {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				s.dir, s.workDir = d, d
			}
		}
	case s.backend.name() == BackendBuiltin || s.backend.name() == BackendBwrap:
		s.planExposure()
	}
	return nil
}

// homeDir is the server's HOME as the server sees it.
func (s *Server) homeDir() string {
	switch {
	case s.backend == nil:
	case s.backend.name() == BackendBuiltin || s.backend.name() == BackendBwrap:
		return sandboxHome
	case s.backend.name() != BackendNone:
		return "/root" // a container's HOME
	default:
		if h := hostHome(); h != "" {
			return h // backend none runs with the real HOME
		}
	}
	return filepath.Join(s.runDir, "home")
}

func (s *Server) removeRunDir() error {
	if s.runDir == "" {
		return nil
	}
	if err := os.RemoveAll(s.runDir); err != nil {
		return fmt.Errorf("removing run directory: %w", err)
	}
	return nil
}

// Transport returns the transport to hand to the MCP client. For stdio
// servers, connecting it starts the process (once); for remote servers it
// is a go-sdk HTTP client transport, with fallback from streamable HTTP to
// the legacy SSE transport.
func (s *Server) Transport() mcp.Transport {
	if s.remote != nil {
		return s.remote
	}
	if s.localHTTP {
		return &localHTTPTransport{s: s}
	}
	return &stdioTransport{s: s}
}

// Info waits up to wait for the process to exit, then returns a snapshot.
func (s *Server) Info(wait time.Duration) Info {
	s.mu.Lock()
	started := s.started && s.spawnErr == ""
	s.mu.Unlock()
	if started && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-s.exitedCh:
		case <-t.C:
		}
		t.Stop()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	info := Info{
		SpawnError:       s.spawnErr,
		Exited:           s.exited,
		ExitCode:         s.exitCode,
		Signal:           s.signal,
		StderrTail:       s.stderr.String(),
		StdoutNoise:      string(s.noise),
		LimitExceeded:    s.limit,
		LimitDetail:      s.limitDetail,
		Started:          s.startTime,
		Canaries:         map[string]string{},
		Warnings:         append([]string(nil), s.warnings...),
		Mechanisms:       append([]string(nil), s.mechanisms...),
		Limits:           s.opts.Limits,
		Redirects:        append([]string(nil), s.redirects...),
		StderrSecrets:    s.stderrWatch.names(),
		HTTP:             s.http,
		WorkDir:          s.workDir,
		Exposed:          append([]Exposure(nil), s.exposed...),
		Refused:          append([]string(nil), s.refused...),
		InstalledVersion: s.installed,
		SDK:              s.sdk,
		SDKEvidence:      s.sdkWhy,
	}
	if s.backend != nil && s.backend.name() == BackendNone {
		info.Home = s.homeDir()
	}
	maps.Copy(info.Canaries, s.canaries)
	if s.remote != nil {
		info.Backend = "remote"
		info.Network = true
	} else {
		info.Backend = s.backend.name()
		info.Network = s.opts.AllowNetwork || s.backend.name() == BackendNone
	}
	if n := s.stderr.Dropped(); n > 0 {
		info.Warnings = append(info.Warnings, fmt.Sprintf("stderr exceeded %d bytes: %d bytes discarded", s.opts.Limits.StderrBytes, n))
	}
	return info
}

// Close shuts the server down and removes its temporary files. Shutdown
// escalates: close stdin, wait StdinGrace, SIGTERM the process group,
// wait, then SIGKILL the process group and every process left in the run's
// cgroups or pid namespace, daemonized ones included. Close is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		var errs []error
		if s.remote != nil {
			errs = append(errs, s.remote.close())
		}
		s.terminate()
		s.wg.Wait()
		s.mu.Lock()
		p := s.proc
		s.mu.Unlock()
		if p != nil {
			// After the goroutines that may kill through them are done.
			p.closeParentFiles()
		}
		if s.cg != nil {
			errs = append(errs, s.cg.remove())
		}
		if s.proc != nil && s.proc.cleanup != nil {
			errs = append(errs, s.proc.cleanup())
		}
		errs = append(errs, s.removeRunDir())
		if s.netns != nil {
			s.netns.Close()
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// start spawns the process; it is called by the stdio transport's Connect.
func (s *Server) start(ctx context.Context) error {
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return errors.New("starting server: transport already used or server closed")
	}
	s.started = true
	s.startTime = time.Now()
	s.mu.Unlock()
	timeline.Mark("sandbox: starting the server")

	if s.opts.NoCgroups {
		s.cg = &cgroupSet{v1: map[string]string{}}
	} else {
		s.cg = newCgroupSet(ownerTag()+"-"+s.runID, s.opts.Limits)
	}
	timeline.Mark("sandbox: cgroups made")
	_, err := s.spawn(ctx)
	if err != nil {
		s.mu.Lock()
		s.spawnErr = err.Error()
		s.exited = true
		s.mu.Unlock()
		close(s.exitedCh)
		close(s.msgs)
		s.closeConn()
		return err
	}
	s.wg.Go(func() {
		if s.localHTTP {
			s.drainStdout(s.stdout)
			return
		}
		s.readStdout(s.stdout)
	})
	s.wg.Go(func() {
		s.monitor()
	})
	return nil
}

// spawn starts the process with the backend's command, wires stdio and
// cgroups, and starts the goroutines that wait for it.
func (s *Server) spawn(ctx context.Context) (*process, error) {
	p, err := s.backend.command(s)
	if err != nil {
		return nil, err
	}
	timeline.Mark("sandbox: command built")
	pipes, err := newStdioPipes()
	if err != nil {
		return nil, err
	}
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = pipes.inR, pipes.outW, pipes.errW
	err = startProcess(p, s.cg)
	timeline.Mark("sandbox: process cloned")
	pipes.closeChildEnds()
	for _, f := range p.childFiles {
		f.Close()
	}
	if err != nil {
		pipes.closeParentEnds()
		p.closeParentFiles()
		return nil, err
	}
	s.adopt(p, pipes)
	timeline.Mark("sandbox: process started")

	stderrDone := make(chan struct{})
	s.wg.Go(func() {
		defer close(stderrDone)
		s.readStderr(pipes.errR)
	})

	if p.release != nil {
		if err := p.release(ctx, s); err != nil {
			s.abortSpawn(p, pipes, stderrDone)
			return nil, err
		}
		timeline.Mark("sandbox: server running")
	}
	s.mu.Lock()
	s.mechanisms = append(p.mechanisms, s.mechanisms...)
	s.mu.Unlock()
	s.wg.Go(func() {
		s.waitExit(p, stderrDone)
	})
	return p, nil
}

// stdioPipes are a server's stdin, stdout and stderr: the child's ends
// (inR, outW, errW), closed in the parent once it started, and the
// parent's.
type stdioPipes struct {
	inR, inW, outR, outW, errR, errW *os.File
}

// newStdioPipes opens the three pipes; on error it closes what it opened.
func newStdioPipes() (*stdioPipes, error) {
	var sp stdioPipes
	var err error
	if sp.inR, sp.inW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("creating stdin pipe: %w", err)
	}
	if sp.outR, sp.outW, err = os.Pipe(); err != nil {
		sp.inR.Close()
		sp.inW.Close()
		return nil, fmt.Errorf("creating stdout pipe: %w", err)
	}
	if sp.errR, sp.errW, err = os.Pipe(); err != nil {
		sp.inR.Close()
		sp.inW.Close()
		sp.outR.Close()
		sp.outW.Close()
		return nil, fmt.Errorf("creating stderr pipe: %w", err)
	}
	return &sp, nil
}

// closeChildEnds closes the ends the child inherited.
func (sp *stdioPipes) closeChildEnds() {
	sp.inR.Close()
	sp.outW.Close()
	sp.errW.Close()
}

// closeParentEnds closes mcpvet's ends.
func (sp *stdioPipes) closeParentEnds() {
	sp.inW.Close()
	sp.outR.Close()
	sp.errR.Close()
}

// startProcess starts p.cmd in a session of its own, killed when mcpvet
// dies, and straight into cg when the kernel allows it. When it does not,
// p.cmd is replaced by a copy started without the cgroup (it is attached
// after start).
func startProcess(p *process, cg *cgroupSet) error {
	cmd := p.cmd
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A new session, not only a process group: the server must have no
	// controlling terminal (TIOCSTI on it would type into the user's
	// shell), under every backend, none included.
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	markInheritedCloseOnExec()
	if fd := cg.cloneFD(); fd >= 0 {
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = fd
	}
	err := cmd.Start()
	if err != nil && cmd.SysProcAttr.UseCgroupFD && !isExecError(err) {
		// Kernels before 5.7 (or seccomp profiles) refuse clone3 with
		// CLONE_INTO_CGROUP: attach after start instead.
		attr := *cmd.SysProcAttr
		attr.UseCgroupFD = false
		cmd = &exec.Cmd{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir,
			Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr, ExtraFiles: cmd.ExtraFiles, SysProcAttr: &attr}
		p.cmd = cmd
		err = cmd.Start()
	}
	return err
}

// adopt makes a started process the server's: its stdio, the cgroup
// mechanisms (or a warning that there are none), and the cgroups it was
// not cloned into.
func (s *Server) adopt(p *process, pipes *stdioPipes) {
	s.stdin, s.stdout, s.stderrR = pipes.inW, pipes.outR, pipes.errR
	s.mu.Lock()
	s.proc = p
	s.mechanisms = append(s.mechanisms, s.cg.mechanisms...)
	if !s.cg.tracks() {
		s.warnings = append(s.warnings, "no cgroup available: processes that leave the process group may outlive the run")
	}
	s.mu.Unlock()
	if err := s.cg.attach(p.cmd.Process.Pid, p.cmd.SysProcAttr.UseCgroupFD); err != nil && s.cg.tracks() {
		s.warn(err.Error())
	}
}

// readStderr copies the server's stderr into s.stderr and the canary
// watch until EOF, and notes an allocation failure in s.sawOOM.
func (s *Server) readStderr(r *os.File) {
	buf := make([]byte, 32<<10)
	var carry []byte // end of the previous chunk, for signs split across reads
	for {
		n, err := r.Read(buf)
		s.stderr.Write(buf[:n])
		s.stderrWatch.Write(buf[:n])
		if n > 0 && !s.sawOOM.Load() {
			window := append(carry, buf[:n]...)
			if outOfMemory(string(window)) {
				s.sawOOM.Store(true)
			}
			carry = append(carry[:0], window[max(0, len(window)-64):]...)
		}
		if err != nil {
			return
		}
	}
}

// abortSpawn undoes a start whose release failed: it kills and reaps the
// process, closes mcpvet's files and waits for stderr to be read.
func (s *Server) abortSpawn(p *process, pipes *stdioPipes, stderrDone <-chan struct{}) {
	s.killTree()
	s.mu.Lock()
	s.proc = nil
	s.mu.Unlock()
	_ = p.cmd.Wait()
	pipes.closeParentEnds()
	p.closeParentFiles()
	<-stderrDone
}

// waitExit waits for the process, gives stderr a moment to drain so Info
// sees the last words, records the exit and closes s.exitedCh.
func (s *Server) waitExit(p *process, stderrDone <-chan struct{}) {
	werr := p.cmd.Wait()
	t := time.NewTimer(200 * time.Millisecond)
	select {
	case <-stderrDone:
	case <-t.C:
	}
	t.Stop()
	s.recordExit(p, werr)
	close(s.exitedCh)
}

// isExecError reports whether err is the child's execve failing (the
// program is missing or not executable) rather than the fork.
func isExecError(err error) bool {
	for _, e := range []error{syscall.ENOENT, syscall.EACCES, syscall.ENOEXEC, syscall.ENOTDIR, syscall.ELOOP, syscall.ETXTBSY, syscall.EISDIR} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// outOfMemory reports whether stderr shows a runtime giving up on an
// allocation, which is how an RLIMIT_DATA limit manifests.
func outOfMemory(stderr string) bool {
	for _, sign := range []string{
		"out of memory",          // Go ("fatal error: out of memory..."), Node ("JavaScript heap out of memory")
		"Cannot allocate memory", // libc (ENOMEM)
		"cannot allocate memory", // Go at start ("fatal error: runtime: cannot allocate memory"), Go's ENOMEM
		"failed to allocate",     // sanitizers and allocators
		"Allocation failed",      // V8 ("FATAL ERROR: ... Allocation failed")
		"MemoryError",            // Python
		"std::bad_alloc",         // C++
		"OutOfMemoryError",       // JVM
	} {
		if strings.Contains(stderr, sign) {
			return true
		}
	}
	return false
}

// DataLimitAtStart is [Info.LimitDetail] for a server that died of an
// allocation failure under RLIMIT_DATA before it wrote anything to stdout.
func DataLimitAtStart(memory int64) string {
	return fmt.Sprintf("died at start under the data limit (RLIMIT_DATA of %d bytes, the memory limit where no memory cgroup can be used), "+
		"which counts the memory a runtime reserves, not only what it uses: raise --memory", memory)
}

// cpuTime is the user plus system time of a process and the children it
// waited for.
func cpuTime(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

// procInfo is what forEachProc reads from /proc/PID/stat.
type procInfo struct {
	pid, ppid, threads int
	// cpu is user plus system time, including reaped children.
	cpu time.Duration
}

// clockTick is the unit of CPU times in /proc (USER_HZ, 100 on every
// Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

// treeUsage returns the tasks (threads) and CPU time of root and its
// descendants, from /proc.
func treeUsage(root int) (tasks int, cpu time.Duration) {
	forEachProc(func(p procInfo, under func(int) bool) {
		if under(root) {
			tasks += p.threads
			cpu += p.cpu
		}
	})
	return tasks, cpu
}

// forEachProc calls f for every process in /proc, with a function telling
// whether a pid is the process or one of its ancestors.
func forEachProc(f func(p procInfo, under func(int) bool)) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	procs := map[int]procInfo{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: split after
		// the last ')'. From there, field 0 is the state (3rd field of
		// the line): ppid is 1, utime..cstime 11..14, num_threads 17.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) < 18 {
			continue
		}
		num := func(i int) int {
			n, _ := strconv.Atoi(fields[i])
			return n
		}
		ticks := num(11) + num(12) + num(13) + num(14)
		procs[pid] = procInfo{pid: pid, ppid: num(1), threads: num(17), cpu: time.Duration(ticks) * clockTick}
	}
	for pid, p := range procs {
		under := func(root int) bool {
			for q, hops := pid, 0; q > 0 && hops < 4096; q, hops = procs[q].ppid, hops+1 {
				if q == root {
					return true
				}
			}
			return false
		}
		f(p, under)
	}
}

// recordExit stores how the process ended.
func (s *Server) recordExit(p *process, werr error) {
	code, sig := exitStatus(p.cmd.ProcessState)
	if p.exitStatus != nil {
		if c, sg, ok := p.exitStatus(); ok {
			code, sig = c, sg
		}
	}
	limit := ""
	if s.cg != nil {
		limit = s.cg.exceeded(s.opts.Limits.CPUTime)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exited = true
	s.exitCode, s.signal = code, sig
	if s.limit == "" {
		s.limit = limit
	}
	if s.limit == "" && sig == "SIGXCPU" {
		s.limit = LimitCPUTime
	}
	if s.limit == "" && slices.Contains(s.mechanisms, "rlimit:data") && s.sawOOM.Load() {
		s.limit = LimitMemory
		if !s.stdoutSeen.Load() {
			// Nothing came out: the runtime could not even reserve what it
			// starts with (Go's arenas, V8's heap, Python's import).
			s.limitDetail = DataLimitAtStart(s.opts.Limits.MemoryBytes)
		}
	}
	if s.limit == "" && slices.Contains(s.mechanisms, "rlimit:cpu") && sig != "" && cpuTime(p.cmd.ProcessState) >= s.opts.Limits.CPUTime {
		// Runtimes that ignore SIGXCPU (Go) die of the hard limit's SIGKILL.
		s.limit = LimitCPUTime
	}
	if s.limit == "" && code == nil && sig == "" && werr != nil {
		s.warnings = append(s.warnings, "waiting for process: "+werr.Error())
	}
}

func exitStatus(ps *os.ProcessState) (*int, string) {
	if ps == nil {
		return nil, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return nil, signalName(ws.Signal())
	}
	c := ps.ExitCode()
	return &c, ""
}

func (s *Server) warn(msg string) {
	s.mu.Lock()
	s.warnings = append(s.warnings, msg)
	s.mu.Unlock()
}

// monitor enforces the wall-clock limit and polls the cgroups for limits
// the kernel enforces silently (pids) or not at all (CPU across the tree).
func (s *Server) monitor() {
	lim := s.opts.Limits
	var wall <-chan time.Time
	if lim.Wall > 0 {
		t := time.NewTimer(lim.Wall)
		defer t.Stop()
		wall = t.C
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.stopCh:
			return
		case <-wall:
			s.limitKill(LimitWallTime)
			return
		case <-tick.C:
			if r := s.cg.exceeded(lim.CPUTime); r != "" {
				s.limitKill(r)
				return
			}
			countTasks := lim.Processes > 0 && !s.cg.limitsProcesses()
			countCPU := lim.CPUTime > 0 && !s.cg.measuresCPU()
			if countTasks || countCPU {
				// No cgroup: measure the tree from /proc. RLIMIT_NPROC
				// makes fork fail but tells nobody, and RLIMIT_CPU is per
				// process.
				tasks, cpu := treeUsage(s.proc.cmd.Process.Pid)
				if countTasks && tasks >= lim.Processes {
					s.limitKill(LimitProcesses)
					return
				}
				if countCPU && cpu > lim.CPUTime {
					s.limitKill(LimitCPUTime)
					return
				}
			}
		}
	}
}

// setLimit records reason unless a limit was already recorded.
func (s *Server) setLimit(reason string) {
	s.mu.Lock()
	if s.limit == "" {
		s.limit = reason
	}
	s.mu.Unlock()
}

// limitKill records reason (unless a limit was already recorded) and kills
// the process tree.
func (s *Server) limitKill(reason string) {
	s.setLimit(reason)
	s.killTree()
}

// killTree SIGKILLs the process group, the backend's own targets and every
// process in the run's cgroups.
func (s *Server) killTree() {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	_ = p.cmd.Process.Kill()
	if p.kill != nil {
		p.kill()
	}
	if s.cg != nil && s.cg.tracks() {
		s.cg.kill(2 * time.Second)
	}
}

// signalTree sends sig to the process group and to the backend's inner
// server process.
func (s *Server) signalTree(sig syscall.Signal) {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil || p.cmd.Process == nil {
		return
	}
	if !p.noGroupSignal {
		_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	}
	if p.signal != nil {
		p.signal(sig)
	}
}

func (s *Server) closeConn() {
	select {
	case <-s.connClosed:
	default:
		close(s.connClosed)
	}
}

// terminate runs the shutdown escalation once.
func (s *Server) terminate() {
	s.termOnce.Do(func() {
		s.mu.Lock()
		s.closed = true // a late Connect must not start the process
		live := s.started && s.proc != nil
		s.mu.Unlock()
		s.closeConn()
		if !live {
			return
		}
		_ = s.stdin.Close()
		if !waitFor(s.exitedCh, s.opts.StdinGrace) {
			s.signalTree(syscall.SIGTERM)
			waitFor(s.exitedCh, s.opts.TerminateGrace)
		}
		// Always: the main process may be gone while descendants live on.
		s.killTree()
		waitFor(s.exitedCh, 10*time.Second)
		close(s.stopCh)
		_ = s.stdout.Close()
		_ = s.stderrR.Close()
	})
}

// waitFor waits for ch to close, up to d. It reports whether it did.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
