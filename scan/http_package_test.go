package scan

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testenv"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// hostListener listens on a free host port and counts every request.
func hostListener(t *testing.T) (port int, contacts *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	contacts = &atomic.Int32{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		contacts.Add(1)
		http.Error(w, "not the package", http.StatusTeapot)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().(*net.TCPAddr).Port, contacts
}

// TestHTTPServerProbedInsideItsSandbox: a plan whose server runs here but
// speaks HTTP (like the 50 registry packages with an HTTP transport, 31 of
// them on localhost ports such as 8089) is started in the sandbox and
// reached inside the sandbox's own network namespace. The fixture serves
// MCP on port P inside the sandbox while a listener on the same port P of
// the host records any contact: the handshake must reach the fixture and
// the host listener must see nothing. (Old behaviour: nothing was started;
// mcpvet connected to the host's port P and credited whatever answered.)
func TestHTTPServerProbedInsideItsSandbox(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Need(t, "entering the sandbox's network namespace needs root")
	}
	bin := testfixture.Path(t, "http")
	port, contacts := hostListener(t)
	for _, backend := range []string{sandbox.BackendBuiltin, sandbox.BackendBwrap} {
		for _, transport := range []string{vocab.TransportStreamable, vocab.TransportSSE} {
			t.Run(backend+"/"+transport, func(t *testing.T) {
				args := []string{"-addr", fmt.Sprintf("127.0.0.1:%d", port)}
				if transport == vocab.TransportSSE {
					args = append(args, "-sse")
				}
				plan := &vocab.Plan{Key: "http-fixture#" + transport, Name: "io.example/http", Source: "test", Transport: transport,
					Command: bin, Args: args, URL: fmt.Sprintf("http://localhost:%d/mcp", port)}
				res, err := Probe(context.Background(), plan, &ProbeOptions{Sandbox: &sandbox.Options{Backend: backend, CacheDir: t.TempDir()},
					Run: probe.Options{HandshakeTimeout: 15 * time.Second}, Timeout: time.Minute})
				if err != nil {
					if strings.Contains(err.Error(), "not available") {
						testenv.Need(t, err.Error())
					}
					t.Fatal(err)
				}
				l := res.Liveness
				if !l.HandshakeCompleted || l.ServerInfo == nil || l.ServerInfo.Name != "http" {
					t.Fatalf("status %s (%s), serverInfo %+v, exit %v; want the fixture's handshake\nstderr: %s", l.Status, l.Detail, l.ServerInfo, l.ExitCode, l.StderrTail)
				}
				if len(res.Tools) != 2 {
					var fs []string
					for _, f := range res.Findings {
						fs = append(fs, f.Code+": "+f.Message)
					}
					t.Errorf("%d tools, want the fixture's 2; findings:\n%s", len(res.Tools), strings.Join(fs, "\n"))
				}
				if iso := res.Target.Isolation; iso == nil || iso.Network {
					t.Errorf("isolation %+v, want a sandbox without network", iso)
				}
			})
		}
	}
	if n := contacts.Load(); n != 0 {
		t.Errorf("the host listener on port %d was contacted %d times", port, n)
	}
}

// TestHTTPPackageRefusedWithoutNamespace: where the sandbox has no network
// namespace of its own, a local HTTP server is not launched and its host
// port is never contacted; the status says why.
func TestHTTPPackageRefusedWithoutNamespace(t *testing.T) {
	port, contacts := hostListener(t)
	for _, tc := range []struct {
		name string
		opts sandbox.Options
		pkg  string
	}{
		{"sandbox none", sandbox.Options{Backend: sandbox.BackendNone}, "npm"},
		{"allow network", sandbox.Options{AllowNetwork: true}, "npm"},
		{"oci", sandbox.Options{}, "oci"},
	} {
		plan := &vocab.Plan{Key: "npm:mcpvet-http@1.0.0", Name: "io.example/http", Source: "registry", Transport: vocab.TransportStreamable,
			URL:     fmt.Sprintf("http://localhost:%d/mcp", port),
			Package: &vocab.Package{RegistryType: tc.pkg, Identifier: "mcpvet-http", Version: "1.0.0"}}
		tc.opts.CacheDir = t.TempDir()
		res, err := Probe(context.Background(), plan, &ProbeOptions{Sandbox: &tc.opts, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if l := res.Liveness; l.Status != vocab.StatusRuntimeUnavailable || !strings.Contains(l.Detail, "never connects to that address on the host") {
			t.Errorf("%s: status %s (%s), want runtime_unavailable saying why", tc.name, l.Status, l.Detail)
		}
	}
	if n := contacts.Load(); n != 0 {
		t.Errorf("the host listener on port %d was contacted %d times", port, n)
	}
}

// TestHTTPPackageInstalledAndProbedInsideItsSandbox: an npm package (from
// a local fake registry) whose transport is streamable-http on
// localhost:P is installed, started in the sandbox and probed there, while
// a listener on the host's port P records any contact.
func TestHTTPPackageInstalledAndProbedInsideItsSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("runs npm")
	}
	if os.Geteuid() != 0 {
		testenv.Need(t, "entering the sandbox's network namespace needs root")
	}
	reg := fakeNPMPackage(t, "mcpvet-echo-http", "echo-http-server.js", 0)
	port, contacts := hostListener(t)
	plan := &vocab.Plan{Key: "npm:mcpvet-echo-http@1.0.0", Name: "io.example/echo-http", Source: "registry", Transport: vocab.TransportStreamable,
		URL: fmt.Sprintf("http://localhost:%d/mcp", port), Args: []string{fmt.Sprint(port)},
		Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: reg.URL, Identifier: "mcpvet-echo-http", Version: "1.0.0"}}
	// The fake registry listens on loopback, which the private-network
	// guard refuses for a registry entry (tested in sandbox); this test is
	// about the package's own transport, so it allows it.
	res, err := Probe(context.Background(), plan, &ProbeOptions{Sandbox: &sandbox.Options{CacheDir: t.TempDir(), AllowPrivateNetwork: true},
		Run: probe.Options{HandshakeTimeout: 20 * time.Second}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	l := res.Liveness
	if !l.HandshakeCompleted || l.ServerInfo == nil || l.ServerInfo.Name != "echo-http-js" {
		t.Fatalf("status %s (%s); want the package's handshake\nstderr: %s", l.Status, l.Detail, l.StderrTail)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "echo" {
		t.Errorf("tools %v, want the package's echo", res.Tools)
	}
	if n := contacts.Load(); n != 0 {
		t.Errorf("the host listener on port %d was contacted %d times", port, n)
	}
}

// TestHTTPPackageOutcomes pins the statuses of HTTP-transport packages
// modelled on the registry (issue 28, item 5): a package whose server
// exits before listening (argv "port 8089" as an entry spells it: "error:
// too many arguments", exit 1) is exited_early with its stderr, not
// protocol_error; a package transport whose URL is not local to its
// sandbox is invalid_plan and never dialled, not handshake_timeout one run
// and unreachable the next; a package that started and never listened
// (a server that serves stdio unless told otherwise, like git-mcp-server
// without MCP_TRANSPORT_TYPE=http) says so, and counts as launched.
func TestHTTPPackageOutcomes(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Need(t, "entering the sandbox's network namespace needs root")
	}
	bin := testfixture.Path(t, "http")
	port, contacts := hostListener(t)
	local := fmt.Sprintf("http://localhost:%d/mcp", port)
	for _, tc := range []struct {
		name   string
		args   []string
		url    string
		want   vocab.Status
		detail string
		ev     string
	}{
		{"exits before listening", []string{"port", "8089"}, local, vocab.StatusExitedEarly, "exited before listening on its port (exit 1)", "error: too many arguments"},
		{"not a local URL", nil, fmt.Sprintf("http://127.0.0.2.example.invalid:%d/mcp", port), vocab.StatusInvalidPlan, "must name a local address", ""},
		{"a public address", nil, "https://93.184.216.34/mcp", vocab.StatusInvalidPlan, "must name a local address", ""},
		{"never listens", []string{"-stdio-only"}, local, vocab.StatusHandshakeTimeout, "started but did not listen on the port", "serving MCP on stdio"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := &vocab.Plan{Key: "http#" + tc.name, Name: "io.example/http", Source: "test", Transport: vocab.TransportStreamable,
				Command: bin, Args: tc.args, URL: tc.url}
			start := time.Now()
			res, err := Probe(context.Background(), plan, &ProbeOptions{Sandbox: &sandbox.Options{Backend: sandbox.BackendBuiltin, CacheDir: t.TempDir()},
				Run: probe.Options{HandshakeTimeout: 3 * time.Second}, Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			l := res.Liveness
			if l.Status != tc.want || !strings.Contains(l.Detail, tc.detail) || !strings.Contains(l.Evidence, tc.ev) {
				t.Errorf("status %s (%s; evidence %q), want %s with %q and %q", l.Status, l.Detail, l.Evidence, tc.want, tc.detail, tc.ev)
			}
			if tc.want == vocab.StatusInvalidPlan && time.Since(start) > 2*time.Second {
				t.Errorf("refusing the plan took %s: was it dialled?", time.Since(start))
			}
			tally := results.NewTally()
			tally.Add(res)
			if launched := tally.Census().Launches; (tc.want != vocab.StatusInvalidPlan) != (launched == 1) {
				t.Errorf("launches %d for a %s package", launched, tc.want)
			}
		})
	}
	if n := contacts.Load(); n != 0 {
		t.Errorf("the host listener on port %d was contacted %d times", port, n)
	}
}
