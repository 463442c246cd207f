package results

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// Tests written to kill the survivors of session 5's mutation run on the
// results package (docs/testing.md, "Survivors of session 5 (results)").

// s5Result is a live server named name with one tool whose description is
// desc.
func s5Result(name, desc string) *probe.Result {
	return &probe.Result{
		Target:   probe.Target{Name: name, Source: "cli"},
		Liveness: probe.Liveness{HandshakeCompleted: true},
		Tools:    []probe.Tool{{Name: "t1", Description: desc}},
	}
}

// s5Plan is the plan stored for key: a stdio command, the same identity
// under any key.
func s5Plan(key string) vocab.Plan {
	return vocab.Plan{Key: key, Name: "a", Source: "cli", Transport: vocab.TransportStdio, Command: "/bin/srv", Args: []string{"--x"}}
}

// s5Scan stores a scan of one server, key ka, whose tool says desc.
func s5Scan(t *testing.T, st *Store, desc string) int64 {
	t.Helper()
	ctx := context.Background()
	id, err := st.NewScan(ctx, ScanInfo{Kind: KindScan, Source: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddTargets(ctx, id, []vocab.Plan{s5Plan("ka")}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveRun(ctx, id, "ka", s5Result("a", desc)); err != nil {
		t.Fatal(err)
	}
	return id
}

func s5Open(t *testing.T) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "b.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestS5CompareBaseline: a server renamed (another key, another name) but
// reaching the same command is matched by identity, on both sides; its
// definitions are unchanged or changed; with --baseline naming --db, the
// triage's own scan is skipped.
func TestS5CompareBaseline(t *testing.T) {
	ctx := context.Background()
	type mark struct {
		Definitions string
		Changed     []string
	}
	renamed := func(desc string) *Triage {
		return &Triage{
			db:         "other.db",
			Servers:    []TriageServer{{Name: "b", Key: "kb"}},
			results:    map[string]*probe.Result{"kb": s5Result("b", desc)},
			identities: map[string]string{"kb": s5Plan("kb").Identity()},
		}
	}
	for _, tc := range []struct {
		name string
		desc string
		want mark
	}{
		{"unchanged", "x", mark{DefinitionsUnchanged, nil}},
		{"changed", "y", mark{DefinitionsChanged, []string{"description_changed tool:t1"}}},
	} {
		st := s5Open(t)
		s5Scan(t, st, "x")
		tr := renamed(tc.desc)
		if err := tr.CompareBaseline(ctx, st, "base.db"); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := mark{tr.Servers[0].Definitions, tr.Servers[0].Changed}
		if diff := cmp.Diff(tc.want, got); diff != "" || tr.Baseline != "base.db" {
			t.Errorf("%s: baseline %q, mark (-want +got):\n%s", tc.name, tr.Baseline, diff)
		}
	}

	// The same database: scan 1 says x, the triage's own scan 2 says y.
	st := s5Open(t)
	s5Scan(t, st, "x")
	own := s5Scan(t, st, "y")
	tr := &Triage{
		db:         st.Path(),
		ScanID:     own,
		Servers:    []TriageServer{{Name: "a", Key: "ka"}},
		results:    map[string]*probe.Result{"ka": s5Result("a", "y")},
		identities: map[string]string{"ka": s5Plan("ka").Identity()},
	}
	if err := tr.CompareBaseline(ctx, st, st.Path()); err != nil {
		t.Fatal(err)
	}
	if got := tr.Servers[0].Definitions; got != DefinitionsChanged {
		t.Errorf("same database: definitions %q, want changed (against scan 1, not the own scan)", got)
	}
}

func TestS5DefinitionSubject(t *testing.T) {
	for _, tc := range []struct{ kind, want string }{
		{"description_changed", "tool:s"},
		{"prompt_added", "prompt:s"},
		{"resource_removed", "resource:s"},
		{"template_added", "template:s"},
		{DiffInstructionsChanged, "server"},
	} {
		if got := definitionSubject(DiffChange{Kind: tc.kind, Subject: "s"}); got != tc.want {
			t.Errorf("definitionSubject(%s) = %q, want %q", tc.kind, got, tc.want)
		}
	}
}

// TestS5MeasureContext: a set counts a measured server once and an
// unmeasured one; a set with only pending servers is left out.
func TestS5MeasureContext(t *testing.T) {
	tr := &Triage{
		Servers: []TriageServer{
			{Name: "m", Key: "k1", Config: "x.json"},
			{Name: "u", Key: "k2", Config: "x.json"},
			{Name: "m2", Key: "k1", Config: "x.json"},
			{Name: "p", Key: "k3", Config: "y.json", Pending: true},
		},
		results: map[string]*probe.Result{
			"k1": {Context: &probe.ContextCost{Encoding: "o200k_base", Total: 10, PerTool: []probe.ToolTokens{{Name: "t", Tokens: 4}}}},
		},
	}
	tr.MeasureContext()
	want := []TriageContext{{
		Client: "x.json", Encoding: "o200k_base", Tokens: 10, Servers: 1, Unmeasured: 1,
		HeaviestServers: []TriageWeight{{Server: "m", Tokens: 10}},
		HeaviestTools:   []TriageWeight{{Server: "m", Tool: "t", Tokens: 4}},
	}}
	if diff := cmp.Diff(want, tr.Context); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
}

// TestS5TriageServerCost: a result without a tried retry leaves Retry nil.
func TestS5TriageServerCost(t *testing.T) {
	var s TriageServer
	triageServerCost(&s, &probe.Result{Context: &probe.ContextCost{Total: 7}})
	if s.Retry != nil || s.ContextTokens == nil || *s.ContextTokens != 7 {
		t.Errorf("retry %v, tokens %v", s.Retry, s.ContextTokens)
	}
}

// TestS5LeanRunsReadsSummaries: from the run_summary migration on, the
// census pass reads the stored summary, not the full result: a summary that
// does not decode is an error even at exactly that schema version.
func TestS5LeanRunsReadsSummaries(t *testing.T) {
	ctx := context.Background()
	st := s5Open(t)
	id := s5Scan(t, st, "x")
	if _, err := st.w.ExecContext(ctx, `UPDATE run_summaries SET summary = '{"tools": 5}'`); err != nil {
		t.Fatal(err)
	}
	st.version = migrationVersion("run_summary")
	n := 0
	if err := st.leanRuns(ctx, id, func(Record) { n++ }); err == nil || n != 0 {
		t.Errorf("leanRuns over a bad summary at version %d: err %v, %d runs", st.version, err, n)
	}
}

// TestS5RunJSON: a stored run's JSON, and ErrNotFound for a missing run.
func TestS5RunJSON(t *testing.T) {
	ctx := context.Background()
	st := s5Open(t)
	s5Scan(t, st, "x")
	var id int64
	if err := st.r.QueryRowContext(ctx, "SELECT id FROM runs").Scan(&id); err != nil {
		t.Fatal(err)
	}
	js, err := st.runJSON(ctx, id)
	if err != nil || !strings.Contains(string(js), `"t1"`) {
		t.Errorf("runJSON(%d) = %.80s, %v", id, js, err)
	}
	if _, err := st.runJSON(ctx, id+1); !errors.Is(err, ErrNotFound) {
		t.Errorf("runJSON of a missing run: %v, want ErrNotFound", err)
	}
}

// TestS5ItemDigestsFallback: an item without raw JSON digests its non-empty
// fields only.
func TestS5ItemDigestsFallback(t *testing.T) {
	ds := ItemDigests(&probe.Result{Tools: []probe.Tool{{Name: "t", Description: ""}, {Name: "u", Description: "d"}}})
	if len(ds) != 2 {
		t.Fatalf("%d digests", len(ds))
	}
	if _, ok := ds[0].Fields["description"]; ok || ds[0].Fields["name"] != `"t"` {
		t.Errorf("tool t fields %v, want name only", ds[0].Fields)
	}
	if ds[1].Fields["description"] != `"d"` {
		t.Errorf("tool u fields %v, want its description", ds[1].Fields)
	}
}

// TestS5TriageCauseGive: "; give --FLAG" is advice only for a server that
// needs configuration.
func TestS5TriageCauseGive(t *testing.T) {
	d := "unresolved ${X}; give --env X=VALUE"
	for _, tc := range []struct {
		status vocab.Status
		want   string
	}{
		{vocab.StatusNeedsConfiguration, "triage again with --env X=VALUE to fill in the entry's references"},
		{vocab.StatusExitedEarly, ""},
	} {
		res := &probe.Result{Liveness: probe.Liveness{Status: tc.status, Detail: d}}
		if got := triageCauseStep(res); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.status, got, tc.want)
		}
	}
}

// TestS5CostFiguresEncoding: the measured encoding is kept; none measured
// names the default.
func TestS5CostFiguresEncoding(t *testing.T) {
	for _, enc := range []string{"", "cl100k_base"} {
		c := &costTally{encoding: enc}
		cf, _ := c.figures()
		want := enc
		if enc == "" {
			want = "o200k_base"
		}
		if cf.Encoding != want {
			t.Errorf("encoding %q: figures say %q, want %q", enc, cf.Encoding, want)
		}
	}
}
