package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"github.com/mcpvet/mcpvet/scan/source"
	"github.com/mcpvet/mcpvet/vocab"
)

// Selection picks the targets of a scan among the plans of its source, in
// this order: the filters, the sample, the shard, the limit. The zero
// Selection keeps every plan.
type Selection struct {
	// RegistryType keeps only plans of this package type (npm, pypi, oci,
	// nuget, mcpb), "remote" (a URL) or "command" (a stdio command).
	RegistryType string
	// Transport keeps only plans of this transport (stdio,
	// streamable-http, sse).
	Transport string
	// Sample, when positive, keeps a random sample of this many plans,
	// drawn from Seed (see [source.Sample]). The sample is drawn before
	// sharding, so the shards of one sampled scan partition the sample.
	Sample int
	Seed   int64
	// ShardIndex and ShardCount keep shard i of n (see [source.Shard]);
	// ShardCount 0 means not sharded.
	ShardIndex, ShardCount int
	// Limit, when positive, keeps at most this many plans, the first ones
	// left after everything else.
	Limit int
}

// Selected is what a [Selection] kept.
type Selected struct {
	Plans []vocab.Plan
	// PlanSet identifies the plans the shards are drawn from (after the
	// filters and the sample, before the shard and the limit): the
	// SHA-256 of their sorted keys. The shards of one scan share it, so
	// merging can tell a complete shard set of one scan.
	PlanSet string
	// PlanSetSize is how many plans PlanSet holds.
	PlanSetSize int
}

// Select applies sel to plans. It fails only for a shard out of range.
func Select(plans []vocab.Plan, sel *Selection) (Selected, error) {
	var s Selection
	if sel != nil {
		s = *sel
	}
	if s.RegistryType != "" || s.Transport != "" {
		plans = filterPlans(plans, s.RegistryType, s.Transport)
	}
	if s.Sample > 0 {
		plans = source.Sample(plans, s.Sample, uint64(s.Seed))
	}
	out := Selected{PlanSet: planSetDigest(plans), PlanSetSize: len(plans)}
	if s.ShardCount > 0 {
		var err error
		if plans, err = source.Shard(plans, s.ShardIndex, s.ShardCount); err != nil {
			return Selected{}, err
		}
	}
	if s.Limit > 0 && len(plans) > s.Limit {
		plans = plans[:s.Limit]
	}
	out.Plans = plans
	return out, nil
}

// filterPlans keeps the plans of registryType and transport ("" keeps
// any).
func filterPlans(plans []vocab.Plan, registryType, transport string) []vocab.Plan {
	var out []vocab.Plan
	for _, p := range plans {
		typ := "remote"
		if p.Package != nil {
			typ = p.Package.RegistryType
		} else if p.Command != "" {
			typ = "command"
		}
		if registryType != "" && typ != registryType {
			continue
		}
		if transport != "" && p.Transport != transport {
			continue
		}
		out = append(out, p)
	}
	return out
}

// planSetDigest is the SHA-256 of the sorted plan keys, each followed by
// a NUL byte.
func planSetDigest(plans []vocab.Plan) string {
	keys := make([]string, len(plans))
	for i, p := range plans {
		keys[i] = p.Key
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
