package scoring

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestGradedFindings: the grader raises leaks and wrong channels, and
// nothing failure injection raises from the class of an answer alone.
func TestGradedFindings(t *testing.T) {
	echo := probe.Tool{Name: "echo", InputSchema: raw(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)}
	wrongType := func(class, response string) probe.ProbeCall {
		return probe.ProbeCall{Kind: KindWrongType, Method: "tools/call", Tool: "echo", Param: "message", Class: class,
			Sent: raw(`{"name":"echo","arguments":{"message":42}}`), Response: raw(response)}
	}
	tests := []struct {
		name   string
		pv     string
		probes []probe.ProbeCall
		canary string
		want   []probe.Finding
	}{
		{
			name:   "clean tool error raises nothing",
			pv:     "2025-11-25",
			probes: []probe.ProbeCall{wrongType(ClassToolError, `{"content":[{"type":"text","text":"Expected string at message"}],"isError":true}`)},
		},
		{
			name: "accepted, crash and hang are failure injection's",
			pv:   "2025-11-25",
			probes: []probe.ProbeCall{
				wrongType(ClassAccepted, `{"content":[{"type":"text","text":"Echo: 42"}]}`),
				{Kind: KindBadCursor, Method: "tools/list", Param: "cursor", Class: ClassAccepted, Sent: raw(`{"cursor":"x"}`), Response: raw(`{"tools":[]}`)},
				{Kind: KindAbsentArguments, Method: "tools/call", Tool: "run", Class: ClassHang, Sent: raw(`{"name":"run"}`)},
				{Kind: KindMissingRequired, Method: "tools/call", Tool: "run", Class: ClassCrash, Sent: raw(`{"name":"run","arguments":{}}`)},
			},
		},
		{
			name: "unknown tool on the tool-error channel, leaking a canary",
			pv:   "2025-11-25",
			probes: []probe.ProbeCall{{Kind: KindUnknownTool, Method: "tools/call", Tool: "ech", Param: "name", Class: ClassToolError,
				Sent: raw(`{"name":"ech","arguments":{}}`), Text: "no tool ech (key mcpvet-canary-99aa88bb)",
				Response: raw(`{"content":[{"type":"text","text":"no tool ech (key mcpvet-canary-99aa88bb)"}],"isError":true}`)}},
			canary: "mcpvet-canary-99aa88bb",
			want: []probe.Finding{
				{Code: CodeLeaksSecret, Severity: probe.SeverityFatal, Subject: "server", Pointer: "text[17:39]", Value: "canary value of API_KEY",
					Message: "the tool_error response to an unknown_tool probe leaks a secret: canary value of API_KEY"},
				{Code: CodeWrongChannel, Severity: probe.SeverityWarn, Subject: "server", Pointer: "tools/call", Value: "no tool ech (key [secret API_KEY])",
					Message: `calling the unknown tool "ech" gave a tool result with isError: true; an unknown tool is a protocol error: answer it with the JSON-RPC error -32602 and name the closest tools`},
				// The search of every message files the response under the
				// tool it named.
				{Code: CodeLeaksSecret, Severity: probe.SeverityFatal, Subject: "tool:ech", Pointer: "tools/call(ech) content[0].text", Value: "tools/call(ech) content[0].text: API_KEY",
					Message: "the server sent the value of a secret it was given, which reaches the model: tools/call(ech) content[0].text: API_KEY"},
			},
		},
		{
			name: "validation errors as JSON-RPC errors since 2025-11-25, counted per tool",
			pv:   "2025-11-25",
			probes: []probe.ProbeCall{
				func() probe.ProbeCall {
					p := wrongType(ClassProtocolError, `{"code":-32602,"message":"message: expected string"}`)
					p.Text = "message: expected string"
					return p
				}(),
				{Kind: KindAbsentArguments, Method: "tools/call", Tool: "echo", Class: ClassProtocolError, Sent: raw(`{"name":"echo"}`),
					Response: raw(`{"code":-32602,"message":"arguments required"}`), Text: "arguments required"},
			},
			want: []probe.Finding{{Code: CodeWrongChannel, Severity: probe.SeverityWarn, Subject: "tool:echo", Pointer: "/arguments/message", Value: "message: expected string",
				Message: "echo answered 2 invalid calls with a JSON-RPC error; since MCP 2025-11-25 input validation errors belong in a tool result with isError: true, where the model can read them and correct the call"}},
		},
		{
			name: "validation error with the wrong JSON-RPC code before 2025-11-25",
			pv:   "2025-06-18",
			probes: []probe.ProbeCall{func() probe.ProbeCall {
				p := wrongType(ClassProtocolError, `{"code":-32603,"message":"message: expected string"}`)
				p.Text = "message: expected string"
				return p
			}()},
			want: []probe.Finding{{Code: CodeWrongChannel, Severity: probe.SeverityWarn, Subject: "tool:echo", Value: KindWrongType,
				Message: "JSON-RPC error -32603 for an input validation error; -32603 (internal error) says the server broke, not that the request was wrong; invalid arguments are -32602 (invalid params)"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &probe.Result{
				Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true, ProtocolVersion: tt.pv},
				Tools:    []probe.Tool{echo},
				Probes:   tt.probes,
			}
			var canaries map[string]string
			if tt.canary != "" {
				canaries = map[string]string{"API_KEY": tt.canary}
			}
			ScoreResult(res, &Options{Canaries: canaries})
			if diff := cmp.Diff(tt.want, res.Findings, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			for _, f := range res.Findings {
				if !slices.Contains(emittedCodes, f.Code) {
					t.Errorf("%s is not in emittedCodes", f.Code)
				}
			}
		})
	}
}

// TestGradedFindingsFirstPerSubject: one finding per code and subject, the
// first response that raises it giving the evidence.
func TestGradedFindingsFirstPerSubject(t *testing.T) {
	r := Response{Kind: KindWrongType, Method: "tools/call", Tool: "echo", Class: ClassToolError, ProtocolVersion: "2025-11-25",
		Text: "failed at /home/a/x.js and /home/a/y.js"}
	g := Grade(r, Context{})
	r2 := r
	r2.Text = "failed at /home/b/z.js"
	got := firstPerSubject(gradedFindings(nil, []Graded{g, g, Grade(r2, Context{})}, "2025-11-25"))
	var codes []string
	for _, f := range got {
		codes = append(codes, f.Code+" "+f.Subject+" "+f.Value)
	}
	want := []string{CodeLeaksHostPath + ` tool:echo host path "/home/a/x.js"`}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("gradedFindings (-want +got):\n%s", diff)
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
		Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true, ProtocolVersion: "2025-11-25",
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
	// wrong_type: 20 + 80 x 30/65 -> 56.9; unknown_tool: 20 + 80 x
	// 22.5/80 -> 42.5 (the name echoed earns half of value_or_form); the
	// channel, no_leak and bounded are factors, not weights.
	if res.Score == nil || *res.Score != 49.7 {
		t.Errorf("res.Score = %v, want 49.7", *res.Score)
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
	if v := Decide(res, nil); v.Decision != vocab.DecisionFix {
		t.Errorf("decision = %s, want fix", v.Decision)
	}
}

// TestUnknownToolAsResult: the wrong-channel finding of the server names
// the unknown-tool call answered with a tool result wherever it comes at
// or after the first wrong-channel response, and there is none when no
// such call exists.
func TestUnknownToolAsResult(t *testing.T) {
	cursor := Graded{Subject: "server", Kind: KindBadCursor, Class: ClassProtocolError}
	unknown := Graded{Subject: "server", Kind: KindUnknownTool, Class: ClassToolError}
	probes := []probe.ProbeCall{{Method: "tools/list"}, {Method: "tools/call", Tool: "nope", Text: "no such tool"}}
	f, ok := unknownToolAsResult(probes, []Graded{cursor, unknown}, 0)
	if !ok || f.Code != CodeWrongChannel || f.Value != "no such tool" || !strings.Contains(f.Message, `"nope"`) {
		t.Errorf("unknown tool after the first = %+v, %v; want the finding of the call to nope", f, ok)
	}
	if f, ok := unknownToolAsResult(probes[:1], []Graded{cursor}, 0); ok {
		t.Errorf("no unknown-tool call = %+v, want none", f)
	}
}

// TestGradeProbesBeforeTheExit: the answers graded by GradeProbes before
// the stderr tail is final (scan grades them while the server shuts down:
// issue 25, probe cost), finished by ScoreGraded once it is, give what
// ScoreResult gives on the final result; the stderr leak is found by the
// second part.
func TestGradeProbesBeforeTheExit(t *testing.T) {
	build := func() *probe.Result {
		return &probe.Result{
			Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true, ProtocolVersion: "2025-11-25"},
			Tools:    []probe.Tool{{Name: "echo", InputSchema: raw(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)}},
			Probes: []probe.ProbeCall{
				{Kind: KindWrongType, Method: "tools/call", Tool: "echo", Param: "message", Class: ClassToolError,
					Sent:     raw(`{"name":"echo","arguments":{"message":42}}`),
					Response: raw(`{"content":[{"type":"text","text":"Expected string, received number at message"}],"isError":true}`)},
				{Kind: KindUnknownTool, Method: "tools/call", Tool: "ech", Class: ClassProtocolError,
					Sent:     raw(`{"name":"ech","arguments":{}}`),
					Response: raw(`{"code":-32602,"message":"unknown tool \"ech\", key mcpvet-canary-ffee0011"}`)},
			},
		}
	}
	opts := &Options{Canaries: map[string]string{"KEY": "mcpvet-canary-ffee0011"}}
	final := build()
	final.Liveness.StderrTail = "stopping with key mcpvet-canary-ffee0011\n"
	wantGraded := ScoreResult(final, opts)

	early := build()
	graded := GradeProbes(early, opts)
	early.Liveness.StderrTail = final.Liveness.StderrTail
	gotGraded := ScoreGraded(early, opts, graded)
	if diff := cmp.Diff(wantGraded, gotGraded); diff != "" {
		t.Errorf("grades (-ScoreResult +GradeProbes, ScoreGraded):\n%s", diff)
	}
	if diff := cmp.Diff(final, early); diff != "" {
		t.Errorf("result (-ScoreResult +GradeProbes, ScoreGraded):\n%s", diff)
	}
	if len(final.Findings) < 2 {
		t.Errorf("findings %v: want the answer's leak and the stderr leak", final.Findings)
	}
}
