package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestS10YRemoteURLSchemes: a remote plan's URL must be http or https;
// anything else is an invalid plan before any connection is made.
func TestS10YRemoteURLSchemes(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want vocab.Status // "" for a launch that succeeds (nothing is sent yet)
	}{
		{"http://127.0.0.1:1/mcp", ""},
		{"https://127.0.0.1:1/mcp", ""},
		{"ftp://127.0.0.1:1/mcp", vocab.StatusInvalidPlan},
		{"ws://127.0.0.1:1/mcp", vocab.StatusInvalidPlan},
	} {
		t.Run(tc.url, func(t *testing.T) {
			opts := testOptions(BackendNone)
			opts.AllowPrivateNetwork = true
			s, err := Launch(context.Background(), &vocab.Plan{Transport: vocab.TransportStreamable, URL: tc.url}, opts)
			if s != nil {
				s.Close()
			}
			if tc.want == "" {
				if err != nil {
					t.Errorf("Launch(%s) = %v, want no error", tc.url, err)
				}
				return
			}
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != tc.want || !strings.Contains(le.Detail, "not an http(s) URL") {
				t.Errorf("Launch(%s) = %v, want %s: not an http(s) URL", tc.url, err, tc.want)
			}
		})
	}
}

// TestS10YRemoteClientBounded: the remote client is bounded: the TLS
// handshake, the wait for response headers and idle connections all time
// out (a zero would wait forever on a server that never answers).
func TestS10YRemoteClientBounded(t *testing.T) {
	opts := testOptions(BackendNone)
	opts.AllowPrivateNetwork = true
	plan := &vocab.Plan{Transport: vocab.TransportStreamable, URL: "http://127.0.0.1:1/mcp"}
	s, err := Launch(context.Background(), plan, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rt, err := newRemoteTransport(context.Background(), s, plan)
	if err != nil {
		t.Fatal(err)
	}
	base := rt.rt.base.(*http.Transport)
	for name, d := range map[string]int64{
		"TLSHandshakeTimeout":   int64(base.TLSHandshakeTimeout),
		"ResponseHeaderTimeout": int64(base.ResponseHeaderTimeout),
		"IdleConnTimeout":       int64(base.IdleConnTimeout),
	} {
		if d <= 0 {
			t.Errorf("%s = %d, want a bound", name, d)
		}
	}
}

// TestS10YRemoteRedirectOrigins: a redirect to another origin is followed
// when the plan gives no headers, and refused (and noted) when it does, so
// that the headers given for the server never reach another origin.
func TestS10YRemoteRedirectOrigins(t *testing.T) {
	var other []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other = append(other, r.Header.Get("X-Api-Key"))
		w.Write([]byte("elsewhere"))
	}))
	defer elsewhere.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusFound)
	}))
	defer home.Close()
	for _, tc := range []struct {
		name     string
		headers  map[string]string
		followed bool
	}{
		{"no headers", nil, true},
		{"headers", map[string]string{"X-Api-Key": "k"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other = nil
			opts := testOptions(BackendNone)
			opts.AllowPrivateNetwork = true
			plan := &vocab.Plan{Transport: vocab.TransportStreamable, URL: home.URL + "/mcp", Headers: tc.headers}
			s, err := Launch(context.Background(), plan, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			rt, err := newRemoteTransport(context.Background(), s, plan)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.client.Get(home.URL + "/mcp")
			if err == nil {
				resp.Body.Close()
			}
			if tc.followed {
				if err != nil || resp.StatusCode != http.StatusOK || len(other) != 1 {
					t.Errorf("GET = %v (other origin hit %d times), want the redirect followed", err, len(other))
				}
				return
			}
			if !errors.Is(err, errCrossOriginRedirect) || len(other) != 0 {
				t.Errorf("GET = %v (other origin got %q), want %v and nothing sent there", err, other, errCrossOriginRedirect)
			}
		})
	}
}

// TestS10YHeaderNames: header names are RFC 9110 tokens: letters, digits
// and the token punctuation, from the first to the last of each range.
func TestS10YHeaderNames(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "X-API-Key": true, "a": true, "z": true, "A": true, "Z": true,
		"X-0": true, "X-9": true, "!legacy": true, "~tilde": true, "x_y.z": true,
		"": false, "X/Y": false, "X:Y": false, "X@Y": false, "X[Y": false, "X{Y": false,
		"X Y": false, "X\x00Y": false, "X(Y": false, "X\"Y": false,
	} {
		if got := validHeaderName(name); got != want {
			t.Errorf("validHeaderName(%q) = %v, want %v", name, got, want)
		}
	}
	// Through a plan: a secret header with a bad name is an invalid plan.
	opts := testOptions(BackendNone)
	opts.AllowPrivateNetwork = true
	_, err := Launch(context.Background(), &vocab.Plan{Transport: vocab.TransportStreamable, URL: "http://127.0.0.1:1/mcp",
		Secrets: []string{vocab.SecretHeaderPrefix + "X:Y"}}, opts)
	var le *LaunchError
	if !errors.As(err, &le) || le.Status != vocab.StatusInvalidPlan {
		t.Errorf("Launch with secret header X:Y = %v, want %s", err, vocab.StatusInvalidPlan)
	}
}

// s10yFakeUV puts a fake uv first on PATH that logs its pip arguments to
// the returned file and installs the requested distribution, whose
// entry_points.txt holds scripts.
func s10yFakeUV(t *testing.T, scripts string) (argsLog string) {
	t.Helper()
	tools := fakeToolDir(t)
	argsLog = filepath.Join(t.TempDir(), "uv.args")
	writeScript(t, filepath.Join(tools, "uv"), `
set -e
case "$1" in
venv) mkdir -p "$3/bin" "$3/lib/python3.11/site-packages"; exit 0 ;;
pip)
	echo "$@" >> `+argsLog+`
	shift 2; py=""; while [ "$1" != "--" ]; do [ "$1" = "--python" ] && py="$2"; shift; done
	venv=$(dirname $(dirname "$py")); dist=$(echo "${2%%==*}" | tr - _)
	info="$venv/lib/python3.11/site-packages/$dist-1.0.dist-info"
	mkdir -p "$info"
	printf '`+scripts+`' > "$info/entry_points.txt" ;;
esac
`)
	return argsLog
}

// TestS10YPyPICustomIndex: a package whose registry is another index is
// checked against that index and installed from it, pinned to the plan's
// version; the default index is never asked.
func TestS10YPyPICustomIndex(t *testing.T) {
	argsLog := s10yFakeUV(t, `[console_scripts]\nmy-server = my_server:main\n`)
	index := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/s10y-custom/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
		w.Write([]byte(`{"meta":{"api-version":"1.1"},"name":"s10y-custom","files":[],"versions":["1.0"]}`))
	}))
	defer index.Close()
	// The default index cannot be reached: asking it fails the install.
	t.Setenv("PIP_INDEX_URL", "http://127.0.0.1:1/simple")
	t.Setenv("UV_INDEX_URL", "")
	ep, err := installPyPI(context.Background(), &vocab.Package{RegistryType: "pypi", RegistryBaseURL: index.URL, Identifier: "s10y-custom", Version: "1.0"}, &Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("installPyPI: %v", err)
	}
	if got := filepath.Base(ep.argv[0]); got != "my-server" {
		// The only console script is taken, though not named like the package.
		t.Errorf("console script = %q, want my-server", got)
	}
	args, _ := os.ReadFile(argsLog)
	if !strings.Contains(string(args), "--index-url "+index.URL+" -- s10y-custom==1.0") {
		t.Errorf("uv pip arguments = %q, want --index-url %s -- s10y-custom==1.0", args, index.URL)
	}
}

// TestS10YPyPIUnreachableIndex: when the package's index cannot be
// reached, nothing is installed and the user is told that nothing is known
// about the package (not that it does not exist).
func TestS10YPyPIUnreachableIndex(t *testing.T) {
	argsLog := s10yFakeUV(t, `[console_scripts]\nmy-server = my_server:main\n`)
	_, err := installPyPI(context.Background(), &vocab.Package{RegistryType: "pypi", RegistryBaseURL: "http://127.0.0.1:1/simple", Identifier: "s10y-unreachable", Version: "1.0"}, &Options{CacheDir: t.TempDir()})
	var le *LaunchError
	if !errors.As(err, &le) || le.Status != vocab.StatusInstallFailed || !strings.Contains(le.Detail, "could not be reached; nothing is known about the package") {
		t.Fatalf("installPyPI = %v, want %s: the index could not be reached", err, vocab.StatusInstallFailed)
	}
	if !isNetworkFailure(le.Evidence) {
		t.Errorf("evidence %q does not show the network failure", le.Evidence)
	}
	if args, err := os.ReadFile(argsLog); err == nil {
		t.Errorf("the installer ran: %q", args)
	}
}

// TestS10YPyPIErrors: how a failed install reads, per installer output and
// what the index said.
func TestS10YPyPIErrors(t *testing.T) {
	alive := context.Background()
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name       string
		ctx        context.Context
		out        string
		known      bool
		unknownWhy string
		want       vocab.Status
		detail     string
	}{
		{"no such version", alive, "Because there is no version of p==2.0 and you require p==2.0", true, "", vocab.StatusVersionNotFound, "PyPI package p has no version 2.0"},
		{"no distribution here", alive, "ERROR: No matching distribution found for p==2.0", true, "", vocab.StatusInstallFailed, "no distribution installable here"},
		{"index unknown", alive, "ERROR: No matching distribution found for p==2.0", false, "GET http://idx/p/: dial tcp: lookup idx: no such host", vocab.StatusInstallFailed, "could not be reached (GET http://idx/p/: dial tcp: lookup idx: no such host)"},
		{"installer network", alive, "WARNING: Retrying after connection broken by 'NewConnectionError: Failed to establish a new connection'", true, "", vocab.StatusInstallFailed, "could not be reached (see the installer output)"},
		{"stopped", stopped, "Collecting p==2.0", true, "", vocab.StatusInstallFailed, "installing PyPI package p==2.0: stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := pypiError(tc.ctx, "p", "2.0", tc.out, errors.New("exit status 1"), tc.known, tc.unknownWhy)
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != tc.want || !strings.Contains(le.Detail, tc.detail) {
				t.Errorf("pypiError = %v, want %s: ...%s...", err, tc.want, tc.detail)
			}
		})
	}
}

// TestS10YPyConsoleScript: the console script is the one named like the
// distribution, else its only one; none, or several without one named like
// it, fail the install with a detail that says which.
func TestS10YPyConsoleScript(t *testing.T) {
	for _, tc := range []struct {
		name, entryPoints, want, err string
	}{
		{"named like it", "[console_scripts]\nfoo = x:a\nmy-server = x:b\n", "my-server", ""},
		{"only one", "[console_scripts]\nserve = x:a\n", "serve", ""},
		{"several", "[console_scripts]\nserve = x:a\nhelper = x:b\n", "", "several console scripts (serve, helper)"},
		{"none", "[gui_scripts]\nserve = x:a\n", "", "declares no console script"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			venv := t.TempDir()
			info := filepath.Join(venv, "lib", "python3.12", "site-packages", "My_Server-1.0.dist-info")
			if err := os.MkdirAll(info, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(info, "entry_points.txt"), []byte(tc.entryPoints), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := pyConsoleScript(venv, "my-server")
			if tc.err != "" {
				var le *LaunchError
				if !errors.As(err, &le) || le.Status != vocab.StatusInstallFailed || !strings.Contains(le.Detail, tc.err) {
					t.Errorf("pyConsoleScript = %q, %v, want %s: %s", got, err, vocab.StatusInstallFailed, tc.err)
				}
				return
			}
			if err != nil || got != filepath.Join(venv, "bin", tc.want) {
				t.Errorf("pyConsoleScript = %q, %v, want bin/%s", got, err, tc.want)
			}
		})
	}
}

// TestS10YBwrapAvailable: as root, bwrap needs the re-exec hook
// (sandbox.Main); without bwrap on PATH the backend says so.
func TestS10YBwrapAvailable(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not on PATH")
	}
	if os.Geteuid() == 0 {
		hooked.Store(false)
		err := bwrapBackend{}.available()
		hooked.Store(true)
		if err == nil || !strings.Contains(err.Error(), "sandbox.Main") {
			t.Errorf("available() without the hook = %v, want the sandbox.Main error", err)
		}
	}
	if err := (bwrapBackend{}).available(); err != nil && strings.Contains(err.Error(), "not on PATH") {
		t.Errorf("available() = %v with bwrap on PATH", err)
	}
	t.Setenv("PATH", t.TempDir())
	if err := (bwrapBackend{}).available(); err == nil || !strings.Contains(err.Error(), "bwrap is not on PATH") {
		t.Errorf("available() without bwrap on PATH = %v", err)
	}
}

// TestS10YBwrapFDs: bwrap's pipes are open and the seccomp program is in
// its pipe; when a pipe cannot be made, the ones made are closed.
func TestS10YBwrapFDs(t *testing.T) {
	prog := []byte("seccomp-program")
	fds, err := newBwrapFDs(prog)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 64)
	n, err := fds.seccompR.Read(got)
	if err != nil || string(got[:n]) != string(prog) {
		t.Errorf("seccomp pipe = %q, %v, want %q", got[:n], err, prog)
	}
	if _, err := fds.blockW.Write([]byte{1}); err != nil {
		t.Errorf("block pipe: %v", err)
	}
	if _, err := fds.statusW.Write([]byte("{}")); err != nil {
		t.Errorf("status pipe: %v", err)
	}
	for _, f := range []*os.File{fds.statusR, fds.statusW, fds.blockR, fds.blockW, fds.seccompR} {
		f.Close()
	}

	// Leave room for exactly two pipes: the third fails with EMFILE.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	open := map[int]bool{}
	for _, e := range ents {
		var fd int
		for _, c := range e.Name() {
			fd = fd*10 + int(c-'0')
		}
		open[fd] = true
	}
	limit, free := 0, 0
	for ; free < 4 || open[limit]; limit++ {
		if !open[limit] {
			free++
		}
	}
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	if uint64(limit) >= old.Cur {
		t.Skipf("fd limit %d too low", old.Cur)
	}
	before := len(ents)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: uint64(limit), Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	_, err = newBwrapFDs(prog)
	unix.Setrlimit(unix.RLIMIT_NOFILE, &old)
	if !errors.Is(err, syscall.EMFILE) {
		t.Fatalf("newBwrapFDs with room for two pipes = %v, want EMFILE", err)
	}
	after, _ := os.ReadDir("/proc/self/fd")
	if len(after) != before {
		t.Errorf("%d fds open after the failure, %d before: the pipes made leaked", len(after), before)
	}
}

// TestS10YBwrapStatus: bwrap's status stream gives the sandbox's pid 1,
// then the command's exit: a code, or 128+N for a death by signal N.
func TestS10YBwrapStatus(t *testing.T) {
	for _, tc := range []struct {
		name, stream string
		pid          int // 0: waitChild fails
		code         int // -1: none
		sig          string
	}{
		{"exit code", `{"child-pid": 4242}` + "\n" + `{"exit-code": 3}`, 4242, 3, ""},
		{"exit 128", `{"child-pid": 4242}{"exit-code": 128}`, 4242, 128, ""},
		{"killed", `{"child-pid": 4242}{"exit-code": 137}`, 4242, -1, "SIGKILL"},
		{"exit 193", `{"child-pid": 4242}{"exit-code": 193}`, 4242, 193, ""},
		{"first pid only", `{"child-pid": 4242}{"child-pid": 7}{"exit-code": 0}`, 4242, 0, ""},
		{"no sandbox", `{"exit-code": 1}`, 0, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			st := newBwrapStatus(r)
			w.Write([]byte(tc.stream))
			w.Close()
			pid, err := st.waitChild(context.Background())
			if tc.pid == 0 {
				if err == nil {
					t.Errorf("waitChild = %d, want an error", pid)
				}
			} else if err != nil || pid != tc.pid || st.childPid() != tc.pid {
				t.Errorf("waitChild = %d, %v; childPid %d; want %d", pid, err, st.childPid(), tc.pid)
			}
			code, sig, ok := st.exitStatus()
			if !ok {
				t.Fatal("exitStatus: not reported")
			}
			gotCode := -1
			if code != nil {
				gotCode = *code
			}
			if gotCode != tc.code || (tc.sig != "" && !strings.Contains(sig, tc.sig)) || (tc.sig == "" && sig != "") {
				t.Errorf("exitStatus = %d, %q, want %d, %q", gotCode, sig, tc.code, tc.sig)
			}
		})
	}
}

// TestS10YArmPidfdKill: the kill armed for a running pid kills it.
func TestS10YArmPidfdKill(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{}
	armPidfdKill(p, cmd.Process.Pid)
	defer p.closeParentFiles()
	if p.kill == nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("p.kill not armed for a running process")
	}
	p.kill()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("sleep ended with %v, want SIGKILL", err)
	}
}

// TestS10YCutEnv splits KEY=VALUE at the first '='.
func TestS10YCutEnv(t *testing.T) {
	for _, tc := range []struct {
		kv, k, v string
		ok       bool
	}{
		{"A=b", "A", "b", true},
		{"A=b=c", "A", "b=c", true},
		{"A=", "A", "", true},
		{"NOEQ", "NOEQ", "", false},
		{"", "", "", false},
	} {
		k, v, ok := cutEnv(tc.kv)
		if k != tc.k || v != tc.v || ok != tc.ok {
			t.Errorf("cutEnv(%q) = %q, %q, %v, want %q, %q, %v", tc.kv, k, v, ok, tc.k, tc.v, tc.ok)
		}
	}
}

// TestS10YBwrapRelease: once bwrap reports the sandbox's pid 1, release
// lets the sandbox proceed (one byte on the block pipe), arms the pidfd
// kill and returns no error.
func TestS10YBwrapRelease(t *testing.T) {
	// The sandbox's pid 1 stand-in: a shell with the "server" as its child.
	pid1 := exec.Command("sh", "-c", "sleep 60 & wait")
	if err := pid1.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, d := range descendants(pid1.Process.Pid) {
			syscall.Kill(d, syscall.SIGKILL)
		}
		pid1.Process.Kill()
		pid1.Wait()
	}()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer statusW.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer blockR.Close()
	st := newBwrapStatus(statusR)
	fmt.Fprintf(statusW, `{"child-pid": %d}`, pid1.Process.Pid)
	p := &process{}
	defer p.closeParentFiles()
	s := &Server{cg: &cgroupSet{}}
	if err := bwrapRelease(p, st, blockW, "/nonexistent/bwrap")(context.Background(), s); err != nil {
		t.Fatalf("release: %v", err)
	}
	blockW.Close() // again, if release did: a read then ends
	got := make([]byte, 2)
	if n, err := blockR.Read(got); err != nil || n != 1 {
		t.Errorf("block pipe read %d bytes, %v: want the sandbox released with one byte", n, err)
	}
	if p.kill == nil {
		t.Error("release armed no kill")
	}
}

// TestS10YDecodeErrorBody: only a JSON-RPC 2.0 error object with a code
// counts as the server's error answer.
func TestS10YDecodeErrorBody(t *testing.T) {
	for body, want := range map[string]int64{ // -1: not an error answer
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Server not initialized"}}`: -32000,
		`{"jsonrpc":"1.0","id":null,"error":{"code":-32000,"message":"x"}}`:                      -1,
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                                                   -1,
		`{"jsonrpc":"2.0","id":1,"error":{"message":"no code"}}`:                                 -1,
		`not json`: -1,
	} {
		got := decodeErrorBody([]byte(body))
		if (want == -1) != (got == nil) || (got != nil && got.Code != want) {
			t.Errorf("decodeErrorBody(%s) = %v, want code %d", body, got, want)
		}
	}
}

// TestS10YServerError finds the server's JSON-RPC error inside wrapped and
// joined errors, skipping the go-sdk's own "rejected by transport".
func TestS10YServerError(t *testing.T) {
	rpc := &jsonrpc.Error{Code: -32000, Message: "Server not initialized"}
	rejected := &jsonrpc.Error{Code: -32005, Message: "rejected by transport"}
	for _, tc := range []struct {
		name string
		err  error
		want *jsonrpc.Error
	}{
		{"nil", nil, nil},
		{"plain", errors.New("EOF"), nil},
		{"wrapped", fmt.Errorf("calling: %w", rpc), rpc},
		{"joined after others", errors.Join(errors.New("broken pipe"), rejected, rpc), rpc},
		{"only rejected", errors.Join(rejected), nil},
	} {
		if got := serverError(tc.err); got != tc.want {
			t.Errorf("%s: serverError = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestS10YNoteProtocolVersion: the first version an initialize result
// negotiates is kept for the Mcp-Protocol-Version header; errors, empty
// results and versions that could not be a header are not.
func TestS10YNoteProtocolVersion(t *testing.T) {
	res := func(v string) *jsonrpc.Response {
		return &jsonrpc.Response{Result: []byte(`{"protocolVersion":"` + v + `"}`)}
	}
	long := strings.Repeat("9", 64)
	for _, tc := range []struct {
		name string
		msgs []jsonrpc.Message
		want string
	}{
		{"first kept", []jsonrpc.Message{res("2025-06-18"), res("2024-11-05")}, "2025-06-18"},
		{"error", []jsonrpc.Message{&jsonrpc.Response{Result: []byte(`{"protocolVersion":"2025-06-18"}`), Error: errors.New("x")}}, ""},
		{"empty result", []jsonrpc.Message{&jsonrpc.Response{}}, ""},
		{"no version", []jsonrpc.Message{&jsonrpc.Response{Result: []byte(`{}`)}}, ""},
		{"not json", []jsonrpc.Message{&jsonrpc.Response{Result: []byte(`{`)}}, ""},
		{"64 chars", []jsonrpc.Message{res(long)}, ""},
		{"63 chars", []jsonrpc.Message{res(long[1:])}, long[1:]},
	} {
		r := &remoteRoundTripper{}
		for _, m := range tc.msgs {
			r.noteProtocolVersion(m)
		}
		if r.protocolVersion != tc.want {
			t.Errorf("%s: protocol version %q, want %q", tc.name, r.protocolVersion, tc.want)
		}
	}
}

// s10yConn is an mcp.Connection that reads msgs.
type s10yConn struct{ msgs []jsonrpc.Message }

func (c *s10yConn) Read(context.Context) (jsonrpc.Message, error) {
	if len(c.msgs) == 0 {
		return nil, io.EOF
	}
	m := c.msgs[0]
	c.msgs = c.msgs[1:]
	return m, nil
}
func (c *s10yConn) Write(context.Context, jsonrpc.Message) error { return nil }
func (c *s10yConn) Close() error                                 { return nil }
func (c *s10yConn) SessionID() string                            { return "" }

// TestS10YReadNotesProtocolVersion: what the connection reads is where the
// negotiated version comes from.
func TestS10YReadNotesProtocolVersion(t *testing.T) {
	rt := &remoteRoundTripper{}
	decided := make(chan struct{})
	close(decided)
	c := &remoteConn{t: &remoteTransport{rt: rt}, conn: &s10yConn{msgs: []jsonrpc.Message{&jsonrpc.Response{Result: []byte(`{"protocolVersion":"2025-06-18"}`)}}}, decided: decided, closed: make(chan struct{})}
	if _, err := c.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rt.protocolVersion != "2025-06-18" {
		t.Errorf("protocol version %q after reading the initialize result", rt.protocolVersion)
	}
}

// s10yRT answers every request with status and body and keeps the last
// request.
type s10yRT struct {
	status int
	body   string
	last   *http.Request
}

func (f *s10yRT) RoundTrip(req *http.Request) (*http.Response, error) {
	f.last = req
	return &http.Response{StatusCode: f.status, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(f.body)), Request: req}, nil
}

// TestS10YRoundTripProtocolVersion: requests carry the negotiated version
// unless the transport set one itself.
func TestS10YRoundTripProtocolVersion(t *testing.T) {
	for _, tc := range []struct{ noted, set, want string }{
		{"2025-06-18", "", "2025-06-18"},
		{"2025-06-18", "2024-11-05", "2024-11-05"},
		{"", "", ""},
	} {
		base := &s10yRT{status: 200, body: "{}"}
		r := &remoteRoundTripper{base: base, home: "http://h", s: &Server{}, maxBody: 1 << 20, protocolVersion: tc.noted}
		req, _ := http.NewRequest(http.MethodGet, "http://h/mcp", nil)
		if tc.set != "" {
			req.Header.Set("Mcp-Protocol-Version", tc.set)
		}
		resp, err := r.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := base.last.Header.Get("Mcp-Protocol-Version"); got != tc.want {
			t.Errorf("noted %q, set %q: header %q, want %q", tc.noted, tc.set, got, tc.want)
		}
	}
}

// TestS10YFirstPostError: a 4xx answer to the first POST is searched for a
// JSON-RPC error (the fallback decision needs it) and its body still reads
// whole; a 5xx is not a fallback status and is not searched.
func TestS10YFirstPostError(t *testing.T) {
	const body = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Server not initialized"}}`
	for _, tc := range []struct {
		status int
		found  bool
	}{{400, true}, {404, true}, {499, true}, {500, false}, {399, false}} {
		req, _ := http.NewRequest(http.MethodPost, "http://h/mcp", strings.NewReader("{}"))
		r := &remoteRoundTripper{base: &s10yRT{status: tc.status, body: body}, home: origin(req.URL), s: &Server{}, maxBody: 1 << 20}
		resp, err := r.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(got) != body {
			t.Errorf("%d: body %q, %v, want it whole", tc.status, got, err)
		}
		if werr := r.firstError(); (werr != nil) != tc.found || r.firstStatus() != tc.status {
			t.Errorf("%d: first error %v, status %d; want found=%v", tc.status, werr, r.firstStatus(), tc.found)
		}
	}
}

// TestS10YBoundedBody: one body may be exactly the message limit, all
// bodies together exactly the total; one byte more ends the read and
// records which limit was exceeded.
func TestS10YBoundedBody(t *testing.T) {
	for _, tc := range []struct {
		name          string
		max, maxTotal int64
		size          int
		limit         string
	}{
		{"message at limit", 10, 100, 10, ""},
		{"message over", 10, 100, 11, LimitMessageSize},
		{"stream unbounded per body", -1, 100, 100, ""},
		{"total over", -1, 100, 101, LimitStdoutBytes},
		{"no total bound", 10, 0, 10, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{}
			r := &remoteRoundTripper{s: s, maxTotal: tc.maxTotal}
			b := &boundedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", tc.size))), max: tc.max, r: r}
			_, err := io.ReadAll(b)
			if tc.limit == "" {
				if err != nil || s.limit != "" {
					t.Errorf("read = %v, limit %q; want the whole body", err, s.limit)
				}
				return
			}
			if !errors.Is(err, errBodyTooLarge) || s.limit != tc.limit {
				t.Errorf("read = %v, limit %q; want %v, %s", err, s.limit, errBodyTooLarge, tc.limit)
			}
		})
	}
}

// TestS10YRemoteCloseUnconnected: closing a remote server never connected
// is fine.
func TestS10YRemoteCloseUnconnected(t *testing.T) {
	opts := testOptions(BackendNone)
	opts.AllowPrivateNetwork = true
	s, err := Launch(context.Background(), &vocab.Plan{Transport: vocab.TransportStreamable, URL: "http://127.0.0.1:1/mcp"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

// TestS10YRemoteWall: a remote session is ended at the wall-clock limit,
// and the limit is what the report says.
func TestS10YRemoteWall(t *testing.T) {
	server := newEchoServer()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer hs.Close()
	opts := testOptions(BackendNone)
	opts.AllowPrivateNetwork = true
	opts.Limits.Wall = 100 * time.Millisecond
	s := launch(t, &vocab.Plan{Transport: vocab.TransportStreamable, URL: hs.URL}, opts, "")
	cs := clientSession(t, s)
	defer cs.Close()
	done := make(chan error, 1)
	go func() { done <- cs.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the session outlived the wall limit")
	}
	if got := s.Info(0).LimitExceeded; got != LimitWallTime {
		t.Errorf("LimitExceeded = %q, want %s", got, LimitWallTime)
	}
}

// TestS10YUndecodedErrorKeepsStreamable: a 400 to the first POST whose
// JSON-RPC error the go-sdk cannot decode ("id": null, as the TypeScript
// SDK sends) still means the server speaks streamable HTTP: no legacy SSE
// fallback.
func TestS10YUndecodedErrorKeepsStreamable(t *testing.T) {
	server := newEchoServer()
	next := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	var first sync.Once
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			rejected := false
			first.Do(func() {
				rejected = true
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`)
			})
			if rejected {
				return
			}
		}
		next.ServeHTTP(w, r)
	}))
	defer hs.Close()
	opts := testOptions(BackendNone)
	opts.AllowPrivateNetwork = true
	s := launch(t, &vocab.Plan{Transport: vocab.TransportStreamable, URL: hs.URL}, opts, "")
	cs := clientSession(t, s)
	defer cs.Close()
	want := "transport: streamable-http (first POST answered 400 with JSON-RPC error -32000; retried on the same transport)"
	if w := s.Info(0).Warnings; len(w) == 0 || w[0] != want {
		t.Errorf("Warnings = %q, want [%q]", w, want)
	}
}

// TestS10YRemoteCloseStopsWall: closing a remote session stops its
// wall-clock timer, so a server closed in time is never reported over the
// wall limit later.
func TestS10YRemoteCloseStopsWall(t *testing.T) {
	server := newEchoServer()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer hs.Close()
	opts := testOptions(BackendNone)
	opts.AllowPrivateNetwork = true
	s := launch(t, &vocab.Plan{Transport: vocab.TransportStreamable, URL: hs.URL}, opts, "")
	cs := clientSession(t, s)
	cs.Close()
	s.remote.mu.Lock()
	c := s.remote.conn
	s.remote.mu.Unlock()
	if c.wall.Stop() {
		t.Error("the wall timer was still running after Close")
	}
}
