package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/results"
)

// remoteSnapshot writes a registry snapshot of n entries whose only plan is
// a remote nobody listens on: scanning them is quick and launches nothing.
func remoteSnapshot(t *testing.T, dir string, n int) string {
	t.Helper()
	var entries []map[string]any
	for i := range n {
		entries = append(entries, map[string]any{"server": map[string]any{
			"name": fmt.Sprintf("io.example/s%03d", i), "description": "test", "version": "1.0.0",
			"remotes": []map[string]any{{"type": "streamable-http", "url": fmt.Sprintf("http://127.0.0.1:1/mcp%d", i)}},
		}})
	}
	data, _ := json.Marshal(entries)
	path := filepath.Join(dir, "servers.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func targetKeys(t *testing.T, db string) map[string]bool {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query("SELECT key FROM targets")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var k string
		rows.Scan(&k)
		out[k] = true
	}
	return out
}

// TestSampleDrawsBeforeShard: the shards of a sampled scan partition the
// sample (old behaviour: each shard drew its own sample of 10).
func TestSampleDrawsBeforeShard(t *testing.T) {
	dir := t.TempDir()
	snap := remoteSnapshot(t, dir, 40)
	all := map[string]bool{}
	for i := range 2 {
		db := filepath.Join(dir, fmt.Sprintf("shard-%d.db", i))
		code, _, stderr := runCLI("scan", "--from", snap, "--sample", "10", "--seed", "7", "--shard", fmt.Sprintf("%d/2", i), "--db", db, "--quiet", "--sandbox", "none")
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		for k := range targetKeys(t, db) {
			if all[k] {
				t.Errorf("target %s is in both shards", k)
			}
			all[k] = true
		}
	}
	if len(all) != 10 {
		t.Errorf("the two shards hold %d targets, want the sample of 10", len(all))
	}
	merged := filepath.Join(dir, "merged.db")
	if code, _, stderr := runCLI("results", "merge", merged, filepath.Join(dir, "shard-0.db"), filepath.Join(dir, "shard-1.db")); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if got := len(targetKeys(t, merged)); got != 10 {
		t.Errorf("merged scan has %d targets, want 10", got)
	}
}

// TestResumeKeepsStoredOptions: --resume continues with the options the
// scan started with, and refuses a flag that contradicts them.
func TestResumeKeepsStoredOptions(t *testing.T) {
	bins := testfixture.Build(t, "hang", "wellbehaved")
	dir := t.TempDir()
	servers := map[string]any{"a-hang": map[string]any{"command": bins["hang"]}}
	for i := range 3 {
		// Each its own environment: one command run the same way is one
		// server, probed once.
		servers[fmt.Sprintf("b-well%d", i)] = map[string]any{"command": bins["wellbehaved"], "env": map[string]string{"INSTANCE": fmt.Sprint(i)}}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	cfg := filepath.Join(dir, "mcp.json")
	os.WriteFile(cfg, data, 0o644)
	db := filepath.Join(dir, "scan.db")

	// Interrupted (global --timeout) while the hanging server waits for its
	// 3s handshake deadline.
	code, _, stderr := runCLI("scan", "--config", cfg, "--db", db, "--sandbox", "none", "--no-inject", "--handshake-timeout", "3s",
		"--concurrency", "1", "--quiet", "--timeout", "1s")
	if code != 4 {
		t.Fatalf("first run: exit %d, want 4 (partial): %s", code, stderr)
	}

	code, _, stderr = runCLI("scan", "--resume", "--db", db, "--concurrency", "3", "--quiet")
	if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "--concurrency 3") || !strings.Contains(stderr, "stored --concurrency 1") {
		t.Fatalf("conflicting --concurrency: exit %d, stderr %q; want exit 2 and one line naming the flag", code, stderr)
	}

	code, _, stderr = runCLI("scan", "--resume", "--db", db, "--quiet")
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	st, err := results.Open(context.Background(), db, &results.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc, err := st.LatestScan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rec, err := range st.Runs(context.Background(), sc.ID) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		res, key := rec.Result, rec.TargetKey
		if len(res.Probes) > 0 {
			t.Errorf("%s: %d injection probes; the scan started with --no-inject", key, len(res.Probes))
		}
		if strings.Contains(key, "a-hang") && !strings.Contains(res.Liveness.Detail, "within 3s") {
			t.Errorf("%s: %s %q; want the stored --handshake-timeout 3s", key, res.Liveness.Status, res.Liveness.Detail)
		}
	}
	if n != 4 {
		t.Errorf("%d runs, want 4", n)
	}
}

// TestScanFlagErrors: one line each, exit 2.
func TestScanFlagErrors(t *testing.T) {
	dir := t.TempDir()
	snap := remoteSnapshot(t, dir, 1)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--concurrency", "0"}, "--concurrency 0: must be at least 1"},
		{[]string{"--concurrency", "-3"}, "--concurrency -3: must be at least 1"},
		{[]string{"--registry-retries", "-1"}, "--registry-retries -1"},
		{[]string{"--install-timeout", "0s"}, "--install-timeout 0s"},
		{[]string{"--exercise-calls", "0"}, "--exercise-calls 0: give a number of calls from 1 to 200"},
		{[]string{"--exercise-calls", "201"}, "--exercise-calls 201"},
	} {
		code, _, stderr := runCLI(append([]string{"scan", "--from", snap, "--db", filepath.Join(dir, "x.db")}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestRegistryRetryLine: each retry of an unreachable registry is one
// readable line (attempt, wait, cause), and the retry budget is a flag.
func TestRegistryRetryLine(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI("scan", "--registry", "http://127.0.0.1:1", "--registry-retries", "1", "--db", filepath.Join(dir, "x.db"))
	if code == 0 {
		t.Fatal("scan of an unreachable registry succeeded")
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	var retries []string
	for _, l := range lines {
		if strings.Contains(l, "retrying") {
			retries = append(retries, l)
		}
		if strings.Contains(l, "{") {
			t.Errorf("stderr line shows a Go value: %q", l)
		}
	}
	if len(retries) != 1 || !strings.Contains(retries[0], "attempt 1 of 2 failed") || !strings.Contains(retries[0], "connection refused") ||
		!strings.Contains(retries[0], "retrying in ") {
		t.Errorf("retry lines %q; want one: attempt 1 of 2, the cause, the wait\nstderr:\n%s", retries, stderr)
	}
}

// TestMergeCommandChecksShards: results merge refuses 2 of 3 shards (exit
// 2, one line), merges the full set, and merging it again adds nothing.
func TestMergeCommandChecksShards(t *testing.T) {
	dir := t.TempDir()
	snap := remoteSnapshot(t, dir, 12)
	var shards []string
	for i := range 3 {
		db := filepath.Join(dir, fmt.Sprintf("shard-%d.db", i))
		if code, _, stderr := runCLI("scan", "--from", snap, "--shard", fmt.Sprintf("%d/3", i), "--db", db, "--quiet", "--sandbox", "none"); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		shards = append(shards, db)
	}
	out := filepath.Join(dir, "census.db")
	code, _, stderr := runCLI(append([]string{"results", "merge", out}, shards[:2]...)...)
	if code != 2 || !strings.Contains(stderr, "missing 2/3") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("merge of 2 of 3 shards: exit %d, stderr %q; want exit 2, one line naming shard 2/3", code, stderr)
	}
	for range 2 {
		if code, _, stderr := runCLI(append([]string{"results", "merge", out}, shards...)...); code != 0 {
			t.Fatalf("merge: exit %d: %s", code, stderr)
		}
	}
	if runs, distinct := countRuns(t, out); runs != 12 || distinct != 12 {
		t.Errorf("after merging twice: %d runs (%d distinct), want 12", runs, distinct)
	}
}
