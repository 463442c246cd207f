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
