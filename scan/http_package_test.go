package scan

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
)

// TestHTTPPackageNeverReachesTheHostPort: a package plan with an HTTP
// transport names a port inside its sandbox (like the 31 registry packages
// on localhost ports such as 8089). A listener on the same host port
// records any contact: mcpvet must not probe it and credit it to the
// package. (Old behaviour: it connected to the host port, probed whatever
// answered there and reported the package as that server.)
func TestHTTPPackageNeverReachesTheHostPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var contacts atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		contacts.Add(1)
		http.Error(w, "not the package", http.StatusTeapot)
	})}
	go srv.Serve(l)
	defer srv.Close()
	port := l.Addr().(*net.TCPAddr).Port

	for _, transport := range []string{sandbox.TransportStreamable, sandbox.TransportSSE} {
		plan := &sandbox.Plan{Key: "npm:mcpvet-http@1.0.0#" + transport, Name: "io.example/http", Source: "registry", Transport: transport,
			URL:     fmt.Sprintf("http://localhost:%d/mcp", port),
			Package: &sandbox.Package{RegistryType: "npm", Identifier: "mcpvet-http", Version: "1.0.0"}}
		res, err := Probe(context.Background(), plan, &ProbeOptions{Sandbox: &sandbox.Options{CacheDir: t.TempDir()},
			Probe: probe.Options{HandshakeTimeout: 5 * time.Second}, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		l := res.Liveness
		if l.Status != probe.StatusRuntimeUnavailable || !strings.Contains(l.Detail, "never connects to that address on the host") {
			t.Errorf("%s: status %s (%s), want runtime_unavailable saying why", transport, l.Status, l.Detail)
		}
		if l.HandshakeCompleted {
			t.Errorf("%s: handshake credited to the package", transport)
		}
	}
	if n := contacts.Load(); n != 0 {
		t.Errorf("the host listener on port %d was contacted %d times", port, n)
	}
}
