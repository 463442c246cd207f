package scoring

import (
	"testing"

	"github.com/mcpvet/mcpvet/probe"
)

// Tests that kill the survivors issue 26's session 8 shard (clone at
// 8dd5433) left in scoring; see docs/testing.md "Survivors of session 8
// (scoring)". Each kill was checked with `go run ./internal/mutantrun
// -verify`: KILLED with the mutant, and the test passes without it.

// TestAuthorItemsWorstKeepsFirst: the worst severity is the first of the
// highest rank, so a finding whose severity probe does not know (rank 0,
// a result written by another version) or has none never replaces one
// already seen at that rank: the verdict never says "(worst: )" of
// items that name a severity (verdict_actor.go:226 `>` -> `>=`).
func TestAuthorItemsWorstKeepsFirst(t *testing.T) {
	for _, tt := range []struct {
		fs    []probe.Finding
		n     int
		worst probe.Severity
	}{
		{[]probe.Finding{{Code: "a/x", Severity: "critical"}, {Code: "a/y"}}, 2, "critical"},
		{[]probe.Finding{{Code: "a/x", Severity: "critical"}, {Code: "a/y", Severity: "severe"}}, 2, "critical"},
		{[]probe.Finding{{Code: "a/x"}, {Code: "a/y", Severity: probe.SeverityInfo}}, 2, probe.SeverityInfo},
		{[]probe.Finding{{Code: "a/x", Severity: probe.SeverityWarn}, {Code: "a/y", Severity: probe.SeverityError}, {Code: "a/z", Severity: probe.SeverityWarn}}, 3, probe.SeverityError},
		{[]probe.Finding{{Code: "a/x", Subject: "tool:t", Severity: probe.SeverityWarn}, {Code: "a/x", Subject: "tool:t", Severity: probe.SeverityFatal}}, 1, probe.SeverityWarn},
		{nil, 0, ""},
	} {
		n, worst := authorItems(tt.fs)
		if n != tt.n || worst != tt.worst {
			t.Errorf("authorItems(%v) = %d, %q, want %d, %q", tt.fs, n, worst, tt.n, tt.worst)
		}
	}
}
