package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestS10XStageSources: the stage helper stages the source of every
// complete --bind and --ro-bind pair outside the system folders, /etc and
// /dev/null, in order, as stageDir/0, stageDir/1, ...; other arguments,
// and a trailing bind word without its destination, are left alone.
func TestS10XStageSources(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		wantArgs []string
		wantSrcs []string
	}{
		{"sources outside the system",
			[]string{"--ro-bind", "/usr", "/usr", "--bind", "/tmp/run/home", "/home", "--ro-bind", "/etc/passwd", "/etc/passwd",
				"--ro-bind", "/dev/null", "/home/.ssh", "--ro-bind", "/srv/proj", "/srv/proj", "--chdir", "/home", "cmd"},
			[]string{"--ro-bind", "/usr", "/usr", "--bind", "/stage/0", "/home", "--ro-bind", "/etc/passwd", "/etc/passwd",
				"--ro-bind", "/dev/null", "/home/.ssh", "--ro-bind", "/stage/1", "/srv/proj", "--chdir", "/home", "cmd"},
			[]string{"/tmp/run/home", "/srv/proj"}},
		{"bind without a destination",
			[]string{"--ro-bind", "/srv/proj", "/srv/proj", "--bind", "/srv/data"},
			[]string{"--ro-bind", "/stage/0", "/srv/proj", "--bind", "/srv/data"},
			[]string{"/srv/proj"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, srcs := stageBwrapSources(tc.args, "/stage")
			if diff := cmp.Diff(tc.wantArgs, args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSrcs, srcs); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
		})
	}
}

// s10xRunStage runs the bwrap stage helper (the test binary re-executed as
// bwrapStageArgv0, in a mount namespace of its own as bwrap.go starts it)
// with args, and returns its exit code and combined output.
func s10xRunStage(t *testing.T, args ...string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := &exec.Cmd{Path: exe, Args: append([]string{bwrapStageArgv0}, args...), Stdout: &out, Stderr: &out,
		SysProcAttr: &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}}
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running the stage helper: %v", err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// s10xStageDirs returns a staging folder the run's uid can reach and a
// folder it cannot (0700, root's), as a go-build or t.TempDir folder is.
func s10xStageDirs(t *testing.T) (stage, private string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the stage helper runs only as root")
	}
	stage, err := os.MkdirTemp("", "mcpvet-s10x-stage-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stage) })
	if err := os.Chmod(stage, 0o755); err != nil {
		t.Fatal(err)
	}
	private = t.TempDir()
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	return stage, private
}

// TestS10XBwrapStage: the stage helper binds each source, even one below a
// folder the run's uid cannot enter, into the staging folder, drops to
// that uid (never root) and execs the program with the rest of argv, under
// the rlimits of its identity argument: RLIMIT_CPU's hard limit a second
// above the soft one (SIGXCPU first, SIGKILL a second later), the others
// hard at the soft value. Without sources, and with a program without
// arguments, it runs the program all the same. An identity naming root,
// or a source count that leaves no program, is refused (exit 126) before
// anything runs.
func TestS10XBwrapStage(t *testing.T) {
	stage, private := s10xStageDirs(t)
	src := filepath.Join(private, "notes.txt")
	if err := os.WriteFile(src, []byte("staged-content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const nobody = "65534"
	ident := fmt.Sprintf("%s,%d=3,%d=%d", nobody, unix.RLIMIT_CPU, unix.RLIMIT_DATA, 512<<20)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // in the output
	}{
		{"one source", []string{ident, stage, "1", src, "/bin/sh", "-c",
			`cat "$0"; id -u; echo "cpu $(ulimit -St) $(ulimit -Ht)"; echo "data $(ulimit -Sd) $(ulimit -Hd)"`, filepath.Join(stage, "0")},
			0, []string{"staged-content\n65534\ncpu 3 4\ndata 524288 524288\n"}},
		{"no source, no argument", []string{nobody, stage, "0", "/usr/bin/id"}, 0, []string{"uid=65534"}},
		{"root", []string{"0", stage, "0", "/usr/bin/id"}, 126, []string{`mcpvet bwrap stage: uid "0"`}},
		{"no program after the sources", []string{nobody, stage, "1", src}, 126, []string{`mcpvet bwrap stage: source count "1"`}},
		{"no program", []string{nobody, stage, "0"}, 126, []string{"mcpvet bwrap stage: bad invocation"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := s10xRunStage(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (output %q)", code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output %q, want it to contain %q", out, w)
				}
			}
			if tc.code != 0 && strings.Contains(out, "uid=") {
				t.Errorf("output %q: the program ran", out)
			}
		})
	}
}

// TestS10XLocalHTTPRefusedAtLaunch: Launch refuses a local HTTP server
// where the sandbox has no network namespace of its own (--sandbox none)
// with a *LaunchError (runtime_unavailable) and no server, before anything
// is installed or run.
func TestS10XLocalHTTPRefusedAtLaunch(t *testing.T) {
	plan := &vocab.Plan{Key: "http", Name: "http", Transport: vocab.TransportStreamable, Command: "srv", URL: "http://localhost:8089/mcp"}
	s, err := Launch(context.Background(), plan, testOptions(BackendNone))
	var le *LaunchError
	if !errors.As(err, &le) || le.Status != vocab.StatusRuntimeUnavailable || s != nil {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Launch = %v, %v; want no server and a runtime_unavailable *LaunchError", s, err)
	}
}

// s10xNetnsFDs lists this process's descriptors open on the network
// namespace link (such as "net:[4026532291]").
func s10xNetnsFDs(t *testing.T, link string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var fds []string
	for _, e := range entries {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && l == link {
			fds = append(fds, e.Name())
		}
	}
	return fds
}

// TestS10XLocalHTTPNetnsReleased: the handle mcpvet holds on a local HTTP
// server's network namespace (to reach its port there) is released when
// the server is closed: a scan of many local servers must not keep a
// descriptor, and the namespace, per server.
func TestS10XLocalHTTPNetnsReleased(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("entering the sandbox's network namespace needs root")
	}
	s10uNeedNamespaces(t)
	bin := testfixture.Path(t, "http")
	plan := &vocab.Plan{Key: "http", Name: "http", Transport: vocab.TransportStreamable, Command: bin,
		Args: []string{"-addr", "127.0.0.1:8089"}, URL: "http://localhost:8089/mcp"}
	s := launch(t, plan, testOptions(BackendBuiltin), "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := s.Transport().Connect(ctx)
	if err != nil {
		t.Fatalf("Connect: %v (stderr %q)", err, s.Info(0).StderrTail)
	}
	s.mu.Lock()
	ns := s.netns
	s.mu.Unlock()
	if ns == nil {
		t.Fatal("no network namespace handle after Connect")
	}
	link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", ns.Fd()))
	if err != nil || !strings.HasPrefix(link, "net:[") {
		t.Fatalf("namespace handle links to %q (%v), want net:[...]", link, err)
	}
	conn.Close()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if fds := s10xNetnsFDs(t, link); len(fds) != 0 {
		t.Errorf("descriptors %v still open on the closed server's namespace %s", fds, link)
	}
}

// TestS10XNoneRealHome: under --sandbox none the server runs with the
// user's real HOME (as its client would run it), and the report says
// which HOME that was.
func TestS10XNoneRealHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	s := launch(t, &vocab.Plan{Key: "sh", Name: "sh", Transport: vocab.TransportStdio, Command: "/bin/sh",
		Args: []string{"-c", `echo "home=$HOME" >&2`}}, testOptions(BackendNone), "")
	if _, err := s.Transport().Connect(context.Background()); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	info := s.Info(10 * time.Second)
	if info.Home != home {
		t.Errorf("Info.Home = %q, want the real HOME %q", info.Home, home)
	}
	if !strings.Contains(info.StderrTail, "home="+home+"\n") {
		t.Errorf("the server saw %q, want HOME=%s", info.StderrTail, home)
	}
}

func init() {
	// s10x-cpu MARKER MODE uses CPU as the CPU limit tests need: see
	// runS10XCPU.
	fakes["s10x-cpu"] = runS10XCPU
	// s10x-term MARKER ignores SIGTERM and waits for its child, which
	// says "child ready" on stderr and, on SIGTERM, "child got SIGTERM"
	// and exits 0.
	fakes["s10x-term"] = func(args []string) int {
		signal.Ignore(syscall.SIGTERM)
		exe, err := os.Executable()
		if err != nil {
			return 1
		}
		c := exec.Command(exe, append([]string{fakeArg, "s10x-term-child"}, args...)...)
		c.Stderr = os.Stderr
		if err := c.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			return 1
		}
		return 0
	}
	fakes["s10x-term-child"] = func([]string) int {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM)
		fmt.Fprintln(os.Stderr, "child ready")
		<-ch
		fmt.Fprintln(os.Stderr, "child got SIGTERM")
		return 0
	}
}

// s10xSink keeps the user-time loop from being optimised away.
var s10xSink int

// s10xCPU returns the CPU time (user plus system) of this process, or of
// the children it waited for.
func s10xCPU(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// s10xBurn uses d of this process's CPU time, in the kernel (reading
// /dev/zero) or in user space.
func s10xBurn(d time.Duration, kernel bool) {
	f, err := os.Open("/dev/zero")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for s10xCPU(syscall.RUSAGE_SELF) < d {
		if kernel {
			_, _ = f.Read(buf)
			continue
		}
		for i := range 1 << 20 {
			s10xSink += i * i
		}
	}
}

// runS10XCPU: args are [marker, mode]. Modes:
//   - live-sys: five children each use 300 ms of system time and stay.
//   - reaped-user, reaped-sys: children one after another use 300 ms of
//     user or system time and exit, waited for (ten at most), then it stays.
//   - selfkill-sys: it uses one second of system time, then SIGKILLs itself.
//   - burn-user, burn-sys, burn-sys-stay: a child's part (300 ms).
func runS10XCPU(args []string) int {
	if len(args) != 2 {
		return 2
	}
	marker, mode := args[0], args[1]
	const part = 300 * time.Millisecond
	child := func(m string) *exec.Cmd {
		exe, err := os.Executable()
		if err != nil {
			panic(err)
		}
		c := exec.Command(exe, fakeArg, "s10x-cpu", marker, m)
		c.Stderr = os.Stderr
		return c
	}
	switch mode {
	case "burn-user", "burn-sys", "burn-sys-stay":
		s10xBurn(part, mode != "burn-user")
		if mode == "burn-sys-stay" {
			time.Sleep(time.Hour)
		}
		return 0
	case "live-sys":
		var cs []*exec.Cmd
		for range 5 {
			c := child("burn-sys-stay")
			if err := c.Start(); err != nil {
				panic(err)
			}
			cs = append(cs, c)
		}
		for _, c := range cs {
			_ = c.Wait()
		}
	case "reaped-user", "reaped-sys":
		for range 10 {
			if err := child(strings.Replace(mode, "reaped", "burn", 1)).Run(); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
		}
	case "selfkill-sys":
		s10xBurn(time.Second, true)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	default:
		return 2
	}
	time.Sleep(time.Hour)
	return 0
}

// TestS10XCPULimitAcrossTree: without a cgroup that measures CPU (rlimits
// and /proc only), the CPU limit holds for the server's whole process
// tree, which RLIMIT_CPU (per process) does not: the tree's CPU time
// counts user and system time of live processes and of the children they
// waited for, and a server that dies of a signal having used the limit
// (as under RLIMIT_CPU's hard SIGKILL, between two polls) is reported over
// it too. Each case ends with the server killed over the CPU limit, not at
// the wall-clock limit.
func TestS10XCPULimitAcrossTree(t *testing.T) {
	for _, mode := range []string{"live-sys", "reaped-user", "reaped-sys", "selfkill-sys"} {
		t.Run(mode, func(t *testing.T) {
			plan, marker := fakePlan(t, "s10x-cpu")
			plan.Args = append(plan.Args, mode)
			opts := s10uNoneOptions(1 << 30)
			opts.Limits.CPUTime = time.Second
			// Far beyond the second of CPU, even on a loaded machine, and
			// short enough that a run the CPU limit misses ends failing.
			opts.Limits.Wall = 25 * time.Second
			s := launch(t, plan, opts, marker)
			connect(t, s)
			info := s.Info(40 * time.Second)
			if info.LimitExceeded != LimitCPUTime || !info.Exited || info.Signal != "SIGKILL" {
				t.Errorf("LimitExceeded=%q Exited=%v Signal=%q, want %q true SIGKILL (mechanisms %v, stderr %q)",
					info.LimitExceeded, info.Exited, info.Signal, LimitCPUTime, info.Mechanisms, info.StderrTail)
			}
		})
	}
}

// TestS10XExitOutcome: how a server ended is reported as it happened: an
// exit status or a signal is the server's outcome, not a warning about
// mcpvet's wait; death by SIGXCPU (RLIMIT_CPU's signal) is the CPU limit
// even where mcpvet cannot see the CPU time it used.
func TestS10XExitOutcome(t *testing.T) {
	code3 := 3
	for _, tc := range []struct {
		name   string
		script string
		code   *int
		signal string
		limit  string
	}{
		{"exit status", "exit 3", &code3, "", ""},
		{"signal", "kill -TERM $$", nil, "SIGTERM", ""},
		{"SIGXCPU", "kill -XCPU $$", nil, "SIGXCPU", LimitCPUTime},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := launch(t, &vocab.Plan{Key: "sh", Name: "sh", Transport: vocab.TransportStdio, Command: "/bin/sh",
				Args: []string{"-c", tc.script}}, s10uNoneOptions(1<<30), "")
			if _, err := s.Transport().Connect(context.Background()); err != nil {
				t.Fatalf("Connect: %v", err)
			}
			info := s.Info(10 * time.Second)
			if !info.Exited || !cmp.Equal(info.ExitCode, tc.code) || info.Signal != tc.signal || info.LimitExceeded != tc.limit {
				t.Errorf("Exited=%v ExitCode=%v Signal=%q LimitExceeded=%q, want true %v %q %q",
					info.Exited, info.ExitCode, info.Signal, info.LimitExceeded, tc.code, tc.signal, tc.limit)
			}
			for _, w := range info.Warnings {
				if strings.Contains(w, "waiting for process") {
					t.Errorf("warning %q for an ordinary end", w)
				}
			}
		})
	}
}

// TestS10XWaitFailureWarned: when the wait for the server fails and gives
// no exit status (here because SIGCHLD is ignored in mcpvet's process, so
// the kernel reaps the server itself), the run says so in a warning
// rather than passing for a clean end.
func TestS10XWaitFailureWarned(t *testing.T) {
	if os.Getenv("MCPVET_S10X_SIGCHLD_CHILD") != "1" {
		// Ignoring SIGCHLD is process-wide: the kernel would reap every
		// child of this binary, other tests' included, while it lasts.
		// The check runs in a copy of the test binary of its own.
		args := []string{"-test.run=^TestS10XWaitFailureWarned$", "-test.v", "-test.count=1"}
		if testing.Short() {
			args = append(args, "-test.short")
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "MCPVET_S10X_SIGCHLD_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestS10XWaitFailureWarned") {
			t.Fatalf("the check in its own process: %v\n%s", err, out)
		}
		return
	}
	signal.Ignore(syscall.SIGCHLD)
	s := launch(t, &vocab.Plan{Key: "sh", Name: "sh", Transport: vocab.TransportStdio, Command: "/bin/sh",
		Args: []string{"-c", "exit 0"}}, testOptions(BackendNone), "")
	if _, err := s.Transport().Connect(context.Background()); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	info := s.Info(10 * time.Second)
	if !info.Exited || info.ExitCode != nil || info.Signal != "" {
		t.Errorf("Exited=%v ExitCode=%v Signal=%q, want true nil \"\" (no status to be had)", info.Exited, info.ExitCode, info.Signal)
	}
	if !slices.ContainsFunc(info.Warnings, func(w string) bool { return strings.HasPrefix(w, "waiting for process: ") }) {
		t.Errorf("warnings %q, want one saying the wait failed", info.Warnings)
	}
}

// TestS10XProcessesAtTheCap: without a pids cgroup the process limit is
// read from /proc, where a fork refused at the cap (RLIMIT_NPROC) leaves
// no trace: a tree that holds as many tasks as the limit is over it and
// is killed.
func TestS10XProcessesAtTheCap(t *testing.T) {
	opts := s10uNoneOptions(1 << 30)
	opts.Limits.Processes = 3
	opts.Limits.Wall = 20 * time.Second
	// The shell and its two sleeps: three single-threaded tasks.
	s := launch(t, &vocab.Plan{Key: "sh", Name: "sh", Transport: vocab.TransportStdio, Command: "/bin/sh",
		Args: []string{"-c", "sleep 1000 & sleep 1000 & wait"}}, opts, "")
	if _, err := s.Transport().Connect(context.Background()); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	info := s.Info(30 * time.Second)
	if info.LimitExceeded != LimitProcesses || !info.Exited || info.Signal != "SIGKILL" {
		t.Errorf("LimitExceeded=%q Exited=%v Signal=%q, want %q true SIGKILL", info.LimitExceeded, info.Exited, info.Signal, LimitProcesses)
	}
}

// TestS10XTermReachesTheGroup: the shutdown's SIGTERM goes to the server's
// whole process group, so a child of the server that ends cleanly on
// SIGTERM does so (and the server, waiting for it, exits 0) before any
// SIGKILL.
func TestS10XTermReachesTheGroup(t *testing.T) {
	plan, marker := fakePlan(t, "s10x-term")
	opts := testOptions(BackendNone)
	opts.StdinGrace = 100 * time.Millisecond
	opts.TerminateGrace = 10 * time.Second // room on a loaded machine; the original needs none of it
	s := launch(t, plan, opts, marker)
	connect(t, s)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.Info(0).StderrTail, "child ready") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	info := s.Info(0)
	zero := 0
	if !strings.Contains(info.StderrTail, "child got SIGTERM") || !cmp.Equal(info.ExitCode, &zero) || info.Signal != "" {
		t.Errorf("ExitCode=%v Signal=%q stderr %q, want exit 0 after the child got SIGTERM", info.ExitCode, info.Signal, info.StderrTail)
	}
}

// TestS10XLimitKillReachesDaemons: a server killed at a limit is killed
// with every process of its run, daemonized ones (a new session,
// reparented away from the server) included, at the kill and not only
// when the server is closed.
func TestS10XLimitKillReachesDaemons(t *testing.T) {
	cg := newCgroupSet("probe-"+newRunID(), Limits{Processes: 256})
	if cg == nil || !cg.tracks() {
		if cg != nil {
			cg.remove()
		}
		t.Skip("no cgroup tracks the run's processes here")
	}
	cg.remove()
	plan, marker := fakePlan(t, "daemon")
	opts := testOptions(BackendNone)
	opts.Limits.Wall = 3 * time.Second
	s := launch(t, plan, opts, marker)
	connect(t, s)
	// The fake, its middle child (gone) and the sleeper.
	deadline := time.Now().Add(10 * time.Second)
	for len(markedProcesses(marker)) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	info := s.Info(20 * time.Second)
	if info.LimitExceeded != LimitWallTime {
		t.Fatalf("LimitExceeded=%q, want %q", info.LimitExceeded, LimitWallTime)
	}
	assertNoProcess(t, marker) // before Close
}
