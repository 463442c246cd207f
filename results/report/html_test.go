package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
)

// TestGroupFindings: a server's findings are shown per code with counts,
// not as one row each.
func TestGroupFindings(t *testing.T) {
	var fs []probe.Finding
	for _, tool := range []string{"a", "b", "c", "a"} {
		fs = append(fs, probe.Finding{Code: "annotations/missing_read_only_hint", Severity: probe.SeverityInfo, Subject: "tool " + tool, Message: "m " + tool})
	}
	fs = append(fs, probe.Finding{Code: "schema/x", Severity: probe.SeverityWarn, Subject: "tool a", Pointer: "/inputSchema", Message: "s"})
	got := groupFindings(sortedFindings(fs))
	want := []findingGroup{
		{Severity: probe.SeverityWarn, Code: "schema/x", Count: 1, Subjects: []string{"tool a /inputSchema"}, Message: "s"},
		{Severity: probe.SeverityInfo, Code: "annotations/missing_read_only_hint", Count: 4, Subjects: []string{"tool a", "tool b", "tool c"}, Message: "m a"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
}
