package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

func newStore(t testing.TB) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "mcpvet.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newScan(t testing.TB, st *Store, info ScanInfo) int64 {
	t.Helper()
	if info.Kind == "" {
		info.Kind = KindScan
	}
	id, err := st.NewScan(context.Background(), info)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func count(t testing.TB, st *Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := st.r.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestRoundTrip(t *testing.T) {
	exit := 1
	code := int64(-32601)
	tests := []struct {
		name string
		res  *probe.Result
	}{
		{"census", fakeResult(1, census)},
		{"empty", &probe.Result{Target: probe.Target{Name: "x", Source: "cli", Transport: "stdio"}, Liveness: probe.Liveness{Status: vocab.StatusSpawnFailed}}},
		{"empty slices", &probe.Result{Tools: []probe.Tool{}, Findings: []probe.Finding{}, Calls: []probe.Call{}, Probes: []probe.ProbeCall{}}},
		{"dead server", &probe.Result{
			Target:   probe.Target{Name: "npx bad", Source: "cli", Transport: "stdio", Command: []string{"npx", "bad"}},
			Liveness: probe.Liveness{Status: vocab.StatusExitedEarly, StderrTail: "Error: <missing> & \"quoted\"\n\ttab", ExitCode: &exit},
			Findings: []probe.Finding{{Code: "liveness/exited_early", Severity: probe.SeverityFatal, Subject: "server", Message: "exited"}},
			Calls:    []probe.Call{{Seq: 1, Method: "initialize", InputHash: "00", Outcome: "error", ErrorCode: &code}},
			Verdict:  &probe.Verdict{Decision: "drop", Rules: []probe.Rule{{Name: "dead", Fired: true, Decision: "drop"}}},
		}},
		{"unicode and html in raw", &probe.Result{Tools: []probe.Tool{{
			Name: "Ünïcode-工具", Description: "<script>alert(1)</script> \u2028",
			Raw: json.RawMessage(`{"name":"Ünïcode-工具","description":"<b>&amp;</b>","x":null}`),
		}}}},
		{"json null raw", &probe.Result{Probes: []probe.ProbeCall{{Kind: "k", Sent: json.RawMessage(`null`), Class: "hang"}}}},
	}
	st := newStore(t)
	ctx := context.Background()
	scan := newScan(t, st, ScanInfo{})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := st.SaveRun(ctx, scan, fmt.Sprintf("key-%d", i), tt.res)
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.Run(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.res, got); diff != "" {
				t.Errorf("Run(%d) mismatch (-want +got):\n%s", id, diff)
			}
			// The query copies hold the same rows.
			counts := map[string]int{
				"tools": len(tt.res.Tools), "prompts": len(tt.res.Prompts), "resources": len(tt.res.Resources),
				"resource_templates": len(tt.res.ResourceTemplates), "findings": len(tt.res.Findings),
				"calls": len(tt.res.Calls), "probes": len(tt.res.Probes),
			}
			gotCounts := map[string]int{}
			for table := range counts {
				gotCounts[table] = count(t, st, "SELECT count(*) FROM "+table+" WHERE run_id = ?", id)
			}
			if diff := cmp.Diff(counts, gotCounts); diff != "" {
				t.Errorf("child rows (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRoundTripNormalises documents what the JSON round trip changes:
// raw JSON is compacted and invalid UTF-8 becomes U+FFFD, exactly as
// `probe --json` prints them.
func TestRoundTripNormalises(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	scan := newScan(t, st, ScanInfo{})
	in := &probe.Result{
		Liveness: probe.Liveness{StderrTail: "bad \xff byte"},
		Tools:    []probe.Tool{{Name: "t", Raw: json.RawMessage("{ \"name\" :\n \"t\" }")}},
	}
	want := &probe.Result{
		Liveness: probe.Liveness{StderrTail: "bad \uFFFD byte"},
		Tools:    []probe.Tool{{Name: "t", Raw: json.RawMessage(`{"name":"t"}`)}},
	}
	id, err := st.SaveRun(ctx, scan, "k", in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Run mismatch (-want +got):\n%s", diff)
	}
	// The tools table keeps the raw bytes as the server sent them.
	var raw string
	if err := st.r.QueryRow("SELECT raw FROM tools WHERE run_id = ?", id).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if raw != string(in.Tools[0].Raw) {
		t.Errorf("tools.raw = %q, want %q", raw, in.Tools[0].Raw)
	}
}

func TestSaveRunRejects(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	scan := newScan(t, st, ScanInfo{})
	tests := []struct {
		name   string
		scanID int64
		key    string
		res    *probe.Result
		want   error
	}{
		{"unknown scan", scan + 100, "k", &probe.Result{}, ErrNotFound},
		{"nil result", scan, "k", nil, nil},
		{"empty key", scan, "", &probe.Result{}, nil},
		{"bad severity", scan, "k", &probe.Result{Findings: []probe.Finding{{Code: "x", Severity: "bad"}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := st.SaveRun(ctx, tt.scanID, tt.key, tt.res)
			if err == nil {
				t.Fatal("SaveRun succeeded, want an error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("SaveRun error = %v, want %v", err, tt.want)
			}
		})
	}
	if n := count(t, st, "SELECT count(*) FROM runs"); n != 0 {
		t.Errorf("%d runs stored by failed saves, want 0", n)
	}
	if n := count(t, st, "SELECT count(*) FROM targets"); n != 0 {
		t.Errorf("%d targets stored by failed saves, want 0", n)
	}
}

func TestResumableTargets(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	seed := int64(42)
	scan := newScan(t, st, ScanInfo{Source: "registry", Seed: &seed, RubricVersion: "2025.1", Options: json.RawMessage(`{"concurrency":8}`)})
	var plans []vocab.Plan
	for i := range 10 {
		plans = append(plans, fakePlan(i))
	}
	added, err := st.AddTargets(ctx, scan, plans)
	if err != nil || added != 10 {
		t.Fatalf("AddTargets = %d, %v; want 10, nil", added, err)
	}
	for _, i := range []int{0, 3, 4, 9} {
		if _, err := st.SaveRun(ctx, scan, plans[i].Key, fakeResult(i, census)); err != nil {
			t.Fatal(err)
		}
	}
	pending, err := st.PendingTargets(ctx, scan)
	if err != nil {
		t.Fatal(err)
	}
	want := []vocab.Plan{plans[1], plans[2], plans[5], plans[6], plans[7], plans[8]}
	if diff := cmp.Diff(want, pending); diff != "" {
		t.Errorf("PendingTargets (-want +got):\n%s", diff)
	}

	// A second run for a done target is rejected and writes nothing.
	_, err = st.SaveRun(ctx, scan, plans[3].Key, fakeResult(3, census))
	if !errors.Is(err, ErrDuplicateRun) {
		t.Errorf("second SaveRun error = %v, want ErrDuplicateRun", err)
	}
	if n := count(t, st, "SELECT count(*) FROM runs WHERE scan_id = ?", scan); n != 4 {
		t.Errorf("runs = %d after duplicate, want 4", n)
	}
	// Adding the same plans again (a resume) adds nothing.
	if added, err := st.AddTargets(ctx, scan, plans); err != nil || added != 0 {
		t.Errorf("AddTargets again = %d, %v; want 0, nil", added, err)
	}
	// A run for a key never added creates its target, done.
	if _, err := st.SaveRun(ctx, scan, "extra", fakeResult(50, census)); err != nil {
		t.Fatal(err)
	}
	sc, err := st.Scan(ctx, scan)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Targets != 11 || sc.Done != 5 || sc.Status != ScanRunning || *sc.Seed != 42 || string(sc.Options) != `{"concurrency":8}` {
		t.Errorf("Scan = %+v, want 11 targets, 5 done, running, seed 42, options kept", sc)
	}
	// The same server in a new scan is a new run; the old one stays.
	scan2 := newScan(t, st, ScanInfo{})
	if _, err := st.SaveRun(ctx, scan2, plans[3].Key, fakeResult(3, census)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, st, "SELECT count(*) FROM runs WHERE target_key = ?", plans[3].Key); n != 2 {
		t.Errorf("runs of %q = %d, want 2", plans[3].Key, n)
	}
	if n := count(t, st, "SELECT count(*) FROM servers WHERE name = ?", plans[3].Name); n != 1 {
		t.Errorf("servers named %q = %d, want 1", plans[3].Name, n)
	}

	if err := st.FinishScan(ctx, scan, ScanInterrupted); err != nil {
		t.Fatal(err)
	}
	latest, err := st.LatestScan(ctx)
	if err != nil || latest.ID != scan2 {
		t.Errorf("LatestScan = %d, %v; want %d", latest.ID, err, scan2)
	}
	if err := st.ResumeScan(ctx, scan); err != nil {
		t.Fatal(err)
	}
	sc, _ = st.Scan(ctx, scan)
	if sc.Status != ScanRunning || !sc.FinishedAt.IsZero() {
		t.Errorf("after ResumeScan: status %q finished %v, want running and zero", sc.Status, sc.FinishedAt)
	}
	if err := st.FinishScan(ctx, scan, ScanDone); err != nil {
		t.Fatal(err)
	}
	sc, _ = st.Scan(ctx, scan)
	if sc.Status != ScanDone || sc.FinishedAt.Before(sc.StartedAt) {
		t.Errorf("after FinishScan: %+v", sc)
	}
	var keys []string
	for rec, err := range st.Runs(ctx, scan) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, rec.TargetKey)
	}
	wantKeys := []string{plans[0].Key, plans[3].Key, plans[4].Key, plans[9].Key, "extra"}
	if diff := cmp.Diff(wantKeys, keys); diff != "" {
		t.Errorf("Runs keys (-want +got):\n%s", diff)
	}
}

func TestScanValidation(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	tests := []struct {
		name string
		info ScanInfo
	}{
		{"unknown kind", ScanInfo{Kind: "census"}},
		{"bad options", ScanInfo{Kind: KindScan, Options: json.RawMessage(`{`)}},
		{"bad shard", ScanInfo{Kind: KindScan, ShardIndex: 4, ShardCount: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := st.NewScan(ctx, tt.info); err == nil {
				t.Error("NewScan succeeded, want an error")
			}
		})
	}
	if _, err := st.LatestScan(ctx); !errors.Is(err, ErrNotFound) {
		t.Errorf("LatestScan on empty db = %v, want ErrNotFound", err)
	}
	if _, err := st.Run(ctx, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("Run(1) on empty db = %v, want ErrNotFound", err)
	}
	if err := st.FinishScan(ctx, 7, ScanDone); !errors.Is(err, ErrNotFound) {
		t.Errorf("FinishScan(7) = %v, want ErrNotFound", err)
	}
	if _, err := st.AddTargets(ctx, 7, []vocab.Plan{fakePlan(1)}); !errors.Is(err, ErrNotFound) {
		t.Errorf("AddTargets(7) = %v, want ErrNotFound", err)
	}
}

func TestConcurrentSaveRun(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	scan := newScan(t, st, ScanInfo{})
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	ids := make(chan int64, workers*each)
	for w := range workers {
		wg.Go(func() {
			for j := range each {
				i := w*each + j
				id, err := st.SaveRun(ctx, scan, fmt.Sprintf("k%d", i), fakeResult(i, shape{tools: 5, calls: 10, probes: 5, findings: 5}))
				if err != nil {
					errs <- err
					continue
				}
				ids <- id
				// Reads run alongside the writers.
				if _, err := st.Run(ctx, id); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	close(ids)
	for err := range errs {
		t.Error(err)
	}
	seen := map[int64]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("run id %d returned twice", id)
		}
		seen[id] = true
	}
	if len(seen) != workers*each {
		t.Errorf("%d runs saved, want %d", len(seen), workers*each)
	}
	if n := count(t, st, "SELECT count(*) FROM targets WHERE scan_id = ? AND status = 'done'", scan); n != workers*each {
		t.Errorf("%d targets done, want %d", n, workers*each)
	}
}

func TestClose(t *testing.T) {
	st := newStore(t)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if _, err := st.NewScan(context.Background(), ScanInfo{Kind: KindScan}); !errors.Is(err, ErrClosed) {
		t.Errorf("NewScan after Close = %v, want ErrClosed", err)
	}
}

func TestSaveRuns(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	scan := newScan(t, st, ScanInfo{})
	plans := []vocab.Plan{fakePlan(0), fakePlan(1), fakePlan(2), fakePlan(3)}
	if _, err := st.AddTargets(ctx, scan, plans); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveRun(ctx, scan, plans[0].Key, fakeResult(0, census)); err != nil {
		t.Fatal(err)
	}
	runs := []RunInput{
		{plans[1].Key, fakeResult(1, census)},
		{plans[0].Key, fakeResult(0, census)}, // already has a run
		{plans[2].Key, nil},                   // no result
		{plans[3].Key, fakeResult(3, census)},
		{plans[1].Key, fakeResult(1, census)}, // duplicate within the batch
		{"new", fakeResult(4, census)},
	}
	ids, err := st.SaveRuns(ctx, scan, runs)
	if !errors.Is(err, ErrDuplicateRun) {
		t.Errorf("SaveRuns error = %v, want ErrDuplicateRun among the rejections", err)
	}
	var stored []int
	for i, id := range ids {
		if id != 0 {
			stored = append(stored, i)
			got, err := st.Run(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(runs[i].Result, got); diff != "" {
				t.Errorf("run %d (-want +got):\n%s", i, diff)
			}
		}
	}
	if diff := cmp.Diff([]int{0, 3, 5}, stored); diff != "" {
		t.Errorf("stored runs (-want +got):\n%s", diff)
	}
	pending, err := st.PendingTargets(ctx, scan)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 || pending[0].Key != plans[2].Key {
		t.Errorf("pending = %v, want only %q", pending, plans[2].Key)
	}
	if n := count(t, st, "SELECT count(*) FROM runs WHERE scan_id = ?", scan); n != 4 {
		t.Errorf("runs = %d, want 4", n)
	}
	if n := count(t, st, "SELECT count(*) FROM tools"); n != 4*census.tools {
		t.Errorf("tools = %d, want %d (rejected runs leave no rows)", n, 4*census.tools)
	}
	if _, err := st.SaveRuns(ctx, scan+9, runs[:1]); !errors.Is(err, ErrNotFound) {
		t.Errorf("SaveRuns on a missing scan = %v, want ErrNotFound", err)
	}
}
