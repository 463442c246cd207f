package results_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

// diffSummary flattens a diff to "server kind subject" lines.
func diffSummary(d *results.Diff) []string {
	var out []string
	for _, s := range d.Changed {
		for _, c := range s.Changes {
			out = append(out, strings.TrimSpace(s.Name+" "+c.Kind+" "+c.Subject))
		}
	}
	for _, s := range d.Added {
		out = append(out, s.Name+" added")
	}
	for _, s := range d.Removed {
		out = append(out, s.Name+" removed")
	}
	return out
}

func TestDiffScans(t *testing.T) {
	dir := t.TempDir()
	old, cur := fixture.DiffServers()
	// Both scans in one database, as `mcpvet diff OLD_SCAN NEW_SCAN` reads
	// them.
	path := filepath.Join(dir, "both.db")
	st, oldID := fixture.StoreKeyed(t, path, results.ScanInfo{Kind: results.KindTriage, Source: fixture.TriageSource}, old)
	st.Close()
	st, newID := fixture.StoreKeyed(t, path, results.ScanInfo{Kind: results.KindTriage, Source: fixture.TriageSource}, cur)
	before, after := fixture.LoadDiffInput(t, st, oldID), fixture.LoadDiffInput(t, st, newID)

	want := []string{
		"crash died",
		"crash verdict",
		"github version",
		"needsenv revived",
		"needsenv verdict",
		"tracker finding_appeared errors/accepted_invalid_input",
		"tracker finding_disappeared errors/wrong_channel",
		"tracker score_dropped",
		"wellbehaved schema_changed create_project",
		"wellbehaved annotations_changed create_project",
		"wellbehaved tool_added delete_project",
		"wellbehaved tool_removed archive_project",
		"fresh added",
		"gone removed",
	}
	d := results.DiffScans(before, after, nil)
	if diff := cmp.Diff(want, diffSummary(d)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if d.Compared != 6 || d.Unchanged != 1 || d.ScoreDrop != results.DefaultDiffScoreDrop {
		t.Errorf("compared %d, unchanged %d, threshold %g", d.Compared, d.Unchanged, d.ScoreDrop)
	}

	// Evidence: old value -> new value.
	byKind := map[string]results.DiffChange{}
	for _, s := range d.Changed {
		for _, c := range s.Changes {
			byKind[s.Name+" "+c.Kind] = c
		}
	}
	wantEvidence := map[string]results.DiffChange{
		"crash died":            {Kind: results.DiffDied, Old: "ok", New: "exited_early: the process exited with code 2 before the handshake"},
		"crash verdict":         {Kind: results.DiffVerdict, Old: "keep (none)", New: "drop (author)", Detail: "decided by no_handshake"},
		"github version":        {Kind: results.DiffVersion, Old: "1.0.0", New: "1.1.0"},
		"tracker score_dropped": {Kind: results.DiffScoreDropped, Old: "80.0", New: "52.5", Detail: "-27.5 points, threshold 5"},
		"tracker finding_appeared": {Kind: results.DiffFindingAppeared, Subject: probe.CodeAcceptedInvalidInput,
			New: "tool:create_issue: returned success for a wrong_type probe (+1 more)", Detail: "error"},
		"wellbehaved schema_changed": {Kind: results.DiffSchemaChanged, Subject: "create_project", Fields: []results.DiffField{
			{Pointer: "/properties/name/maxLength", Old: "100", New: "50"},
			{Pointer: "/properties/owner~1id", New: `{"type":"string"}`},
			{Pointer: "/required", Old: `["name"]`, New: `["name","owner/id"]`},
		}},
		"wellbehaved annotations_changed": {Kind: results.DiffAnnotationsChanged, Subject: "create_project", Fields: []results.DiffField{
			{Pointer: "/destructiveHint", Old: "false", New: "true"},
		}},
	}
	for k, want := range wantEvidence {
		if diff := cmp.Diff(want, byKind[k]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	for _, s := range d.Changed {
		if s.Name == "github" && (s.OldKey != "config:old.json#github@1.0.0" || s.NewKey != "config:new.json#github@1.1.0") {
			t.Errorf("github keys %q -> %q", s.OldKey, s.NewKey)
		}
	}

	// Comparing a scan with itself finds nothing.
	same := results.DiffScans(after, after, nil)
	if len(same.Changed)+len(same.Added)+len(same.Removed) != 0 || same.Unchanged != len(cur) {
		t.Errorf("self diff: %v", diffSummary(same))
	}
}

func TestDiffScoreThreshold(t *testing.T) {
	scoreOf := func(name string, score float64) results.Record {
		r := fixture.TriageResult(fixture.TriageTarget(name), fixture.TriageAlive("1", 1))
		r.Score = new(score)
		return results.Record{TargetKey: name, Result: r}
	}
	before := results.DiffInput{Runs: []results.Record{scoreOf("a", 80), scoreOf("b", 80), scoreOf("c", 80)}}
	after := results.DiffInput{Runs: []results.Record{scoreOf("a", 75), scoreOf("b", 74.9), scoreOf("c", 79.9)}}
	for _, tc := range []struct {
		name string
		opts *results.DiffOptions
		want []string
	}{
		{"default 5: strictly more", nil, []string{"b score_dropped"}},
		{"zero: any drop", &results.DiffOptions{ScoreDrop: 0}, []string{"a score_dropped", "b score_dropped", "c score_dropped"}},
		{"20: none", &results.DiffOptions{ScoreDrop: 20}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, diffSummary(results.DiffScans(before, after, tc.opts))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
