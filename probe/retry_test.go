package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newRetryServer is an in-memory server whose errors are modelled on the
// background texts' payloads: unknown_project with closest_matches, an
// enum error naming the options, a missing argument; one tool that only
// ever says "could not process request"; and a destructive tool.
func newRetryServer(t *testing.T) mcp.Transport {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "retry", Version: "0.0.1"}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	text := func(s string, isErr bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isErr}
	}
	args := func(req *mcp.CallToolRequest) map[string]any {
		m := map[string]any{}
		_ = json.Unmarshal(req.Params.Arguments, &m)
		return m
	}
	known := map[string]bool{"prj_8Fk2l": true, "prj_8Fj21": true}
	srv.AddTool(&mcp.Tool{Name: "get_project", Annotations: ro,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"project_id":{"type":"string","pattern":"^prj_[A-Za-z0-9]{5}$","examples":["prj_8Fk2l"]}},"required":["project_id"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a := args(req)
			v, present := a["project_id"]
			id, isString := v.(string)
			switch {
			case !present:
				return text("Missing required argument: project_id", true), nil
			case !isString:
				return text("project_id must be text", true), nil
			case known[id]:
				return text(`{"id":"`+id+`","name":"Billing Migration"}`, false), nil
			}
			b, _ := json.Marshal(map[string]any{"code": "unknown_project", "message": fmt.Sprintf("No project with id '%s'.", id),
				"field": "project_id", "received": id, "closest_matches": []string{"prj_8Fk2l (Billing Migration)", "prj_8Fj21 (Billing Reports)"},
				"recover": "Call list_projects to enumerate ids in the current workspace.", "retryable": "with_different_arguments"})
			return text(string(b), true), nil
		})
	srv.AddTool(&mcp.Tool{Name: "set_units", Annotations: ro,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"units":{"type":"string","enum":["metric","imperial"]}},"required":["units"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			u, _ := args(req)["units"].(string)
			if u == "metric" || u == "imperial" {
				return text("ok", false), nil
			}
			return text(fmt.Sprintf("Invalid enum value. Expected 'metric' | 'imperial', received '%v'", args(req)["units"]), true), nil
		})
	srv.AddTool(&mcp.Tool{Name: "opaque", Annotations: ro,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","enum":["a","b"]}},"required":["q"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(`{"error": "could not process request"}`, true), nil
		})
	srv.AddTool(&mcp.Tool{Name: "delete_project",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"project_id":{"type":"string","examples":["prj_8Fk2l"]}},"required":["project_id"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("Missing required argument: project_id", true), nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = srv.Run(ctx, st) }()
	return ct
}

// TestFirstRetry: the corrected call derived from the response resolves
// for unknown_project with closest matches, an enum error naming the
// options and a missing argument; "could not process request" determines
// no correction; a destructive tool is never retried.
func TestFirstRetry(t *testing.T) {
	res := Run(context.Background(), newRetryServer(t), &Options{})
	type key struct{ tool, kind string }
	got := map[key]*Retry{}
	for _, p := range res.Probes {
		if p.Method == "tools/call" {
			t.Logf("%s %s %s %q retry=%+v", p.Tool, p.Kind, p.Class, p.Text, p.Retry)
			got[key{p.Tool, p.Kind}] = p.Retry
		}
		if p.Tool == "delete_project" && p.Retry != nil {
			t.Errorf("destructive tool retried: %+v", p.Retry)
		}
		if p.Tool == "opaque" && p.Retry != nil && p.Retry.Outcome != RetryNoCorrection {
			t.Errorf("opaque tool: %+v, want no_correction", p.Retry)
		}
	}
	for _, w := range []struct {
		k       key
		outcome string
		source  string
		code    string
	}{
		{key{"get_project", "pattern_violation"}, RetryResolved, "structured", "unknown_project"},
		{key{"get_project", "missing_required"}, RetryResolved, "prose", "none"},
		{key{"set_units", "enum_violation"}, RetryResolved, "prose", "none"},
		{key{"get_project", "wrong_type"}, RetryNoCorrection, "", "none"},
		{key{"opaque", "enum_violation"}, RetryNoCorrection, "", "none"},
	} {
		r := got[w.k]
		if r == nil || r.Outcome != w.outcome || r.Source != w.source || r.Code != w.code {
			t.Errorf("%v: retry %+v, want outcome %s, source %q, code %s", w.k, r, w.outcome, w.source, w.code)
		}
	}
	rates := Rates(res)
	if r := rates.ByCode["unknown_project"]; r.Tried != 1 || r.Resolved != 1 || r.Structured != 1 {
		t.Errorf("unknown_project rate %+v", r)
	}
	if r := rates.All; r.Resolved < 3 || r.Tried <= r.Resolved || r.Low <= 0 || r.High >= 1 || r.Low >= r.High {
		t.Errorf("overall rate %+v", r)
	}
	// NoRetry sends no corrected call.
	res = Run(context.Background(), newRetryServer(t), &Options{Inject: &InjectOptions{NoRetry: true}})
	for _, p := range res.Probes {
		if p.Retry != nil {
			t.Fatalf("NoRetry: %s %s retried", p.Tool, p.Kind)
		}
	}
}

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n      int
		low, high float64
	}{
		{0, 0, 0, 0},
		{3, 12, 0.0889, 0.5323},
		{10, 10, 0.7225, 1},
		{0, 10, 0, 0.2775},
	} {
		l, h := Wilson(tc.k, tc.n)
		if math.Abs(l-tc.low) > 5e-4 || math.Abs(h-tc.high) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = %.4f, %.4f; want %.4f, %.4f", tc.k, tc.n, l, h, tc.low, tc.high)
		}
	}
}
