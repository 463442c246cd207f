package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpvet/mcpvet/internal/safe"
)

// heldoutJSONL is a real grade input: 70 responses recorded from ten npm
// servers.
const heldoutJSONL = "../../testdata/errors/heldout/responses.jsonl"

func heldoutLines(t *testing.T, n int) []string {
	t.Helper()
	f, err := os.Open(heldoutJSONL)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	var out []string
	for sc.Scan() && len(out) < n {
		out = append(out, sc.Text())
	}
	return out
}

func writeJSONL(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type gradeOut struct {
	ID       string  `json:"id"`
	Kind     string  `json:"kind"`
	Score    float64 `json:"score"`
	Rubric   string  `json:"rubricVersion"`
	Elements []struct {
		Name     string  `json:"name"`
		Applies  bool    `json:"applies"`
		Pass     bool    `json:"pass"`
		Credit   float64 `json:"credit"`
		Evidence string  `json:"evidence"`
	} `json:"elements"`
}

func decodeGradeOut(t *testing.T, stdout string) []gradeOut {
	t.Helper()
	var out []gradeOut
	for l := range strings.SplitSeq(strings.TrimSpace(stdout), "\n") {
		if l == "" {
			continue
		}
		var g gradeOut
		if err := json.Unmarshal([]byte(l), &g); err != nil {
			t.Fatalf("output line %q: %v", l, err)
		}
		out = append(out, g)
	}
	return out
}

func TestGradeMalformedLines(t *testing.T) {
	good := heldoutLines(t, 2)
	in := writeJSONL(t,
		good[0],
		`{"id": "cut", "kind": "wrong_type", "request": {"method": "tools/call"`,
		`{"id": 7, "kind": "wrong_kind", "request": {"method": "tools/call"}, "response": {"result": {}}}`,
		``,
		good[1],
	)
	code, stdout, stderr := runCLI("grade", in)
	if code != exitFindings {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFindings, stderr)
	}
	got := decodeGradeOut(t, stdout)
	if len(got) != 2 || got[0].ID != "airtable-01-missing_required" || got[1].ID != "airtable-02-wrong_type" {
		t.Fatalf("graded %+v, want the two good lines in order", got)
	}
	for _, want := range []string{in + ":2: not a JSON object", in + `:3: "kind": "wrong_kind" is not a probe kind`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Count(stderr, "\n") != 2 {
		t.Errorf("stderr has %d lines, want 2:\n%s", strings.Count(stderr, "\n"), stderr)
	}
	g := got[0]
	if g.Kind != "missing_required" || g.Rubric != "errors-v14" || len(g.Elements) != 9 {
		t.Errorf("first grade %+v", g)
	}
	for _, e := range g.Elements {
		if e.Name == "closest_matches" && (e.Applies || e.Pass) {
			t.Errorf("closest_matches applies to missing_required: %+v", e)
		}
		if e.Name == "param" && (!e.Pass || e.Credit != 1 || !strings.Contains(e.Evidence, "baseId")) {
			t.Errorf("param: %+v", e)
		}
	}
}

func TestGradeHeldoutFile(t *testing.T) {
	code, stdout, stderr := runCLI("grade", heldoutJSONL)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if n := len(decodeGradeOut(t, stdout)); n != 70 {
		t.Errorf("graded %d lines, want 70", n)
	}
}

func TestGradeTable(t *testing.T) {
	in := writeJSONL(t, heldoutLines(t, 3)...)
	code, stdout, stderr := runCLI("grade", "--format", "table", in)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], "CLOSEST_MATCHES") {
		t.Fatalf("table:\n%s", stdout)
	}
	if f := strings.Fields(lines[3]); f[0] != "airtable-03-enum_violation" || f[2] != "47.7" || f[5] != "½" || f[9] != "·" {
		t.Errorf("row %q: want id, score 47.7, half credit for value_or_form, · for closest_matches", lines[3])
	}
}

func TestGradeMinScore(t *testing.T) {
	in := writeJSONL(t, heldoutLines(t, 3)...)
	code, _, stderr := runCLI("grade", "--min-score", "55", in)
	if code != exitFindings || !strings.Contains(stderr, `:3: id "airtable-03-enum_violation" scores 47.7, below --min-score 55`) || strings.Contains(stderr, ":1:") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

func TestGradeUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"grade", "--format", "xml", "-"}, `--format: unknown grade format "xml": use one of jsonl, table`},
		{[]string{"grade", "--min-score", "101", "-"}, "--min-score 101: out of range; use 0 to 100"},
		{[]string{"grade", "a.jsonl", "b.jsonl"}, "grade takes at most one argument"},
		{[]string{"grade", filepath.Join(t.TempDir(), "missing.jsonl")}, "cannot read"},
	} {
		code, _, stderr := runCLI(tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", tt.args, code, stderr, tt.want)
		}
	}
}

func TestGradeStdin(t *testing.T) {
	cmd := mcpvetCmd(t, "grade", "-")
	cmd.Stdin = strings.NewReader(strings.Join(heldoutLines(t, 2), "\n"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v", err)
	}
	if got := decodeGradeOut(t, string(out)); len(got) != 2 {
		t.Errorf("graded %d lines from stdin, want 2", len(got))
	}
}

// TestTruncateCell: a cell of at most n runes, the last the mark of a cut;
// shown through safe.Line, as the table does, it reads as the rune slice
// it replaced (invalid UTF-8 included).
func TestTruncateCell(t *testing.T) {
	runeCut := func(s string, n int) string {
		if r := []rune(s); len(r) > n {
			return string(r[:n-1]) + "…"
		}
		return s
	}
	for _, s := range []string{"", "abc", "abcd", "日本語テキスト", strings.Repeat("é", 50), "\"id-\xff\xfe-7\"", "a\x1b[31mred"} {
		for _, n := range []int{1, 3, 4, 40} {
			got := truncateCell(s, n)
			if utf8.RuneCountInString(got) > n {
				t.Errorf("truncateCell(%q, %d) = %q: more than %d runes", s, n, got, n)
			}
			if want := runeCut(s, n); safe.Line(got) != safe.Line(want) {
				t.Errorf("truncateCell(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	}
}
