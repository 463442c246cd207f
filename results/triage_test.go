package results_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
	"github.com/mcpvet/mcpvet/vocab"
)

func TestLoadTriage(t *testing.T) {
	tr, _ := fixture.LoadTriage(t)
	type row struct {
		Name, Decision, Rule string
		Status               vocab.Status
		Pending              bool
		Reasons              int
		HasNext              bool
	}
	var got []row
	for _, s := range tr.Servers {
		got = append(got, row{s.Name, s.Decision, s.Rule, s.Status, s.Pending, len(s.Reasons), s.NextStep != ""})
	}
	want := []row{
		{"wellbehaved", "keep", "keep_otherwise", vocab.StatusOK, false, 0, false},
		{"tracker", "fix", "findings_to_fix", vocab.StatusOK, false, 3, true},
		{"crash", "drop", "no_handshake", vocab.StatusExitedEarly, false, 1, true},
		{"needsenv", "needs_setup", "setup_required", vocab.StatusMissingCredentials, false, 2, true},
		{"legacy", "", "", vocab.StatusOK, false, 1, true},
		{"later", "", "", "", true, 1, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	wantCounts := results.TriageCounts{Keep: 1, Fix: 1, Drop: 1, NeedsSetup: 1, Ungraded: 1, Pending: 1}
	if diff := cmp.Diff(wantCounts, tr.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if tr.Config != "testdata/claude_desktop_config.json" || tr.Status != results.ScanInterrupted || tr.ScanID == 0 {
		t.Errorf("header = %q %q %d", tr.Config, tr.Status, tr.ScanID)
	}
	if _, err := results.LoadTriage(context.Background(), triageEmptyStore(t), 99); err == nil {
		t.Error("LoadTriage of a missing scan: no error")
	}
}

func triageEmptyStore(t *testing.T) *results.Store {
	t.Helper()
	st, err := results.Open(context.Background(), filepath.Join(t.TempDir(), "empty.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestTriageFailing(t *testing.T) {
	tr, _ := fixture.LoadTriage(t)
	names := func(ss []results.TriageServer) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	for _, tc := range []struct {
		failOn string
		want   []string
	}{
		// needs_setup and not_assessed say nothing of the server: they
		// are not at or below any assessed decision.
		{"drop", []string{"crash"}},
		{"fix", []string{"tracker", "crash"}},
		{"keep", []string{"wellbehaved", "tracker", "crash"}},
		{"", nil},
		{"bogus", nil},
	} {
		if diff := cmp.Diff(tc.want, names(tr.Failing(tc.failOn))); diff != "" {
			t.Errorf("Failing(%q) (-want +got):\n%s", tc.failOn, diff)
		}
	}
}

func TestTriageAtOrBelow(t *testing.T) {
	for _, tc := range []struct {
		decision, threshold string
		want                bool
	}{
		{"drop", "drop", true},
		{"fix", "drop", false},
		{"keep", "drop", false},
		{"drop", "fix", true},
		{"fix", "fix", true},
		{"keep", "fix", false},
		{"", "fix", false},
		{"drop", "", false},
		{"maybe", "fix", false},
	} {
		if got := results.TriageAtOrBelow(tc.decision, tc.threshold); got != tc.want {
			t.Errorf("TriageAtOrBelow(%q, %q) = %v, want %v", tc.decision, tc.threshold, got, tc.want)
		}
	}
}

func TestNewTriageServer(t *testing.T) {
	lowScore := fixture.TriageResult(fixture.TriageTarget("vague"), fixture.TriageAlive("1", 10))
	lowScore.Score = new(40.0)
	lowScore.Verdict = fixture.TriageRules(map[string]probe.Rule{
		"low_actionability_score": {Findings: []string{"element:param", "element:code"}, Detail: "actionability score 40.0 is below minScore 70"},
	})

	fatal := fixture.TriageResult(fixture.TriageTarget("badschema"), fixture.TriageAlive("1", 10))
	fatal.Findings = []probe.Finding{
		{Code: probe.CodeToolDescriptionMissing, Severity: probe.SeverityWarn, Subject: "tool:a", Message: "no description"},
		{Code: probe.CodeInputUnsatisfiable, Severity: probe.SeverityFatal, Subject: "tool:a", Message: "no value satisfies the schema"},
	}
	fatal.Verdict = fixture.TriageRules(map[string]probe.Rule{
		"fatal_finding":   {Findings: []string{probe.CodeInputUnsatisfiable}, Detail: "schema/input_unsatisfiable (fatal, tool:a)"},
		"findings_to_fix": {Findings: []string{probe.CodeToolDescriptionMissing}, Detail: "tool/description_missing (warn, tool:a)"},
	})

	preLaunch := fixture.TriageResult(fixture.TriageTarget("unset"), probe.Liveness{Status: vocab.StatusNeedsConfiguration,
		Detail: "unresolved references: ${input:token}"})
	preLaunch.Verdict = fixture.TriageRules(map[string]probe.Rule{
		"setup_required": {Detail: "liveness status needs_configuration: unresolved references: ${input:token}"},
	})

	fix := func(code string) string { e, _ := probe.Lookup(code); return e.Fix }
	for _, tc := range []struct {
		name    string
		res     *probe.Result
		reasons []string
		next    string
	}{
		{"low score names the weakest element", lowScore,
			[]string{"low actionability score: actionability score 40.0 is below minScore 70"},
			results.TriageElementSteps["param"]},
		{"fatal finding outranks the rest", fatal,
			[]string{"schema/input_unsatisfiable on tool:a: no value satisfies the schema", "tool/description_missing on tool:a: no description"},
			fix(probe.CodeInputUnsatisfiable)},
		{"setup required before launch", preLaunch,
			[]string{"setup required: liveness status needs_configuration: unresolved references: ${input:token}"},
			results.TriageStatusSteps[vocab.StatusNeedsConfiguration]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := results.NewTriageServer("k", tc.res)
			if diff := cmp.Diff(tc.reasons, s.Reasons); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			if tc.next == "" || s.NextStep != tc.next {
				t.Errorf("next step = %q, want %q", s.NextStep, tc.next)
			}
		})
	}
}
