package report

import (
	"fmt"
	"math"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// TestGroupSubjectsCap: a finding code lists at most maxGroupSubjects
// distinct subjects and counts the rest ("and N more"): exactly 8
// subjects list all 8 and no "more", 9 list 8 and 1 more. (Issue 26:
// html.go's `len(g.Subjects) < maxGroupSubjects` boundary.)
func TestGroupSubjectsCap(t *testing.T) {
	for _, tc := range []struct{ n, listed, more int }{
		{maxGroupSubjects - 1, maxGroupSubjects - 1, 0},
		{maxGroupSubjects, maxGroupSubjects, 0},
		{maxGroupSubjects + 1, maxGroupSubjects, 1},
	} {
		var fs []probe.Finding
		for i := range tc.n {
			fs = append(fs, probe.Finding{Code: "schema/x", Severity: probe.SeverityWarn, Subject: fmt.Sprintf("tool t%d", i)})
		}
		g := groupFindings(fs)
		if len(g) != 1 || g[0].Count != tc.n || len(g[0].Subjects) != tc.listed || g[0].MoreSubjects != tc.more {
			t.Errorf("%d subjects: got %+v, want count %d, %d listed, %d more", tc.n, g, tc.n, tc.listed, tc.more)
		}
	}
}

// TestScoreChartHeights: the score histogram scales bars to the fullest
// decile (114 px high) and draws empty deciles, and a histogram with no
// graded plan at all, with zero-height bars (never NaN).
func TestScoreChartHeights(t *testing.T) {
	for _, tc := range []struct {
		counts []int
		want   []float64
	}{
		{[]int{1, 2, 4, 0}, []float64{28.5, 57, 114, 0}},
		{[]int{3, 3}, []float64{114, 114}},
		{[]int{0, 0, 0}, []float64{0, 0, 0}},
	} {
		var bins []results.DecileBin
		n := 0
		for i, c := range tc.counts {
			bins = append(bins, results.DecileBin{Low: 10 * i, High: 10*i + 9, Count: c})
			n += c
		}
		c := newVChart(bins)
		if c.N != n || len(c.Bars) != len(tc.want) {
			t.Fatalf("%v: N %d, %d bars; want %d, %d", tc.counts, c.N, len(c.Bars), n, len(tc.want))
		}
		for i, b := range c.Bars {
			if math.IsNaN(b.H) || math.Abs(b.H-tc.want[i]) > 1e-9 || math.Abs(b.Y-(130-tc.want[i])) > 1e-9 {
				t.Errorf("%v: bar %d H %v Y %v, want H %v Y %v", tc.counts, i, b.H, b.Y, tc.want[i], 130-tc.want[i])
			}
		}
	}
}
