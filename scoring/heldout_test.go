package scoring

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/errors/counts/confusion.json with the current confusion counts")

// heldoutFile holds the held-out split: responses recorded from real
// servers in `mcpvet grade` input form, labelled by hand before the grader
// was first run on them, and never tuned on.
const heldoutFile = "../testdata/errors/heldout/responses.jsonl"

// countsFile pins the exact per-element confusion counts of both splits,
// so any change of the grader's behaviour on the corpus shows in review.
// Rewrite it with go test ./scoring -run 'Corpus|Heldout' -update.
const countsFile = "../testdata/errors/counts/confusion.json"

// heldoutCase is one line of the held-out split: a [Recorded] plus labels.
type heldoutCase struct {
	Recorded
	Source string          `json:"source"`
	Note   string          `json:"note,omitempty"`
	Expect map[string]bool `json:"expect"`
	line   int
}

// loadCases reads labelled recorded responses, one JSON object a line.
func loadCases(t testing.TB, file string) []heldoutCase {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []heldoutCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var c heldoutCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s:%d: %v", file, n, err)
		}
		c.line = n
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// labelled is one graded response with its labels, for [tally].
type labelled struct {
	name   string
	expect map[string]bool
	g      Graded
}

// tally compares grades with labels per element. A difference in which
// elements apply is an error: applicability is a rule, not a heuristic.
func tally(t *testing.T, cases []labelled) map[string]*confusion {
	t.Helper()
	conf := map[string]*confusion{}
	for _, w := range Weights {
		conf[w.Element] = &confusion{}
	}
	for _, c := range cases {
		got := map[string]bool{}
		for _, e := range c.g.Elements {
			got[e.Name] = e.Pass
		}
		if diff := cmp.Diff(keys(c.expect), keys(got)); diff != "" {
			t.Errorf("%s: applicable elements differ from the labels (-want +got):\n%s", c.name, diff)
			continue
		}
		for _, e := range c.g.Elements {
			want := c.expect[e.Name]
			k := conf[e.Name]
			switch {
			case want && e.Pass:
				k.tp++
			case !want && e.Pass:
				k.fp++
				t.Logf("false pass %s %s: %s", c.name, e.Name, e.Evidence)
			case want && !e.Pass:
				k.fn++
				t.Logf("false fail %s %s: %s", c.name, e.Name, e.Evidence)
			default:
				k.tn++
			}
		}
	}
	return conf
}

// prTable renders the confusion counts as the Markdown table of
// docs/rubric.md; "–" marks a ratio with no denominator.
func prTable(conf map[string]*confusion) string {
	var b strings.Builder
	b.WriteString("| element | tp | fp | fn | tn | precision | recall |\n|---|---|---|---|---|---|---|\n")
	r := func(a, n int) string {
		if n == 0 {
			return "–"
		}
		return fmt.Sprintf("%.3f", float64(a)/float64(n))
	}
	for _, w := range Weights {
		k := conf[w.Element]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s | %s |\n", w.Element, k.tp, k.fp, k.fn, k.tn, r(k.tp, k.tp+k.fp), r(k.tp, k.tp+k.fn))
	}
	return b.String()
}

// heldoutCensusFile is the second held-out batch: responses of 22 servers
// of the npm/stdio census, extracted from its database without their
// grades (testdata/errors/record/census_extract.py) and labelled by hand
// before the grader was run on them.
const heldoutCensusFile = "../testdata/errors/heldout/census.jsonl"

// TestHeldoutPrecisionRecall grades the held-out split through the same
// path as `mcpvet grade` and requires precision and recall of at least 0.9
// for every element, and no false pass for an element the labels never
// pass.
func TestHeldoutPrecisionRecall(t *testing.T) {
	var all []labelled
	for _, b := range []struct{ split, file string }{
		{"heldout", heldoutFile},
		{"heldout-census", heldoutCensusFile},
	} {
		cases := loadCases(t, b.file)
		var ls []labelled
		for _, c := range cases {
			r, ctx, err := c.Prepare()
			if err != nil {
				t.Fatalf("%s line %d: %v", b.file, c.line, err)
			}
			ls = append(ls, labelled{name: fmt.Sprintf("%s (line %d)", string(c.ID), c.line), expect: c.Expect, g: Grade(r, ctx)})
		}
		conf := tally(t, ls)
		t.Logf("\n%s (%d responses):\n%s", b.split, len(ls), prTable(conf))
		checkCounts(t, b.split, conf)
		all = append(all, ls...)
	}
	if len(all) < 60 {
		t.Fatalf("held-out split has %d responses, want at least 60", len(all))
	}
	conf := tally(&testing.T{}, all)
	t.Logf("\nheld-out split, both batches (%d responses):\n%s", len(all), prTable(conf))
	for _, w := range Weights {
		k := conf[w.Element]
		if k.tp+k.fn == 0 {
			if k.fp > 0 {
				t.Errorf("%s: %d false passes where the labels have no positive", w.Element, k.fp)
			}
			continue
		}
		if k.precision() < minPR || k.recall() < minPR {
			t.Errorf("%s: precision %.3f, recall %.3f; want both >= %.2f", w.Element, k.precision(), k.recall(), minPR)
		}
	}
}

// counts is the committed form of the confusion counts: split → element
// → [tp, fp, fn, tn].
type counts map[string]map[string][4]int

// marshal writes the counts one element a line, splits and elements in a
// stable order, so a change shows as a one-line diff.
func (c counts) marshal() []byte {
	var b strings.Builder
	b.WriteString("{\n")
	splits := make([]string, 0, len(c))
	for s := range c {
		splits = append(splits, s)
	}
	sort.Strings(splits)
	for i, s := range splits {
		fmt.Fprintf(&b, "  %q: {\n", s)
		for j, w := range Weights {
			v := c[s][w.Element]
			fmt.Fprintf(&b, "    %q: [%d, %d, %d, %d]", w.Element, v[0], v[1], v[2], v[3])
			if j < len(Weights)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("  }")
		if i < len(splits)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// checkCounts compares conf with the split's entry in countsFile, or
// rewrites that entry with -update.
func checkCounts(t *testing.T, split string, conf map[string]*confusion) {
	t.Helper()
	all := counts{}
	if b, err := os.ReadFile(countsFile); err == nil {
		if err := json.Unmarshal(b, &all); err != nil {
			t.Fatalf("%s: %v", countsFile, err)
		}
	}
	got := map[string][4]int{}
	for name, k := range conf {
		got[name] = [4]int{k.tp, k.fp, k.fn, k.tn}
	}
	if *update {
		all[split] = got
		if err := os.WriteFile(filepath.Clean(countsFile), all.marshal(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(all[split], got); diff != "" {
		t.Errorf("%s confusion counts [tp fp fn tn] changed (-%s +got); rerun with -update if intended:\n%s", split, countsFile, diff)
	}
}
