package results

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// mergeSet is a scan's targets: 40 plans over 10 server identities, two of
// which are never run.
func mergeSet() ([]vocab.Plan, map[string]*probe.Result) {
	var plans []vocab.Plan
	results := map[string]*probe.Result{}
	for i := range 40 {
		p := fakePlan(i)
		plans = append(plans, p)
		if i == 5 || i == 22 {
			continue // pending
		}
		res := fakeResult(i, shape{tools: 6, prompts: 1, resources: 1, templates: 1, calls: 12, probes: 8, findings: 7})
		res.Target.Name = fmt.Sprintf("srv-%d", i%10)
		res.Target.Version = "1.0.0"
		results[p.Key] = res
	}
	return plans, results
}

// storeScan writes plans (and the results for their keys) as one scan.
func storeScan(t *testing.T, path string, info ScanInfo, plans []vocab.Plan, results map[string]*probe.Result, status string, ms []migration) {
	t.Helper()
	ctx := context.Background()
	abs, _ := filepath.Abs(path)
	if err := checkFile(path, abs, false); err != nil {
		t.Fatal(err)
	}
	st, err := open(ctx, path, abs, (*Options)(nil).withDefaults(), ms)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := newScan(t, st, info)
	if _, err := st.AddTargets(ctx, id, plans); err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		if res, ok := results[p.Key]; ok {
			if _, err := st.SaveRun(ctx, id, p.Key, res); err != nil {
				t.Fatal(err)
			}
		}
	}
	if status == ScanRunning {
		return // a shard still running: never finished
	}
	if err := st.FinishScan(ctx, id, status); err != nil {
		t.Fatal(err)
	}
}

type serverIdentity struct{ Name, Version, Source string }

type findingRow struct{ Code, Severity, Subject, Pointer, Value, Message string }

type runView struct {
	Server   serverIdentity
	Status   string
	Verdict  *string
	Score    *float64
	Tools    int
	Calls    int
	Probes   int
	Findings []findingRow
	Result   *probe.Result
}

type targetView struct {
	Status string
	Plan   vocab.Plan
}

// dbView is everything a report can see of the latest scan of a database,
// without ids and times.
type dbView struct {
	Kind, Source, Rubric, Status string
	Seed                         *int64
	Targets, Done                int
	Servers                      []serverIdentity
	AllServers                   int
	TargetsByKey                 map[string]targetView
	RunsByKey                    map[string]runView
}

func view(t *testing.T, path string) dbView {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, path, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc, err := st.LatestScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v := dbView{Kind: sc.Kind, Source: sc.Source, Rubric: sc.RubricVersion, Status: sc.Status, Seed: sc.Seed,
		Targets: sc.Targets, Done: sc.Done, TargetsByKey: map[string]targetView{}, RunsByKey: map[string]runView{}}
	v.AllServers = count(t, st, "SELECT count(*) FROM servers")

	pending, err := st.PendingTargets(ctx, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pending {
		v.TargetsByKey[p.Key] = targetView{Status: TargetPending, Plan: p}
	}
	rows, err := st.r.Query(`SELECT r.target_key, s.name, s.version, s.source, r.status, r.verdict, r.score,
		(SELECT count(*) FROM tools WHERE run_id = r.id), (SELECT count(*) FROM calls WHERE run_id = r.id),
		(SELECT count(*) FROM probes WHERE run_id = r.id), r.id, t.status, t.plan
		FROM runs r JOIN servers s ON s.id = r.server_id
		JOIN targets t ON t.scan_id = r.scan_id AND t.key = r.target_key
		WHERE r.scan_id = ?`, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[serverIdentity]bool{}
	for rows.Next() {
		var (
			key, tstatus, plan string
			rv                 runView
			runID              int64
		)
		if err := rows.Scan(&key, &rv.Server.Name, &rv.Server.Version, &rv.Server.Source, &rv.Status, &rv.Verdict, &rv.Score,
			&rv.Tools, &rv.Calls, &rv.Probes, &runID, &tstatus, &plan); err != nil {
			t.Fatal(err)
		}
		if rv.Result, err = st.Run(ctx, runID); err != nil {
			t.Fatal(err)
		}
		frows, err := st.r.Query("SELECT code, severity, subject, pointer, value, message FROM findings WHERE run_id = ? ORDER BY idx", runID)
		if err != nil {
			t.Fatal(err)
		}
		for frows.Next() {
			var f findingRow
			if err := frows.Scan(&f.Code, &f.Severity, &f.Subject, &f.Pointer, &f.Value, &f.Message); err != nil {
				t.Fatal(err)
			}
			rv.Findings = append(rv.Findings, f)
		}
		frows.Close()
		v.RunsByKey[key] = rv
		var p vocab.Plan
		if err := jsonUnmarshal(plan, &p); err != nil {
			t.Fatal(err)
		}
		v.TargetsByKey[key] = targetView{Status: tstatus, Plan: p}
		if !seen[rv.Server] {
			seen[rv.Server] = true
			v.Servers = append(v.Servers, rv.Server)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(v.Servers, func(i, j int) bool { return v.Servers[i].Name < v.Servers[j].Name })
	return v
}

func TestMerge(t *testing.T) {
	dir := t.TempDir()
	plans, results := mergeSet()
	seed := int64(9)
	info := ScanInfo{Kind: KindScan, Source: "registry", Seed: &seed, RubricVersion: "2025.1"}

	single := filepath.Join(dir, "single.db")
	storeScan(t, single, info, plans, results, ScanInterrupted, migrations)

	var shards []string
	for s := range 4 {
		var part []vocab.Plan
		for i, p := range plans {
			if i%4 == s {
				part = append(part, p)
			}
		}
		si := info
		si.ShardIndex, si.ShardCount = s, 4
		path := filepath.Join(dir, fmt.Sprintf("shard%d.db", s))
		status := ScanDone
		if s == 1 { // holds the pending target 5
			status = ScanInterrupted
		}
		ms := migrations
		if s == 3 { // a shard written by an older mcpvet
			ms = migrations[:1]
		}
		storeScan(t, path, si, part, results, status, ms)
		shards = append(shards, path)
	}
	before := map[string][]byte{}
	for _, p := range shards {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		before[p] = b
	}

	merged := filepath.Join(dir, "merged.db")
	if err := Merge(context.Background(), merged, shards...); !errors.Is(err, ErrIncompleteShards) {
		t.Fatalf("Merge with shard 1 interrupted: %v, want ErrIncompleteShards", err)
	}
	if err := MergeShards(context.Background(), merged, shards, &MergeOptions{AllowPartial: true}); err != nil {
		t.Fatal(err)
	}
	want, got := view(t, single), view(t, merged)
	if want.Done != 38 || want.Targets != 40 || len(want.Servers) != 10 || want.AllServers != 10 {
		t.Fatalf("single-machine view is not the set up: %d/%d done, %d servers", want.Done, want.Targets, len(want.Servers))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged database differs from a single-machine scan (-want +got):\n%s", diff)
	}
	for _, p := range shards {
		if b, _ := os.ReadFile(p); !bytes.Equal(before[p], b) {
			t.Errorf("Merge modified input %s", p)
		}
	}

	// Runs keep their creation times.
	ctx := context.Background()
	src, err := Open(ctx, shards[2], &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := Open(ctx, merged, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	created := map[string]string{}
	for rec, err := range dst.Runs(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		created[rec.TargetKey] = formatTime(rec.CreatedAt)
	}
	for rec, err := range src.Runs(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		if c := formatTime(rec.CreatedAt); created[rec.TargetKey] != c {
			t.Errorf("run %q created %s in the merge, %s in the shard", rec.TargetKey, created[rec.TargetKey], c)
		}
	}
	// The merged scan is unsharded and, with a shard interrupted, resumable.
	sc, err := dst.LatestScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sc.ShardCount != 0 || sc.Status != ScanInterrupted || sc.FinishedAt.Before(sc.StartedAt) {
		t.Errorf("merged scan = %+v", sc)
	}
}

func TestMergeIntoExisting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	plans, results := mergeSet()
	out := filepath.Join(dir, "history.db")
	storeScan(t, out, ScanInfo{Kind: KindProbe, Source: "cli"}, plans[:1], results, ScanDone, migrations)
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	info := ScanInfo{Kind: KindScan, Source: "registry", ShardCount: 2}
	storeScan(t, a, info, plans[:20], results, ScanDone, migrations)
	info.ShardIndex = 1
	storeScan(t, b, info, plans[20:], results, ScanDone, migrations)
	if err := Merge(ctx, out, a, b); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	scans, err := st.Scans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type s struct {
		Kind, Status    string
		Targets, Done   int
		Finished, Shard bool
	}
	var got []s
	for _, sc := range scans {
		got = append(got, s{sc.Kind, sc.Status, sc.Targets, sc.Done, !sc.FinishedAt.IsZero(), sc.ShardCount > 0})
	}
	want := []s{{KindProbe, ScanDone, 1, 1, true, false}, {KindScan, ScanDone, 40, 38, true, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scans (-want +got):\n%s", diff)
	}
}

func TestMergeRefuses(t *testing.T) {
	ctx := context.Background()
	plans, results := mergeSet()
	type shardSpec struct {
		info  ScanInfo
		plans []vocab.Plan
	}
	sh := func(i, n int, rubric string, plans []vocab.Plan) shardSpec {
		return shardSpec{ScanInfo{Kind: KindScan, Source: "registry", ShardIndex: i, ShardCount: n, RubricVersion: rubric}, plans}
	}
	tests := []struct {
		name   string
		shards []shardSpec
		extra  func(dir string) []string // more input paths
		want   string                    // in the error
	}{
		{"overlapping keys", []shardSpec{sh(0, 2, "r", plans[:20]), sh(1, 2, "r", plans[19:])}, nil, "(shards must not overlap)"},
		{"same shard twice", []shardSpec{sh(0, 2, "r", plans[:20]), sh(0, 2, "r", plans[20:])}, nil, "in1.db\" are both shard 0/2"},
		{"rubric differs", []shardSpec{sh(0, 2, "r1", plans[:20]), sh(1, 2, "r2", plans[20:])}, nil, `rubric version "r2" vs "r1"`},
		{"shard count differs", []shardSpec{sh(0, 2, "r", plans[:20]), sh(1, 3, "r", plans[20:])}, nil, "shard count 3 vs 2"},
		{"input given twice", []shardSpec{sh(0, 2, "r", plans[:20])}, func(dir string) []string { return []string{filepath.Join(dir, "in0.db")} }, "is given twice"},
		{"input not a database", []shardSpec{sh(0, 2, "r", plans[:20])}, func(dir string) []string {
			p := filepath.Join(dir, "junk.db")
			os.WriteFile(p, []byte("not a database"), 0o644)
			return []string{p}
		}, "file is not a database"},
		{"input missing", []shardSpec{sh(0, 2, "r", plans[:20])}, func(dir string) []string { return []string{filepath.Join(dir, "missing.db")} }, "no such file or directory"},
		{"output is an input", []shardSpec{sh(0, 2, "r", plans[:20])}, func(dir string) []string { return []string{filepath.Join(dir, "out.db")} }, "out.db\" is the output database"},
		{"no inputs", nil, nil, "no input databases"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var in []string
			for i, s := range tt.shards {
				p := filepath.Join(dir, fmt.Sprintf("in%d.db", i))
				storeScan(t, p, s.info, s.plans, results, ScanDone, migrations)
				in = append(in, p)
			}
			out := filepath.Join(dir, "out.db")
			if tt.name == "output is an input" {
				storeScan(t, out, sh(1, 2, "r", plans[20:]).info, plans[20:], results, ScanDone, migrations)
			}
			if tt.extra != nil {
				in = append(in, tt.extra(dir)...)
			}
			var outBefore []byte
			if b, err := os.ReadFile(out); err == nil {
				outBefore = b
			}
			err := Merge(ctx, out, in...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Merge = %v, want an error containing %q", err, tt.want)
			}
			b, rerr := os.ReadFile(out)
			switch {
			case outBefore == nil && !errors.Is(rerr, os.ErrNotExist):
				t.Errorf("Merge left %s behind (%v)", out, rerr)
			case outBefore != nil && !bytes.Equal(outBefore, b):
				t.Errorf("Merge modified %s", out)
			}
		})
	}
}

// TestMergeChecksShardSet: a merge takes the complete, finished shard set
// of one scan, unless told to allow a partial one (and then says so in the
// merged scan); merging the same inputs twice changes nothing.
func TestMergeChecksShardSet(t *testing.T) {
	ctx := context.Background()
	plans, results := mergeSet()
	opts := func(digest string) []byte { return []byte(`{"planSetDigest":"` + digest + `"}`) }
	shard := func(t *testing.T, dir string, i, n int, digest, status string) string {
		var part []vocab.Plan
		for j, p := range plans {
			if j%n == i {
				part = append(part, p)
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d-%s.db", i, n, status))
		storeScan(t, p, ScanInfo{Kind: KindScan, Source: "snapshot", Options: opts(digest), ShardIndex: i, ShardCount: n, RubricVersion: "r"},
			part, results, status, migrations)
		return p
	}
	t.Run("two of three", func(t *testing.T) {
		dir := t.TempDir()
		in := []string{shard(t, dir, 0, 3, "d", ScanDone), shard(t, dir, 1, 3, "d", ScanDone)}
		err := Merge(ctx, filepath.Join(dir, "out.db"), in...)
		if !errors.Is(err, ErrIncompleteShards) || !strings.Contains(err.Error(), "missing 2/3") {
			t.Fatalf("err = %v, want ErrIncompleteShards naming shard 2/3", err)
		}
		out := filepath.Join(dir, "partial.db")
		if err := MergeShards(ctx, out, in, &MergeOptions{AllowPartial: true}); err != nil {
			t.Fatal(err)
		}
		st, err := Open(ctx, out, &Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		sc, _ := st.LatestScan(ctx)
		if !strings.Contains(string(sc.Options), `"allowPartial":true`) || !strings.Contains(string(sc.Options), `"missingShards":["2/3"]`) {
			t.Errorf("merged scan options do not record the partial merge: %s", sc.Options)
		}
	})
	t.Run("unsharded scans", func(t *testing.T) {
		dir := t.TempDir()
		var in []string
		for i, status := range []string{ScanDone, ScanRunning} {
			p := filepath.Join(dir, fmt.Sprintf("whole-%d.db", i))
			storeScan(t, p, ScanInfo{Kind: KindScan, Source: "snapshot", Options: opts("d"), RubricVersion: "r"}, plans[20*i:20*i+19], results, status, migrations)
			in = append(in, p)
		}
		err := Merge(ctx, filepath.Join(dir, "out.db"), in...)
		// An unsharded input is named by its path, not as shard 0/0.
		for _, want := range []string{"2 unsharded scans are not the shards of one scan", fmt.Sprintf("shard %s (%s) is not finished", in[1], in[1])} {
			if !errors.Is(err, ErrIncompleteShards) || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want ErrIncompleteShards: %s", err, want)
			}
		}
		out := filepath.Join(dir, "partial.db")
		if err := MergeShards(ctx, out, in, &MergeOptions{AllowPartial: true}); err != nil {
			t.Fatalf("MergeShards with AllowPartial: %v", err)
		}
	})
	t.Run("a shard still running", func(t *testing.T) {
		dir := t.TempDir()
		in := []string{shard(t, dir, 0, 2, "d", ScanDone), shard(t, dir, 1, 2, "d", ScanRunning)}
		if err := Merge(ctx, filepath.Join(dir, "out.db"), in...); !errors.Is(err, ErrIncompleteShards) || !strings.Contains(err.Error(), "not finished") {
			t.Fatalf("err = %v, want ErrIncompleteShards: shard 1/2 not finished", err)
		}
	})
	t.Run("shards of another plan set", func(t *testing.T) {
		for _, tt := range []struct{ first, second, want string }{
			{"d1", "d2", "(plan-set digest d2 vs d1)"},
			{"d1", "", "(plan-set digest none vs d1)"},
		} {
			dir := t.TempDir()
			in := []string{shard(t, dir, 0, 2, tt.first, ScanDone), shard(t, dir, 1, 2, tt.second, ScanDone)}
			if err := MergeShards(ctx, filepath.Join(dir, "out.db"), in, &MergeOptions{AllowPartial: true}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a plan-set mismatch %s even with AllowPartial", err, tt.want)
			}
		}
	})
	t.Run("twice into the same output", func(t *testing.T) {
		dir := t.TempDir()
		in := []string{shard(t, dir, 0, 2, "d", ScanDone), shard(t, dir, 1, 2, "d", ScanDone)}
		out := filepath.Join(dir, "out.db")
		for range 2 {
			if err := Merge(ctx, out, in...); err != nil {
				t.Fatal(err)
			}
		}
		st, err := Open(ctx, out, &Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		scans, _ := st.Scans(ctx)
		if len(scans) != 1 || scans[0].Done != 38 {
			t.Errorf("after two merges: %d scans (first with %d runs), want 1 scan with 38", len(scans), scans[0].Done)
		}
	})
}

// TestWithMergeRecord pins the "merge" record added to a merged scan's
// options: kept options, unreadable ones kept as text, and the missing and
// unfinished shards only when there are some.
func TestWithMergeRecord(t *testing.T) {
	c := shardSetCheck{digest: "sha256:x"}
	partial := shardSetCheck{digest: "sha256:y", missing: []string{"2/3"}, unfinished: []string{"1/3"}}
	for _, tt := range []struct {
		name    string
		options string
		check   shardSetCheck
		allow   bool
		want    string
	}{
		{"no options", "", c, false, `{"merge":{"allowPartial":false,"inputsDigest":"sha256:x"}}`},
		{"options kept", `{"a":1}`, c, false, `{"a":1,"merge":{"allowPartial":false,"inputsDigest":"sha256:x"}}`},
		{"unreadable options kept as text", `not json`, c, false, `{"merge":{"allowPartial":false,"inputsDigest":"sha256:x"},"originalOptions":"not json"}`},
		{"partial", "", partial, true, `{"merge":{"allowPartial":true,"inputsDigest":"sha256:y","missingShards":["2/3"],"unfinishedShards":["1/3"]}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var opts json.RawMessage
			if tt.options != "" {
				opts = json.RawMessage(tt.options)
			}
			got, err := withMergeRecord(opts, tt.check, tt.allow)
			if err != nil || string(got) != tt.want {
				t.Errorf("withMergeRecord = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}
