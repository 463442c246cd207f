package probe

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInputRequiredConformant: a go-sdk v1.8.0 server on 2026-07-28 whose
// read-only tool first answers input_required (an elicitation with a
// default and an enum, and a requestState), then completes once called
// again with the answer and the state: one input round, a result, no
// finding.
func TestInputRequiredConformant(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "1"}, nil)
	form := map[string]any{"type": "object", "properties": map[string]any{
		"color": map[string]any{"type": "string", "enum": []any{"red", "green"}, "default": "green"}}}
	var got struct {
		state  string
		answer bool
	}
	mcp.AddTool(server, &mcp.Tool{Name: "reader", Description: "Reads after asking.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(bool)}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if req.Params.InputResponses == nil {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"color": &mcp.ElicitParams{Message: "Pick a color", RequestedSchema: form}},
					RequestState: "state-1"}, nil, nil
			}
			got.state = req.Params.RequestState
			_, got.answer = req.Params.InputResponses["color"]
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	res := runExercised(t, server, "")
	if res.Liveness.ProtocolVersion != "2026-07-28" {
		t.Fatalf("negotiated %q, want 2026-07-28", res.Liveness.ProtocolVersion)
	}
	want := []Exercise{{Tool: "reader", Arguments: []byte(`{}`), Outcome: "result", InputRounds: 1}}
	if diff := cmp.Diff(want, res.Exercised); diff != "" {
		t.Errorf("exercised (-want +got):\n%s", diff)
	}
	if got.state != "state-1" || !got.answer {
		t.Errorf("the call again carried requestState %q, an answer to \"color\": %v", got.state, got.answer)
	}
	// (The go-sdk's own ping and logging/setLevel results lack resultType:
	// message_schema_violation at info, not about the call.)
	for _, k := range findingKeys(res, "protocol/", "elicitation/", "output/") {
		if !strings.HasSuffix(k, " ping") && !strings.HasSuffix(k, " logging/setLevel") {
			t.Errorf("finding on a conformant server: %s", k)
		}
	}
}

// TestInputRequiredViolations: scripted 2026-07-28 servers whose tool
// answers input_required with nothing to answer, or with a form whose
// default its enum refuses (asked again the same way after each answer).
func TestInputRequiredViolations(t *testing.T) {
	const discover = `{"resultType":"complete","cacheScope":"public","ttlMs":0,"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`
	tools := `{"resultType":"complete","cacheScope":"public","ttlMs":0,` + readerTool[1:]
	for _, tt := range []struct {
		name, answer string
		want         []string
		rounds       int
	}{
		{"empty", `{"resultType":"input_required"}`, []string{"protocol/input_required_empty tool:reader tools/call/result"}, 0},
		{"bad form", `{"resultType":"input_required","requestState":"s","inputRequests":{"c":{"method":"elicitation/create","params":{"mode":"form","message":"Pick",
		  "requestedSchema":{"type":"object","properties":{"color":{"type":"string","enum":["red"],"default":"blue"}}}}}}}`,
			[]string{"elicitation/schema_inconsistent tool:reader tools/call/result/inputRequests/c/params/requestedSchema/properties/color/default"}, maxInputRounds},
		{"sampling with tools", `{"resultType":"input_required","requestState":"s","inputRequests":{"s1":{"method":"sampling/createMessage","params":{"maxTokens":9,
		  "messages":[{"role":"user","content":{"type":"text","text":"x"}}],"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}}}`,
			[]string{"sampling/undeclared_feature_used tool:reader tools/call/result/inputRequests/s1/params/tools"}, maxInputRounds},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := &scriptServer{script: map[string][]string{
				"server/discover": result(discover),
				"tools/list":      result(tools),
				"tools/call":      result(tt.answer),
			}}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res := Run(ctx, srv, &Options{CallTimeout: 2 * time.Second, Exercise: true, SkipBasics: true, Inject: &InjectOptions{Disabled: true}})
			if diff := cmp.Diff(tt.want, findingKeys(res, CodeInputRequiredEmpty, CodeElicitSchemaInconsistent, CodeSamplingUndeclared)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, res.Findings)
			}
			if len(res.Exercised) != 1 || res.Exercised[0].Outcome != "input_required" || res.Exercised[0].InputRounds != tt.rounds {
				t.Errorf("exercised %+v, want outcome input_required after %d rounds", res.Exercised, tt.rounds)
			}
		})
	}
}

// TestExerciseBudget: the declared budget bounds the tools/call requests:
// three callable tools, a budget of two, two calls; the budget is in the
// result.
func TestExerciseBudget(t *testing.T) {
	tool := func(name string) string {
		return `{"name":"` + name + `","description":"Reads.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"openWorldHint":false}}`
	}
	srv := &scriptServer{script: map[string][]string{
		"initialize": {initAnswer(`{"tools":{}}`)},
		"tools/list": result(`{"tools":[` + tool("a") + `,` + tool("b") + `,` + tool("c") + `]}`),
		"tools/call": result(`{"content":[{"type":"text","text":"ok"}]}`),
	}}
	for _, tt := range []struct{ budget, calls, declared int }{{2, 2, 2}, {0, 3, DefaultExerciseCalls}} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res := Run(ctx, srv, &Options{CallTimeout: 2 * time.Second, Exercise: true, ExerciseCalls: tt.budget, SkipBasics: true, Inject: &InjectOptions{Disabled: true}})
		cancel()
		n := 0
		for _, c := range res.Calls {
			if c.Method == "tools/call" {
				n++
			}
		}
		if len(res.Exercised) != tt.calls || n != tt.calls || res.ExerciseCalls != tt.declared {
			t.Errorf("budget %d: %d exercised, %d tools/call sent, declared %d; want %d, %d, %d", tt.budget, len(res.Exercised), n, res.ExerciseCalls, tt.calls, tt.calls, tt.declared)
		}
	}
}
