package scoring

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusDir holds the hand-labelled error responses.
const corpusDir = "../testdata/errors"

// minCorpus is the smallest corpus the precision/recall test accepts.
const minCorpus = 40

// minPR is the precision and recall every element must reach.
const minPR = 0.9

// corpusCase is one file of testdata/errors.
type corpusCase struct {
	Name     string          `json:"name"`
	Source   string          `json:"source"`
	Note     string          `json:"note,omitempty"`
	Response Response        `json:"response"`
	Context  Context         `json:"context"`
	Expect   map[string]bool `json:"expect"`
	file     string
}

func loadCorpus(t testing.TB) []corpusCase { return loadCorpusDir(t, corpusDir) }

func loadCorpusDir(t testing.TB, dir string) []corpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c corpusCase
		d := json.NewDecoder(strings.NewReader(string(data)))
		d.DisallowUnknownFields()
		if err := d.Decode(&c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		c.file = filepath.Base(f)
		out = append(out, c)
	}
	return out
}

// confusion counts one element's outcomes, "pass" being the positive class.
type confusion struct{ tp, fp, fn, tn int }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (c confusion) precision() float64 { return ratio(c.tp, c.tp+c.fp) }
func (c confusion) recall() float64    { return ratio(c.tp, c.tp+c.fn) }

// failPrecision and failRecall treat "fail" as the positive class.
func (c confusion) failPrecision() float64 { return ratio(c.tn, c.tn+c.fn) }
func (c confusion) failRecall() float64    { return ratio(c.tn, c.tn+c.fp) }

// TestCorpusPrecisionRecall grades every hand-labelled response and
// reports per-element precision and recall against the labels.
func TestCorpusPrecisionRecall(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) < minCorpus {
		t.Fatalf("corpus has %d responses, want at least %d", len(cases), minCorpus)
	}
	sources := map[string]int{}
	conf := map[string]*confusion{}
	for _, w := range Weights {
		conf[w.Element] = &confusion{}
	}
	for _, c := range cases {
		src, _, _ := strings.Cut(c.Source, ":")
		sources[src]++
		g := Grade(c.Response, c.Context)
		got := map[string]bool{}
		for _, e := range g.Elements {
			got[e.Name] = e.Pass
		}
		// Which elements apply is a rule of the rubric, not a heuristic:
		// the labels must list exactly those.
		if diff := cmp.Diff(keys(c.Expect), keys(got)); diff != "" {
			t.Errorf("%s: applicable elements differ from the labels (-want +got):\n%s", c.file, diff)
			continue
		}
		for _, e := range g.Elements {
			want := c.Expect[e.Name]
			k := conf[e.Name]
			switch {
			case want && e.Pass:
				k.tp++
			case !want && e.Pass:
				k.fp++
				t.Logf("false pass %s %s: %s", c.file, e.Name, e.Evidence)
			case want && !e.Pass:
				k.fn++
				t.Logf("false fail %s %s: %s", c.file, e.Name, e.Evidence)
			default:
				k.tn++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "corpus: %d responses %v\n", len(cases), sources)
	fmt.Fprintf(&b, "%-16s %4s %4s %4s %4s  %9s %6s  %9s %6s\n", "element", "tp", "fp", "fn", "tn", "precision", "recall", "fail-prec", "fail-rec")
	for _, w := range Weights {
		k := conf[w.Element]
		fmt.Fprintf(&b, "%-16s %4d %4d %4d %4d  %9.3f %6.3f  %9.3f %6.3f\n", w.Element, k.tp, k.fp, k.fn, k.tn,
			k.precision(), k.recall(), k.failPrecision(), k.failRecall())
	}
	t.Log("\n" + b.String())
	checkCounts(t, "tuned", conf)
	for _, w := range Weights {
		k := conf[w.Element]
		if k.tp+k.fn < 3 || k.tn+k.fp < 3 {
			t.Errorf("%s: corpus needs at least 3 passing and 3 failing labels, has %d and %d", w.Element, k.tp+k.fn, k.tn+k.fp)
		}
		if k.precision() < minPR || k.recall() < minPR {
			t.Errorf("%s: precision %.3f, recall %.3f; want both >= %.2f", w.Element, k.precision(), k.recall(), minPR)
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
