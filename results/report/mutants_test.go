package report

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// cancelOnWrite cancels a context at its first write: the report is cut
// off while rows remain.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.cancel()
	return c.Buffer.Write(p)
}

// TestCSVStopsWhenCancelled: the CSV writer checks its context before the
// first row and every 1,024 rows after, so a cancelled report stops with
// the context's error, whether it was cancelled before the first row or
// while rows were written. (Issue 26: gremlins' csv.go:32 mutants, which
// checked only from the second row or only at the first, lived.)
func TestCSVStopsWhenCancelled(t *testing.T) {
	t.Run("cancelled before one row", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := &results.Report{Rows: make([]results.ServerRow, 1)}
		if err := (CSVReporter{}).Write(ctx, &bytes.Buffer{}, r); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("cancelled while writing", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := &cancelOnWrite{cancel: cancel}
		r := &results.Report{Rows: make([]results.ServerRow, 3000)}
		err := (CSVReporter{}).Write(ctx, w, r)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if n := strings.Count(w.String(), "\n"); n > 2049 {
			t.Errorf("%d lines written after the cancel, want the writer stopped at the next check", n)
		}
	})
}

// TestDiffTextCountsEveryChange: "no changes" is said only when nothing
// changed, was added or was removed; one server added and one removed are
// two changes, not none. (Issue 26: the mutants that subtracted one count
// from the others lived.)
func TestDiffTextCountsEveryChange(t *testing.T) {
	for name, d := range map[string]*results.Diff{
		"one added, one removed": {Added: []results.DiffServer{{Key: "a", Name: "a"}}, Removed: []results.DiffServer{{Key: "b", Name: "b"}}},
		"one changed, one added": {Changed: []results.DiffServerChanges{{}}, Added: []results.DiffServer{{Key: "a", Name: "a"}}},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteDiff(&b, d, "text"); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.String(), "no changes") {
				t.Errorf("diff with changes says 'no changes':\n%s", b.String())
			}
		})
	}
	var b bytes.Buffer
	if err := WriteDiff(&b, &results.Diff{}, "text"); err != nil || !strings.Contains(b.String(), "no changes") {
		t.Errorf("empty diff: err %v, text lacks 'no changes':\n%s", err, b.String())
	}
}

// TestTriageBlocksFit: the block layout of a grouped or narrow triage
// keeps every line within the width (title, config headers, names next
// to their verdict, reasons, next steps), wraps the title only when it is
// longer than the width, starts a header at each new config, and shows a
// server without a name as "-". (Issue 26: 9 mutants of
// triage_width.go's widths, lines 57-76, lived through the whole suite.)
func TestTriageBlocksFit(t *testing.T) {
	long := func(w string, n int) string { return strings.TrimSpace(strings.Repeat(w+" ", n)) }
	score := 42.0
	for _, cfg := range []string{strings.Repeat("c", 55), strings.Repeat("c", 56), "short"} {
		tr := &results.Triage{ScanID: 7, Status: "done", Config: cfg, Servers: []results.TriageServer{
			{Name: long("name", 30), Config: "/home/u/" + long("dir", 40), Decision: "fix", Score: &score,
				Reasons: []string{long("reason", 40)}, NextStep: long("step", 50)},
			{Name: "", Config: "/home/u/" + long("dir", 40), Decision: "keep"},
			{Name: "other", Config: "/home/u/second.json", Decision: "drop", Reasons: []string{"why"}},
		}}
		var b bytes.Buffer
		if err := writeTriageBlocks(&b, tr, 80); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		lines := strings.Split(out, "\n")
		title := "triage of " + cfg + " (scan 7, done)"
		if fits := len(title) <= 80; (lines[0] == title) != fits {
			t.Errorf("config of %d: title line %q (title %d runes, fits %v)", len(cfg), lines[0], len(title), fits)
		}
		for _, l := range lines {
			if n := len([]rune(l)); n > 80 {
				t.Errorf("line of %d runes over 80: %q", n, l)
			}
		}
		if n := strings.Count(out, "\n== "); n != 2 {
			t.Errorf("%d config headers, want 2:\n%s", n, out)
		}
		if !strings.Contains(out, "\n-  keep") || !strings.Contains(out, "\nname name") || !strings.Contains(out, "\nother  drop") {
			t.Errorf("server lines missing:\n%s", out)
		}
		// A wrapped reason: a bullet, then indented lines; a wrapped next
		// step: the label, then lines under its text.
		for _, w := range []struct{ word, first, next string }{{"reason reason", "  - ", "    "}, {"step step", "  next step: ", strings.Repeat(" ", 13)}} {
			for k, l := range lines {
				if strings.Contains(l, w.word) {
					if !strings.HasPrefix(l, w.first+w.word) || k+1 == len(lines) || !strings.HasPrefix(lines[k+1], w.next+w.word[:3]) {
						t.Errorf("wrapped %q: lines %q, %q; want %q then %q", w.word, l, lines[min(k+1, len(lines)-1)], w.first, w.next)
					}
					break
				}
			}
		}
	}
}

// TestJUnitFailureWithoutReasons: a server at or below --fail-on with no
// reasons fails with its decision alone. (Issue 26: the mutant
// triage_junit.go:112 `len(s.Reasons) > 0` -> `>= 0`, which reads a
// reason that is not there, lived through the whole suite.)
func TestJUnitFailureWithoutReasons(t *testing.T) {
	tr := &results.Triage{ScanID: 1, Status: "done", Servers: []results.TriageServer{{Name: "bare", Decision: "drop"}}}
	var b bytes.Buffer
	if err := writeTriageJUnit(&b, tr, "fix"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `message="drop"`) {
		t.Errorf("no failure message \"drop\" in\n%s", b.String())
	}
}

// TestVerdictLineWithout: the plans without a verdict are named only when
// there are some. (Issue 26: the mutant conditions.go:106 `v.Without > 0`
// -> `>= 0` lived through the whole suite: every fixture census has
// plans without a verdict.)
func TestVerdictLineWithout(t *testing.T) {
	for _, tt := range []struct {
		without int
		want    bool
	}{{0, false}, {1, true}} {
		c := &results.Census{Verdicts: results.VerdictFigures{Assessed: 2, Without: tt.without}}
		if got := strings.Contains(verdictLine(c), "carry no verdict"); got != tt.want {
			t.Errorf("without %d: %q names the plans without a verdict: %v, want %v", tt.without, verdictLine(c), got, tt.want)
		}
	}
}

// TestPortfolioEvidenceAndRegion: the table shows a cross-server
// reference's evidence under it (not a shadowing finding's, not an empty
// one), and SARIF gives a region only when the first server's line in
// the config is known. (Issue 26: the mutants triage_portfolio.go:37
// (either condition negated) and :106 `l > 0` -> `>= 0`, a region at line
// 0, lived through the whole suite.)
func TestPortfolioEvidenceAndRegion(t *testing.T) {
	pf := []probe.PortfolioFinding{
		{Code: probe.CodePortfolioCrossRef, Severity: probe.SeverityWarn, Servers: []string{"a", "b"}, Value: "see the tool of b", Message: "a names b"},
		{Code: probe.CodePortfolioCrossRef, Severity: probe.SeverityWarn, Servers: []string{"c", "d"}, Message: "c names d"},
		{Code: probe.CodePortfolioShadowed, Severity: probe.SeverityWarn, Servers: []string{"e", "f"}, Value: "shared_tool", Message: "e and f share"},
	}
	var b bytes.Buffer
	if err := writeTriagePortfolioText(&b, pf, 0); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "\n      "); got != 1 || !strings.Contains(b.String(), "\n      see the tool of b\n") {
		t.Errorf("evidence lines: %d, want only the cross reference's:\n%s", got, b.String())
	}
	tr := &results.Triage{Servers: []results.TriageServer{{Name: "a", Line: 3}, {Name: "c"}}, Portfolio: pf[:2]}
	res := triagePortfolioSARIF(tr, "mcp.json", map[string]int{})
	if len(res) != 2 {
		t.Fatalf("%d results, want 2", len(res))
	}
	if r := res[0].Locations[0].PhysicalLocation.Region; r == nil || r.StartLine != 3 {
		t.Errorf("a at line 3: region %+v", r)
	}
	if r := res[1].Locations[0].PhysicalLocation.Region; r != nil {
		t.Errorf("c at no known line: region %+v, want none", r)
	}
}

// TestTriageContextLines: the context-cost lines name a heaviest server
// only among two or more, the unmeasured servers, heaviest tools and the
// retry line only when there are some, and nothing at all without
// context; wrapped lines stay within the width, continuation lines
// indented by four. (Issue 26: 14 mutants of triage_context.go, lines
// 20-93, lived through the whole suite.)
func TestTriageContextLines(t *testing.T) {
	one := []results.TriageWeight{{Server: "a", Tokens: 600}}
	two := []results.TriageWeight{{Server: "a", Tokens: 600}, {Server: "b", Tokens: 400}}
	ctx := func(servers []results.TriageWeight, unmeasured int, tools []results.TriageWeight) []results.TriageContext {
		return []results.TriageContext{{Client: "Cursor (/p/mcp.json)", Encoding: "o200k_base", Tokens: 1000, Servers: len(servers) + unmeasured,
			Unmeasured: unmeasured, HeaviestServers: servers, HeaviestTools: tools}}
	}
	head := "\ncontext cost (o200k_base tokens a client loads from its servers)\n"
	for _, tt := range []struct {
		name    string
		t       results.Triage
		width   int
		compact bool
		want    string
	}{
		{"nothing", results.Triage{}, 0, false, ""},
		{"retry", results.Triage{Retry: probe.RetryRate{Resolved: 1, Tried: 2, Low: 0.1, High: 0.9}}, 0, false,
			"\nerrors that resolve on the first retry: 1/2 (95% CI 10–90%)\n"},
		{"compact, one server", results.Triage{Context: ctx(one, 0, nil)}, 80, true, head + "  Cursor: 1,000 tokens\n"},
		{"compact, two and one unmeasured", results.Triage{Context: ctx(two, 1, nil)}, 80, true,
			head + "  Cursor: 1,000 tokens (heaviest: a 600; 1 not measured)\n"},
		{"wide, one server", results.Triage{Context: ctx(one, 0, nil)}, 0, false, head + "  Cursor (/p/mcp.json): 1,000 tokens from 1 server\n"},
		{"wide, all", results.Triage{Context: ctx(two, 1, one)}, 0, false,
			head + "  Cursor (/p/mcp.json): 1,000 tokens from 3 servers, 1 not measured; heaviest servers: a 600, b 400; heaviest tools: a/ 600\n"},
		{"wide, wrapped", results.Triage{Context: ctx(two, 1, one)}, 40, false,
			head + "  Cursor (/p/mcp.json): 1,000 tokens\n    from 3 servers, 1 not measured;\n    heaviest servers: a 600, b 400;\n    heaviest tools: a/ 600\n"},
	} {
		var b bytes.Buffer
		writeTriageContext(&b, &tt.t, tt.width, tt.compact)
		if b.String() != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, b.String(), tt.want)
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if tt.width > 0 && strings.HasPrefix(l, "  ") && len([]rune(l)) > tt.width {
				t.Errorf("%s: line over %d: %q", tt.name, tt.width, l)
			}
		}
	}
}

// TestTriageWrapExactAndCounts: text that fills exactly maxLines lines is
// not marked as cut, and a cut line stays within the width; the closing count line names needs setup, not
// graded and not probed only when there are some. (Issue 26: the mutants
// triage_table.go:139 `len(last) >= width` -> `>` and :178, :184,
// :187 `> 0` -> `>= 0` lived through the whole suite.)
func TestTriageWrapExactAndCounts(t *testing.T) {
	if got := triageWrap("ab cd", 2, 2); len(got) != 2 || got[1] != "cd" {
		t.Errorf(`triageWrap("ab cd", 2, 2) = %q, want ["ab" "cd"]`, got)
	}
	// A cut whose last line fills the width keeps the mark within it.
	if got := triageWrap("ab cd ef", 2, 2); len(got) != 2 || got[1] != "c…" {
		t.Errorf(`triageWrap("ab cd ef", 2, 2) = %q, want ["ab" "c…"]`, got)
	}
	var b bytes.Buffer
	writeTriageCounts(&b, &results.Triage{Servers: make([]results.TriageServer, 2), Counts: results.TriageCounts{Keep: 1, Fix: 1}})
	if want := "\n2 servers: 1 keep, 1 fix, 0 drop\n"; b.String() != want {
		t.Errorf("counts %q, want %q", b.String(), want)
	}
	b.Reset()
	writeTriageCounts(&b, &results.Triage{Servers: make([]results.TriageServer, 4), Counts: results.TriageCounts{NeedsSetup: 1, NotAssessed: 1, Ungraded: 1, Pending: 1}})
	if want := "\n4 servers: 0 keep, 0 fix, 0 drop, 1 needs setup, 1 not assessed, 1 not graded, 1 not probed\n"; b.String() != want {
		t.Errorf("counts %q, want %q", b.String(), want)
	}
}

// TestTextHelpers: thousands separators for 4- and 5-digit numbers,
// JSON of exactly 64 KiB still pretty-printed, liveness detail and
// evidence shown up to twice the line limit, and no "without a run" for
// a scan with none pending. (Issue 26: the mutants text.go:67 `len(s)-i`
// -> `+`, :51 `<= 64<<10` -> `<`, :203, :204 `maxShownLine*2` -> `/`, :141
// `p > 0` -> `>= 0` lived through the whole suite.)
func TestTextHelpers(t *testing.T) {
	for n, want := range map[int]string{1234: "1,234", 24135: "24,135", -1234567: "-1,234,567", 999: "999"} {
		if got := fmtInt(n); got != want {
			t.Errorf("fmtInt(%d) = %q, want %q", n, got, want)
		}
	}
	raw := []byte(`{"a":"` + strings.Repeat("x", 64<<10-8) + `"}`)
	if len(raw) != 64<<10 {
		t.Fatalf("raw is %d bytes", len(raw))
	}
	if got := jsonBlock(raw, 40); !strings.HasPrefix(got, "{\n  \"a\"") {
		t.Errorf("64 KiB of JSON not indented: %q", got)
	}
	long := strings.Repeat("d", maxShownLine*2)
	facts := livenessFacts(&probe.Result{Liveness: probe.Liveness{Detail: long, Evidence: long}})
	for _, f := range facts {
		if (f[0] == "detail" || f[0] == "evidence") && f[1] != long {
			t.Errorf("%s cut to %d bytes, want all %d", f[0], len(f[1]), len(long))
		}
	}
	r := &results.Report{}
	r.Scan.Targets, r.Scan.Done = 2, 2
	if got := scanLine(r, func(s string) string { return s }); strings.Contains(got, "without a run") {
		t.Errorf("no target pending: %q", got)
	}
}
