package source

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

func keyedPlans(n int) []vocab.Plan {
	plans := make([]vocab.Plan, n)
	for i := range plans {
		plans[i] = vocab.Plan{Key: fmt.Sprintf("registry:io.example/s%03d@1#package:0", i)}
	}
	return plans
}

func keys(plans []vocab.Plan) []string {
	out := make([]string, len(plans))
	for i, p := range plans {
		out[i] = p.Key
	}
	return out
}

func TestSample(t *testing.T) {
	plans := keyedPlans(200)
	a := Sample(plans, 20, 42)
	if len(a) != 20 {
		t.Fatalf("Sample returned %d plans, want 20", len(a))
	}
	if diff := cmp.Diff(keys(a), keys(Sample(plans, 20, 42))); diff != "" {
		t.Errorf("same seed, different sample (-first +second):\n%s", diff)
	}
	if slices.Equal(keys(a), keys(Sample(plans, 20, 43))) {
		t.Error("seeds 42 and 43 gave the same sample")
	}
	// The sample keeps input order and has no repeats.
	pos := map[string]int{}
	for i, p := range plans {
		pos[p.Key] = i
	}
	for i := 1; i < len(a); i++ {
		if pos[a[i-1].Key] >= pos[a[i].Key] {
			t.Fatalf("sample is not in input order or repeats a plan: %v", keys(a))
		}
	}
	// The sample does not depend on the input order.
	shuffled := slices.Clone(plans)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	b := Sample(shuffled, 20, 42)
	ka, kb := keys(a), keys(b)
	slices.Sort(ka)
	slices.Sort(kb)
	if diff := cmp.Diff(ka, kb); diff != "" {
		t.Errorf("sample depends on input order (-sorted +shuffled):\n%s", diff)
	}
	// A larger sample with the same seed contains the smaller one.
	big := keys(Sample(plans, 50, 42))
	for _, k := range keys(a) {
		if !slices.Contains(big, k) {
			t.Errorf("Sample(50) does not contain %s from Sample(20)", k)
		}
	}
	if got := Sample(plans, 0, 1); got != nil {
		t.Errorf("Sample(0) = %d plans", len(got))
	}
	all := Sample(plans, 500, 1)
	if diff := cmp.Diff(keys(plans), keys(all)); diff != "" {
		t.Errorf("Sample(n > len) (-want +got):\n%s", diff)
	}
	all[0].Key = "changed"
	if plans[0].Key == "changed" {
		t.Error("Sample(n > len) shares the input's backing array")
	}
}

// TestSampleIsUniform draws many samples and checks that every plan is
// picked about equally often (a chi-squared bound far from the mean).
func TestSampleIsUniform(t *testing.T) {
	plans := keyedPlans(20)
	counts := map[string]int{}
	const draws = 4000
	for seed := range uint64(draws) {
		for _, p := range Sample(plans, 5, seed) {
			counts[p.Key]++
		}
	}
	want := float64(draws*5) / float64(len(plans)) // 1000
	chi2 := 0.0
	for _, p := range plans {
		d := float64(counts[p.Key]) - want
		chi2 += d * d / want
	}
	// 19 degrees of freedom: the 99.99th percentile is about 50.
	if chi2 > 50 {
		t.Errorf("chi-squared %.1f over %d plans: counts %v", chi2, len(plans), counts)
	}
}

func TestShard(t *testing.T) {
	_, entries := loadServers(t)
	plans, _ := Plans(entries, &PlanOptions{AllVersions: true})
	for _, n := range []int{1, 2, 3, 7, 16} {
		seen := map[string]int{}
		var union []string
		for i := range n {
			shard, err := Shard(plans, i, n)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range shard {
				if prev, dup := seen[p.Key]; dup {
					t.Fatalf("n=%d: %s is in shards %d and %d", n, p.Key, prev, i)
				}
				seen[p.Key] = i
				union = append(union, p.Key)
			}
			if n > 1 && (len(shard) < len(plans)/n/2 || len(shard) > 2*len(plans)/n) {
				t.Errorf("n=%d: shard %d has %d of %d plans", n, i, len(shard), len(plans))
			}
		}
		want := keys(plans)
		slices.Sort(want)
		slices.Sort(union)
		if diff := cmp.Diff(want, union); diff != "" {
			t.Errorf("n=%d: union of shards (-plans +union):\n%.1000s", n, diff)
		}
	}
	// A plan's shard depends only on its key.
	one := []vocab.Plan{plans[100]}
	for i := range 5 {
		s, _ := Shard(one, i, 5)
		full, _ := Shard(plans, i, 5)
		if (len(s) == 1) != slices.ContainsFunc(full, func(p vocab.Plan) bool { return p.Key == plans[100].Key }) {
			t.Errorf("shard %d of 5: plan %s placed differently alone and in the full list", i, plans[100].Key)
		}
	}
}

func TestShardErrors(t *testing.T) {
	for _, tt := range []struct{ i, n int }{{0, 0}, {-1, 3}, {3, 3}, {0, -2}} {
		if _, err := Shard(nil, tt.i, tt.n); err == nil {
			t.Errorf("Shard(%d, %d) succeeded", tt.i, tt.n)
		}
	}
	if got := ShardOf("registry:io.example/a@1#package:0", 1); got != 0 {
		t.Errorf("ShardOf(_, 1) = %d", got)
	}
}

// TestShardEdges: one shard of one holds every plan, shard 0 of two is
// valid, and the edges just outside are errors (the mutants of Shard's
// check, `n < 1` -> `<= 1` or `>= 1` and `i < 0` -> `<= 0`, lived through
// the whole suite).
func TestShardEdges(t *testing.T) {
	plans := []vocab.Plan{{Key: "npm:a"}, {Key: "npm:b"}, {Key: "npm:c"}}
	all, err := Shard(plans, 0, 1)
	if err != nil || !slices.EqualFunc(all, plans, func(a, b vocab.Plan) bool { return a.Key == b.Key }) {
		t.Errorf("Shard(0 of 1) = %v, %v; want every plan", all, err)
	}
	if _, err := Shard(plans, 0, 2); err != nil {
		t.Errorf("Shard(0 of 2): %v", err)
	}
	for _, tt := range [][2]int{{0, 0}, {-1, 2}, {2, 2}} {
		if _, err := Shard(plans, tt[0], tt[1]); err == nil {
			t.Errorf("Shard(%d of %d): no error", tt[0], tt[1])
		}
	}
}
