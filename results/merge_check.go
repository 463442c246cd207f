package results

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrIncompleteShards: the inputs of a merge are not the complete,
// finished shard set of one scan.
var ErrIncompleteShards = errors.New("incomplete shard set")

// shardSetCheck is what a merge found about its inputs.
type shardSetCheck struct {
	// problem says why the set is incomplete or unfinished, "" if it is
	// complete.
	problem    string
	missing    []string // "i/n" of shards not given
	unfinished []string // "i/n" (or the path) of shards not done
	planSet    string   // the shards' common plan-set digest, if recorded
	// digest identifies the inputs (shard, plan set, progress), so that a
	// merge of the same inputs is recognised.
	digest string
}

// scanPlanSet reads the plan-set digest a scan recorded in its options.
func scanPlanSet(sc Scan) string {
	var o struct {
		PlanSetDigest string `json:"planSetDigest"`
	}
	_ = json.Unmarshal(sc.Options, &o)
	return o.PlanSetDigest
}

// checkShardSet checks that scans (of the inputs at paths) are every shard
// of one plan set, each done. A plan-set digest that differs between
// shards is an error in any case: they are not shards of one scan.
func checkShardSet(scans []Scan, paths []string) (shardSetCheck, error) {
	var c shardSetCheck
	n := scans[0].ShardCount
	have := map[int]bool{}
	h := sha256.New()
	var problems []string
	for i, sc := range scans {
		ps := scanPlanSet(sc)
		switch {
		case i == 0:
			c.planSet = ps
		case ps != c.planSet:
			return c, fmt.Errorf("input %q was drawn from another plan set than %q (plan-set digest %s vs %s): not shards of one scan",
				paths[i], paths[0], orNone(ps), orNone(c.planSet))
		}
		name := paths[i]
		if n > 0 {
			name = fmt.Sprintf("%d/%d", sc.ShardIndex, n)
			have[sc.ShardIndex] = true
		}
		if sc.Status != ScanDone || sc.FinishedAt.IsZero() {
			c.unfinished = append(c.unfinished, name)
			problems = append(problems, fmt.Sprintf("shard %s (%s) is not finished: status %s, %d of %d targets done; finish it with mcpvet scan --resume --db %s",
				name, paths[i], sc.Status, sc.Done, sc.Targets, paths[i]))
		}
		fmt.Fprintf(h, "%d/%d\x00%s\x00%s\x00%s\x00%d\x00%d\x00%s\n", sc.ShardIndex, sc.ShardCount, ps, sc.Status,
			formatTime(sc.StartedAt), sc.Targets, sc.Done, formatTime(sc.FinishedAt))
	}
	switch {
	case n == 0 && len(scans) > 1:
		problems = append(problems, fmt.Sprintf("%d unsharded scans are not the shards of one scan", len(scans)))
	case n > 0:
		for i := range n {
			if !have[i] {
				c.missing = append(c.missing, fmt.Sprintf("%d/%d", i, n))
			}
		}
		if len(c.missing) > 0 {
			problems = append([]string{fmt.Sprintf("%d of %d shards given, missing %s", len(have), n, strings.Join(c.missing, ", "))}, problems...)
		}
	}
	c.problem = strings.Join(problems, "; ")
	sort.Strings(c.unfinished)
	c.digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return c, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// withMergeRecord adds the "merge" record to a scan's options object.
func withMergeRecord(options json.RawMessage, c shardSetCheck, allowPartial bool) (json.RawMessage, error) {
	m := map[string]any{}
	if len(options) > 0 {
		if err := json.Unmarshal(options, &m); err != nil {
			m = map[string]any{"originalOptions": string(options)}
		}
	}
	rec := map[string]any{"inputsDigest": c.digest, "allowPartial": allowPartial}
	if len(c.missing) > 0 {
		rec["missingShards"] = c.missing
	}
	if len(c.unfinished) > 0 {
		rec["unfinishedShards"] = c.unfinished
	}
	m["merge"] = rec
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("recording the merge: %w", err)
	}
	return out, nil
}

// alreadyMerged reports whether out holds a scan merged from inputs with
// this digest.
func alreadyMerged(ctx context.Context, out, digest string) (bool, error) {
	st, err := Open(ctx, out, &Options{ReadOnly: true})
	if err != nil {
		return false, err
	}
	defer st.Close()
	scans, err := st.Scans(ctx)
	if err != nil {
		return false, err
	}
	for _, sc := range scans {
		var o struct {
			Merge struct {
				InputsDigest string `json:"inputsDigest"`
			} `json:"merge"`
		}
		if json.Unmarshal(sc.Options, &o) == nil && o.Merge.InputsDigest == digest {
			return true, nil
		}
	}
	return false, nil
}
