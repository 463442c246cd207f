package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpvet/mcpvet/internal/safe"
)

// diffCellBytes bounds one cell of the text report.
const diffCellBytes = 160

// WriteDiff writes d in one of [DiffFormats]: "text" for terminals (every
// server-sent string through safe.Line, aligned columns) or "json", the
// encoding of [Diff].
func WriteDiff(w io.Writer, d *Diff, format string) error {
	switch format {
	case "text":
		return writeDiffText(w, d)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	return fmt.Errorf("results: diff format %q: unknown; use %s", format, triageOrList(DiffFormats))
}

func writeDiffText(w io.Writer, d *Diff) error {
	var b bytes.Buffer
	for _, side := range []struct {
		label string
		s     DiffScan
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
		s     []DiffServer
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
func diffEvidence(c DiffChange) []string {
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
	case c.Kind == DiffFindingAppeared:
		lines = append(lines, fmt.Sprintf("[%s] %s", c.Detail, c.New))
	case c.Kind == DiffFindingDisappeared:
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
