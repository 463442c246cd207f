package scoring

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// tsValidation is the TypeScript SDK's (1.2x, zod v3 formatting) answer to
// invalid arguments, as server-everything@2026.1.26 sends it.
func tsValidation(tool, detail string) string {
	return "MCP error -32602: Input validation error: Invalid arguments for tool " + tool + ": " + detail
}

// TestCueWordsInIdentifiers is item 2: "pick" in git_cherry_pick and
// "include" in include_hidden are names, not instructions, so a response
// naming them earns no next action.
func TestCueWordsInIdentifiers(t *testing.T) {
	ctx := Context{ToolNames: []string{"git_cherry_pick", "git_status"}, ParamNames: []string{"commit", "include_hidden", "hidden_files"}}
	grade := func(param, text string) Graded {
		return Grade(Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "git_cherry_pick", Param: param,
			Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: text}, ctx)
	}
	a := grade("include_hidden", tsValidation("git_cherry_pick", "Required at include_hidden"))
	b := grade("hidden_files", tsValidation("git_cherry_pick", "Required at hidden_files"))
	if a.Pass(ElemNextAction) || b.Pass(ElemNextAction) {
		t.Errorf("next_action passed on a name: %s / %s", evidenceOf(a, ElemNextAction), evidenceOf(b, ElemNextAction))
	}
	if a.Score != b.Score {
		t.Errorf("Required at include_hidden scores %.1f, Required at hidden_files %.1f; want equal", a.Score, b.Score)
	}
	for text, want := range map[string]bool{
		"the git_cherry_pick tool failed":                  false,
		"config.set failed: read-only":                     false,
		"use_cache is disabled":                            false,
		"Include include_hidden: true to list dot files.":  true,
		"Call git_status first, then retry the pick.":      true,
		"pick a commit with git_status and pass its hash.": true,
	} {
		g := grade("commit", text)
		if g.Pass(ElemNextAction) != want {
			t.Errorf("%q: next_action %v, want %v (%s)", text, g.Pass(ElemNextAction), want, evidenceOf(g, ElemNextAction))
		}
	}
}

// TestChannelByCode is item 3: the channel is judged by the error code
// and the declared capabilities, per the negotiated revision's text.
func TestChannelByCode(t *testing.T) {
	code := func(c int64) *int64 { return &c }
	withResources := Context{Capabilities: json.RawMessage(`{"tools":{},"resources":{}}`)}
	toolsOnly := Context{Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`)}
	tests := []struct {
		name string
		r    Response
		c    Context
		want bool
	}{
		{"-32603 for an unknown tool", Response{Kind: KindUnknownTool, Method: "tools/call", Sent: raw(`"ech"`), Class: ClassProtocolError,
			ErrorCode: code(-32603), ErrorMessage: "Internal error: tool ech not found"}, toolsOnly, false},
		{"-32602 for an unknown tool (go-sdk)", Response{Kind: KindUnknownTool, Method: "tools/call", Sent: raw(`"ech"`), Class: ClassProtocolError,
			ErrorCode: code(-32602), ErrorMessage: `unknown tool "ech"`}, toolsOnly, true},
		{"-32603 for invalid arguments at 2025-06-18", Response{Kind: KindMissingRequired, Method: "tools/call", Param: "context", Class: ClassProtocolError,
			ProtocolVersion: "2025-06-18", ErrorCode: code(-32603), ErrorMessage: "Internal error", ErrorData: raw(`"Missing required arguments: context"`)}, toolsOnly, false},
		{"-32602 for invalid arguments at 2025-06-18", Response{Kind: KindMissingRequired, Method: "tools/call", Param: "context", Class: ClassProtocolError,
			ProtocolVersion: "2025-06-18", ErrorCode: code(-32602), ErrorMessage: "MCP error -32602: Invalid arguments for tool x: Required at context"}, toolsOnly, true},
		{"-32603 for an unknown resource", Response{Kind: KindUnknownResource, Method: "resources/read", Sent: raw(`"demo://nope"`), Class: ClassProtocolError,
			ErrorCode: code(-32603), ErrorMessage: "Resource demo://nope not found"}, withResources, false},
		{"-32601 to resources/read from a server declaring resources", Response{Kind: KindUnknownResource, Method: "resources/read", Sent: raw(`"demo://nope"`),
			Class: ClassProtocolError, ErrorCode: code(-32601), ErrorMessage: "Method not found"}, withResources, false},
		{"-32601 to resources/read from a server without resources", Response{Kind: KindUnknownResource, Method: "resources/read", Sent: raw(`"demo://nope"`),
			Class: ClassProtocolError, ErrorCode: code(-32601), ErrorMessage: "Method not found"}, toolsOnly, true},
		{"-32002 resource not found", Response{Kind: KindUnknownResource, Method: "resources/read", Sent: raw(`"demo://nope"`),
			Class: ClassProtocolError, ErrorCode: code(-32002), ErrorMessage: "Resource not found"}, withResources, true},
		{"-32602 resource not found (TypeScript SDK, SEP-2164)", Response{Kind: KindUnknownResource, Method: "resources/read", Sent: raw(`"demo://nope"`),
			Class: ClassProtocolError, ErrorCode: code(-32602), ErrorMessage: "MCP error -32602: Resource demo://nope not found"}, withResources, true},
		{"-32603 fetch failed to a bad cursor", Response{Kind: KindBadCursor, Method: "tools/list", Sent: raw(`"!!"`), Class: ClassProtocolError,
			ErrorCode: code(-32603), ErrorMessage: "fetch failed"}, toolsOnly, false},
		{"-32602 to a bad cursor", Response{Kind: KindBadCursor, Method: "tools/list", Sent: raw(`"!!"`), Class: ClassProtocolError,
			ErrorCode: code(-32602), ErrorMessage: "invalid params"}, toolsOnly, true},
		{"-32601 to prompts/get without prompts", Response{Kind: KindUnknownPrompt, Method: "prompts/get", Sent: raw(`"p"`), Class: ClassProtocolError,
			ErrorCode: code(-32601), ErrorMessage: "Method not found"}, toolsOnly, true},
		{"-32601 to prompts/get with prompts", Response{Kind: KindUnknownPrompt, Method: "prompts/get", Sent: raw(`"p"`), Class: ClassProtocolError,
			ErrorCode: code(-32601), ErrorMessage: "Method not found"}, Context{PromptNames: []string{"simple"}}, false},
		{"-32601 for an unknown method", Response{Kind: KindUnknownMethod, Method: "tools/frobnicate", Class: ClassProtocolError,
			ErrorCode: code(-32601), ErrorMessage: "Method not found"}, toolsOnly, true},
		{"-32603 for an unknown method", Response{Kind: KindUnknownMethod, Method: "tools/frobnicate", Class: ClassProtocolError,
			ErrorCode: code(-32603), ErrorMessage: "Internal error"}, toolsOnly, false},
		{"a server-defined code for an unknown tool", Response{Kind: KindUnknownTool, Method: "tools/call", Sent: raw(`"ech"`), Class: ClassProtocolError,
			ErrorCode: code(404), ErrorMessage: "no such tool: ech"}, toolsOnly, true},
		{"-32603 for a runtime failure of resources/read", Response{Kind: KindRuntime, Method: "resources/read", Class: ClassProtocolError,
			ErrorCode: code(-32603), ErrorMessage: "upstream timed out"}, withResources, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Grade(tt.r, tt.c)
			if g.Pass(ElemChannel) != tt.want {
				t.Errorf("channel %v, want %v: %s", g.Pass(ElemChannel), tt.want, evidenceOf(g, ElemChannel))
			}
			if g.WrongChannel == tt.want {
				t.Errorf("WrongChannel = %v", g.WrongChannel)
			}
		})
	}
}

// TestSenseAndAddressee is item 5: advice about something other than this
// call, or a fact about waiting, is not retry guidance.
func TestSenseAndAddressee(t *testing.T) {
	ctx := Context{ToolNames: []string{"charge_card", "get_status"}, ParamNames: []string{"amount", "card"}}
	tests := []struct {
		text            string
		retryable, next bool
	}{
		{"Card declined; do not retry the payment.", false, false},
		{"We never retry failed charges.", false, false},
		{"Upstream busy: wait time 5 seconds.", false, false},
		{"The average wait is 30 seconds.", false, false},
		{"Card declined. Do not retry.", true, false},
		{"Card declined; do not retry this call, ask for another card.", true, false},
		{"Never retry this request: the card is blocked.", true, false},
		{"Never re-try this request: the card is blocked.", true, false},
		{"Failed to retrieve the card; the request is malformed.", false, false},
		{"Rate limited. Wait 12 s before the next call.", true, true},
		{"Rate limited; retry after 30 seconds.", true, true},
	}
	for _, tt := range tests {
		g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "charge_card", Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: tt.text}, ctx)
		if g.Pass(ElemRetryable) != tt.retryable {
			t.Errorf("%q: retryable %v, want %v (%s)", tt.text, g.Pass(ElemRetryable), tt.retryable, evidenceOf(g, ElemRetryable))
		}
		if g.Pass(ElemNextAction) != tt.next {
			t.Errorf("%q: next_action %v, want %v (%s)", tt.text, g.Pass(ElemNextAction), tt.next, evidenceOf(g, ElemNextAction))
		}
	}
}

// ladderContext is the server behind the ladder: a project tool and the
// tool that lists projects.
var ladderContext = Context{
	ToolNames:  []string{"get_project", "list_projects"},
	ParamNames: []string{"project_id"},
	Required:   []string{"project_id"},
}

func ladderResponse(text string) Response {
	return Response{Kind: KindUnknownID, Method: "tools/call", Tool: "get_project", Param: "project_id", Sent: raw(`"prj_8Fk2"`),
		Arguments: raw(`{"name":"get_project","arguments":{"project_id":"prj_8Fk2"}}`),
		Class:     ClassToolError, ProtocolVersion: "2025-11-25", Text: text}
}

// seedPayload is the full structured error of the background text, with
// the closest matches given.
func seedPayload(matches []string) string {
	b, _ := json.Marshal(map[string]any{
		"code":            "unknown_project",
		"message":         "No project prj_8Fk2 in this workspace.",
		"field":           "project_id",
		"received":        "prj_8Fk2",
		"expected":        "an id of the form prj_ followed by 5 letters or digits",
		"closest_matches": matches,
		"recover":         "Call list_projects to enumerate ids in the current workspace.",
		"retryable":       "with_different_arguments",
	})
	return string(b)
}

// TestOrderingLadder is item 6: responses of increasing actionability,
// shaped like real SDK output, score strictly higher rung by rung, and a
// full list of 300 options does not outrank two closest matches.
func TestOrderingLadder(t *testing.T) {
	rungs := []struct{ name, text string }{
		{"bare", "Invalid arguments"},
		{"names the parameter", "Invalid arguments: project_id"},
		{"adds the received value", `Invalid arguments: project_id "prj_8Fk2" does not exist`},
		{"adds the permitted form", `Invalid arguments: project_id "prj_8Fk2" does not exist; ids must match ^prj_[A-Za-z0-9]{5}$`},
		{"adds a stable code", `unknown_project: project_id "prj_8Fk2" does not exist; ids must match ^prj_[A-Za-z0-9]{5}$`},
		{"adds a named executable next action", `unknown_project: project_id "prj_8Fk2" does not exist; ids must match ^prj_[A-Za-z0-9]{5}$. Call list_projects to see the ids of this workspace.`},
		{"adds retry guidance", `unknown_project: project_id "prj_8Fk2" does not exist; ids must match ^prj_[A-Za-z0-9]{5}$. Call list_projects to see the ids of this workspace, then retry with one of them.`},
		{"the seed-style full payload", seedPayload([]string{"prj_8Fk2l (Billing Migration)", "prj_8Fj21 (Billing Reports)"})},
	}
	prev := -1.0
	for i, r := range rungs {
		g := Grade(ladderResponse(r.text), ladderContext)
		t.Logf("rung %d %-36s %5.1f %s", i+1, r.name, g.Score, g)
		if g.Score <= prev {
			t.Errorf("rung %d (%s) scores %.1f, not above the rung before (%.1f)", i+1, r.name, g.Score, prev)
		}
		prev = g.Score
	}
	var all []string
	for i := range 300 {
		all = append(all, fmt.Sprintf("prj_%05d", i))
	}
	two := Grade(ladderResponse(seedPayload([]string{"prj_8Fk2l", "prj_8Fj21"})), ladderContext)
	full := Grade(ladderResponse(seedPayload(all)), ladderContext)
	if full.Score >= two.Score {
		t.Errorf("300 options score %.1f, two closest matches %.1f; the full list must not outrank them", full.Score, two.Score)
	}
	// The pair: a response naming the parameter, the received
	// value, the permitted values and a code, against a bare TS SDK
	// "Required at fileKey".
	rich := Grade(Response{Kind: KindEnumViolation, Method: "tools/call", Tool: "get-template", Param: "category", Sent: raw(`"nope"`), Class: ClassToolError,
		ProtocolVersion: "2025-11-25", Text: tsValidation("get-template", "[\n  {\n    \"received\": \"nope\",\n    \"code\": \"invalid_enum_value\",\n    \"options\": [\n      \"code-generation\",\n      \"technical-analysis\"\n    ],\n    \"path\": [\n      \"category\"\n    ],\n    \"message\": \"Invalid enum value. Expected 'code-generation' | 'technical-analysis', received 'nope'\"\n  }\n]")},
		Context{ToolNames: []string{"get-template"}, ParamNames: []string{"category"}, Required: []string{"category"}})
	bare := Grade(Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "get_figma_data", Param: "fileKey", Class: ClassToolError,
		ProtocolVersion: "2025-11-25", Text: tsValidation("get_figma_data", "Required at fileKey")},
		Context{ToolNames: []string{"get_figma_data"}, ParamNames: []string{"fileKey"}, Required: []string{"fileKey"}})
	if rich.Score <= bare.Score {
		t.Errorf("rich response %.1f not above \"Required at fileKey\" %.1f", rich.Score, bare.Score)
	}
	// As rich, plus 39 options, against a bare "Tool X not found".
	var opts []string
	for i := range 39 {
		opts = append(opts, fmt.Sprintf(`"lang%02d"`, i))
	}
	rich39 := Grade(Response{Kind: KindEnumViolation, Method: "tools/call", Tool: "run-code", Param: "languageId", Sent: raw(`"cobol"`), Class: ClassToolError,
		ProtocolVersion: "2025-11-25", Text: tsValidation("run-code", "[\n  {\n    \"received\": \"cobol\",\n    \"code\": \"invalid_enum_value\",\n    \"options\": [\n      "+strings.Join(opts, ",\n      ")+"\n    ],\n    \"path\": [\n      \"languageId\"\n    ],\n    \"message\": \"Invalid enum value.\"\n  }\n]")},
		Context{ToolNames: []string{"run-code"}, ParamNames: []string{"languageId"}, Required: []string{"languageId"}})
	notFound := Grade(Response{Kind: KindUnknownTool, Method: "tools/call", Sent: raw(`"run-cod"`), Class: ClassProtocolError, ProtocolVersion: "2025-06-18",
		ErrorCode: func() *int64 { c := int64(-32602); return &c }(), ErrorMessage: "MCP error -32602: Tool run-cod not found"},
		Context{ToolNames: []string{"run-code"}})
	if rich39.Score <= notFound.Score {
		t.Errorf("rich response with 39 options %.1f not above a bare \"Tool X not found\" %.1f", rich39.Score, notFound.Score)
	}
}

// TestKeyedSecret is item 7: an AWS secret access key is seen by its key.
func TestKeyedSecret(t *testing.T) {
	const key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	for text, want := range map[string]bool{
		"config error: aws_secret_access_key=" + key:         false,
		"AWS_SECRET_ACCESS_KEY: \"" + key + "\" is invalid":  false,
		"aws_secret_access_key is not set; see the README":   true,
		"aws_secret_access_key=" + key[:20] + " (truncated)": true,
	} {
		g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "s3_get", Class: ClassToolError, Text: text}, Context{ToolNames: []string{"s3_get"}})
		if g.Pass(ElemNoLeak) != want {
			t.Errorf("%q: no_leak %v, want %v (%s)", text, g.Pass(ElemNoLeak), want, evidenceOf(g, ElemNoLeak))
		}
		if !want && strings.Contains(evidenceOf(g, ElemNoLeak), key) {
			t.Errorf("evidence repeats the secret: %s", evidenceOf(g, ElemNoLeak))
		}
	}
	// Sent by the caller: an echo, not a leak.
	g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "s3_get", Class: ClassToolError,
		Arguments: raw(`{"name":"s3_get","arguments":{"secret":"` + strings.ReplaceAll(key, "/", `\/`) + `"}}`),
		Text:      "rejected aws_secret_access_key=" + key}, Context{})
	if !g.Pass(ElemNoLeak) {
		t.Errorf("echoed key counted as a leak: %s", evidenceOf(g, ElemNoLeak))
	}
}
