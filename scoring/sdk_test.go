package scoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkFile holds error responses in the exact shapes SDKs emit: the
// TypeScript SDK 1.24.2 with zod v4 and zod v3 schemas (recorded from
// testdata/errors/record/zodserver.mjs), and published answers of servers
// on the Python SDK's FastMCP and of hand-written servers. It is part of
// the tuned set.
const sdkFile = "../testdata/errors/sdk/responses.jsonl"

func loadJSONL(t testing.TB, file string) []heldoutCase {
	t.Helper()
	return loadCases(t, file)
}

// gradeCase prepares and grades one recorded case.
func gradeCase(t testing.TB, c heldoutCase) Graded {
	t.Helper()
	r, ctx, err := c.Prepare()
	if err != nil {
		t.Fatalf("%s: %v", c.ID, err)
	}
	return Grade(r, ctx)
}

// TestSDKShapes grades the SDK-shaped responses against their labels and
// pins the confusion counts.
func TestSDKShapes(t *testing.T) {
	cases := loadJSONL(t, sdkFile)
	var ls []labelled
	for _, c := range cases {
		ls = append(ls, labelled{name: string(c.ID), expect: c.Expect, g: gradeCase(t, c)})
	}
	conf := tally(t, ls)
	t.Log("\nSDK shapes:\n" + prTable(conf))
	checkCounts(t, "sdk", conf)
	for name, k := range conf {
		if k.fp+k.fn > 0 {
			t.Errorf("%s: %d false passes, %d false fails on the SDK shapes", name, k.fp, k.fn)
		}
	}
}

// TestZodIssueArrayCode is item 1 of the errors-v2 changes: the zod issue
// array the TypeScript SDK embeds after its prose prefix carries zod's
// stable "code", and grades exactly as the array alone does.
func TestZodIssueArrayCode(t *testing.T) {
	n := 0
	for _, c := range loadJSONL(t, sdkFile) {
		if !strings.HasPrefix(string(c.ID), `"ts-sdk`) {
			continue
		}
		n++
		r, ctx, err := c.Prepare()
		if err != nil {
			t.Fatal(err)
		}
		g := Grade(r, ctx)
		if !g.Pass(ElemCode) {
			t.Errorf("%s: code not credited: %s", c.ID, evidenceOf(g, ElemCode))
		}
		if ev := evidenceOf(g, ElemCode); !strings.Contains(ev, `.code = "`) {
			t.Errorf("%s: code evidence %q, want zod's code field", c.ID, ev)
		}
		i := strings.Index(r.Text, ": [")
		if i < 0 {
			t.Fatalf("%s: no embedded array in %q", c.ID, r.Text)
		}
		alone := r
		alone.Text = r.Text[i+2:]
		if ga := Grade(alone, ctx); ga.Score != g.Score {
			t.Errorf("%s: %.1f after the prose prefix, %.1f alone; want equal", c.ID, g.Score, ga.Score)
		}
	}
	if n != 16 {
		t.Errorf("graded %d TypeScript SDK responses, want 16", n)
	}
	// The same, cut off: a quoted "code" key in code position still counts.
	g := Grade(Response{Kind: KindWrongType, Method: "tools/call", Tool: "search_issues", Param: "query", Class: ClassToolError,
		Text: "MCP error -32602: Input validation error: Invalid arguments for tool search_issues: [\n  {\n    \"code\": \"invalid_type\",\n    \"expected\": \"string\",\n    \"rec"},
		Context{ToolNames: []string{"search_issues"}, ParamNames: []string{"query"}})
	if !g.Pass(ElemCode) {
		t.Errorf("cut-off zod array: code not credited: %s", evidenceOf(g, ElemCode))
	}
}

// TestPydanticTypeCode: pydantic's [type=missing, ...] is the stable code
// its documentation is keyed by.
func TestPydanticTypeCode(t *testing.T) {
	for text, want := range map[string]bool{
		"Error executing tool add: 1 validation error for addArguments\nb\n  Field required [type=missing, input_value={'a': 1}, input_type=dict]":                         true,
		"1 validation error for call[add]\nb\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', input_type=str]": true,
		"the [type=] marker": false,
		"type=missing":       false,
	} {
		g := Grade(Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "add", Param: "b", Class: ClassToolError, Text: text},
			Context{ToolNames: []string{"add"}, ParamNames: []string{"a", "b"}, Required: []string{"a", "b"}})
		if g.Pass(ElemCode) != want {
			t.Errorf("%q: code %v, want %v (%s)", text, g.Pass(ElemCode), want, evidenceOf(g, ElemCode))
		}
	}
}

// TestPrettyJSONIsNotItems is item 4: lines of pretty-printed JSON are
// layout; the enumeration is the longest array.
func TestPrettyJSONIsNotItems(t *testing.T) {
	for _, c := range loadJSONL(t, sdkFile) {
		if !strings.HasPrefix(string(c.ID), `"ts-sdk`) {
			continue
		}
		g := gradeCase(t, c)
		var resp struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(c.Response, &resp); err != nil {
			t.Fatal(err)
		}
		text := resp.Result.Content[0].Text
		want := longestArray(t, text[strings.Index(text, ": [")+2:])
		if g.Enumeration != want {
			t.Errorf("%s: enumeration %d, want %d (the longest JSON array; the text has %d lines)", c.ID, g.Enumeration, want, strings.Count(text, "\n")+1)
		}
	}
}

func longestArray(t *testing.T, s string) int {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any) int
	walk = func(v any) int {
		best := 0
		switch x := v.(type) {
		case []any:
			best = len(x)
			for _, e := range x {
				best = max(best, walk(e))
			}
		case map[string]any:
			for _, e := range x {
				best = max(best, walk(e))
			}
		}
		return best
	}
	return walk(v)
}

func evidenceOf(g Graded, name string) string {
	for _, e := range g.Elements {
		if e.Name == name {
			return e.Evidence
		}
	}
	return "(not applicable)"
}

// weatherIn is the input of the in-process go-sdk server's tool.
type weatherIn struct {
	City string `json:"city" jsonschema:"city name"`
	Days int    `json:"days,omitempty" jsonschema:"days ahead, 1 to 7"`
}

// TestGoSDKInProcess runs a go-sdk server in process, sends it the probe
// kinds, turns each answer into a recorded line exactly as the wire
// carries it, and grades it: the go-sdk's own error shapes.
func TestGoSDKInProcess(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "0.1.0"}, &mcp.ServerOptions{PageSize: 1})
	mcp.AddTool(srv, &mcp.Tool{Name: "get_forecast", Description: "forecast"}, func(ctx context.Context, req *mcp.CallToolRequest, in weatherIn) (*mcp.CallToolResult, any, error) {
		if in.City == "Atlantis" {
			return nil, nil, fmt.Errorf("unknown city %q", in.City)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "get_alerts", Description: "alerts"}, func(ctx context.Context, req *mcp.CallToolRequest, in weatherIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "none"}}}, nil, nil
	})
	srv.AddResource(&mcp.Resource{URI: "weather://stations", Name: "stations"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Run(ctx, st)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpvet-test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	init := cs.InitializeResult()
	caps, _ := json.Marshal(init.Capabilities)
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tools []RecordedTool
	for _, tl := range lt.Tools {
		sch, _ := json.Marshal(tl.InputSchema)
		tools = append(tools, RecordedTool{Name: tl.Name, InputSchema: sch})
	}
	call := func(name string, args any) (any, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}
	tests := []struct {
		kind, param, method string
		params              map[string]any
		do                  func() (any, error)
		// channel and code as the rubric requires for the go-sdk's shape.
		channel, code bool
	}{
		{KindWrongType, "days", "tools/call", map[string]any{"name": "get_forecast", "arguments": map[string]any{"city": "Oslo", "days": "three"}},
			func() (any, error) { return call("get_forecast", map[string]any{"city": "Oslo", "days": "three"}) }, true, false},
		{KindMissingRequired, "city", "tools/call", map[string]any{"name": "get_forecast", "arguments": map[string]any{"days": 2}},
			func() (any, error) { return call("get_forecast", map[string]any{"days": 2}) }, true, false},
		{KindUnknownTool, "name", "tools/call", map[string]any{"name": "get_forecst", "arguments": map[string]any{}},
			func() (any, error) { return call("get_forecst", map[string]any{}) }, true, false},
		{KindRuntime, "", "tools/call", map[string]any{"name": "get_forecast", "arguments": map[string]any{"city": "Atlantis"}},
			func() (any, error) { return call("get_forecast", map[string]any{"city": "Atlantis"}) }, true, false},
		{KindUnknownResource, "uri", "resources/read", map[string]any{"uri": "weather://nope"},
			func() (any, error) { return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "weather://nope"}) }, true, false},
		{KindUnknownPrompt, "name", "prompts/get", map[string]any{"name": "nope"},
			func() (any, error) { return cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope"}) }, true, false},
		{KindBadCursor, "cursor", "tools/list", map[string]any{"cursor": "!!bad!!"},
			func() (any, error) { return cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "!!bad!!"}) }, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			res, err := tt.do()
			var resp map[string]any
			var we *jsonrpc.Error
			switch {
			case errors.As(err, &we):
				e := map[string]any{"code": we.Code, "message": we.Message}
				if len(we.Data) > 0 {
					e["data"] = we.Data
				}
				resp = map[string]any{"jsonrpc": "2.0", "id": 1, "error": e}
			case err != nil:
				t.Fatalf("transport error: %v", err)
			default:
				resp = map[string]any{"jsonrpc": "2.0", "id": 1, "result": res}
			}
			rec := Recorded{Kind: tt.kind, Param: tt.param, ProtocolVersion: init.ProtocolVersion, Capabilities: caps, Tools: tools}
			rec.Request, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": tt.method, "params": tt.params})
			rec.Response, _ = json.Marshal(resp)
			r, c, err := rec.Prepare()
			if err != nil {
				t.Fatal(err)
			}
			g := Grade(r, c)
			t.Logf("%s\n  response %s\n  %s", tt.kind, rec.Response, g)
			if g.Pass(ElemChannel) != tt.channel {
				t.Errorf("channel %v, want %v: %s", g.Pass(ElemChannel), tt.channel, evidenceOf(g, ElemChannel))
			}
			if g.Pass(ElemCode) != tt.code {
				t.Errorf("code %v, want %v: %s", g.Pass(ElemCode), tt.code, evidenceOf(g, ElemCode))
			}
		})
	}
}
