package probe

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/vocab"
)

// newMemServer returns a client transport connected to an in-memory go-sdk
// server with n tools, paged pageSize at a time, one prompt and one resource.
func newMemServer(t *testing.T, n, pageSize int) mcp.Transport {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Title: "Memory fixture", Version: "0.0.1"},
		&mcp.ServerOptions{PageSize: pageSize, Instructions: "use me"})
	for i := range n {
		name := "tool_" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		srv.AddTool(&mcp.Tool{
			Name:        name,
			Description: "a test tool",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"query"}},"required":["q"]}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}, nil
		})
	srv.AddResource(&mcp.Resource{URI: "mem://one", Name: "one", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = srv.Run(ctx, st) }()
	return ct
}

func TestRunInMemory(t *testing.T) {
	for _, version := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run("version="+version, func(t *testing.T) {
			res := Run(context.Background(), newMemServer(t, 12, 5), &Options{ProtocolVersion: version, Inject: &InjectOptions{Disabled: true}})
			l := res.Liveness
			if l.Status != vocab.StatusOK || !l.HandshakeCompleted {
				t.Fatalf("liveness = %+v, want ok", l)
			}
			want := version
			if want == "" {
				want = "2026-07-28"
			}
			if l.ProtocolVersion != want {
				t.Errorf("protocol version = %q, want %q", l.ProtocolVersion, want)
			}
			wantHandshake := "initialize"
			if want == "2026-07-28" {
				wantHandshake = "server/discover"
			}
			if l.Handshake != wantHandshake {
				t.Errorf("handshake = %q, want %q", l.Handshake, wantHandshake)
			}
			if diff := cmp.Diff(&ServerInfo{Name: "mem", Title: "Memory fixture", Version: "0.0.1"}, l.ServerInfo); diff != "" {
				t.Errorf("serverInfo (-want +got):\n%s", diff)
			}
			if l.InstructionsBytes != len("use me") {
				t.Errorf("instructionsBytes = %d", l.InstructionsBytes)
			}
			if len(res.Tools) != 12 || len(res.Prompts) != 1 || len(res.Resources) != 1 {
				t.Fatalf("listed %d tools, %d prompts, %d resources; want 12, 1, 1", len(res.Tools), len(res.Prompts), len(res.Resources))
			}
			if got := string(res.Tools[0].Annotations); got != `{"idempotentHint":false,"readOnlyHint":true}` {
				t.Errorf("annotations raw = %s", got)
			}
			pages := 0
			for _, c := range res.Calls {
				if c.Method == "tools/list" {
					pages++
					if c.Outcome != "result" || c.OutputBytes == 0 || len(c.InputHash) != 16 {
						t.Errorf("tools/list telemetry = %+v", c)
					}
				}
			}
			if pages != 3 {
				t.Errorf("tools/list pages = %d, want 3 (12 tools, 5 a page)", pages)
			}
			for _, f := range res.Findings {
				if f.Severity.Rank() > SeverityWarn.Rank() {
					t.Errorf("unexpected finding %+v", f)
				}
			}
		})
	}
}

// loopConn answers tools/list with the same cursor forever.
func TestRunCursorLoop(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "loop", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				return &mcp.ListToolsResult{NextCursor: "again", Tools: []*mcp.Tool{{Name: "a", InputSchema: map[string]any{"type": "object"}}}}, nil
			}
			return next(ctx, method, req)
		}
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx := t.Context()
	go func() { _ = srv.Run(ctx, st) }()
	res := Run(ctx, ct, &Options{ProtocolVersion: "2025-06-18", Inject: &InjectOptions{Disabled: true}})
	var codes []string
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Code, "protocol/") || f.Code == CodeToolNameDuplicate {
			codes = append(codes, f.Code)
		}
	}
	// One defect, one finding: the repeated page lists the same tool
	// again, which is not a second defect (tool/name_duplicate).
	if diff := cmp.Diff([]string{CodeCursorLoop}, codes); diff != "" {
		t.Errorf("protocol and tool findings (-want +got):\n%s", diff)
	}
	if len(res.Tools) != 1 {
		t.Errorf("tools = %d, want 1 (the looping page repeats it)", len(res.Tools))
	}
}

// silentTransport accepts writes and never answers.
type silentTransport struct{}

func (silentTransport) Connect(context.Context) (mcp.Connection, error) {
	return &silentConn{done: make(chan struct{})}, nil
}

type silentConn struct{ done chan struct{} }

func (c *silentConn) Read(ctx context.Context) (jsonrpcMessage, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
		return nil, errClosed
	}
}

func TestRunHandshakeTimeout(t *testing.T) {
	start := time.Now()
	res := Run(context.Background(), silentTransport{}, &Options{HandshakeTimeout: 300 * time.Millisecond})
	if res.Liveness.Status != vocab.StatusHandshakeTimeout {
		t.Fatalf("status = %q (%s), want handshake_timeout", res.Liveness.Status, res.Liveness.Detail)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("run took %v after a 300ms handshake timeout", time.Since(start))
	}
	if len(res.Calls) == 0 || res.Calls[0].Outcome != "timeout" {
		t.Errorf("calls = %+v, want the unanswered handshake recorded as timeout", res.Calls)
	}
	if len(res.Findings) != 1 || res.Findings[0].Code != CodeNotAlive {
		t.Errorf("findings = %+v", res.Findings)
	}
}

// TestRunUnknownVersion: a server answering initialize with a revision
// that does not exist fails the handshake (the client cannot speak it),
// and the reason is the protocol/unknown_version finding the coverage
// table names, beside liveness/handshake_failed.
func TestRunUnknownVersion(t *testing.T) {
	for _, tt := range []struct {
		name, answered string
		want           []string
	}{
		{"unpublished revision", "1999-01-01", []string{CodeNotAlive, CodeUnknownVersion}},
		{"published revision", "2025-06-18", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "version", Version: "1"}, nil)
			srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					r, err := next(ctx, method, req)
					if ir, ok := r.(*mcp.InitializeResult); ok && err == nil {
						ir.ProtocolVersion = tt.answered
					}
					return r, err
				}
			})
			ct, st := mcp.NewInMemoryTransports()
			go func() { _ = srv.Run(t.Context(), st) }()
			res := Run(t.Context(), ct, &Options{ProtocolVersion: "2025-11-25", HandshakeTimeout: 5 * time.Second, Inject: &InjectOptions{Disabled: true}})
			var codes []string
			for _, f := range res.Findings {
				if f.Code == CodeNotAlive || f.Code == CodeUnknownVersion {
					codes = append(codes, f.Code)
				}
				if f.Code == CodeUnknownVersion && f.Value != tt.answered {
					t.Errorf("%s value = %q, want %q", f.Code, f.Value, tt.answered)
				}
			}
			if diff := cmp.Diff(tt.want, codes); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%+v", diff, res.Liveness)
			}
		})
	}
}
