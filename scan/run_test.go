package scan

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/scoring"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestRunInterruptAndResume drives scan.Run itself (not through the CLI,
// and under -short): a scan interrupted while two servers hang stores the
// two that finished, is marked interrupted with the hanging targets
// pending, and a resume runs exactly those two and finishes the scan, with
// one run per target in the store.
func TestRunInterruptAndResume(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved", "oldversion", "hang")
	ctx := context.Background()
	st, err := results.Open(ctx, filepath.Join(t.TempDir(), "scan.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	plans := []vocab.Plan{stdio(bins["wellbehaved"]), stdio(bins["oldversion"]), stdio(bins["hang"]), withEnv(stdio(bins["hang"]), "FIXTURE_SECOND", "1")}
	plans[3].Key += "#2"
	hanging := []string{plans[2].Key, plans[3].Key}

	// The hanging servers get a long handshake deadline, so they are
	// still running when the scan is interrupted after the other two.
	first := fastOptions("none")
	first.Run.HandshakeTimeout = time.Minute
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var progress []Progress
	start := time.Now()
	sum, err := Run(runCtx, &Options{
		Store: st, Plans: plans, Concurrency: len(plans), Probe: *first,
		Info: results.ScanInfo{Kind: results.KindScan, Source: "test"},
		Progress: func(p Progress) {
			mu.Lock()
			progress = append(progress, p)
			mu.Unlock()
			if p.Done == 2 {
				cancel()
			}
		},
	})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run = %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > 45*time.Second {
		t.Errorf("the interrupted scan took %v; the hanging servers were not stopped", d)
	}
	if !sum.Interrupted || sum.Total != 4 || sum.Done != 2 || sum.Skipped != 0 || sum.Counts[vocab.StatusOK] != 2 {
		t.Errorf("summary = %+v, want interrupted, 2 of 4 done, both ok", sum)
	}
	if len(progress) != 2 || progress[1].Done != 2 || progress[1].Total != 4 {
		t.Errorf("progress = %+v, want two reports ending at 2/4", progress)
	}
	sc, err := st.Scan(ctx, sum.ScanID)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Status != results.ScanInterrupted || sc.Targets != 4 || sc.Done != 2 {
		t.Errorf("stored scan = %+v, want interrupted with 2 of 4 done", sc)
	}
	pending, err := st.PendingTargets(ctx, sum.ScanID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hanging, keysOf(pending)); diff != "" {
		t.Errorf("pending after the interrupt (-want +got):\n%s", diff)
	}

	// The stored plans lack the environment values: a resume without a
	// way to restore them stops before running anything.
	second := fastOptions("none")
	second.Run.HandshakeTimeout = 500 * time.Millisecond
	var missing *vocab.MissingSecretError
	if _, err := Run(ctx, &Options{Store: st, Resume: sum.ScanID, Concurrency: 2, Probe: *second}); !errors.As(err, &missing) {
		t.Fatalf("resume without Restore = %v, want a MissingSecretError", err)
	}
	if sc, err := st.Scan(ctx, sum.ScanID); err != nil || sc.Done != 2 || sc.Status != results.ScanInterrupted {
		t.Fatalf("after the refused resume: %+v, %v; want it unchanged", sc, err)
	}

	// Resume with the values given again and a short handshake deadline:
	// only the pending targets run, and time out.
	restored := 0
	restore := func(_ context.Context, p *vocab.Plan) error {
		for i := range plans {
			if plans[i].Key == p.Key {
				restored++
				return p.Restore(&plans[i])
			}
		}
		return errors.New("unknown plan " + p.Key)
	}
	sum2, err := Run(ctx, &Options{Store: st, Resume: sum.ScanID, Concurrency: 2, Probe: *second, Restore: restore})
	if restored != 1 {
		t.Errorf("Restore called %d times, want once (one pending plan has an environment value)", restored)
	}
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if sum2.ScanID != sum.ScanID || sum2.Interrupted || sum2.Total != 4 || sum2.Skipped != 2 || sum2.Done != 2 ||
		sum2.Counts[vocab.StatusHandshakeTimeout] != 2 {
		t.Errorf("resume summary = %+v, want 2 skipped and 2 handshake timeouts", sum2)
	}
	sc, err = st.Scan(ctx, sum.ScanID)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Status != results.ScanDone || sc.Done != 4 {
		t.Errorf("stored scan after resume = %+v, want done with 4", sc)
	}
	runs := map[string]vocab.Status{}
	n := 0
	for rec, err := range st.Runs(ctx, sum.ScanID) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		runs[rec.TargetKey] = rec.Result.Liveness.Status
	}
	want := map[string]vocab.Status{plans[0].Key: vocab.StatusOK, plans[1].Key: vocab.StatusOK,
		hanging[0]: vocab.StatusHandshakeTimeout, hanging[1]: vocab.StatusHandshakeTimeout}
	if diff := cmp.Diff(want, runs); diff != "" || n != 4 {
		t.Errorf("%d runs stored; statuses (-want +got):\n%s", n, diff)
	}
}

// TestRunWithoutStore: Run refuses to start without a store.
// TestRunWithoutStore: Run and RunOne accept nil options (STYLE.md:
// entry points accept a nil *Options) and, with no store, return
// ErrNoStore rather than panic or run anything.
func TestRunWithoutStore(t *testing.T) {
	ctx := context.Background()
	plan := &vocab.Plan{Key: "x", Name: "x", Transport: vocab.TransportStdio, Command: "true"}
	for name, run := range map[string]func() error{
		"Run, zero options": func() error { _, err := Run(ctx, &Options{}); return err },
		"Run, nil options":  func() error { _, err := Run(ctx, nil); return err },
		"RunOne, nil options": func() error {
			res, err := RunOne(ctx, plan, nil)
			if res != nil {
				t.Errorf("RunOne without a store returned a result: %+v", res)
			}
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := run(); !errors.Is(err, ErrNoStore) {
				t.Errorf("err = %v, want ErrNoStore", err)
			}
		})
	}
}

func keysOf(plans []vocab.Plan) []string {
	var out []string
	for _, p := range plans {
		out = append(out, p.Key)
	}
	sort.Strings(out)
	return out
}

// TestRunStoresRubricVersion: every scan Run stores carries the rubric its
// runs were graded by, whatever kind and whatever the caller put in Info,
// so that merging can compare them.
func TestRunStoresRubricVersion(t *testing.T) {
	ctx := context.Background()
	st, err := results.Open(ctx, filepath.Join(t.TempDir(), "scan.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// A plan refused before launch: graded without running anything.
	plan := vocab.Plan{Key: "k", Name: "refused", Source: "test", Status: vocab.StatusInvalidPlan, StatusDetail: "refused"}
	for _, info := range []results.ScanInfo{
		{Kind: results.KindScan, Source: "test"},
		{Kind: results.KindTriage, Source: "test", RubricVersion: "stale"},
	} {
		sum, err := Run(ctx, &Options{Store: st, Plans: []vocab.Plan{plan}, Info: info})
		if err != nil {
			t.Fatal(err)
		}
		sc, err := st.Scan(ctx, sum.ScanID)
		if err != nil {
			t.Fatal(err)
		}
		if sc.RubricVersion != scoring.RubricVersion || sc.Status != results.ScanDone {
			t.Errorf("%s scan stored rubric %q, status %s; want %q, done", info.Kind, sc.RubricVersion, sc.Status, scoring.RubricVersion)
		}
	}
}

// TestRunOne: a probe is a scan of one. Cut short by ctx, its partial
// result is stored and returned with ErrInterrupted (a probe has no
// resume); an infrastructure failure stores nothing and fails the scan.
func TestRunOne(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved", "hang")
	ctx := context.Background()
	st, err := results.Open(ctx, filepath.Join(t.TempDir(), "scan.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info := results.ScanInfo{Kind: results.KindProbe, Source: "test"}
	tests := []struct {
		name    string
		plan    vocab.Plan
		backend string
		cut     time.Duration // ctx ends after this, 0: never
		wantErr string
		status  vocab.Status // of the result; "" for none
		scan    string
		done    int
	}{
		{"whole", stdio(bins["wellbehaved"]), "none", 0, "", vocab.StatusOK, results.ScanDone, 1},
		{"cut short", stdio(bins["hang"]), "none", time.Second, ErrInterrupted.Error(), vocab.StatusHandshakeTimeout, results.ScanInterrupted, 1},
		{"infrastructure", stdio(bins["wellbehaved"]), "bogus", 0, "probing " + bins["wellbehaved"] + ": ", "", results.ScanFailed, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := fastOptions(tt.backend)
			o.Run.HandshakeTimeout = time.Minute
			runCtx := ctx
			if tt.cut > 0 {
				var cancel context.CancelFunc
				runCtx, cancel = context.WithTimeout(ctx, tt.cut)
				defer cancel()
			}
			res, err := RunOne(runCtx, &tt.plan, &Options{Store: st, Info: info, Probe: *o})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("RunOne = %v, want %q", err, tt.wantErr)
			}
			var got vocab.Status
			if res != nil {
				got = res.Liveness.Status
			}
			if got != tt.status {
				t.Errorf("result status %q, want %q", got, tt.status)
			}
			scans, err := st.Scans(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sc := scans[len(scans)-1]
			if sc.Kind != results.KindProbe || sc.Status != tt.scan || sc.Targets != 1 || sc.Done != tt.done {
				t.Errorf("stored scan %+v, want a probe %s with %d of 1 done", sc, tt.scan, tt.done)
			}
		})
	}
}

// TestRunDefaultsAndGivenPlans runs a new scan with the zero Concurrency
// and InstallConcurrency (each defaults to the number of CPUs) of a server
// that needs a secret the store does not keep: the given plan, value
// included, is what runs (the stored one would start it without the key).
func TestRunDefaultsAndGivenPlans(t *testing.T) {
	bins := testfixture.Build(t, "needsenv")
	ctx := context.Background()
	st, err := results.Open(ctx, filepath.Join(t.TempDir(), "scan.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plan := withEnv(stdio(bins["needsenv"]), "FIXTURE_API_KEY", "given-secret")
	plan.Source, plan.Secrets = "cli", []string{"FIXTURE_API_KEY"}
	var progress []Progress
	sum, err := Run(ctx, &Options{Store: st, Plans: []vocab.Plan{plan}, Probe: *fastOptions("none"),
		Info:     results.ScanInfo{Kind: results.KindScan, Source: "test"},
		Progress: func(p Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	if len(progress) != 1 || progress[0].Done != 1 || progress[0].Total != 1 || progress[0].Key != plan.Key ||
		progress[0].Status != vocab.StatusOK || progress[0].Verdict != "keep" {
		t.Errorf("progress = %+v, want one report of %s: ok, verdict keep", progress, plan.Key)
	}
	want := map[vocab.Status]int{vocab.StatusOK: 1}
	if sum.Total != 1 || sum.Done != 1 || sum.Skipped != 0 || sum.Interrupted || !cmp.Equal(sum.Counts, want) {
		t.Errorf("summary = %+v, want 1 of 1 done, counts %v", sum, want)
	}
	if pending, err := st.PendingTargets(ctx, sum.ScanID); err != nil || len(pending) != 0 {
		t.Errorf("pending = %v (%v), want none", pending, err)
	}
}

// TestRunFinishError: when the store fails only as the scan is marked
// finished (here closed after the last run is saved), Run returns that
// error instead of reporting success.
func TestRunFinishError(t *testing.T) {
	ctx := context.Background()
	st, err := results.Open(ctx, filepath.Join(t.TempDir(), "scan.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan := vocab.Plan{Key: "n", Name: "n", Transport: vocab.TransportStdio, Status: "needs_configuration", StatusDetail: "API_KEY has no value"}
	_, err = Run(ctx, &Options{Store: st, Plans: []vocab.Plan{plan}, Concurrency: 1, Probe: *fastOptions("none"),
		Info:     results.ScanInfo{Kind: results.KindScan, Source: "test"},
		Progress: func(Progress) { st.Close() }})
	if err == nil {
		t.Fatal("Run = nil, want the store's error from finishing the scan")
	}
}
