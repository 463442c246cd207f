package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvet/mcpvet/probe"
)

func TestFindings(t *testing.T) {
	tests := []struct {
		name string
		r    Response
		c    Context
		want []probe.Finding
	}{
		{
			name: "clean tool error raises nothing",
			r:    Response{Kind: KindWrongType, Method: "tools/call", Tool: "echo", Param: "message", Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "Expected string at message"},
		},
		{
			name: "accepted invalid input",
			r:    Response{Kind: KindWrongType, Method: "tools/call", Tool: "echo", Param: "message", Class: ClassAccepted, ProtocolVersion: "2025-11-25", Text: "Echo: 42"},
			want: []probe.Finding{{Code: CodeAcceptedInvalidInput, Severity: probe.SeverityError, Subject: "tool:echo", Value: "wrong_type",
				Message: "the tool returned success for a wrong_type probe; validate arguments against the input schema and return isError: true"}},
		},
		{
			name: "unknown prompt answered with success",
			r:    Response{Kind: KindUnknownPrompt, Method: "prompts/get", Sent: raw(`"nope"`), Class: ClassAccepted, ProtocolVersion: "2025-11-25", Text: `{"messages":[]}`},
			want: []probe.Finding{{Code: CodeAcceptedInvalidInput, Severity: probe.SeverityError, Subject: "server", Value: "unknown_prompt",
				Message: "the server returned success for an unknown_prompt probe; answer it with a JSON-RPC error"}},
		},
		{
			name: "ignored cursor",
			r:    Response{Kind: KindBadCursor, Method: "tools/list", Class: ClassAccepted, ProtocolVersion: "2025-11-25", Text: `{"tools":[]}`},
			want: []probe.Finding{{Code: CodeIgnoredInvalidCursor, Severity: probe.SeverityWarn, Subject: "server",
				Message: "an invalid cursor was ignored and a page returned; answer it with JSON-RPC error -32602"}},
		},
		{
			name: "hang",
			r:    Response{Kind: KindAbsentArguments, Method: "tools/call", Tool: "run", Class: ClassHang, ProtocolVersion: "2025-11-25"},
			want: []probe.Finding{{Code: CodeHangOnInvalidInput, Severity: probe.SeverityFatal, Subject: "tool:run", Value: "absent_arguments",
				Message: "the server did not answer an absent_arguments probe before the deadline"}},
		},
		{
			name: "unknown tool on the tool-error channel, leaking a canary",
			r:    Response{Kind: KindUnknownTool, Method: "tools/call", Tool: "x", Sent: raw(`"x"`), Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "no tool x (key mcpvet-canary-99aa88bb)"},
			c:    Context{Canaries: map[string]string{"API_KEY": "mcpvet-canary-99aa88bb"}},
			want: []probe.Finding{
				{Code: CodeLeaksSecret, Severity: probe.SeverityFatal, Subject: "server", Pointer: "text[15:37]", Value: "canary value of API_KEY",
					Message: "the tool_error response to an unknown_tool probe leaks a secret: canary value of API_KEY"},
				{Code: CodeWrongChannel, Severity: probe.SeverityWarn, Subject: "server", Value: "unknown_tool",
					Message: "result.isError=true for an unknown tool; an unknown tool is a protocol error (JSON-RPC error -32602)"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Findings(Grade(tt.r, tt.c))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindingsForDeduplicates(t *testing.T) {
	r := Response{Kind: KindWrongType, Method: "tools/call", Tool: "echo", Class: ClassToolError, ProtocolVersion: "2025-11-25",
		Text: "failed at /home/a/x.js and /home/a/y.js"}
	g := Grade(r, Context{})
	r2 := r
	r2.Class = ClassCrash
	got := FindingsFor([]Graded{g, g, Grade(r2, Context{})})
	var codes []string
	for _, f := range got {
		codes = append(codes, f.Code+" "+f.Subject)
	}
	want := []string{CodeCrashOnInvalidInput + " tool:echo", CodeLeaksHostPath + " tool:echo"}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("FindingsFor (-want +got):\n%s", diff)
	}
}

// TestCatalogEntries checks every code scoring emits is in probe's catalog.
func TestCatalogEntries(t *testing.T) {
	for _, code := range emittedCodes {
		e, ok := probe.Lookup(code)
		if !ok {
			t.Errorf("%s is not in probe's catalog", code)
			continue
		}
		if e.Title == "" || e.Fix == "" {
			t.Errorf("%s lacks a title or fix", code)
		}
	}
	for k, code := range LeakCodes {
		if _, ok := probe.Lookup(code); !ok {
			t.Errorf("leak kind %s maps to unregistered code %s", k, code)
		}
	}
}

func TestServerScore(t *testing.T) {
	if got := ServerScore(nil); got != nil {
		t.Errorf("ServerScore(nil) = %v, want nil", *got)
	}
	graded := []Graded{
		{Kind: KindWrongType, Score: 60}, {Kind: KindWrongType, Score: 60}, {Kind: KindWrongType, Score: 60},
		{Kind: KindUnknownTool, Score: 100},
	}
	// Per-kind mean: (60 + 100) / 2, not (60*3 + 100) / 4.
	if got := ServerScore(graded); got == nil || *got != 80 {
		t.Errorf("ServerScore = %v, want 80", got)
	}
	want := []KindScore{{Kind: KindUnknownTool, Score: 100, N: 1}, {Kind: KindWrongType, Score: 60, N: 3}}
	if diff := cmp.Diff(want, ScoresByKind(graded)); diff != "" {
		t.Errorf("ScoresByKind (-want +got):\n%s", diff)
	}
}

func TestScoreResult(t *testing.T) {
	res := &probe.Result{
		Liveness: probe.Liveness{Status: probe.StatusOK, HandshakeCompleted: true, ProtocolVersion: "2025-11-25",
			StderrTail: "starting with key mcpvet-canary-ffee0011\n"},
		Tools: []probe.Tool{{Name: "echo", InputSchema: raw(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)}},
		Probes: []probe.ProbeCall{
			{Kind: KindWrongType, Method: "tools/call", Tool: "echo", Param: "message", Class: ClassToolError,
				Sent:     raw(`{"name":"echo","arguments":{"message":42}}`),
				Response: raw(`{"content":[{"type":"text","text":"Expected string, received number at message"}],"isError":true}`)},
			{Kind: KindUnknownTool, Method: "tools/call", Tool: "ech", Class: ClassProtocolError,
				Sent:     raw(`{"name":"ech","arguments":{}}`),
				Response: raw(`{"code":-32602,"message":"unknown tool \"ech\""}`)},
		},
	}
	graded := ScoreResult(res, &Options{Canaries: map[string]string{"KEY": "mcpvet-canary-ffee0011"}})
	if len(graded) != 2 {
		t.Fatalf("graded %d responses, want 2", len(graded))
	}
	for i, pc := range res.Probes {
		if pc.Score == nil || *pc.Score != graded[i].Score || len(pc.Elements) != len(graded[i].Elements) {
			t.Errorf("probe %d not updated: %+v", i, pc)
		}
	}
	// wrong_type: 60 of 95 -> 63.2; unknown_tool: 55 of 100 (the name
	// echoed earns half of value_or_form).
	if res.Score == nil || *res.Score != 59.1 {
		t.Errorf("res.Score = %v, want 59.1", *res.Score)
	}
	if res.RubricVersion != RubricVersion {
		t.Errorf("RubricVersion = %q", res.RubricVersion)
	}
	// stderr reaches logs, not the model: reported apart (issue 11).
	want := []probe.Finding{{Code: probe.CodeLeaksSecretStderr, Severity: probe.SeverityError, Subject: "server", Pointer: "stderr",
		Value: "stderr: KEY", Message: "the server wrote the value of a secret it was given to its logs: stderr: KEY"}}
	if diff := cmp.Diff(want, res.Findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if v := Decide(res, nil); v.Decision != DecisionFix {
		t.Errorf("decision = %s, want fix", v.Decision)
	}
}

// TestFindingsForOrder pins the order of FindingsFor: severity first (most
// severe first) even where the codes sort the other way, then code, then
// subject.
func TestFindingsForOrder(t *testing.T) {
	accepted := func(tool string) Graded {
		return Grade(Response{Kind: KindWrongType, Method: "tools/call", Tool: tool, Param: "message", Class: ClassAccepted, ProtocolVersion: "2025-11-25", Text: "ok"}, Context{})
	}
	hang := Grade(Response{Kind: KindAbsentArguments, Method: "tools/call", Tool: "a", Class: ClassHang, ProtocolVersion: "2025-11-25"}, Context{})
	crash := Grade(Response{Kind: KindAbsentArguments, Method: "tools/call", Tool: "z", Class: ClassCrash, ProtocolVersion: "2025-11-25"}, Context{})
	cursor := Grade(Response{Kind: KindBadCursor, Method: "tools/list", Class: ClassAccepted, ProtocolVersion: "2025-11-25", Text: `{"tools":[]}`}, Context{})
	got := FindingsFor([]Graded{cursor, accepted("b"), accepted("a"), hang, crash})
	var codes []string
	for _, f := range got {
		codes = append(codes, string(f.Severity)+" "+f.Code+" "+f.Subject)
	}
	want := []string{
		"fatal " + CodeCrashOnInvalidInput + " tool:z",
		"fatal " + CodeHangOnInvalidInput + " tool:a",
		"error " + CodeAcceptedInvalidInput + " tool:a",
		"error " + CodeAcceptedInvalidInput + " tool:b",
		"warn " + CodeIgnoredInvalidCursor + " server",
	}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("FindingsFor order (-want +got):\n%s", diff)
	}
}
