package scoring

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

//go:fix inline

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// passes projects a grade onto element name -> pass.
func passes(g Graded) map[string]bool {
	m := map[string]bool{}
	for _, e := range g.Elements {
		m[e.Name] = e.Pass
	}
	return m
}

func TestGrade(t *testing.T) {
	projCtx := Context{ToolNames: []string{"get_project", "list_projects"}, ParamNames: []string{"project_id"}, Required: []string{"project_id"}}
	tests := []struct {
		name      string
		r         Response
		c         Context
		want      map[string]bool
		wantScore float64
		wantNA    []string
	}{
		{
			name: "published unknown_project payload passes every element",
			r: Response{Kind: KindUnknownID, Method: "tools/call", Tool: "get_project", Param: "project_id", Sent: raw(`"prj_8Fk21"`),
				Class: ClassToolError, ProtocolVersion: "2025-11-25",
				Text: `{"code":"unknown_project","message":"No project with id 'prj_8Fk21'.","field":"project_id","received":"prj_8Fk21",` +
					`"closest_matches":["prj_8Fk2l (Billing Migration)","prj_8Fj21 (Billing Reports)"],` +
					`"recover":"Call list_projects to enumerate ids in the current workspace.","retryable":"with_different_arguments"}`},
			c: projCtx,
			want: map[string]bool{ElemChannel: true, ElemParam: true, ElemValueOrForm: true, ElemNextAction: true, ElemCode: true,
				ElemRetryable: true, ElemClosestMatches: true, ElemNoLeak: true, ElemBounded: true},
			wantScore: 100,
		},
		{
			name: "next action naming a tool the server lacks does not count",
			r: Response{Kind: KindUnknownID, Method: "tools/call", Tool: "get_project", Param: "project_id", Sent: raw(`"prj_8Fk21"`),
				Class: ClassToolError, ProtocolVersion: "2025-11-25",
				Text: `No project prj_8Fk21. Call list_workspaces to find it.`},
			c: projCtx,
			want: map[string]bool{ElemChannel: true, ElemParam: true, ElemValueOrForm: true, ElemNextAction: false, ElemCode: false,
				ElemRetryable: false, ElemClosestMatches: false, ElemNoLeak: true, ElemBounded: true},
			// 55 of 100: channel, param, no_leak, bounded, and half of
			// value_or_form (the value echoed, no permitted form).
			wantScore: 42.5,
		},
		{
			name: "generic 500 text: only channel, no_leak and bounded",
			r:    Response{Kind: KindRuntime, Method: "tools/call", Tool: "get_project", Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: `{"error": "could not process request"}`},
			c:    projCtx,
			want: map[string]bool{ElemChannel: true, ElemNextAction: false, ElemCode: false, ElemRetryable: false, ElemNoLeak: true, ElemBounded: true},
			// 35 of 70 applicable weight.
			wantScore: 20,
			wantNA:    []string{ElemParam, ElemValueOrForm, ElemClosestMatches},
		},
		{
			name: "validation error on the JSON-RPC channel after 2025-11-25",
			r: Response{Kind: KindWrongType, Method: "tools/call", Tool: "list_issues", Param: "limit", Sent: raw(`"ten"`),
				Class: ClassProtocolError, ProtocolVersion: "2025-11-25", ErrorCode: new(int64(-32602)),
				ErrorMessage: `Invalid params: 'limit' must be an integer between 1 and 100, got "ten"`},
			c: Context{ToolNames: []string{"list_issues"}, ParamNames: []string{"limit"}},
			want: map[string]bool{ElemChannel: false, ElemParam: true, ElemValueOrForm: true, ElemNextAction: false, ElemCode: false,
				ElemRetryable: false, ElemNoLeak: true, ElemBounded: true},
			wantScore: 45.5,
			wantNA:    []string{ElemClosestMatches},
		},
		{
			name: "the same before 2025-11-25",
			r: Response{Kind: KindWrongType, Method: "tools/call", Tool: "list_issues", Param: "limit", Sent: raw(`"ten"`),
				Class: ClassProtocolError, ProtocolVersion: "2025-06-18", ErrorCode: new(int64(-32602)),
				ErrorMessage: `Invalid params: 'limit' must be an integer between 1 and 100, got "ten"`},
			c: Context{ToolNames: []string{"list_issues"}, ParamNames: []string{"limit"}},
			want: map[string]bool{ElemChannel: true, ElemParam: true, ElemValueOrForm: true, ElemNextAction: false, ElemCode: false,
				ElemRetryable: false, ElemNoLeak: true, ElemBounded: true},
			wantScore: 56.9,
			wantNA:    []string{ElemClosestMatches},
		},
		{
			name: "accepted invalid input scores zero",
			r: Response{Kind: KindUnknownProperty, Method: "tools/call", Tool: "echo", Param: "bogus", Sent: raw(`"bogus"`),
				Class: ClassAccepted, ProtocolVersion: "2025-11-25", Text: "Echo: hi"},
			c: Context{ToolNames: []string{"echo"}, ParamNames: []string{"message"}},
			want: map[string]bool{ElemChannel: false, ElemParam: false, ElemValueOrForm: false, ElemNextAction: false, ElemCode: false,
				ElemRetryable: false, ElemNoLeak: true, ElemBounded: true},
			wantScore: 0,
			wantNA:    []string{ElemClosestMatches},
		},
		{
			name: "unknown tool on the tool-error channel with a suggestion",
			r: Response{Kind: KindUnknownTool, Method: "tools/call", Tool: "ech", Param: "name", Sent: raw(`"ech"`),
				Class: ClassToolError, ProtocolVersion: "2025-06-18", Text: "Tool ech not found. Did you mean echo?"},
			c: Context{ToolNames: []string{"echo", "add"}},
			want: map[string]bool{ElemChannel: false, ElemParam: true, ElemValueOrForm: true, ElemNextAction: true, ElemCode: false,
				ElemRetryable: false, ElemClosestMatches: true, ElemNoLeak: true, ElemBounded: true},
			// Fails channel (15), code (10), retryable (10).
			wantScore: 64,
		},
		{
			name: "terminal command is not an executable next action",
			r: Response{Kind: KindRuntime, Method: "tools/call", Tool: "search", Class: ClassToolError, ProtocolVersion: "2025-11-25",
				Text: "Credentials expired. Run `acme login` in your terminal, then call search again."},
			c:         Context{ToolNames: []string{"search", "login"}},
			want:      map[string]bool{ElemChannel: true, ElemNextAction: false, ElemCode: false, ElemRetryable: false, ElemNoLeak: true, ElemBounded: true},
			wantScore: 20,
			wantNA:    []string{ElemParam, ElemValueOrForm, ElemClosestMatches},
		},
		{
			name: "a stack trace with a host path is a leak",
			r: Response{Kind: KindRuntime, Method: "tools/call", Tool: "run", Class: ClassToolError, ProtocolVersion: "2025-11-25",
				Text: "TypeError: x is undefined\n    at run (/home/ci/app/index.js:10:5)"},
			c:         Context{ToolNames: []string{"run"}},
			want:      map[string]bool{ElemChannel: true, ElemNextAction: false, ElemCode: false, ElemRetryable: false, ElemNoLeak: false, ElemBounded: true},
			wantScore: 17,
			wantNA:    []string{ElemParam, ElemValueOrForm, ElemClosestMatches},
		},
		{
			name: "crash",
			r:    Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "run", Param: "cmd", Class: ClassCrash, ProtocolVersion: "2025-11-25"},
			c:    Context{ToolNames: []string{"run"}, ParamNames: []string{"cmd"}, Required: []string{"cmd"}},
			want: map[string]bool{ElemChannel: false, ElemParam: false, ElemValueOrForm: false, ElemNextAction: false, ElemCode: false,
				ElemRetryable: false, ElemNoLeak: true, ElemBounded: true},
			wantScore: 0,
			wantNA:    []string{ElemClosestMatches},
		},
		{
			name: "empty arguments to a tool without required parameters: param and value do not apply",
			r:    Response{Kind: KindEmptyArguments, Method: "tools/call", Tool: "ping", Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "bad request"},
			c:    Context{ToolNames: []string{"ping"}},
			want: map[string]bool{ElemChannel: true, ElemNextAction: false, ElemCode: false, ElemRetryable: false, ElemNoLeak: true, ElemBounded: true},
			// 35 of 70.
			wantScore: 20,
			wantNA:    []string{ElemParam, ElemValueOrForm, ElemClosestMatches},
		},
		{
			name: "unknown method: param does not apply",
			r: Response{Kind: KindUnknownMethod, Method: "no/such", Sent: raw(`"no/such"`), Class: ClassProtocolError, ProtocolVersion: "2025-11-25",
				ErrorCode: new(int64(-32601)), ErrorMessage: "Method not found"},
			want: map[string]bool{ElemChannel: true, ElemValueOrForm: false, ElemNextAction: false, ElemCode: false, ElemRetryable: false,
				ElemClosestMatches: false, ElemNoLeak: true, ElemBounded: true},
			wantScore: 20,
			wantNA:    []string{ElemParam},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Grade(tt.r, tt.c)
			if diff := cmp.Diff(tt.want, passes(g)); diff != "" {
				t.Errorf("elements (-want +got):\n%s\n%s", diff, g)
				for _, e := range g.Elements {
					t.Logf("%s %v: %s", e.Name, e.Pass, e.Evidence)
				}
			}
			if g.Score != tt.wantScore {
				t.Errorf("score = %v, want %v", g.Score, tt.wantScore)
			}
			if diff := cmp.Diff(tt.wantNA, g.NotApplicable); diff != "" {
				t.Errorf("not applicable (-want +got):\n%s", diff)
			}
			if g.RubricVersion != RubricVersion {
				t.Errorf("rubric version = %q, want %q", g.RubricVersion, RubricVersion)
			}
		})
	}
}

// TestGradeEvidence checks that evidence quotes the span or JSON field that
// decided each element.
func TestGradeEvidence(t *testing.T) {
	r := Response{Kind: KindEnumViolation, Method: "tools/call", Tool: "get_forecast", Param: "units", Sent: raw(`"kelvin"`),
		Class: ClassToolError, ProtocolVersion: "2025-11-25",
		Text:              "units must be one of metric, imperial; got kelvin. Set units to \"metric\" and call get_forecast again.",
		StructuredContent: raw(`{"code":"invalid_argument","retryable":"with_different_arguments"}`)}
	c := Context{ToolNames: []string{"get_forecast"}, ParamNames: []string{"city", "units"}}
	g := Grade(r, c)
	want := []probe.Element{
		{Name: ElemChannel, Pass: true, Evidence: "result.isError=true for an input validation error"},
		{Name: ElemParam, Pass: true, Evidence: `text[0:5] "units"`},
		{Name: ElemValueOrForm, Pass: true, Evidence: `text[43:49] "kelvin"; text[14:20] "one of"`},
		{Name: ElemNextAction, Pass: true, Evidence: `text[51:100] "Set units to \"metric\" and call get_forecast again"`},
		{Name: ElemCode, Pass: true, Evidence: `structuredContent.code = "invalid_argument"`},
		{Name: ElemRetryable, Pass: true, Evidence: `structuredContent.retryable = "with_different_arguments"`},
		{Name: ElemNoLeak, Pass: true, Evidence: "no stack trace, host path, connection string, internal host, credential or canary"},
		{Name: ElemBounded, Pass: true, Evidence: "40 o200k_base tokens, largest enumeration 0"},
	}
	if diff := cmp.Diff(want, g.Elements); diff != "" {
		t.Errorf("elements (-want +got):\n%s", diff)
	}
}

// TestChannel covers the channel rule: kind x class x protocol revision.
func TestChannel(t *testing.T) {
	tests := []struct {
		kind, class, pv string
		want            bool
	}{
		{KindWrongType, ClassToolError, "2025-11-25", true},
		{KindWrongType, ClassProtocolError, "2025-11-25", false},
		{KindWrongType, ClassProtocolError, "2026-07-28", false},
		{KindWrongType, ClassProtocolError, "2025-06-18", true},
		{KindWrongType, ClassProtocolError, "2024-11-05", true},
		{KindWrongType, ClassProtocolError, "", true},
		{KindMissingRequired, ClassAccepted, "2025-06-18", false},
		{KindUnknownTool, ClassProtocolError, "2025-11-25", true},
		{KindUnknownTool, ClassToolError, "2025-11-25", false},
		{KindUnknownTool, ClassToolError, "2024-11-05", false},
		{KindUnknownMethod, ClassProtocolError, "2025-11-25", true},
		{KindUnknownPrompt, ClassProtocolError, "2025-06-18", true},
		{KindUnknownResource, ClassProtocolError, "2025-06-18", true},
		{KindBadCursor, ClassAccepted, "2025-11-25", false},
		{KindBadCursor, ClassProtocolError, "2025-11-25", true},
		{KindRuntime, ClassToolError, "2025-11-25", true},
		{KindRuntime, ClassProtocolError, "2025-11-25", false},
		{KindUnknownID, ClassToolError, "2025-06-18", true},
		{KindWrongType, ClassHang, "2025-11-25", false},
		{KindWrongType, ClassCrash, "2025-11-25", false},
		{KindWrongType, "bogus", "2025-11-25", false},
	}
	for _, tt := range tests {
		r := Response{Kind: tt.kind, Method: "tools/call", Tool: "t", Class: tt.class, ProtocolVersion: tt.pv}
		if tt.kind == KindUnknownPrompt {
			r.Method = "prompts/get"
		}
		g := Grade(r, Context{})
		if got := g.Pass(ElemChannel); got != tt.want {
			t.Errorf("%s %s %q: channel = %v, want %v", tt.kind, tt.class, tt.pv, got, tt.want)
		}
	}
}

func TestLeafName(t *testing.T) {
	for in, want := range map[string]string{
		"city": "city", "entities[0].observations": "observations", "/entities/0/observations": "observations",
		"a.b": "b", "items[3]": "items", "": "",
	} {
		if got := leafName(in); got != want {
			t.Errorf("leafName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFromProbeCall(t *testing.T) {
	tests := []struct {
		name string
		pc   probe.ProbeCall
		want Response
	}{
		{
			name: "protocol error",
			pc: probe.ProbeCall{Kind: KindUnknownTool, Method: "tools/call", Tool: "nope", Class: ClassProtocolError,
				Sent:     raw(`{"name":"nope","arguments":{}}`),
				Response: raw(`{"code":-32602,"message":"unknown tool \"nope\"","data":{"name":"nope"}}`), Text: `unknown tool "nope"`},
			want: Response{Kind: KindUnknownTool, Method: "tools/call", Tool: "nope", Sent: raw(`"nope"`), Arguments: raw(`{"name":"nope","arguments":{}}`), Class: ClassProtocolError,
				ProtocolVersion: "2025-11-25", ErrorCode: new(int64(-32602)), ErrorMessage: `unknown tool "nope"`, ErrorData: raw(`{"name":"nope"}`)},
		},
		{
			name: "tool error with structured content",
			pc: probe.ProbeCall{Kind: KindWrongType, Method: "tools/call", Tool: "echo", Param: "message", Class: ClassToolError,
				Sent:     raw(`{"name":"echo","arguments":{"message":42}}`),
				Response: raw(`{"content":[{"type":"text","text":"bad"},{"type":"image","data":"AA=="},{"type":"text","text":"message"}],"structuredContent":{"code":"x"},"isError":true}`)},
			want: Response{Kind: KindWrongType, Method: "tools/call", Tool: "echo", Param: "message", Sent: raw(`42`), Arguments: raw(`{"name":"echo","arguments":{"message":42}}`), Class: ClassToolError,
				ProtocolVersion: "2025-11-25", Text: "bad\nmessage", StructuredContent: raw(`{"code":"x"}`)},
		},
		{
			name: "truncated protocol error falls back to the text",
			pc: probe.ProbeCall{Kind: KindUnknownMethod, Method: "x/y", Class: ClassProtocolError, Sent: raw(`{}`),
				Response: raw(`{"code":-32601,"mess`), Text: "Method not found"},
			want: Response{Kind: KindUnknownMethod, Method: "x/y", Sent: raw(`"x/y"`), Arguments: raw(`{}`), Class: ClassProtocolError, ProtocolVersion: "2025-11-25",
				ErrorMessage: "Method not found"},
		},
		{
			name: "unknown property sends its name",
			pc: probe.ProbeCall{Kind: KindUnknownProperty, Method: "tools/call", Tool: "echo", Param: "zz_extra", Class: ClassAccepted,
				Sent: raw(`{"name":"echo","arguments":{"message":"hi","zz_extra":1}}`), Response: raw(`{"content":[{"type":"text","text":"Echo: hi"}]}`)},
			want: Response{Kind: KindUnknownProperty, Method: "tools/call", Tool: "echo", Param: "zz_extra", Sent: raw(`"zz_extra"`),
				Arguments: raw(`{"name":"echo","arguments":{"message":"hi","zz_extra":1}}`), Class: ClassAccepted,
				ProtocolVersion: "2025-11-25", Text: "Echo: hi"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromProbeCall(tt.pc, "2025-11-25")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FromProbeCall (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGradeConcurrent grades the corpus from many goroutines; run with
// -race.
func TestGradeConcurrent(t *testing.T) {
	cases := loadCorpus(t)
	want := make([]float64, len(cases))
	for i, c := range cases {
		want[i] = Grade(c.Response, c.Context).Score
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i, c := range cases {
				if got := Grade(c.Response, c.Context).Score; got != want[i] {
					t.Errorf("%s: concurrent score %v, want %v", c.file, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}

func TestWeights(t *testing.T) {
	var sum float64
	seen := map[string]bool{}
	for _, w := range Weights {
		if seen[w.Element] {
			t.Errorf("element %q twice in Weights", w.Element)
		}
		seen[w.Element] = true
		sum += w.Weight
	}
	if sum != 80 || weightOf(ElemChannel) != 0 || weightOf(ElemNoLeak) != 0 || weightOf(ElemBounded) != 0 {
		t.Errorf("weights sum to %v (channel %v, no_leak %v, bounded %v), want 80 and channel, no_leak, bounded of weight 0 (factors)",
			sum, weightOf(ElemChannel), weightOf(ElemNoLeak), weightOf(ElemBounded))
	}
	// The store and the reports order elements by vocab.Elements, without
	// importing the grader: the weight table must list the same words in
	// the same order.
	var names []string
	for _, w := range Weights {
		names = append(names, w.Element)
	}
	if diff := cmp.Diff(vocab.Elements, names); diff != "" {
		t.Errorf("Weights' elements differ from vocab.Elements (-vocab +Weights):\n%s", diff)
	}
}

// FuzzGrade feeds untrusted text through the grader: it must not panic,
// scores stay in range, and every evidence span is valid UTF-8 or a
// description.
func FuzzGrade(f *testing.F) {
	f.Add("Required at message", `"x"`, "message")
	f.Add(`{"code":"unknown_project","closest_matches":["a","b"],"retryable":"never"}`, `"prj_1"`, "project_id")
	f.Add("Error: {\"a\":[1,2,3", `42`, "a")
	f.Add("at run (/home/x/y.js:1:2) postgres://u:p@h/db 10.0.0.1:80 ghp_abcdefghijklmnopqrstuvwxyz0123456789", `true`, "")
	f.Fuzz(func(t *testing.T, text, sent, param string) {
		if !json.Valid([]byte(sent)) {
			sent = ""
		}
		for _, class := range []string{ClassToolError, ClassProtocolError} {
			r := Response{Kind: KindWrongType, Method: "tools/call", Tool: "t", Param: param, Sent: raw(sent), Class: class,
				ProtocolVersion: "2025-11-25", Text: text, ErrorMessage: text, StructuredContent: raw(text)}
			if !json.Valid([]byte(text)) {
				r.StructuredContent = nil
			}
			g := Grade(r, Context{ToolNames: []string{"t", "u"}, ParamNames: []string{param}, Canaries: map[string]string{"K": "canary-123456"}})
			if g.Score < 0 || g.Score > 100 {
				t.Fatalf("score %v out of range", g.Score)
			}
			for _, l := range g.Leaks {
				if l.Kind == LeakSecret && strings.Contains(l.Evidence, "canary-123456") {
					t.Fatalf("secret evidence repeats the canary: %q", l.Evidence)
				}
			}
		}
	})
}

// TestApplies: Applies names the elements graded and no other (the
// mutant `e.Name == name` -> `!=` lived through the whole suite).
func TestApplies(t *testing.T) {
	g := Grade(Response{Kind: KindWrongType, Method: "tools/call", Tool: "get_weather", Param: "city", Sent: raw(`3`), Class: ClassToolError,
		ProtocolVersion: "2025-11-25", Text: "city must be a string"}, Context{ToolNames: []string{"get_weather"}, ParamNames: []string{"city"}})
	if len(g.Elements) == 0 {
		t.Fatal("no element graded")
	}
	for _, e := range g.Elements {
		if !g.Applies(e.Name) {
			t.Errorf("Applies(%q) = false for a graded element", e.Name)
		}
	}
	if g.Applies("no_such_element") {
		t.Error(`Applies("no_such_element") = true`)
	}
}
