package source

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/mcpvet/mcpvet/vocab"
)

// sampleStream is the second PCG seed word; it fixes the stream so that a
// seed means the same sample in every release.
const sampleStream = 0x6d63707665742d73 // "mcpvet-s"

// Sample returns n plans chosen at random but deterministically from seed:
// the same set of plans and seed give the same sample, whatever the order of
// plans (the draw is made over plans sorted by Key). The sample keeps the
// input order. n <= 0 gives none; n >= len(plans) gives a copy of all.
func Sample(plans []vocab.Plan, n int, seed uint64) []vocab.Plan {
	if n <= 0 {
		return nil
	}
	if n >= len(plans) {
		return slices.Clone(plans)
	}
	idx := make([]int, len(plans))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(plans[a].Key, plans[b].Key) })
	r := rand.New(rand.NewPCG(seed, sampleStream))
	// A partial Fisher-Yates shuffle: the first n slots are the sample.
	for i := range n {
		j := i + r.IntN(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	picked := idx[:n]
	slices.Sort(picked)
	out := make([]vocab.Plan, n)
	for i, k := range picked {
		out[i] = plans[k]
	}
	return out
}

// Shard returns the plans of shard i of n (0 <= i < n), in input order. A
// plan's shard is the FNV-1a hash of its Key modulo n, so it does not
// depend on the other plans: the n shards are disjoint and together hold
// every plan.
func Shard(plans []vocab.Plan, i, n int) ([]vocab.Plan, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("shard %d of %d: want 0 <= shard < count and count >= 1", i, n)
	}
	var out []vocab.Plan
	for _, p := range plans {
		if ShardOf(p.Key, n) == i {
			out = append(out, p)
		}
	}
	return out, nil
}

// ShardOf returns the shard (0 <= shard < n) of a plan key; n must be >= 1.
func ShardOf(key string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64() % uint64(n))
}
