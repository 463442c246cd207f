package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestS10ULocalHTTPPlans: a plan is a local HTTP server when it speaks
// HTTP (streamable-http or sse) and runs here (a package or a command); a
// plan that only names a URL is a remote server, and a stdio plan is
// neither.
func TestS10ULocalHTTPPlans(t *testing.T) {
	pkg := &vocab.Package{RegistryType: "npm", Identifier: "mcpvet-http", Version: "1.0.0"}
	for _, tc := range []struct {
		name string
		plan vocab.Plan
		want bool
	}{
		{"streamable command", vocab.Plan{Transport: vocab.TransportStreamable, Command: "srv", URL: "http://localhost:8089/mcp"}, true},
		{"streamable package", vocab.Plan{Transport: vocab.TransportStreamable, Package: pkg, URL: "http://localhost:8089/mcp"}, true},
		{"sse command", vocab.Plan{Transport: vocab.TransportSSE, Command: "srv", URL: "http://localhost:8089/sse"}, true},
		{"sse package", vocab.Plan{Transport: vocab.TransportSSE, Package: pkg, URL: "http://localhost:8089/sse"}, true},
		{"remote streamable", vocab.Plan{Transport: vocab.TransportStreamable, URL: "https://example.com/mcp"}, false},
		{"remote sse", vocab.Plan{Transport: vocab.TransportSSE, URL: "https://example.com/sse"}, false},
		{"stdio command", vocab.Plan{Transport: vocab.TransportStdio, Command: "srv"}, false},
		{"stdio package", vocab.Plan{Transport: vocab.TransportStdio, Package: pkg}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isLocalHTTP(&tc.plan); got != tc.want {
				t.Errorf("isLocalHTTP = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestS10ULocalHTTPUnsupported: a local HTTP server is refused before
// anything runs when its URL is not local to the sandbox (invalid_plan),
// or when the sandbox has no network namespace that mcpvet may enter
// (runtime_unavailable, naming the server and saying why); with the
// builtin backend as root it is supported.
func TestS10ULocalHTTPUnsupported(t *testing.T) {
	const local = "http://localhost:8089/mcp"
	npm := &vocab.Package{RegistryType: "npm", Identifier: "mcpvet-http", Version: "1.0.0"}
	oci := &vocab.Package{RegistryType: "oci", Identifier: "example/http", Version: "1.0.0"}
	root := os.Geteuid() == 0
	for _, tc := range []struct {
		name   string
		plan   vocab.Plan
		opts   Options
		status vocab.Status // "" for supported
		detail []string
	}{
		{"npm package, builtin", vocab.Plan{Transport: vocab.TransportStreamable, Package: npm, URL: local}, Options{Backend: BackendBuiltin}, "", nil},
		{"command, builtin", vocab.Plan{Transport: vocab.TransportSSE, Command: "srv", URL: local}, Options{Backend: BackendBuiltin}, "", nil},
		{"URL not local", vocab.Plan{Transport: vocab.TransportStreamable, Package: npm, URL: "https://example.com/mcp"}, Options{Backend: BackendBuiltin},
			vocab.StatusInvalidPlan, []string{"must name a local address"}},
		{"URL not http", vocab.Plan{Transport: vocab.TransportStreamable, Command: "srv", URL: "ftp://localhost:21/"}, Options{Backend: BackendNone},
			vocab.StatusInvalidPlan, []string{"want an http URL"}},
		{"oci package", vocab.Plan{Transport: vocab.TransportStreamable, Package: oci, URL: local}, Options{Backend: BackendBuiltin},
			vocab.StatusRuntimeUnavailable, []string{"oci package example/http serves MCP over streamable-http at " + local, "an OCI image runs in its container engine's network namespace"}},
		{"sandbox none", vocab.Plan{Transport: vocab.TransportStreamable, Package: npm, URL: local}, Options{Backend: BackendNone},
			vocab.StatusRuntimeUnavailable, []string{"npm package mcpvet-http serves MCP", "--sandbox none gives the server no network namespace"}},
		{"allow network", vocab.Plan{Transport: vocab.TransportSSE, Command: "srv", URL: local}, Options{Backend: BackendBuiltin, AllowNetwork: true},
			vocab.StatusRuntimeUnavailable, []string{"srv serves MCP over sse at " + local, "with --allow-network the server shares the host's network namespace", "was not launched"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, detail := tc.status, tc.detail
			if !root && want == "" {
				want, detail = vocab.StatusRuntimeUnavailable, []string{"needs root"}
			}
			le := localHTTPUnsupported(&tc.plan, &tc.opts)
			if want == "" {
				if le != nil {
					t.Fatalf("localHTTPUnsupported = %v, want nil (supported)", le)
				}
				return
			}
			if le == nil {
				t.Fatalf("localHTTPUnsupported = nil, want %s", want)
			}
			if le.Status != want {
				t.Errorf("status %s (%s), want %s", le.Status, le.Detail, want)
			}
			for _, d := range detail {
				if !strings.Contains(le.Detail, d) {
					t.Errorf("detail %q, want it to contain %q", le.Detail, d)
				}
			}
		})
	}
}

// TestS10ULocalHTTPAddr: the address dialled inside the sandbox comes from
// the plan's URL: an http or https URL with a host, on the loopback or
// unspecified address (localhost is 127.0.0.1, with no name lookup), the
// scheme's port when none is given. Anything else is refused.
func TestS10ULocalHTTPAddr(t *testing.T) {
	for _, tc := range []struct {
		url, want, err string
	}{
		{"http://localhost:8089/mcp", "127.0.0.1:8089", ""},
		{"http://LOCALHOST/mcp", "127.0.0.1:80", ""},
		{"https://[::1]/mcp", "[::1]:443", ""},
		{"http://0.0.0.0:3000/sse", "127.0.0.1:3000", ""},
		{"http://127.0.0.5:9/", "127.0.0.5:9", ""},
		{"http://:8089/mcp", "127.0.0.1:8089", ""},
		{"ftp://localhost:21/", "", "want an http URL"},
		{"localhost:8089", "", "want an http URL"},
		{"http:///mcp", "", "want an http URL"},
		{"http://[::1/mcp", "", "want an http URL"},
		{"http://10.0.0.1:8089/mcp", "", "must name a local address"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			got, err := localHTTPAddr(tc.url)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("localHTTPAddr = %q, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("localHTTPAddr = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestS10URlimitsFor: the rlimits stand in for the cgroup limits that are
// missing, and only for those: RLIMIT_DATA for memory (in bytes), and
// RLIMIT_CPU for CPU time, in whole seconds rounded up (a limit of 1.5 s
// is 2 s, never 1 or 0, which would be no limit).
func TestS10URlimitsFor(t *testing.T) {
	for _, tc := range []struct {
		name         string
		lim          Limits
		cgMem, cgCPU bool
		data, cpu    uint64 // 0: not set
	}{
		{"no cgroups", Limits{MemoryBytes: 64 << 20, CPUTime: 1500 * time.Millisecond}, false, false, 64 << 20, 2},
		{"whole seconds", Limits{MemoryBytes: 1 << 30, CPUTime: 60 * time.Second}, false, false, 1 << 30, 60},
		{"under a second", Limits{MemoryBytes: 1 << 30, CPUTime: time.Millisecond}, false, false, 1 << 30, 1},
		{"memory cgroup", Limits{MemoryBytes: 64 << 20, CPUTime: 1500 * time.Millisecond}, true, false, 0, 2},
		{"cpu cgroup", Limits{MemoryBytes: 64 << 20, CPUTime: 1500 * time.Millisecond}, false, true, 64 << 20, 0},
		{"limits disabled", Limits{MemoryBytes: -1, CPUTime: -1}, false, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := map[int]uint64{}
			if tc.data != 0 {
				want[unix.RLIMIT_DATA] = tc.data
			}
			if tc.cpu != 0 {
				want[unix.RLIMIT_CPU] = tc.cpu
			}
			got := rlimitsFor(tc.lim, tc.cgMem, tc.cgCPU)
			if len(got) != len(want) || got[unix.RLIMIT_DATA] != want[unix.RLIMIT_DATA] || got[unix.RLIMIT_CPU] != want[unix.RLIMIT_CPU] {
				t.Errorf("rlimitsFor = %v, want %v", got, want)
			}
		})
	}
}

// TestS10UPrlimitChild: backend none's after-the-start rlimits (and
// bwrap's) are set on the process as promised: RLIMIT_DATA with the hard
// limit equal to the soft one, RLIMIT_CPU with a hard limit a second above
// the soft one (SIGXCPU first, SIGKILL a second later), and named in the
// mechanisms only once set.
func TestS10UPrlimitChild(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	pid := cmd.Process.Pid
	got := prlimitChild(pid, Limits{MemoryBytes: 256 << 20, CPUTime: 3 * time.Second}, &cgroupSet{v1: map[string]string{}})
	if want := []string{"rlimit:cpu", "rlimit:data"}; !slices.Equal(got, want) {
		t.Errorf("mechanisms %v, want %v", got, want)
	}
	for _, tc := range []struct {
		res        int
		name       string
		soft, hard uint64
	}{
		{unix.RLIMIT_DATA, "data", 256 << 20, 256 << 20},
		{unix.RLIMIT_CPU, "cpu", 3, 4},
	} {
		var rl unix.Rlimit
		if err := unix.Prlimit(pid, tc.res, nil, &rl); err != nil {
			t.Fatal(err)
		}
		if rl.Cur != tc.soft || rl.Max != tc.hard {
			t.Errorf("RLIMIT_%s of the child = %d/%d, want %d/%d", strings.ToUpper(tc.name), rl.Cur, rl.Max, tc.soft, tc.hard)
		}
	}

	// A process that is gone gets no limits, and none is claimed.
	if got := prlimitChild(1<<22+12345, Limits{MemoryBytes: 256 << 20, CPUTime: 3 * time.Second}, &cgroupSet{v1: map[string]string{}}); len(got) != 0 {
		t.Errorf("mechanisms for a process that does not exist: %v, want none", got)
	}
}

// s10uNoneOptions are backend none's options where the rlimits stand in
// for every cgroup limit (as for a user without a delegated cgroup), so
// the server starts through the limit stage.
func s10uNoneOptions(mem int64) *Options {
	opts := testOptions(BackendNone)
	opts.NoCgroups = true
	opts.Limits = Limits{MemoryBytes: mem, CPUTime: time.Minute, Wall: 30 * time.Second}
	return opts
}

// TestS10UNoneLimitStage: under backend none with rlimits, a server
// without arguments starts (the limit stage's argv is then exactly its
// four words), runs under the rlimits, and its mechanisms name them and
// its confinement as read back (no controlling terminal).
func TestS10UNoneLimitStage(t *testing.T) {
	s := launch(t, &vocab.Plan{Key: "cat", Name: "cat", Transport: vocab.TransportStdio, Command: "cat"}, s10uNoneOptions(1<<30), "")
	if _, err := s.Transport().Connect(context.Background()); err != nil {
		t.Fatalf("Connect: %v (stderr %q)", err, s.Info(0).StderrTail)
	}
	info := s.Info(0)
	for _, m := range []string{"rlimit:cpu", "rlimit:data", "no_ctty"} {
		if !slices.Contains(info.Mechanisms, m) {
			t.Errorf("mechanisms %v, want %s", info.Mechanisms, m)
		}
	}
	if info.Exited {
		t.Errorf("cat exited (code %v, stderr %q), want it running until its stdin closes", info.ExitCode, info.StderrTail)
	}
}

// TestS10UNoneLimitStageExecError: a server that cannot be executed
// through the limit stage fails to start with the error exec.Cmd itself
// gives (a *fs.PathError "fork/exec" naming the path, with the errno), so
// that callers tell a missing command from other failures the same way
// under every backend.
func TestS10UNoneLimitStageExecError(t *testing.T) {
	const missing = "/nonexistent/mcpvet-s10u-server"
	s := launch(t, &vocab.Plan{Key: "missing", Name: "missing", Transport: vocab.TransportStdio, Command: missing}, s10uNoneOptions(1<<30), "")
	_, err := s.Transport().Connect(context.Background())
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "fork/exec" || pe.Path != missing || !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("Connect error %#v (%v), want exec.Cmd's *fs.PathError fork/exec %s: ENOENT", err, err, missing)
	}
}

// TestS10UNoneDataLimitAtExec: under backend none the data limit holds
// from the server's exec on: a server whose very start needs more memory
// than the limit (here any dynamically linked program under one byte of
// RLIMIT_DATA) is killed by the kernel at its exec and never runs a line.
// Set with prlimit after the start, the program was already loaded when
// the limit came: it ran, or its dynamic loader failed with exit 127.
func TestS10UNoneDataLimitAtExec(t *testing.T) {
	s := launch(t, &vocab.Plan{Key: "sh", Name: "sh", Transport: vocab.TransportStdio, Command: "/bin/sh",
		Args: []string{"-c", "echo ran >&2"}}, s10uNoneOptions(1), "")
	if _, err := s.Transport().Connect(context.Background()); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	info := s.Info(10 * time.Second)
	if !info.Exited || info.Signal != "SIGSEGV" || strings.Contains(info.StderrTail, "ran") {
		t.Errorf("exited %v, code %v, signal %q, stderr %q; want the server killed by SIGSEGV at its exec (mechanisms %v)",
			info.Exited, info.ExitCode, info.Signal, info.StderrTail, info.Mechanisms)
	}
}

// s10uBackend runs the server of a backend check as argv instead of
// "true", without isolation.
type s10uBackend struct {
	argv []string
	err  error
}

func (s10uBackend) name() string { return "s10u" }

func (b s10uBackend) command(s *Server) (*process, error) {
	if b.err != nil {
		return nil, b.err
	}
	s.argv = b.argv
	return noneBackend{}.command(s)
}

// s10uNeedNamespaces skips unless this host can make the builtin
// backend's namespaces, asked of unshare(1) rather than of the backend's
// own check, which is under test.
func s10uNeedNamespaces(t *testing.T) {
	t.Helper()
	if !helperLinked {
		t.Skip("built without cgo: no init helper")
	}
	args := []string{"--mount", "--pid", "--fork", "--net", "--ipc", "--uts"}
	if os.Geteuid() != 0 {
		args = append(args, "--user", "--map-root-user")
	}
	if out, err := exec.Command("unshare", append(args, "true")...).CombinedOutput(); err != nil {
		t.Skipf("no namespaces here: unshare: %v %s", err, out)
	}
}

// TestS10UProbeBackend: a backend's availability check passes only when
// its "true" starts and exits 0 (the builtin backend's check passes
// wherever the host makes its namespaces): a backend that cannot start
// a process, or whose server exits non-zero, is unavailable, and the
// reason says which.
func TestS10UProbeBackend(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    backend
		err  string // "" for available
	}{
		{"true exits 0", noneBackend{}, ""},
		{"builtin", builtinBackend{}, ""},
		{"cannot start", s10uBackend{err: errors.New("no namespaces here")}, "probe: no namespaces here"},
		{"exits 1", s10uBackend{argv: []string{"false"}}, "probe: true exited with"},
		{"killed", s10uBackend{argv: []string{"/bin/sh", "-c", "kill -9 $$"}}, "SIGKILL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := tc.b.(builtinBackend); ok {
				s10uNeedNamespaces(t)
			}
			err := probeBackend(tc.b)
			if tc.err == "" {
				if err != nil {
					t.Fatalf("probeBackend = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("probeBackend = %v, want an error with %q", err, tc.err)
			}
		})
	}
}

// TestS10UCheckServerWall: the server of an availability check is bounded
// by 20 s of wall time, not the 5 min default of a scanned server: a
// backend whose "true" hangs must not hold a scan's start for minutes.
func TestS10UCheckServerWall(t *testing.T) {
	s := checkServer(noneBackend{})
	if got := s.opts.Limits.Wall; got != 20*time.Second {
		t.Errorf("check server wall limit %v, want 20s", got)
	}
	if s.plan.Command != "true" || s.opts.WorkDir != WorkDirNone {
		t.Errorf("check server runs %q in %q, want true in no host folder", s.plan.Command, s.opts.WorkDir)
	}
}

// TestS10ULocalHTTPServer: a local HTTP server (the http fixture, on port
// 8089 of the sandbox's own network namespace) is started in the builtin
// sandbox and reached there, over streamable-http and over SSE: the
// handshake and a tools/list complete, the report notes that it was
// reached inside the namespace and never on the host, and closing the
// session ends the server. A server that exits before it listens fails
// the connect with the exit (io.EOF), not a timeout.
func TestS10ULocalHTTPServer(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("entering the sandbox's network namespace needs root")
	}
	s10uNeedNamespaces(t)
	bin := testfixture.Path(t, "http")
	const port = 8089
	for _, tc := range []struct {
		transport string
		args      []string
	}{
		{vocab.TransportStreamable, nil},
		{vocab.TransportSSE, []string{"-sse"}},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			plan := &vocab.Plan{Key: "http", Name: "http", Transport: tc.transport, Command: bin,
				Args: append([]string{"-addr", fmt.Sprintf("127.0.0.1:%d", port)}, tc.args...), URL: fmt.Sprintf("http://localhost:%d/mcp", port)}
			s := launch(t, plan, testOptions(BackendBuiltin), "")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, s.Transport(), nil)
			if err != nil {
				t.Fatalf("Connect: %v (stderr %q)", err, s.Info(0).StderrTail)
			}
			if got := cs.InitializeResult().ServerInfo.Name; got != "http" {
				t.Errorf("serverInfo name %q, want the fixture's http", got)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 2 {
				t.Errorf("ListTools = %v, %v; want the fixture's 2 tools", tools, err)
			}
			if err := cs.Close(); err != nil {
				t.Errorf("closing the session: %v", err)
			}
			info := s.Info(10 * time.Second)
			if !info.Exited {
				t.Errorf("the server still runs after the session closed")
			}
			want := fmt.Sprintf("reached at 127.0.0.1:%d inside its network namespace, never on the host", port)
			if !slices.ContainsFunc(info.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
				t.Errorf("warnings %q, want one saying %q", info.Warnings, want)
			}
			// Its stdout is free-form logs (MCP is on the socket): kept
			// with stderr as evidence.
			if want := fmt.Sprintf("LISTENING http://127.0.0.1:%d/mcp", port); !strings.Contains(info.StderrTail, want) {
				t.Errorf("stderr tail %q, want the server's stdout line %q", info.StderrTail, want)
			}
		})
	}
	t.Run("logs a lot on stdout", func(t *testing.T) {
		// 256 KiB of stdout before it listens, four times a pipe's
		// buffer: if its stdout were not drained, it would block there
		// and never listen.
		plan := &vocab.Plan{Key: "http", Name: "http", Transport: vocab.TransportStreamable, Command: "/bin/sh",
			Args: []string{"-c", `head -c 262144 /dev/zero | tr '\0' x; echo; exec "$0" -addr 127.0.0.1:8089`, bin},
			URL:  fmt.Sprintf("http://localhost:%d/mcp", port)}
		opts := testOptions(BackendBuiltin)
		opts.Expose = []string{bin}
		s := launch(t, plan, opts, "")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, s.Transport(), nil)
		if err != nil {
			tail := s.Info(0).StderrTail
			t.Fatalf("Connect: %v (stderr ...%q)", err, tail[max(0, len(tail)-300):])
		}
		cs.Close()
	})
	t.Run("exits before listening", func(t *testing.T) {
		plan := &vocab.Plan{Key: "http", Name: "http", Transport: vocab.TransportStreamable, Command: bin,
			Args: []string{"port", "8089"}, URL: fmt.Sprintf("http://localhost:%d/mcp", port)}
		s := launch(t, plan, testOptions(BackendBuiltin), "")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err := s.Transport().Connect(ctx)
		if !errors.Is(err, io.EOF) || ctx.Err() != nil {
			t.Errorf("Connect = %v (context %v), want the exit before listening (io.EOF)", err, ctx.Err())
		}
	})
}

// TestS10UBuiltinProcessLimit: as root without a pids cgroup, the builtin
// backend runs the server under a uid of its own with RLIMIT_NPROC set to
// the process limit (per uid, so per server), and names it among the
// mechanisms.
func TestS10UBuiltinProcessLimit(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("RLIMIT_NPROC stands in for the pids cgroup only with a uid of the run's own (as root)")
	}
	s10uNeedNamespaces(t)
	opts := testOptions(BackendBuiltin)
	opts.NoCgroups = true
	opts.Limits = Limits{Processes: 64, Wall: 30 * time.Second}
	s := launch(t, &vocab.Plan{Key: "p", Name: "p", Transport: vocab.TransportStdio, Command: "/bin/sh",
		Args: []string{"-c", `grep "Max processes" /proc/self/limits >&2`}}, opts, "")
	if _, err := s.Transport().Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	info := s.Info(10 * time.Second)
	if f := strings.Fields(info.StderrTail); len(f) < 4 || f[2] != "64" || f[3] != "64" {
		t.Errorf("the server's own limits say %q, want 64 processes", info.StderrTail)
	}
	if !slices.Contains(info.Mechanisms, "rlimit:nproc") {
		t.Errorf("mechanisms %v, want rlimit:nproc", info.Mechanisms)
	}
}

// TestS10UBuiltinEtcSymlinks: the minimal /etc of the builtin sandbox
// keeps the host's symlinks as symlinks, pointing where the host's point
// (/etc/localtime to its zone file under /usr, say), rather than copies of
// their targets or nothing.
func TestS10UBuiltinEtcSymlinks(t *testing.T) {
	s10uNeedNamespaces(t)
	var want []string
	var script strings.Builder
	for _, f := range etcFiles {
		target, err := os.Readlink(f)
		if err != nil {
			continue
		}
		if _, err := os.Stat(f); err != nil {
			continue // dangling on the host
		}
		want = append(want, f+" -> "+target)
		fmt.Fprintf(&script, "echo \"%[1]s -> $(readlink %[1]s)\" >&2\n", f)
	}
	if len(want) == 0 {
		t.Skip("no file of the minimal /etc is a symlink on this host")
	}
	s := launch(t, &vocab.Plan{Key: "e", Name: "e", Transport: vocab.TransportStdio, Command: "/bin/sh",
		Args: []string{"-c", script.String()}}, testOptions(BackendBuiltin), "")
	if _, err := s.Transport().Connect(context.Background()); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	info := s.Info(10 * time.Second)
	got := strings.Split(strings.TrimSpace(info.StderrTail), "\n")
	if !slices.Equal(got, want) {
		t.Errorf("in the sandbox:\n%s\nwant the host's links:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestS10UWaitNetns: the namespace a local HTTP server is dialled in is
// the sandbox's own, found on the deepest process of its tree that has
// one; a tree in mcpvet's own namespace has none (never mcpvet's, which
// would dial the host's port), and the search ends with the context or
// with the server's exit.
func TestS10UWaitNetns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a network namespace of its own needs root here")
	}
	start := func(t *testing.T, argv ...string) int {
		t.Helper()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
		})
		return cmd.Process.Pid
	}
	nsIno := func(t *testing.T, path string) uint64 {
		t.Helper()
		var st unix.Stat_t
		if err := unix.Stat(path, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}

	t.Run("own namespace alone", func(t *testing.T) {
		// unshare execs sleep in the new namespace: one process, the root
		// of its tree.
		pid := start(t, "unshare", "--net", "sleep", "30")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		f, err := waitNetns(ctx, pid, nil)
		if err != nil {
			t.Fatalf("waitNetns: %v", err)
		}
		defer f.Close()
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			t.Fatal(err)
		}
		if own := nsIno(t, "/proc/self/ns/net"); st.Ino == own {
			t.Errorf("waitNetns returned mcpvet's own network namespace")
		}
		if want := nsIno(t, fmt.Sprintf("/proc/%d/ns/net", pid)); st.Ino != want {
			t.Errorf("namespace inode %d, want the process's %d", st.Ino, want)
		}
	})
	t.Run("own namespace on a child", func(t *testing.T) {
		// The root (a shell, like bwrap's outer process) stays in
		// mcpvet's namespace; its child has one of its own.
		pid := start(t, "/bin/sh", "-c", "unshare --net sleep 30; :")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		f, err := waitNetns(ctx, pid, nil)
		if err != nil {
			t.Fatalf("waitNetns: %v", err)
		}
		defer f.Close()
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			t.Fatal(err)
		}
		if own := nsIno(t, "/proc/self/ns/net"); st.Ino == own {
			t.Errorf("waitNetns returned mcpvet's own network namespace")
		}
	})
	t.Run("none of its own", func(t *testing.T) {
		pid := start(t, "sleep", "30")
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		f, err := waitNetns(ctx, pid, nil)
		if err == nil {
			f.Close()
			t.Fatal("waitNetns found a namespace in a tree that has only mcpvet's")
		}
		if !strings.Contains(err.Error(), "no network namespace of its own") {
			t.Errorf("waitNetns: %v, want the context's end", err)
		}
	})
	t.Run("exited", func(t *testing.T) {
		pid := start(t, "sleep", "30")
		exited := make(chan struct{})
		close(exited)
		f, err := waitNetns(context.Background(), pid, exited)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, io.EOF) {
			t.Errorf("waitNetns: %v, want the exit (io.EOF)", err)
		}
	})
}

// TestS10UDialInNetns: dialling in a namespace (mcpvet's own here) gives a
// working connection and leaves the dialling thread usable: it is moved
// back and returned to the runtime, not discarded, since a thread that
// ends kills the children started from it with Pdeathsig (the servers of
// other sandboxes). No thread ends during many dials, and servers
// started before them all survive them.
// A dial whose context has ended returns the context's error.
func TestS10UDialInNetns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("setns needs root")
	}
	ns, err := os.Open("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	// Children started from several threads, each with Pdeathsig.
	var pids []int
	for range 8 {
		done := make(chan int)
		go func() {
			cmd := exec.Command("sleep", "60")
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
			if err := cmd.Start(); err != nil {
				t.Error(err)
				close(done)
				return
			}
			t.Cleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
			})
			done <- cmd.Process.Pid
		}()
		if pid, ok := <-done; ok {
			pids = append(pids, pid)
		}
	}
	threads := func() []string {
		es, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	before := threads()
	for range 64 {
		c, err := dialInNetns(context.Background(), ns, l.Addr().String())
		if err != nil {
			t.Fatalf("dialInNetns: %v", err)
		}
		c.Close()
	}
	// Nothing else in this process ends a thread (the runtime keeps its
	// threads; only a goroutine that exits locked ends one).
	after := threads()
	for _, tid := range before {
		if !slices.Contains(after, tid) {
			t.Errorf("thread %s ended during the dials (threads before %v, after %v)", tid, before, after)
		}
	}
	// A Pdeathsig is delivered when the thread ends; give a discarded
	// thread's children the moment it takes to die.
	time.Sleep(100 * time.Millisecond)
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := strings.LastIndexByte(string(stat), ')'); err != nil || i < 0 || strings.HasPrefix(string(stat[i+1:]), " Z") {
			t.Errorf("child %d started before the dials died (stat %q, %v)", pid, stat, err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 16 {
		c, err := dialInNetns(ctx, ns, l.Addr().String())
		if !errors.Is(err, context.Canceled) || c != nil {
			t.Errorf("dialInNetns with an ended context = %v, %v; want context.Canceled", c, err)
		}
	}
	time.Sleep(50 * time.Millisecond) // the dials given up on finish
}
