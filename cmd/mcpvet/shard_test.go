package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/results"
)

// TestShardsMergeEqualOneScan: four shard scans merged give the same
// servers, runs and verdicts as one scan of the same targets.
func TestShardsMergeEqualOneScan(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved", "crash", "needsenv", "banner")
	dir := t.TempDir()
	servers := map[string]any{}
	names := []string{"wellbehaved", "crash", "needsenv", "banner"}
	for i := range 24 {
		// Each its own environment, so that the 24 entries are 24 servers.
		servers[fmt.Sprintf("srv%02d", i)] = map[string]any{"command": bins[names[i%len(names)]], "env": map[string]string{"INSTANCE": fmt.Sprint(i)}}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	cfg := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"--config", cfg, "--sandbox", "none", "--no-inject", "--quiet", "--concurrency", "4"}

	single := filepath.Join(dir, "single.db")
	if code, _, stderr := runCLI(append([]string{"scan", "--db", single}, common...)...); code != 0 {
		t.Fatalf("single scan: exit %d: %s", code, stderr)
	}
	var shards []string
	for i := range 4 {
		db := filepath.Join(dir, fmt.Sprintf("shard-%d.db", i))
		shards = append(shards, db)
		if code, _, stderr := runCLI(append([]string{"scan", "--db", db, "--shard", fmt.Sprintf("%d/4", i)}, common...)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
	}
	merged := filepath.Join(dir, "merged.db")
	if code, _, stderr := runCLI(append([]string{"results", "merge", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	want, got := summarize(t, single), summarize(t, merged)
	if len(want) != 24 {
		t.Fatalf("single scan has %d runs, want 24", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged shards differ from one scan (-one +merged):\n%s", diff)
	}
}

// summarize returns "key status verdict server" for each run of the latest
// scan, sorted.
func summarize(t *testing.T, db string) []string {
	t.Helper()
	ctx := context.Background()
	st, err := results.Open(ctx, db, &results.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	scan, err := st.LatestScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range st.Runs(ctx, scan.ID) {
		if err != nil {
			t.Fatal(err)
		}
		res := rec.Result
		verdict := ""
		if res.Verdict != nil {
			verdict = res.Verdict.Decision
		}
		server := ""
		if res.Liveness.ServerInfo != nil {
			server = res.Liveness.ServerInfo.Name + "@" + res.Liveness.ServerInfo.Version
		}
		out = append(out, fmt.Sprintf("%s %s %s %s tools=%d", rec.TargetKey, res.Liveness.Status, verdict, server, len(res.Tools)))
	}
	sort.Strings(out)
	return out
}
