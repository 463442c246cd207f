package scoring

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/scan/vocab"
)

// Boundary tests: every threshold that decides a verdict or an element is
// tested at exactly its value and one step past it, so that a `<` turned
// into `<=`, or a constant changed, fails a test (issue 17: such mutants
// survived the suite).

// TestLowScoreBoundary: a score equal to minScore keeps; the smallest
// step below it is a fix. Checked for the default policy and a custom one.
func TestLowScoreBoundary(t *testing.T) {
	tests := []struct {
		name   string
		score  float64
		policy *Policy
		want   string
		fired  bool
	}{
		{"default: exactly 70 keeps", DefaultMinScore, nil, vocab.DecisionKeep, false},
		{"default: 69.9 fixes", DefaultMinScore - 0.1, nil, vocab.DecisionFix, true},
		{"default: 70.1 keeps", DefaultMinScore + 0.1, nil, vocab.DecisionKeep, false},
		{"custom: exactly 85.5 keeps", 85.5, &Policy{MinScore: 85.5}, vocab.DecisionKeep, false},
		{"custom: 85.4 fixes", 85.4, &Policy{MinScore: 85.5}, vocab.DecisionFix, true},
		{"zero minScore: 0 keeps", 0, &Policy{MinScore: 0}, vocab.DecisionKeep, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.score
			v := Decide(&probe.Result{Liveness: alive(), Score: &s}, tt.policy)
			if v.Decision != tt.want {
				t.Errorf("decision = %q, want %q (%+v)", v.Decision, tt.want, v.Rules)
			}
			var low *probe.Rule
			for i := range v.Rules {
				if v.Rules[i].Name == vocab.RuleLowScore {
					low = &v.Rules[i]
				}
			}
			if low == nil {
				t.Fatalf("no %s rule in %+v", vocab.RuleLowScore, v.Rules)
			}
			if low.Fired != tt.fired {
				t.Errorf("%s fired = %v, want %v (%s)", vocab.RuleLowScore, low.Fired, tt.fired, low.Detail)
			}
			wantWord := "is at least"
			if tt.fired {
				wantWord = "is below"
			}
			if !strings.Contains(low.Detail, wantWord) {
				t.Errorf("detail %q does not say %q", low.Detail, wantWord)
			}
		})
	}
}

// TestRetryableField: a boolean retryable field says whether retrying
// helps only when it is false ("never") or comes with a delay; a bare
// true says nothing about when or how, so it does not pass on its own.
func TestRetryableField(t *testing.T) {
	tests := []struct {
		name       string
		structured string
		want       bool
		evidence   string
	}{
		{"false means never", `{"code":"card_blocked","retryable":false}`, true, "structuredContent.retryable = false"},
		{"true alone says nothing", `{"code":"card_blocked","retryable":true}`, false, ""},
		{"true with a delay", `{"code":"rate_limited","retryable":true,"retry_after_seconds":30}`, true, "structuredContent.retryable = true with structuredContent.retry_after_seconds = 30"},
		{"a delay alone", `{"code":"rate_limited","retryAfterSeconds":30}`, true, "structuredContent.retryAfterSeconds = 30"},
		{"a string value", `{"code":"card_blocked","retryable":"never"}`, true, `structuredContent.retryable = "never"`},
		{"an unknown string value", `{"code":"card_blocked","retryable":"maybe"}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Response{Kind: KindRuntime, Method: "tools/call", Tool: "charge_card", Class: ClassToolError,
				ProtocolVersion: "2025-11-25", Text: "Card declined.", StructuredContent: json.RawMessage(tt.structured)}
			g := Grade(r, Context{ToolNames: []string{"charge_card"}})
			if got := g.Pass(ElemRetryable); got != tt.want {
				t.Fatalf("retryable pass = %v, want %v (%s)", got, tt.want, evidenceOf(g, ElemRetryable))
			}
			if tt.evidence != "" && evidenceOf(g, ElemRetryable) != tt.evidence {
				t.Errorf("evidence = %q, want %q", evidenceOf(g, ElemRetryable), tt.evidence)
			}
		})
	}
}

// TestEnumerationBoundary: an error may enumerate exactly MaxEnumeration
// items; one more fails the bounded element.
func TestEnumerationBoundary(t *testing.T) {
	list := func(n int) string {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("unit%d", i+1)
		}
		return "units must be one of: " + strings.Join(names, ", ") + "."
	}
	for _, tt := range []struct {
		n    int
		want bool
	}{{MaxEnumeration - 1, true}, {MaxEnumeration, true}, {MaxEnumeration + 1, false}} {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			r := Response{Kind: KindEnumViolation, Method: "tools/call", Tool: "get_forecast", Param: "units",
				Sent: json.RawMessage(`"kelvin"`), Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: list(tt.n)}
			g := Grade(r, Context{ToolNames: []string{"get_forecast"}, ParamNames: []string{"units"}})
			if got := g.Pass(ElemBounded); got != tt.want {
				t.Errorf("%d items: bounded pass = %v, want %v (%s)", tt.n, got, tt.want, evidenceOf(g, ElemBounded))
			}
			if want := fmt.Sprintf("largest enumeration %d", tt.n); tt.want && !strings.Contains(evidenceOf(g, ElemBounded), want) {
				t.Errorf("evidence %q does not say %q", evidenceOf(g, ElemBounded), want)
			}
		})
	}
}

// TestBoundedLimits: gradeBounded at exactly the token budget and the
// enumeration limit, and one past each.
func TestBoundedLimits(t *testing.T) {
	tests := []struct {
		tokens, enum int
		want         bool
	}{
		{MaxErrorTokens, MaxEnumeration, true},
		{MaxErrorTokens + 1, 0, false},
		{0, MaxEnumeration + 1, false},
		{0, 0, true},
	}
	for _, tt := range tests {
		if got, ev := gradeBounded(tt.tokens, tt.enum); got != tt.want {
			t.Errorf("gradeBounded(%d, %d) = %v (%s), want %v", tt.tokens, tt.enum, got, ev, tt.want)
		}
	}
	if MaxEnumeration != 25 || MaxErrorTokens != 500 {
		t.Errorf("limits changed: MaxEnumeration %d, MaxErrorTokens %d; docs/rubric.md states 25 and 500", MaxEnumeration, MaxErrorTokens)
	}
}

// TestCanaryBeyondScanLimit: the pattern detectors read the first
// maxScanBytes, but a canary is found anywhere, in ScanLeaks and in the
// whole-result secret search.
func TestCanaryBeyondScanLimit(t *testing.T) {
	const canary = "mcpvet-canary-0123456789abcdef"
	for _, off := range []int{maxScanBytes - len(canary), maxScanBytes, maxScanBytes + 1, 3 * maxScanBytes} {
		text := strings.Repeat("a", off) + canary + " tail"
		leaks := ScanLeaks("text", text, &Context{Canaries: map[string]string{"API_KEY": canary}})
		found := false
		for _, l := range leaks {
			if l.Kind == LeakSecret && l.Where == fmt.Sprintf("text[%d:%d]", off, off+len(canary)) {
				found = true
			}
		}
		if !found {
			t.Errorf("canary at offset %d: ScanLeaks = %+v, want a secret leak there", off, leaks)
		}

		body, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": text}}})
		res := &probe.Result{Received: []probe.Message{{Kind: "result", Method: "tools/call", Name: "dump", Body: body}}}
		fs := SecretLeaks(res, map[string]string{"API_KEY": canary})
		if len(fs) != 1 || fs[0].Code != CodeLeaksSecret {
			t.Errorf("canary at offset %d: SecretLeaks = %+v, want one %s", off, fs, CodeLeaksSecret)
		}
	}
}
