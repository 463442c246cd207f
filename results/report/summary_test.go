package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestSummaryContextCost: the probe summary states what a client loads
// from the server, in tokens of the named encoding, with the heaviest
// tools.
func TestSummaryContextCost(t *testing.T) {
	res := &probe.Result{Target: probe.Target{Name: "srv", Transport: "stdio"},
		Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true},
		Context: &probe.ContextCost{Encoding: "o200k_base", Tools: 1668, Instructions: 12, Total: 1680,
			PerTool: []probe.ToolTokens{{Name: "big", Tokens: 600}, {Name: "mid\x1b[31m", Tokens: 300}, {Name: "small", Tokens: 100}, {Name: "tiny", Tokens: 1}}}}
	var b bytes.Buffer
	if err := WriteSummary(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  context    1680 o200k_base tokens a request (tools 1668, prompts 0, resources 0, instructions 12)\n",
		"heaviest tools: big 600, mid",
		", small 100\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "\x1b") || strings.Contains(b.String(), "tiny") {
		t.Errorf("summary holds an escape or more than three tools:\n%s", b.String())
	}
}

// TestSummaryRetryRates: the probe summary states the first-retry rate
// with its Wilson interval and the rate per code.
func TestSummaryRetryRates(t *testing.T) {
	res := &probe.Result{Target: probe.Target{Name: "srv", Transport: "stdio"},
		Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true},
		Probes: []probe.ProbeCall{
			{Kind: "enum_violation", Retry: &probe.Retry{Outcome: probe.RetryResolved, Source: "prose", Code: "none"}},
			{Kind: "pattern_violation", Retry: &probe.Retry{Outcome: probe.RetryResolved, Source: "structured", Code: "unknown_project"}},
			{Kind: "wrong_type", Retry: &probe.Retry{Outcome: probe.RetryNoCorrection, Code: "none"}},
			{Kind: "wrong_type"},
		}}
	var b bytes.Buffer
	if err := WriteSummary(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"first retry 2/3 errors resolve on the first retry (95% CI 21–94%; corrections from structured fields 1, prose 1)", "by code: none 1/2, unknown_project 1/1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

// TestSummaryLines: each optional line of the probe summary appears
// exactly when it has something to say (sandbox, the pollution note,
// detail, evidence of a status other than ok, retry rates, probes by
// class, findings, heaviest tools). (Issue 26: 12 mutants of summary.go,
// lines 26-145, lived through the whole suite.)
func TestSummaryLines(t *testing.T) {
	for _, tt := range []struct {
		res  *probe.Result
		want string
	}{
		{&probe.Result{Target: probe.Target{Name: "bare", Transport: "stdio"}, Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true},
			Context: &probe.ContextCost{Encoding: "o200k_base"}},
			"bare\n  target     bare (stdio)\n  liveness   ok\n  protocol    via , handshake 0 ms\n  offers     0 tools, 0 prompts, 0 resources, 0 resource templates\n" +
				"  context    0 o200k_base tokens a request (tools 0, prompts 0, resources 0, instructions 0)\n  time       0 ms total\n"},
		{&probe.Result{Target: probe.Target{Name: "full", Transport: "stdio", Sandbox: "bwrap"},
			Liveness: probe.Liveness{Status: vocab.StatusStdoutPollution, HandshakeCompleted: true, Detail: "a log line on stdout", Evidence: "[info] up"},
			Probes:   []probe.ProbeCall{{Class: "tool_error"}, {Class: "tool_error"}, {Class: "protocol_error"}},
			Findings: []probe.Finding{{Severity: probe.SeverityInfo, Code: "x/info", Message: "m1"}, {Severity: probe.SeverityError, Code: "x/error", Message: "m2"}}},
			"full\n  target     full (stdio, sandbox bwrap)\n  liveness   stdout_pollution (handshake completed anyway)\n             a log line on stdout\n" +
				"  evidence   [info] up\n  protocol    via , handshake 0 ms\n  offers     0 tools, 0 prompts, 0 resources, 0 resource templates\n" +
				"  probes     3 sent: 2 tool_error, 1 protocol_error\n  time       0 ms total\n\nfindings (1 error, 1 info)\n" +
				"  error x/error                                  \n        m2\n  info  x/info                                   \n        m1\n"},
		{&probe.Result{Target: probe.Target{Name: "ok", Transport: "stdio"}, Liveness: probe.Liveness{Status: vocab.StatusOK, Evidence: "not shown"}},
			"ok\n  target     ok (stdio)\n  liveness   ok\n  time       0 ms total\n"},
	} {
		var b bytes.Buffer
		if err := WriteSummary(&b, tt.res); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.res.Target.Name, b.String(), tt.want)
		}
	}
}
