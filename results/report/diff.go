package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
)

// diffCellBytes bounds one cell of the text report.
const diffCellBytes = 160

// A DiffReporter writes the comparison of two scans ([results.Diff]) in
// one format.
type DiffReporter interface {
	Write(w io.Writer, d *results.Diff) error
}

// The diff reporters, one per format of [KindDiff].
var (
	_ DiffReporter = (*DiffTextReporter)(nil)
	_ DiffReporter = (*DiffJSONReporter)(nil)
)

// WriteDiff writes d in a diff format (see [Formats]): "text" for
// terminals (every server-sent string through safe.Line, aligned columns)
// or "json", the encoding of [results.Diff].
func WriteDiff(w io.Writer, d *results.Diff, format string) error {
	rw, err := Diff(format)
	if err != nil {
		return err
	}
	return rw.Write(w, d)
}

// DiffJSONReporter writes the JSON encoding of [results.Diff].
type DiffJSONReporter struct{}

func (DiffJSONReporter) Write(w io.Writer, d *results.Diff) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// DiffTextReporter writes the diff for terminals: every server-sent
// string through safe.Line, aligned columns.
type DiffTextReporter struct{}

func (DiffTextReporter) Write(w io.Writer, d *results.Diff) error { return writeDiffText(w, d) }

func writeDiffText(w io.Writer, d *results.Diff) error {
	var b bytes.Buffer
	for _, side := range []struct {
		label string
		s     results.DiffScan
	}{{"old", d.Old}, {"new", d.New}} {
		s := side.s
		fmt.Fprintf(&b, "%s  scan %d of %s: %s of %s, %s, started %s, %d servers\n", side.label, s.ScanID,
			diffCell(s.DB), s.Kind, diffCell(s.Source), s.Status, s.StartedAt.UTC().Format(time.RFC3339), s.Servers)
	}
	fmt.Fprintf(&b, "\n%d servers in both scans: %d changed, %d unchanged; %d added, %d removed\n",
		d.Compared, len(d.Changed), d.Unchanged, len(d.Added), len(d.Removed))

	for _, s := range d.Changed {
		fmt.Fprintf(&b, "\n%s (%s)\n", diffCell(s.Name), diffCell(s.Source))
		if s.OldKey != s.NewKey {
			fmt.Fprintf(&b, "  matched %s → %s\n", diffCell(s.OldKey), diffCell(s.NewKey))
		}
		tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		for _, c := range s.Changes {
			lines := diffEvidence(c)
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Kind, diffCell(c.Subject), diffCell(lines[0]))
			for _, l := range lines[1:] {
				fmt.Fprintf(tw, "  \t\t%s\n", diffCell(l))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, list := range []struct {
		label string
		s     []results.DiffServer
	}{{"added (only in the new scan)", d.Added}, {"removed (only in the old scan)", d.Removed}} {
		if len(list.s) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s\n", list.label)
		tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		for _, s := range list.s {
			dec := s.Decision
			if dec == "" {
				dec = "-"
			} else if s.Actor != "" {
				dec += " (" + string(s.Actor) + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", diffCell(s.Name), diffCell(s.Version), s.Status, dec)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(d.Changed)+len(d.Added)+len(d.Removed) == 0 {
		fmt.Fprintln(&b, "\nno changes")
	}
	_, err := w.Write(triageTrimLines(b.Bytes()))
	return err
}

// diffEvidence renders a change's evidence as one or more lines.
func diffEvidence(c results.DiffChange) []string {
	orNone := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s
	}
	var lines []string
	switch {
	case len(c.Fields) > 0 || c.MoreFields > 0:
		for _, f := range c.Fields {
			p := f.Pointer
			if p == "" {
				p = "(whole value)"
			}
			lines = append(lines, fmt.Sprintf("%s: %s → %s", p, orNone(f.Old), orNone(f.New)))
		}
		if c.MoreFields > 0 {
			lines = append(lines, fmt.Sprintf("and %d more", c.MoreFields))
		}
	case c.Kind == results.DiffFindingAppeared:
		lines = append(lines, fmt.Sprintf("[%s] %s", c.Detail, c.New))
	case c.Kind == results.DiffFindingDisappeared:
		lines = append(lines, fmt.Sprintf("[%s] %s", c.Detail, c.Old))
	case c.Old != "" || c.New != "":
		l := orNone(c.Old) + " → " + orNone(c.New)
		if c.Detail != "" {
			l += " (" + c.Detail + ")"
		}
		lines = append(lines, l)
	default:
		lines = append(lines, c.Detail)
	}
	return lines
}

// diffCell makes untrusted text one bounded table cell.
func diffCell(s string) string {
	return safe.Truncate(strings.Join(strings.Fields(safe.Line(s)), " "), diffCellBytes, safe.Ellipsis)
}
