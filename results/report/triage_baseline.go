package report

import (
	"bytes"
	"fmt"
	"io"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
)

// writeTriageBaselineText lists the servers whose definitions changed
// since the baseline, as a section of the table report.
func writeTriageBaselineText(w io.Writer, t *results.Triage) error {
	if t.Baseline == "" {
		return nil
	}
	var b bytes.Buffer
	n := 0
	for _, s := range t.Servers {
		if s.Definitions == results.DefinitionsChanged || s.Definitions == results.DefinitionsNew {
			n++
		}
	}
	fmt.Fprintf(&b, "\ndefinitions since baseline %s: %d changed or new\n", safe.Line(t.Baseline), n)
	for _, s := range t.Servers {
		switch s.Definitions {
		case results.DefinitionsChanged:
			fmt.Fprintf(&b, "  CHANGED  %s\n", safe.Line(s.Name))
			for i, c := range s.Changed {
				if i == 8 {
					fmt.Fprintf(&b, "           and %d more\n", len(s.Changed)-i)
					break
				}
				fmt.Fprintf(&b, "           %s\n", safe.Truncate(safe.Line(c), 160, safe.Ellipsis))
			}
		case results.DefinitionsNew:
			fmt.Fprintf(&b, "  NEW      %s\n", safe.Line(s.Name))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
