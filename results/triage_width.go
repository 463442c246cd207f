package results

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// triageMinWidth is the narrowest table layout written; narrower
// terminals get it too and wrap.
const triageMinWidth = 80

// TriageWriteOptions adjust [WriteTriageWith].
type TriageWriteOptions struct {
	// Width is the terminal width the table must fit (0: no limit).
	Width int
	// FailOn is the --fail-on threshold: JUnit marks the verdicts at or
	// below it as failures (default drop).
	FailOn string
}

// WriteTriageWith writes the report like [WriteTriage], with options; o
// may be nil.
func WriteTriageWith(w io.Writer, t *Triage, format string, o *TriageWriteOptions) error {
	var opts TriageWriteOptions
	if o != nil {
		opts = *o
	}
	switch format {
	case "table":
		return WriteTriageWidth(w, t, format, opts.Width)
	case "junit":
		return writeTriageJUnit(w, t, opts.FailOn)
	}
	return WriteTriage(w, t, format)
}

// WriteTriageWidth writes the report like [WriteTriage], fitting the table
// into width columns (0: no limit). Where the columns do not fit, or the
// servers come from several configs, each server gets a block: its name,
// verdict and score on one line, then its reasons and next step wrapped
// to the width, never cut.
func WriteTriageWidth(w io.Writer, t *Triage, format string, width int) error {
	if format != "table" {
		return WriteTriage(w, t, format)
	}
	grouped := false
	for _, s := range t.Servers {
		if s.Config != "" {
			grouped = true
		}
	}
	var err error
	switch {
	case !grouped && (width <= 0 || width >= triageTableWidth(t)):
		err = writeTriageTable(w, t)
	case width <= 0:
		err = writeTriageBlocks(w, t, 120)
	default:
		err = writeTriageBlocks(w, t, max(width, triageMinWidth))
	}
	if err != nil {
		return err
	}
	// The sections after the servers: definitions changed since the
	// baseline, and the pairs of servers of the portfolio.
	if err := writeTriageBaselineText(w, t); err != nil {
		return err
	}
	return writeTriagePortfolioText(w, t.Portfolio, width)
}

// triageTableWidth is the width of the column layout for t.
func triageTableWidth(t *Triage) int {
	name := len("SERVER")
	for _, s := range t.Servers {
		name = max(name, min(len([]rune(triageCell(s.Name))), triageNameWidth))
	}
	return name + 2 + len("VERDICT") + 2 + len("SCORE") + 2 + triageReasonWidth + 2 + triageNextWidth
}

func writeTriageBlocks(w io.Writer, t *Triage, width int) error {
	var b bytes.Buffer
	title := fmt.Sprintf("triage of %s (scan %d, %s)", triageCell(t.Config), t.ScanID, t.Status)
	if len([]rune(title)) > width {
		title = fmt.Sprintf("triage (scan %d, %s) of\n%s", t.ScanID, t.Status, strings.Join(triageWrap(t.Config, width, 1<<10), "\n"))
	}
	fmt.Fprintln(&b, title)
	config := ""
	for _, s := range t.Servers {
		if s.Config != config {
			config = s.Config
			fmt.Fprintf(&b, "\n== %s ==\n", strings.Join(triageWrap(config, width-6, 1<<10), "\n   "))
		}
		b.WriteByte('\n')
		verdict, score := triageVerdictCells(s)
		tail := fmt.Sprintf("  %-7s  score %s", verdict, score)
		name := triageWrap(s.Name, width-len(tail), 2)
		if len(name) == 0 {
			name = []string{"-"}
		}
		fmt.Fprintf(&b, "%s%s\n", name[0], tail)
		for _, r := range s.Reasons {
			for j, line := range triageWrap(r, width-4, 1<<10) {
				if j == 0 {
					fmt.Fprintf(&b, "  - %s\n", line)
				} else {
					fmt.Fprintf(&b, "    %s\n", line)
				}
			}
		}
		const label = "  next step: "
		for j, line := range triageWrap(s.NextStep, width-len(label), 1<<10) {
			if j == 0 {
				fmt.Fprintf(&b, "%s%s\n", label, line)
			} else {
				fmt.Fprintf(&b, "%s%s\n", strings.Repeat(" ", len(label)), line)
			}
		}
	}
	writeTriageCounts(&b, t)
	_, err := w.Write(b.Bytes())
	return err
}

// Recount sets Counts from Servers, after servers were added or removed.
func (t *Triage) Recount() {
	t.Counts = TriageCounts{}
	for _, s := range t.Servers {
		switch {
		case s.Pending:
			t.Counts.Pending++
		case s.Decision == triageKeep:
			t.Counts.Keep++
		case s.Decision == triageFix:
			t.Counts.Fix++
		case s.Decision == triageDrop:
			t.Counts.Drop++
		default:
			t.Counts.Ungraded++
		}
	}
}
