package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
)

// Column widths of the table, in runes. Reasons and the next step wrap
// onto continuation rows so a terminal shows them whole but narrow; the
// JSON, JUnit and SARIF reports carry the same text unwrapped.
const (
	triageNameWidth    = 40
	triageReasonWidth  = 52
	triageReasonLines  = 3 // per reason
	triageNextWidth    = 48
	triageNextMaxLines = 6
)

// writeTriageTable writes one row per server (SERVER, VERDICT, SCORE,
// REASONS, NEXT STEP), wrapping reasons and next step onto continuation
// rows, then the counts.
func writeTriageTable(w io.Writer, t *results.Triage) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "triage of %s (scan %d, %s)\n\n", safe.Line(t.Config), t.ScanID, t.Status)
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tVERDICT\tSCORE\tREASONS\tNEXT STEP")
	for i, s := range t.Servers {
		if i > 0 {
			fmt.Fprintln(tw, "\t\t\t\t")
		}
		verdict, score := triageVerdictCells(s)
		var reasons []string
		for _, r := range s.Reasons {
			lines := triageWrap(r, triageReasonWidth-2, triageReasonLines)
			for j := range lines {
				if j == 0 {
					lines[j] = "- " + lines[j]
				} else {
					lines[j] = "  " + lines[j]
				}
			}
			reasons = append(reasons, lines...)
		}
		if len(reasons) == 0 {
			reasons = []string{"-"}
		}
		next := triageWrap(s.NextStep, triageNextWidth, triageNextMaxLines)
		if len(next) == 0 {
			next = []string{"-"}
		}
		name := safe.Truncate(triageCell(s.Name), triageNameWidth, safe.Ellipsis)
		for j := range max(len(reasons), len(next)) {
			cells := [5]string{}
			if j == 0 {
				cells[0], cells[1], cells[2] = name, verdict, score
			}
			if j < len(reasons) {
				cells[3] = reasons[j]
			}
			if j < len(next) {
				cells[4] = next[j]
			}
			fmt.Fprintln(tw, strings.Join(cells[:], "\t"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeTriageContext(&b, t, 0, false)
	writeTriageCounts(&b, t)
	_, err := w.Write(triageTrimLines(b.Bytes()))
	return err
}

// triageTrimLines drops the trailing spaces tabwriter pads empty last
// cells with.
func triageTrimLines(out []byte) []byte {
	var clean bytes.Buffer
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		clean.Write(bytes.TrimRight(line, " \n"))
		if bytes.HasSuffix(line, []byte("\n")) {
			clean.WriteByte('\n')
		}
	}
	return clean.Bytes()
}

// triageCell makes untrusted text one line with single spaces.
func triageCell(s string) string {
	return strings.Join(strings.Fields(safe.Line(s)), " ")
}

// triageWrap makes untrusted text safe and wraps it at spaces into lines
// of at most width runes, breaking longer words, and keeps at most
// maxLines lines, marking a cut with "…".
func triageWrap(s string, width, maxLines int) []string {
	var lines []string
	var cur []rune
	flush := func() {
		lines = append(lines, string(cur))
		cur = cur[:0]
	}
	for word := range strings.FieldsSeq(safe.Line(s)) {
		wr := []rune(word)
		for len(wr) > 0 {
			room := width - len(cur)
			if len(cur) > 0 {
				room-- // the space before the word
			}
			switch {
			case len(wr) <= room:
				if len(cur) > 0 {
					cur = append(cur, ' ')
				}
				cur = append(cur, wr...)
				wr = nil
			case len(cur) > 0:
				flush()
			default: // a word longer than a line
				cur = append(cur, wr[:width]...)
				wr = wr[width:]
				flush()
			}
		}
	}
	if len(cur) > 0 {
		flush()
	}
	if len(lines) > maxLines {
		lines = lines[:maxLines]
		last := []rune(lines[maxLines-1])
		if len(last) >= width {
			last = last[:width-1]
		}
		lines[maxLines-1] = string(last) + "…"
	}
	return lines
}

func writeTriageJSON(w io.Writer, t *results.Triage) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}

// triageVerdictCells are the VERDICT and SCORE cells of s in the table and
// block layouts.
func triageVerdictCells(s results.TriageServer) (verdict, score string) {
	verdict, score = s.Decision, "-"
	switch {
	case s.Pending:
		verdict = "pending"
	case verdict == "":
		verdict = "-"
	case s.Actor != "":
		// Who must act: "fix (author)", "needs_setup (user)".
		verdict += " (" + string(s.Actor) + ")"
	}
	if s.Score != nil {
		score = fmt.Sprintf("%.1f", *s.Score)
	}
	return verdict, score
}

// writeTriageCounts writes the closing line of the table and block
// layouts: servers by verdict, then the ungraded and the not probed.
func writeTriageCounts(b *bytes.Buffer, t *results.Triage) {
	c := t.Counts
	fmt.Fprintf(b, "\n%d servers: %d keep, %d fix, %d drop", len(t.Servers), c.Keep, c.Fix, c.Drop)
	if c.NeedsSetup > 0 {
		fmt.Fprintf(b, ", %d needs setup", c.NeedsSetup)
	}
	if c.NotAssessed > 0 {
		fmt.Fprintf(b, ", %d not assessed", c.NotAssessed)
	}
	if c.Ungraded > 0 {
		fmt.Fprintf(b, ", %d not graded", c.Ungraded)
	}
	if c.Pending > 0 {
		fmt.Fprintf(b, ", %d not probed", c.Pending)
	}
	fmt.Fprintln(b)
}
