package scoring

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/probe"
)

// TestOneProducerPerCode runs failure injection against in-process go-sdk
// servers that get every class of answer wrong (accepted, hang, crash, an
// unknown tool as a tool result, an ignored cursor, JSON-RPC errors for
// invalid arguments, a leaked canary), then grades the result. No finding
// code may come from both producers: the codes [probe.Run] raised and the
// codes [ScoreResult] added must be disjoint, with nothing deduplicated in
// between. Each producer must also raise what it owns, so the test cannot
// pass by raising nothing.
func TestOneProducerPerCode(t *testing.T) {
	const canary = "mcpvet-canary-0123abcd"
	schema := `{"type":"object","properties":{"q":{"type":"string","maxLength":8}},"required":["q"],"additionalProperties":false}`
	servers := map[string]mcp.ToolHandler{
		"accepts everything": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		},
		"json-rpc errors, leaking": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad q (token " + canary + ")"}
		},
		"hangs": func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}
	// The process dies: the connection closes when the first call of the
	// tool is written.
	servers["crashes"] = nil
	fromProbe, fromScoring := map[string]bool{}, map[string]bool{}
	for name, h := range servers {
		t.Run(name, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "sloppy", Version: "1"}, nil)
			var ct mcp.Transport
			ct, st := mcp.NewInMemoryTransports()
			if h == nil {
				ct = crashingTransport{ct}
			}
			srv.AddTool(&mcp.Tool{Name: "search", Description: "fixture", InputSchema: json.RawMessage(schema)}, h)
			// An unknown tool answered as a tool result, a cursor it never
			// issued answered with a page.
			srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					switch p := req.GetParams().(type) {
					case *mcp.CallToolParamsRaw:
						if p.Name != "search" {
							return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such tool"}}}, nil
						}
					case *mcp.ListToolsParams:
						if p.Cursor != "" {
							return &mcp.ListToolsResult{Tools: []*mcp.Tool{}}, nil
						}
					}
					return next(ctx, method, req)
				}
			})
			ctx := t.Context()
			go func() { _ = srv.Run(ctx, st) }()
			res := probe.Run(ctx, ct, &probe.Options{ProtocolVersion: "2025-11-25", CallTimeout: 2 * time.Second,
				Inject: &probe.InjectOptions{CallTimeout: 300 * time.Millisecond}})
			n := len(res.Findings)
			probeCodes := codeSet(res.Findings)
			ScoreResult(res, &Options{Canaries: map[string]string{"TOKEN": canary}})
			scoringCodes := codeSet(res.Findings[n:])
			for code := range scoringCodes {
				if probeCodes[code] {
					t.Errorf("%s raised by both failure injection and the grader", code)
				}
				if !slices.Contains(emittedCodes, code) {
					t.Errorf("the grader raised %s, which is not in emittedCodes", code)
				}
				fromScoring[code] = true
			}
			for code := range probeCodes {
				fromProbe[code] = true
			}
		})
	}
	for _, tt := range []struct {
		producer string
		got      map[string]bool
		want     []string
	}{
		{"failure injection", fromProbe, []string{CodeAcceptedInvalidInput, CodeCrashOnInvalidInput, CodeHangOnInvalidInput, CodeIgnoredInvalidCursor}},
		{"the grader", fromScoring, []string{CodeLeaksSecret, CodeWrongChannel}},
	} {
		var missing []string
		for _, code := range tt.want {
			if !tt.got[code] {
				missing = append(missing, code)
			}
		}
		if diff := cmp.Diff([]string(nil), missing); diff != "" {
			t.Errorf("%s did not raise (-want +got):\n%s", tt.producer, diff)
		}
	}
}

func codeSet(fs []probe.Finding) map[string]bool {
	out := map[string]bool{}
	for _, f := range fs {
		out[f.Code] = true
	}
	return out
}

// crashingTransport closes its connection, as a dying server's pipe does,
// when a tools/call of the tool search is written.
type crashingTransport struct{ mcp.Transport }

func (t crashingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return crashingConn{c}, nil
}

type crashingConn struct{ mcp.Connection }

func (c crashingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" && strings.Contains(string(req.Params), `"name":"search"`) {
		return c.Close()
	}
	return c.Connection.Write(ctx, msg)
}
