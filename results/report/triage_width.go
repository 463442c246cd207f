package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvet/mcpvet/results"
)

// triageMinWidth is the narrowest table layout written; narrower
// terminals get it too and wrap.
const triageMinWidth = 80

// writeTriageWidth writes the table of [TableReporter], in width
// columns (0: no limit).
func writeTriageWidth(w io.Writer, t *results.Triage, width int) error {
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
func triageTableWidth(t *results.Triage) int {
	name := len("SERVER")
	for _, s := range t.Servers {
		name = max(name, min(len([]rune(triageCell(s.Name))), triageNameWidth))
	}
	return name + 2 + len("VERDICT") + 2 + len("SCORE") + 2 + triageReasonWidth + 2 + triageNextWidth
}

func writeTriageBlocks(w io.Writer, t *results.Triage, width int) error {
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
	writeTriageContext(&b, t, width, false)
	writeTriageCounts(&b, t)
	_, err := w.Write(b.Bytes())
	return err
}
