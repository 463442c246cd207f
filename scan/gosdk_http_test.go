package scan

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/scoring"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestGoSDKStreamableNotDropped probes a real go-sdk v1.8.0 streamable-HTTP
// server with default options, in-process on loopback. It answers an
// unknown method with HTTP 400 and a plain-text body, and the next request
// with 200: a finding on that request, never a crash, so the server is
// keep or fix, never drop (issue 28: it was dropped for a crash that never
// happened).
func TestGoSDKStreamableNotDropped(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Return the text given, unchanged.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: new(false), OpenWorldHint: new(false)}},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text" jsonschema:"the text to return"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer hs.Close()

	plan := vocab.Plan{Key: "gosdk", Name: "gosdk", Source: "cli", Transport: vocab.TransportStreamable, URL: hs.URL + "/mcp"}
	opts := fastOptions("none")
	opts.Run.Inject = nil // the default failure injection: unknown method, tool, cursor, ...
	res, err := Probe(context.Background(), &plan, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Liveness.HandshakeCompleted {
		t.Fatalf("no handshake: %s %s", res.Liveness.Status, res.Liveness.Detail)
	}
	for _, pc := range res.Probes {
		if pc.Class == scoring.ClassCrash || pc.Class == scoring.ClassHang {
			t.Errorf("probe %s %s %s: class %s (%s)", pc.Method, pc.Tool, pc.Kind, pc.Class, pc.Text)
		}
	}
	for _, f := range res.Findings {
		if f.Severity == probe.SeverityFatal {
			t.Errorf("fatal finding %s on %s: %s", f.Code, f.Subject, f.Message)
		}
	}
	if res.Verdict == nil || res.Verdict.Decision == vocab.DecisionDrop {
		t.Fatalf("verdict %+v, want keep or fix", res.Verdict)
	}
	t.Logf("verdict %s: %s", res.Verdict.Decision, res.Verdict.Words())
	var methodFinding bool
	for _, f := range res.Findings {
		if f.Code == probe.CodeUnknownMethodNotRejected && strings.Contains(f.Message, "HTTP 400 Bad Request without a JSON-RPC error") {
			methodFinding = true
		}
	}
	if !methodFinding {
		t.Errorf("no %s finding for the unknown method answered with HTTP 400: %v", probe.CodeUnknownMethodNotRejected, res.Findings)
	}
}

// TestHTTPErrorThenGoneIsCrash: a server that answers the unknown method
// with HTTP 400 and then stops answering (every later connection is cut)
// did crash: the evidence is that it no longer answers.
func TestHTTPErrorThenGoneIsCrash(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "gone", Version: "1.0.0"}, nil)
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	var gone atomic.Bool
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gone.Load() {
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
					return
				}
			}
			return
		}
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if strings.Contains(string(body), "mcpvet/unknown_method") {
				gone.Store(true)
				http.Error(w, "unsupported", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		inner.ServeHTTP(w, r)
	}))
	defer hs.Close()
	plan := vocab.Plan{Key: "gone", Name: "gone", Source: "cli", Transport: vocab.TransportStreamable, URL: hs.URL + "/mcp"}
	opts := fastOptions("none")
	opts.Run.Inject = nil
	res, err := Probe(context.Background(), &plan, opts)
	if err != nil {
		t.Fatal(err)
	}
	var crashed bool
	for _, pc := range res.Probes {
		if pc.Kind == scoring.KindUnknownMethod && pc.Class == scoring.ClassCrash {
			crashed = true
		}
	}
	if !crashed || res.Verdict == nil || res.Verdict.Decision != vocab.DecisionDrop {
		t.Errorf("crashed %v, verdict %+v; want the unknown method's probe a crash and drop", crashed, res.Verdict)
	}
}
