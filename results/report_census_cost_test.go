package results

import (
	"math"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
)

// TestCensusContextAndRetry: the census gives the distribution of what a
// plan costs a client's context (median, p90, max, heaviest plans) and
// the first-retry rates in all, per probe kind and per error code with
// their Wilson intervals, read back from the stored summaries.
func TestCensusContextAndRetry(t *testing.T) {
	tally := NewTally()
	for i, total := range []int{100, 200, 300, 400, 5000} {
		res := &probe.Result{Target: probe.Target{Name: string(rune('a' + i))}}
		res.Liveness.HandshakeCompleted = true
		res.Context = &probe.ContextCost{Encoding: "o200k_base", Total: total}
		if i == 0 {
			res.Probes = []probe.ProbeCall{
				{Kind: "enum_violation", Retry: &probe.Retry{Outcome: probe.RetryResolved, Source: "prose", Code: "none"}},
				{Kind: "enum_violation", Retry: &probe.Retry{Outcome: probe.RetrySameError, Code: "none"}},
				{Kind: "unknown_id", Retry: &probe.Retry{Outcome: probe.RetryResolved, Source: "structured", Code: "unknown_project"}},
				{Kind: "wrong_type"}, // not retried
			}
		}
		// Through the stored summary, as the census reads runs.
		tally.Add(summarize(res).result())
	}
	dead := &probe.Result{Target: probe.Target{Name: "dead"}}
	tally.Add(summarize(dead).result())
	c := tally.Census()
	cc := c.Context
	if cc.Servers != 5 || cc.Tokens.Median != 300 || cc.Tokens.Max != 5000 || cc.Encoding != "o200k_base" {
		t.Errorf("context %+v", cc)
	}
	if cc.Tokens.P90 <= 400 || cc.Tokens.P90 >= 5000 {
		t.Errorf("p90 %v, want between 400 and 5000", cc.Tokens.P90)
	}
	if len(cc.Heaviest) != 5 || cc.Heaviest[0] != (ServerTokens{"e", 5000}) || cc.Heaviest[4] != (ServerTokens{"a", 100}) {
		t.Errorf("heaviest %+v", cc.Heaviest)
	}
	r := c.Retry
	if r.Servers != 1 || r.All.Resolved != 2 || r.All.Tried != 3 || r.All.Structured != 1 || r.All.Prose != 1 {
		t.Errorf("retry %+v", r.All)
	}
	lo, hi := probe.Wilson(2, 3)
	if math.Abs(r.All.Low-lo) > 1e-12 || math.Abs(r.All.High-hi) > 1e-12 || lo <= 0 || hi >= 1 {
		t.Errorf("interval %v-%v, want Wilson %v-%v", r.All.Low, r.All.High, lo, hi)
	}
	if len(r.ByKind) != 2 || r.ByKind[0].Key != "enum_violation" || r.ByKind[0].Resolved != 1 || r.ByKind[0].Tried != 2 ||
		r.ByKind[0].High == 0 {
		t.Errorf("by kind %+v", r.ByKind)
	}
	if len(r.ByCode) != 2 || r.ByCode[0].Key != "none" || r.ByCode[1].Key != "unknown_project" || r.ByCode[1].Resolved != 1 {
		t.Errorf("by code %+v", r.ByCode)
	}
}
