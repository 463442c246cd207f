package scan

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestUnreachableRemoteDecidedBeforeTheClient: a remote whose name does
// not resolve or whose port refuses is unreachable at once, with the
// network error as evidence and the handshake finding the probe records.
func TestUnreachableRemoteDecidedBeforeTheClient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	// The loopback port is the user's own target (a registry entry may not
	// point at loopback at all: invalid_plan, see remote_secure_test.go).
	for _, tc := range []struct{ url, source, evidence string }{
		{closed, "config:mcp.json", "connection refused"},
		{"https://mcpvet-test-host.invalid/mcp", "registry", "no such host"},
	} {
		plan := &vocab.Plan{Key: tc.url, Name: "io.example/gone", Source: tc.source, Transport: vocab.TransportStreamable, URL: tc.url}
		res, err := Probe(context.Background(), plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		l := res.Liveness
		if l.Status != vocab.StatusUnreachable || !strings.Contains(l.Evidence, tc.evidence) {
			t.Errorf("%s: status %s, evidence %q; want unreachable with %q", tc.url, l.Status, l.Evidence, tc.evidence)
		}
		if len(res.Findings) != 1 || res.Findings[0].Code != probe.CodeNotAlive {
			t.Errorf("%s: findings %+v, want the handshake finding", tc.url, res.Findings)
		}
		if res.Verdict == nil || res.Verdict.Decision != "drop" {
			t.Errorf("%s: verdict %+v, want drop", tc.url, res.Verdict)
		}
	}
}
