package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
