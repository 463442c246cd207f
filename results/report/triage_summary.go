package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/vocab"
)

// Column limits of the summary, in runes.
const (
	summaryNameMax  = 26
	summaryInMax    = 24
	summaryVerdict  = 28 // the narrowest verdict column; it wraps, never cuts
	summaryMinWidth = 80
)

// A summaryRow is one distinct server of a triage: every entry that
// reached the same run.
type summaryRow struct {
	names   []string
	clients []string
	verdict string
	// decision is the run's decision, "pending" or "" (not graded);
	// graded is false when verdict is a reason, not a verdict.
	decision string
	graded   bool
}

// writeTriageSummary writes the one-screen view of a triage: one line per
// distinct server (the entries that reached one run share it) with its
// names, the clients or configs naming it and the verdict in the user's
// words (usable / usable, author has N items / needs setup: what to
// supply / do not use: why / not assessed: why), then one line per
// portfolio finding and per skipped entry, and the counts. The verdict
// column wraps onto continuation lines and is never cut; names and
// clients are shortened to fit width (at least 80; 0 is 100).
func writeTriageSummary(w io.Writer, t *results.Triage, width int) error {
	if width <= 0 {
		width = 100
	}
	width = max(width, summaryMinWidth)
	rows := summaryRows(t)
	nameW, inW := len("SERVER"), len("IN")
	for _, r := range rows {
		nameW = max(nameW, min(len([]rune(triageCell(strings.Join(r.names, ", ")))), summaryNameMax))
		inW = max(inW, len([]rune(fitList(r.clients, summaryInMax))))
	}
	verdictW := width - nameW - inW - 4
	if verdictW < summaryVerdict {
		inW = max(len("IN"), inW-(summaryVerdict-verdictW))
		verdictW = width - nameW - inW - 4
	}
	var b bytes.Buffer
	title := fmt.Sprintf("triage of %s (scan %d, %s)", triageCell(t.Config), t.ScanID, t.Status)
	fmt.Fprintln(&b, cutRunes(title, width))
	fmt.Fprintln(&b)
	pad := func(s string, n int) string { return s + strings.Repeat(" ", max(0, n-len([]rune(s)))) }
	fmt.Fprintf(&b, "%s  %s  %s\n", pad("SERVER", nameW), pad("IN", inW), "VERDICT")
	for _, r := range rows {
		name := cutRunes(triageCell(strings.Join(r.names, ", ")), nameW)
		in := fitList(r.clients, inW)
		maxLines := 1 << 10
		if r.graded == false {
			maxLines = 2 // a reason, not a verdict: it may be cut
		}
		lines := triageWrap(r.verdict, verdictW, maxLines)
		if len(lines) == 0 {
			lines = []string{"-"}
		}
		for i, l := range lines {
			if i == 0 {
				fmt.Fprintf(&b, "%s  %s  %s\n", pad(name, nameW), pad(in, inW), l)
			} else {
				fmt.Fprintf(&b, "%s  %s\n", strings.Repeat(" ", nameW+2+inW), l)
			}
		}
	}
	if err := writeTriageBaselineText(&b, t); err != nil {
		return err
	}
	if len(t.Portfolio) > 0 {
		fmt.Fprintf(&b, "\nacross servers (%d)\n", len(t.Portfolio))
		for _, f := range t.Portfolio {
			code, _ := strings.CutPrefix(f.Code, "portfolio/")
			line := fmt.Sprintf("%s %s: %s", code, portfolioServers(f), safe.Line(strings.Join(f.Names, ", ")))
			if len(f.Configs) > 0 {
				line += " (in " + safe.Line(strings.Join(f.Configs, "; ")) + ")"
			}
			fmt.Fprintln(&b, "  "+cutRunes(triageCell(line), width-2))
		}
	}
	if len(t.Skipped) > 0 {
		fmt.Fprintf(&b, "\nskipped entries (%d)\n", len(t.Skipped))
		for _, s := range t.Skipped {
			who := s.Client
			if who == "" {
				who = filepath.Base(s.Config)
			}
			line := s.Name
			if who != "" && who != "." {
				line += " (" + who + ")"
			}
			fmt.Fprintln(&b, "  "+cutRunes(triageCell(line+": "+s.Reason), width-2))
		}
	}
	writeTriageContext(&b, t, width, true)
	writeSummaryCounts(&b, rows, len(t.Servers), width)
	fmt.Fprintln(&b, "details: mcpvet triage --verbose, or --server NAME for one server")
	_, err := w.Write(b.Bytes())
	return err
}

// summaryRows groups the entries of t by the run reported for them, in
// the order of their first entry.
func summaryRows(t *results.Triage) []summaryRow {
	var rows []summaryRow
	index := map[string]int{}
	for _, s := range t.Servers {
		k := s.RunKey()
		i, ok := index[k]
		if !ok {
			i = len(rows)
			index[k] = i
			d := s.Decision
			if s.Pending {
				d = "pending"
			}
			rows = append(rows, summaryRow{verdict: summaryVerdictOf(s), decision: d, graded: s.Decision != ""})
		}
		r := &rows[i]
		if !slices.Contains(r.names, s.Name) {
			r.names = append(r.names, s.Name)
		}
		in := s.Client
		if in == "" && s.Config != "" {
			in = filepath.Base(s.Config)
		}
		if in != "" && !slices.Contains(r.clients, in) {
			r.clients = append(r.clients, in)
		}
	}
	return rows
}

// writeSummaryCounts writes the closing line: distinct servers by
// verdict in the user's words, and how many config entries named them.
func writeSummaryCounts(b *bytes.Buffer, rows []summaryRow, entries, width int) {
	n := map[string]int{}
	for _, r := range rows {
		n[r.decision]++
	}
	servers := "servers"
	if len(rows) == 1 {
		servers = "server"
	}
	var parts []string
	for _, c := range []struct{ key, words string }{
		{vocab.DecisionKeep, "usable"}, {vocab.DecisionFix, "usable with author items"},
		{vocab.DecisionNeedsSetup, "need setup"}, {vocab.DecisionDrop, "do not use"},
		{vocab.DecisionNotAssessed, "not assessed"}, {"", "not graded"}, {"pending", "not probed"},
	} {
		if n[c.key] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[c.key], c.words))
		}
	}
	line := fmt.Sprintf("%d %s", len(rows), servers)
	if entries != len(rows) {
		line += fmt.Sprintf(" (%d config entries)", entries)
	}
	line += ": " + strings.Join(parts, ", ")
	fmt.Fprintf(b, "\n%s\n", strings.Join(triageWrap(line, width, 4), "\n"))
}

// summaryVerdictOf is the verdict of s in the user's words.
func summaryVerdictOf(s results.TriageServer) string {
	switch {
	case s.Pending:
		return "not probed: the scan stopped before it ran"
	case s.Words != "":
		return s.Words
	case s.Decision == "":
		if len(s.Reasons) > 0 {
			// No verdict: the first reason says why.
			return "not graded: " + s.Reasons[0]
		}
		return "not graded"
	case s.Decision == vocab.DecisionKeep:
		return "usable"
	}
	return s.Decision
}

// fitList joins items with ", " within width runes: as many as fit, then
// "+N" for the rest; "N clients" when not even the first fits, and the
// first cut when that does not fit either or there is only one.
func fitList(items []string, width int) string {
	if len(items) == 0 {
		return "-"
	}
	clean := make([]string, len(items))
	for i, it := range items {
		clean[i] = triageCell(it)
	}
	if s := strings.Join(clean, ", "); len([]rune(s)) <= width {
		return s
	}
	for n := len(clean) - 1; n >= 1; n-- {
		s := strings.Join(clean[:n], ", ") + fmt.Sprintf(" +%d", len(clean)-n)
		if len([]rune(s)) <= width {
			return s
		}
	}
	if len(clean) > 1 {
		if s := fmt.Sprintf("%d clients", len(clean)); len([]rune(s)) <= width {
			return s
		}
	}
	// One item longer than width: its name cut, never "1 clients".
	return cutRunes(clean[0], width)
}

// cutRunes returns s in at most n runes, marking a cut with "…".
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(0, n-1)]) + "…"
}
