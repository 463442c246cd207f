package scan

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// selectPlans are one plan of each kind Selection filters on.
func selectPlans() []vocab.Plan {
	pkg := func(key, typ string) vocab.Plan {
		return vocab.Plan{Key: key, Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: typ, Identifier: key}}
	}
	return []vocab.Plan{
		pkg("npm-a", "npm"),
		pkg("pypi-a", "pypi"),
		pkg("npm-b", "npm"),
		pkg("oci-a", "oci"),
		{Key: "url-a", Transport: vocab.TransportStreamable, URL: "https://a.example/mcp"},
		{Key: "url-b", Transport: vocab.TransportSSE, URL: "https://b.example/sse"},
		{Key: "cmd-a", Transport: vocab.TransportStdio, Command: "node"},
	}
}

func TestSelect(t *testing.T) {
	all := []string{"npm-a", "pypi-a", "npm-b", "oci-a", "url-a", "url-b", "cmd-a"}
	tests := []struct {
		name string
		sel  *Selection
		want []string
		// set is the plan set when it is not want: the limit applies
		// after it is taken.
		set []string
	}{
		{"nil keeps all", nil, all, nil},
		{"zero keeps all", &Selection{}, all, nil},
		{"registry type", &Selection{RegistryType: "npm"}, []string{"npm-a", "npm-b"}, nil},
		{"remote", &Selection{RegistryType: "remote"}, []string{"url-a", "url-b"}, nil},
		{"command", &Selection{RegistryType: "command"}, []string{"cmd-a"}, nil},
		{"transport", &Selection{Transport: vocab.TransportSSE}, []string{"url-b"}, nil},
		{"type and transport", &Selection{RegistryType: "remote", Transport: vocab.TransportStreamable}, []string{"url-a"}, nil},
		{"type and transport disagree", &Selection{RegistryType: "npm", Transport: vocab.TransportSSE}, nil, nil},
		{"unknown type", &Selection{RegistryType: "cargo"}, nil, nil},
		{"limit", &Selection{Limit: 2}, []string{"npm-a", "pypi-a"}, all},
		{"limit above count", &Selection{Limit: 50}, all, nil},
		{"limit after filter", &Selection{RegistryType: "npm", Limit: 1}, []string{"npm-a"}, []string{"npm-a", "npm-b"}},
		{"sample of all", &Selection{Sample: 50, Seed: 1}, all, nil},
		{"sample after filter", &Selection{RegistryType: "npm", Sample: 5}, []string{"npm-a", "npm-b"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(selectPlans(), tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, planKeys(got.Plans)); diff != "" {
				t.Errorf("plans (-want +got):\n%s", diff)
			}
			set := tt.want
			if tt.set != nil {
				set = tt.set
			}
			var setPlans []vocab.Plan
			for _, k := range set {
				setPlans = append(setPlans, vocab.Plan{Key: k})
			}
			if got.PlanSetSize != len(set) || got.PlanSet != planSetDigest(setPlans) {
				t.Errorf("plan set %d %s, want %v", got.PlanSetSize, got.PlanSet, set)
			}
		})
	}
}

// TestSelectSampleShardLimit: the sample is drawn before sharding, so the
// shards of one sampled scan partition the sample and share its plan set;
// the limit applies last, to the shard.
func TestSelectSampleShardLimit(t *testing.T) {
	var plans []vocab.Plan
	for i := range 40 {
		plans = append(plans, vocab.Plan{Key: fmt.Sprintf("k%02d", i), Transport: vocab.TransportStdio, Command: "x"})
	}
	sample, err := Select(plans, &Selection{Sample: 12, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(sample.Plans) != 12 || sample.PlanSetSize != 12 {
		t.Fatalf("sample of 12 kept %d plans, plan set %d", len(sample.Plans), sample.PlanSetSize)
	}
	again, _ := Select(slices.Clone(plans), &Selection{Sample: 12, Seed: 7})
	if diff := cmp.Diff(planKeys(sample.Plans), planKeys(again.Plans)); diff != "" {
		t.Errorf("the same seed drew another sample (-first +second):\n%s", diff)
	}
	other, _ := Select(plans, &Selection{Sample: 12, Seed: 8})
	if slices.Equal(planKeys(sample.Plans), planKeys(other.Plans)) {
		t.Errorf("seeds 7 and 8 drew the same sample %v", planKeys(other.Plans))
	}

	var union []string
	for i := range 3 {
		shard, err := Select(plans, &Selection{Sample: 12, Seed: 7, ShardIndex: i, ShardCount: 3})
		if err != nil {
			t.Fatal(err)
		}
		if shard.PlanSet != sample.PlanSet || shard.PlanSetSize != 12 {
			t.Errorf("shard %d: plan set %s (%d), want the sample's %s (12)", i, shard.PlanSet, shard.PlanSetSize, sample.PlanSet)
		}
		union = append(union, planKeys(shard.Plans)...)
		if len(shard.Plans) > 1 {
			limited, err := Select(plans, &Selection{Sample: 12, Seed: 7, ShardIndex: i, ShardCount: 3, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(planKeys(shard.Plans[:1]), planKeys(limited.Plans)); diff != "" || limited.PlanSet != sample.PlanSet {
				t.Errorf("shard %d with limit 1 (-want +got):\n%s", i, diff)
			}
		}
	}
	slices.Sort(union)
	want := planKeys(sample.Plans)
	slices.Sort(want)
	if diff := cmp.Diff(want, union); diff != "" {
		t.Errorf("the shards do not partition the sample (-want +got):\n%s", diff)
	}
}

func TestSelectBadShard(t *testing.T) {
	for _, sel := range []Selection{{ShardIndex: 3, ShardCount: 3}, {ShardIndex: -1, ShardCount: 2}} {
		if got, err := Select(selectPlans(), &sel); err == nil {
			t.Errorf("Select(%+v) = %v, want an error", sel, planKeys(got.Plans))
		}
	}
}

// TestPlanSetDigest pins the digest: shards from different mcpvet
// versions are merged by comparing it.
func TestPlanSetDigest(t *testing.T) {
	tests := []struct {
		keys []string
		want string
	}{
		{nil, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{[]string{"a", "b"}, "sha256:8fb20ef63ced4145fc2e983ffe597d1dcff39154c3bf21f0fa9dde6a0c50fdc9"},
		{[]string{"b", "a"}, "sha256:8fb20ef63ced4145fc2e983ffe597d1dcff39154c3bf21f0fa9dde6a0c50fdc9"},
	}
	for _, tt := range tests {
		var plans []vocab.Plan
		for _, k := range tt.keys {
			plans = append(plans, vocab.Plan{Key: k})
		}
		if got := planSetDigest(plans); got != tt.want {
			t.Errorf("planSetDigest(%v) = %s, want %s", tt.keys, got, tt.want)
		}
	}
}

func planKeys(plans []vocab.Plan) []string {
	var out []string
	for _, p := range plans {
		out = append(out, p.Key)
	}
	return out
}
