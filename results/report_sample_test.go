package results

import (
	"math"
	"testing"
)

// TestClusteredCI pins the cluster-robust interval: one entry with many
// plans widens it against the same plans as independent trials, and a
// single entry has none.
func TestClusteredCI(t *testing.T) {
	// 10 entries of 1 plan, 5 successes, and the same 10 plans where one
	// entry holds 6 of them (all successes).
	lo1, hi1 := ClusteredCI([]int{1, 1, 1, 1, 1, 0, 0, 0, 0, 0}, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	lo2, hi2 := ClusteredCI([]int{5, 0, 0, 0, 0}, []int{6, 1, 1, 1, 1})
	if !(lo1 > 0.15 && hi1 < 0.85) {
		t.Errorf("independent plans: [%g, %g]", lo1, hi1)
	}
	if hi2-lo2 <= hi1-lo1 {
		t.Errorf("clustered [%g, %g] is not wider than independent [%g, %g]", lo2, hi2, lo1, hi1)
	}
	if lo, hi := ClusteredCI([]int{3}, []int{4}); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("one cluster: [%g, %g], want no interval", lo, hi)
	}
}

// TestExactProportion: a complete census states no interval.
func TestExactProportion(t *testing.T) {
	p := Prop(3, 10)
	p.Exact = true
	b, _ := p.MarshalJSON()
	if p.CI() != "" || string(b) != `{"count":3,"total":10,"rate":0.3,"ci95":null}` || p.String() != "3 of 10 (30.0%)" {
		t.Errorf("exact proportion: CI %q, JSON %s, String %q", p.CI(), b, p.String())
	}
}
