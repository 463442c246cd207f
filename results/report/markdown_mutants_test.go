package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// TestMdFence: the fence is one backtick longer than the longest run of
// backticks in the text (at least three), so untrusted text cannot close
// it. (Issue 26: markdown.go:38 and :46 survivors.)
func TestMdFence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain\n", "```json\nplain\n```\n"},
		{"a `b` c", "```json\na `b` c\n```\n"},
		{"x ``` y", "````json\nx ``` y\n````\n"},
		{"````", "`````json\n````\n`````\n"},
	} {
		if got := mdFence(tc.in, "json"); got != tc.want {
			t.Errorf("mdFence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMdDropCIColumns: a complete census drops the "95% CI" column of
// every table, wherever the column is (first, middle, last), keeps tables
// without it untouched, keeps escaped pipes inside cells, and leaves rows
// shorter than the column alone; the header row decides the column. (Issue 26: markdown.go:573-609
// survivors.)
func TestMdDropCIColumns(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"table at the start, CI last",
			"| a | b | 95% CI |\n|---|---|---|\n| 1 | 2 | 3–4 |\n",
			"| a | b |\n|---|---|\n| 1 | 2 |\n"},
		{"CI in the middle, after text",
			"# t\n\n| a | 95% CI | c |\n|---|---:|---|\n| x \\| y | 1–2 | z |\n",
			"# t\n\n| a | c |\n|---|---|\n| x \\| y | z |\n"},
		{"CI first",
			"text\n| 95% CI | n |\n|---|---|\n| 1–2 | 3 |\n",
			"text\n| n |\n|---|\n| 3 |\n"},
		{"a table without the column, then one with it",
			"| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n\n| n | 95% CI |\n|---|---|\n| 5 | 1–9 |\n",
			"| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n\n| n |\n|---|\n| 5 |\n"},
		{"short rows",
			"| a | b | 95% CI |\n|---|---|---|\n| only |\n| p | q |\n| 1 | 2 | 3 |\n",
			"| a | b |\n|---|---|\n| only |\n| p | q |\n| 1 | 2 |\n"},
		{"a table without the column keeps a cell reading 95% CI (a server name, untrusted)",
			"| name | n |\n|---|---|\n| 95% CI | 1 |\n| b | 2 |\n",
			"| name | n |\n|---|---|\n| 95% CI | 1 |\n| b | 2 |\n"},
		{"the header decides the column, not a cell reading 95% CI",
			"| 95% CI | n |\n|---|---|\n| 1–2 | 95% CI |\n",
			"| n |\n|---|\n| 95% CI |\n"},
	} {
		if got := string(mdDropCIColumns([]byte(tc.in))); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestMdCells: a row splits at unescaped pipes; an escaped pipe stays in
// its cell with its backslash.
func TestMdCells(t *testing.T) {
	got := mdCells(`| a \| b | c |`)
	if want := []string{` a \| b `, ` c `}; !cmp.Equal(got, want) {
		t.Errorf("mdCells = %q, want %q", got, want)
	}
}

// TestMdOptionalBlocks: the census's optional parts appear only when
// there is something in them: the legacy-tools note, the who-must-act and
// deciding-rule tables, and the rubric elements under a probe.
// (Issue 26: markdown.go:244, :309, :315, :519 survivors.)
func TestMdOptionalBlocks(t *testing.T) {
	render := func(f func(e *mdWriter)) string {
		var b bytes.Buffer
		f(&mdWriter{w: &b})
		return b.String()
	}
	var c results.Census
	c.Annotations.ToolsChecked = 4
	ann := render(func(e *mdWriter) { mdAnnotations(e, &c) })
	if strings.Contains(ann, "not counted") {
		t.Errorf("annotations without legacy tools mention them:\n%s", ann)
	}
	c.Annotations.LegacyTools = 1
	if ann := render(func(e *mdWriter) { mdAnnotations(e, &c) }); !strings.Contains(ann, "(1 tool of servers speaking") {
		t.Errorf("annotations with a legacy tool do not say so:\n%s", ann)
	}

	v := render(func(e *mdWriter) { mdVerdicts(e, &c) })
	for _, s := range []string{"Who must act", "Deciding rule"} {
		if strings.Contains(v, s) {
			t.Errorf("verdicts without actors or rules have a %q table:\n%s", s, v)
		}
	}
	c.Verdicts.Actors = []results.CauseFigure{{Cause: "author", Plans: 2}}
	c.Verdicts.Rules = []results.RuleFigure{{Rule: "R1", Decision: "keep", Servers: 2}}
	v = render(func(e *mdWriter) { mdVerdicts(e, &c) })
	for _, s := range []string{"| author | 2 |\n", "| R1 | keep | 2 |\n"} {
		if !strings.Contains(v, s) {
			t.Errorf("verdicts lack %q:\n%s", s, v)
		}
	}

	res := &probe.Result{Probes: []probe.ProbeCall{{Kind: "k", Method: "tools/call", Sent: json.RawMessage(`{}`), Class: "protocol_error"}}}
	want := "\n### Probes\n\n**1. k** tools/call → protocol\\_error, 0 ms\n\nsent:\n\n```json\n{}\n```\n"
	if got := render(func(e *mdWriter) { mdProbes(e, res) }); got != want {
		t.Errorf("a probe without elements:\n got %q\nwant %q", got, want)
	}
	res.Probes[0].Elements = []probe.Element{{Name: "code", Pass: true}}
	if got := render(func(e *mdWriter) { mdProbes(e, res) }); got != want+"\n- ✓ code\n" {
		t.Errorf("a probe with one element:\n got %q\nwant %q", got, want+"\n- ✓ code\n")
	}
}
