package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results/report"
	"github.com/mcpvet/mcpvet/scan"
)

// maxGradeLine bounds one input line; a longer one is reported and
// skipped. A recorded response larger than this is over any token budget.
const maxGradeLine = 32 << 20

type gradeFlags struct {
	format   string
	minScore float64
}

// errGradeInput is returned when some input lines could not be graded or
// graded below --min-score; each was reported on stderr already.
var errGradeInput = errors.New("some responses were malformed or graded below --min-score")

// newGradeCmd builds `mcpvet grade`: grade recorded error responses
// offline, without launching anything.
func newGradeCmd(stdout, stderr io.Writer) *cobra.Command {
	var f gradeFlags
	cmd := &cobra.Command{
		Use:   "grade [FILE|-]",
		Short: "Grade recorded error responses offline (JSON Lines in and out)",
		Long: `grade reads recorded answers to invalid requests, one JSON object per line,
and grades each with the error actionability rubric (docs/rubric.md), without
launching a server. Use it in a server's own tests, or to measure the grader
on a labelled set.

Input fields: "id" (echoed), "kind" (the probe kind: ` + strings.Join(scan.RecordedKinds(), ", ") + `),
"request" (the JSON-RPC request sent), "response" (the JSON-RPC response
received, with "result" or "error"; null for no answer), and optionally
"param" (the argument the request broke), "protocolVersion", "capabilities"
(the server's declared capabilities), "tools" (its tools/list tools),
"prompts", "resources" (names and URIs) and "canaries" ({"NAME": "value"}).
Other fields are ignored, so labels can ride along.

Output: one JSON object per graded line, in input order, with "id", "kind",
"score", "rubricVersion" and "elements" (each "name", "applies", "pass",
"credit", "evidence"). A malformed line is reported on stderr with its line
number and graded as nothing; the other lines are still graded and the
command exits 1 at the end. --min-score also exits 1 when a response grades
below it.`,
		Example: `  mcpvet grade recorded.jsonl
  mcpvet grade --format table < recorded.jsonl
  mcpvet grade --min-score 70 recorded.jsonl > /dev/null`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("grade takes at most one argument, a JSON Lines file or - for stdin (got %d)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			src := "-"
			if len(args) == 1 {
				src = args[0]
			}
			return runGrade(cmd, src, &f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "jsonl", "output format: "+strings.Join(report.Formats(report.KindGrade), ", "))
	fl.Float64Var(&f.minScore, "min-score", 0, "exit 1 when any response scores below this (0 to 100; 0 never fails)")
	return cmd
}

func runGrade(cmd *cobra.Command, src string, f *gradeFlags, stdout, stderr io.Writer) error {
	format, err := formatFlag(report.KindGrade, f.format)
	if err != nil {
		return err
	}
	f.format = format
	if f.minScore < 0 || f.minScore > 100 {
		return usagef("--min-score %g: out of range; use 0 to 100", f.minScore)
	}
	in := cmd.InOrStdin()
	name := "stdin"
	if src != "-" {
		file, err := os.Open(src)
		if err != nil {
			return usagef("grade: cannot read %q: %v; give a JSON Lines file or - for stdin", src, errors.Unwrap(err))
		}
		defer file.Close()
		in, name = file, src
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	var table *tabwriter.Writer
	if f.format == "table" {
		table = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		header := []string{"ID", "KIND", "SCORE"}
		for _, e := range scan.RubricElements() {
			header = append(header, strings.ToUpper(e))
		}
		fmt.Fprintln(table, strings.Join(header, "\t"))
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	bad := 0
	r := bufio.NewReaderSize(in, 64<<10)
	for n := 1; ; n++ {
		line, tooLong, err := readGradeLine(r)
		if err != nil && err != io.EOF {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			g, msg := gradeLine(line, tooLong)
			switch {
			case msg != "":
				bad++
				fmt.Fprintf(stderr, "mcpvet: %s:%d: %s\n", name, n, safe.Line(msg))
			default:
				if f.minScore > 0 && g.Score < f.minScore {
					bad++
					fmt.Fprintf(stderr, "mcpvet: %s:%d: id %s scores %.1f, below --min-score %g\n", name, n, safe.Line(string(g.ID)), g.Score, f.minScore)
				}
				if table != nil {
					writeGradeRow(table, g)
				} else if err := enc.Encode(g); err != nil {
					return err
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	if table != nil {
		table.Flush()
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if bad > 0 {
		return errGradeInput
	}
	return nil
}

// readGradeLine reads one line of at most maxGradeLine bytes; the rest of
// a longer line is read and dropped, and tooLong reports it.
func readGradeLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxGradeLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, tooLong, err
	}
}

// gradeLine grades one input line, or says why it cannot.
func gradeLine(line []byte, tooLong bool) (scan.Graded, string) {
	if tooLong {
		return scan.Graded{}, fmt.Sprintf("line longer than %d MiB; not graded", maxGradeLine>>20)
	}
	g, err := scan.GradeRecorded(line)
	if err != nil {
		return scan.Graded{}, err.Error()
	}
	return g, ""
}

// writeGradeRow writes one table row: + for a pass, ½ for half credit, -
// for a failure and · where the element does not apply.
func writeGradeRow(w io.Writer, g scan.Graded) {
	id := string(g.ID)
	var s string
	if json.Unmarshal(g.ID, &s) == nil {
		id = s
	}
	row := []string{safe.Line(truncateCell(id, 40)), g.Kind, fmt.Sprintf("%.1f", g.Score)}
	for _, e := range g.Elements {
		mark := "·"
		switch {
		case !e.Applies:
		case e.Credit == 1:
			mark = "+"
		case e.Credit > 0:
			mark = "½"
		default:
			mark = "-"
		}
		row = append(row, mark)
	}
	fmt.Fprintln(w, strings.Join(row, "\t"))
}

// truncateCell cuts s to n runes for a table column, the last of them the
// mark of the cut: [safe.Truncate] counts bytes, so the cut is the byte
// offset of rune n-1.
func truncateCell(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	off := 0
	for range n - 1 {
		_, w := utf8.DecodeRuneInString(s[off:])
		off += w
	}
	return safe.Truncate(s, off, safe.Ellipsis)
}
