package scoring

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
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
		{"default: 69.9 keeps with an advisory", DefaultMinScore - 0.1, nil, vocab.DecisionKeep, true},
		{"default: 70.1 keeps", DefaultMinScore + 0.1, nil, vocab.DecisionKeep, false},
		{"custom: exactly 85.5 keeps", 85.5, &Policy{MinScore: 85.5}, vocab.DecisionKeep, false},
		{"custom: 85.4 keeps with an advisory", 85.4, &Policy{MinScore: 85.5}, vocab.DecisionKeep, true},
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
			if (len(v.Advisories) > 0) != tt.fired {
				t.Errorf("advisories = %q, want one: %v", v.Advisories, tt.fired)
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
