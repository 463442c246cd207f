package results

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
)

// TestTriageWorstFirst: the triage lists findings worst first (fatal,
// error, warn, info), and findings of one severity keep the order the
// grader gave them. Before this test only results/report's golden pinned
// the order.
func TestTriageWorstFirst(t *testing.T) {
	f := func(code string, s probe.Severity) probe.Finding { return probe.Finding{Code: code, Severity: s} }
	in := []probe.Finding{
		f("info-1", probe.SeverityInfo), f("warn-1", probe.SeverityWarn), f("fatal-1", probe.SeverityFatal),
		f("error-1", probe.SeverityError), f("warn-2", probe.SeverityWarn), f("info-2", probe.SeverityInfo),
		f("error-2", probe.SeverityError), f("fatal-2", probe.SeverityFatal),
	}
	orig := append([]probe.Finding{}, in...)
	var got []string
	for _, x := range triageWorstFirst(in) {
		got = append(got, x.Code)
	}
	want := []string{"fatal-1", "fatal-2", "error-1", "error-2", "warn-1", "warn-2", "info-1", "info-2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("triageWorstFirst (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(orig, in); diff != "" {
		t.Errorf("triageWorstFirst changed its argument (-before +after):\n%s", diff)
	}
}

// TestTriageFindingCodes: a rule's codes are listed when a finding has
// them, worst severity first (a code's severity is that of its worst
// finding), the rule's order kept among equals, each code once.
func TestTriageFindingCodes(t *testing.T) {
	fs := []probe.Finding{
		{Code: "a", Severity: probe.SeverityWarn}, {Code: "b", Severity: probe.SeverityError},
		{Code: "c", Severity: probe.SeverityWarn}, {Code: "a", Severity: probe.SeverityFatal},
		{Code: "d", Severity: probe.SeverityInfo}, {Code: "e", Severity: probe.SeverityError},
	}
	got := triageFindingCodes(fs, []string{"d", "c", "e", "absent", "b", "a", "c"})
	want := []string{"a", "e", "b", "c", "d"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("triageFindingCodes (-want +got):\n%s", diff)
	}
}
