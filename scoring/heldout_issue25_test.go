package scoring

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// heldoutIssue25File is issue 25's first batch (batch 3 of the corpus):
// fixtures modelled on the background texts' payloads (closest matches,
// next actions, retry hints) and on the shapes the issue lists, each with
// labels and a hand score, written by
// testdata/errors/record/issue25_fixtures.py and committed before the
// grader was run on them. Measured held out once (Spearman 0.913), it then
// became the tuning set of the item-5 change and of the element fixes of
// TestIssue25TuningMisses; heldoutIssue25bFile is held out instead.
const heldoutIssue25File = "../testdata/errors/heldout/issue25.jsonl"

// heldoutIssue25bFile is issue 25's second batch (batch 4), written by
// testdata/errors/record/issue25b_fixtures.py and committed (6158e24)
// before the item-5 change was tuned and before the grader ran on it.
const heldoutIssue25bFile = "../testdata/errors/heldout/issue25b.jsonl"

// minIssue25Rho and minIssue25bRho are the least Spearman correlations of
// score and hand score on the two batches: what the grader reached (the
// issue asks 0.95 on the held-out batch); see docs/rubric.md.
const (
	minIssue25Rho  = 0.97
	minIssue25bRho = 0.95
)

// TestHeldoutIssue25 grades the tuning batch through the `mcpvet grade`
// path, pins its exact confusion counts and guards the rank correlation
// reached on it (0.913 held out, 0.968 after tuning).
func TestHeldoutIssue25(t *testing.T) {
	handBatch(t, heldoutIssue25File, "heldout-issue25", minIssue25Rho)
}

// TestHeldoutIssue25b grades the held-out batch, pins its confusion counts,
// requires the score to order the responses like the hand scores, and
// reports the recall on the responses that offer a next action, retry
// guidance or closest matches.
func TestHeldoutIssue25b(t *testing.T) {
	cases, gs := handBatch(t, heldoutIssue25bFile, "heldout-issue25b", minIssue25bRho)
	found, total := offerRecall(t, heldoutIssue25bFile, cases, gs)
	for _, o := range []string{"next_action", "retry", "closest_matches"} {
		if total[o] < 5 {
			t.Errorf("%d responses offer %s, want at least 5", total[o], o)
		}
		if found[o] != total[o] {
			t.Errorf("recall on responses offering %s: %d/%d, want all (errors-v7 to errors-v12)", o, found[o], total[o])
		}
	}
}

// heldoutIssue25cFile is issue 25's third batch (batch 5 of the corpus):
// 36 real answers of seven npm servers no earlier batch used, recorded by
// testdata/errors/record/issue25c.py, and 6 fixtures modelled on the
// background texts' payloads, labelled with hand scores by
// testdata/errors/record/issue25c_label.py and committed (d04b6b7) before
// errors-v7 was tuned (on batches 3 and 4) and before the grader ran on
// it. Measured held out once under errors-v7 (Spearman 0.939); from
// errors-v8 on it is a tuning set (TestIssue25cTuningMisses) and
// heldoutIssue25dFile is held out instead.
const heldoutIssue25cFile = "../testdata/errors/heldout/issue25c.jsonl"

// minIssue25cRho guards the Spearman correlation on batch 5: 0.939 held
// out under errors-v7, 0.955 after errors-v8 was tuned on it
// (docs/rubric.md, "Issue 25: errors-v8 and a sixth held-out batch").
const minIssue25cRho = 0.95

// TestHeldoutIssue25c grades batch 5 (held out under errors-v7, a tuning
// set since errors-v8), pins its confusion
// counts and its rank correlation, and reports the recall on the
// responses that offer a next action, retry guidance or closest matches.
func TestHeldoutIssue25c(t *testing.T) {
	realBatch(t, heldoutIssue25cFile, "heldout-issue25c", minIssue25cRho, 40, 30)
}

// heldoutIssue25dFile is issue 25's fourth batch (batch 6 of the corpus):
// 51 real answers of ten npm servers no earlier batch used, recorded by
// testdata/errors/record/issue25d.py, and 6 fixtures modelled on the
// background texts' payloads, labelled with hand scores by
// testdata/errors/record/issue25d_label.py and committed (5a077d8) before
// errors-v8 was tuned (on batches 3, 4 and 5) and before the grader ran on
// it. Measured once under errors-v8 (0.895); from errors-v9 on it is a
// tuning set (TestIssue25dTuningMisses).
const heldoutIssue25dFile = "../testdata/errors/heldout/issue25d.jsonl"

// minIssue25dRho guards the Spearman correlation on batch 6: 0.895 at its
// one held-out measurement under errors-v8 (docs/rubric.md, "Issue 25:
// errors-v8 and a sixth held-out batch"), 0.954 after errors-v9 was tuned
// on it ("Issue 25: errors-v9 and a seventh held-out batch").
const minIssue25dRho = 0.95

// TestHeldoutIssue25d grades batch 6 (held out under errors-v8, a tuning
// set since errors-v9), pins its confusion
// counts and its rank correlation, and reports the recall on the responses
// that offer a next action, retry guidance or closest matches.
func TestHeldoutIssue25d(t *testing.T) {
	realBatch(t, heldoutIssue25dFile, "heldout-issue25d", minIssue25dRho, 55, 50)
}

// realBatch grades a batch of mostly real responses, pins its confusion
// counts (under name) and its rank correlation (at least minRho), checks
// its size (at least minCases responses, minRecorded of them recorded from
// real servers) and that some response offers each of a next action, retry
// guidance and closest matches.
func realBatch(t *testing.T, file, name string, minRho float64, minCases, minRecorded int) {
	t.Helper()
	cases, gs := handBatch(t, file, name, minRho)
	_, total := offerRecall(t, file, cases, gs)
	recorded := 0
	hands := handScores(t, file)
	var hand, got []float64
	for i, c := range cases {
		if strings.HasPrefix(c.Source, "recorded:") {
			recorded++
			hand = append(hand, hands[i])
			got = append(got, gs[i].Score)
		}
	}
	// The fixtures are modelled on the background texts' payloads; the
	// figures over the real answers alone are reported beside the whole.
	t.Logf("Spearman rho over the %d real answers only = %.3f", recorded, spearman(hand, got))
	offers := offered(t, file)
	elem := map[string]string{"next_action": ElemNextAction, "retry": ElemRetryable, "closest_matches": ElemClosestMatches}
	for _, o := range []string{"next_action", "retry", "closest_matches"} {
		found, n := 0, 0
		for i, c := range cases {
			if !strings.HasPrefix(c.Source, "recorded:") || !slices.Contains(offers[i], o) || !gs[i].Applies(elem[o]) {
				continue
			}
			n++
			if gs[i].Pass(elem[o]) {
				found++
			}
		}
		t.Logf("recall on real answers offering %s: %d/%d", o, found, n)
	}
	if recorded < minRecorded || len(cases) < minCases {
		t.Errorf("%d responses, %d recorded from real servers; want at least %d and %d", len(cases), recorded, minCases, minRecorded)
	}
	for _, o := range []string{"next_action", "retry", "closest_matches"} {
		if total[o] == 0 {
			t.Errorf("no response offers %s", o)
		}
	}
}

// offerRecall reads the "offers" member of each line of file and counts,
// per offer, the responses that offer it and those whose element passes.
func offerRecall(t *testing.T, file string, cases []heldoutCase, gs []Graded) (found, total map[string]int) {
	t.Helper()
	offers := offered(t, file)
	elem := map[string]string{"next_action": ElemNextAction, "retry": ElemRetryable, "closest_matches": ElemClosestMatches}
	found, total = map[string]int{}, map[string]int{}
	for i := range cases {
		for _, o := range offers[i] {
			e, ok := elem[o]
			if !ok {
				t.Fatalf("%s: unknown offer %q", string(cases[i].ID), o)
			}
			if !gs[i].Applies(e) {
				// "Did you mean 'de'?" to an enum violation: the
				// rubric applies closest_matches to unknown names only.
				t.Logf("%s offered where %s does not apply: %s", o, e, string(cases[i].ID))
				continue
			}
			total[o]++
			if gs[i].Pass(e) {
				found[o]++
			} else {
				t.Logf("missed %s: %s", o, string(cases[i].ID))
			}
		}
	}
	for _, o := range []string{"next_action", "retry", "closest_matches"} {
		t.Logf("recall on responses offering %s: %d/%d", o, found[o], total[o])
	}
	return found, total
}

// handBatch grades a batch with hand scores, pins its counts under key and
// checks Spearman's rank correlation of score and hand score.
func handBatch(t *testing.T, file, key string, minRho float64) ([]heldoutCase, []Graded) {
	t.Helper()
	cases := loadCases(t, file)
	hands := handScores(t, file)
	var ls []labelled
	var hand, got []float64
	var gs []Graded
	for i, c := range cases {
		r, ctx, err := c.Prepare()
		if err != nil {
			t.Fatalf("line %d: %v", c.line, err)
		}
		g := Grade(r, ctx)
		gs = append(gs, g)
		ls = append(ls, labelled{name: fmt.Sprintf("%s (line %d)", string(c.ID), c.line), expect: c.Expect, g: g})
		hand = append(hand, hands[i])
		got = append(got, g.Score)
		t.Logf("%-48s hand %3.0f score %5.1f %s", string(c.ID), hands[i], g.Score, g)
	}
	if len(ls) < 20 {
		t.Fatalf("%d responses, want at least 20", len(ls))
	}
	conf := tally(t, ls)
	t.Logf("\n%s (%d responses):\n%s", key, len(ls), prTable(conf))
	checkCounts(t, key, conf)
	rho := spearman(hand, got)
	t.Logf("Spearman rho (score vs hand) = %.3f over %d responses", rho, len(ls))
	if rho < minRho {
		t.Errorf("Spearman rho = %.3f, want >= %.2f", rho, minRho)
	}
	return cases, gs
}

// offered reads the "offers" member of each line.
func offered(t *testing.T, file string) [][]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var v struct {
			Offers []string `json:"offers"`
		}
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.Offers)
	}
	return out
}

// handScores reads the "hand" member of each line.
func handScores(t *testing.T, file string) []float64 {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var v struct {
			Hand *float64 `json:"hand"`
		}
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if v.Hand == nil {
			t.Fatalf("%s: a line has no hand score", file)
		}
		out = append(out, *v.Hand)
	}
	return out
}

// ranks returns the 1-based ranks of xs, ties sharing their mean rank.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

// spearman is Spearman's rank correlation: Pearson's over the ranks, so
// ties are handled.
func spearman(a, b []float64) float64 {
	ra, rb := ranks(a), ranks(b)
	var ma, mb float64
	for i := range ra {
		ma += ra[i]
		mb += rb[i]
	}
	n := float64(len(ra))
	ma, mb = ma/n, mb/n
	var cov, va, vb float64
	for i := range ra {
		cov += (ra[i] - ma) * (rb[i] - mb)
		va += (ra[i] - ma) * (ra[i] - ma)
		vb += (rb[i] - mb) * (rb[i] - mb)
	}
	if va == 0 || vb == 0 {
		return 0
	}
	return cov / math.Sqrt(va*vb)
}

func TestSpearman(t *testing.T) {
	for _, tc := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{[]float64{1, 2, 3, 4}, []float64{40, 30, 20, 10}, -1},
		{[]float64{1, 2, 3}, []float64{5, 5, 5}, 0},
		// Classic example with a tie: ranks (1,2.5,2.5,4) vs (1,2,3,4).
		{[]float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}, 0.9486832980505138},
	} {
		if got := spearman(tc.a, tc.b); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("spearman(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// heldoutIssue25eFile is issue 25's fifth batch (batch 7 of the corpus):
// 55 real answers of ten npm servers no earlier batch used, recorded by
// testdata/errors/record/issue25e.py, and 6 fixtures modelled on the
// background texts' payloads, labelled with hand scores by
// testdata/errors/record/issue25e_label.py and committed (4aa7a69, merged
// into main 58cd027) before errors-v9 was measured on it and before the
// grader ran on it. Measured once under errors-v9 (0.789); from errors-v10
// on it is a tuning set (TestIssue25eTuningMisses).
const heldoutIssue25eFile = "../testdata/errors/heldout/issue25e.jsonl"

// minIssue25eRho guards the Spearman correlation on batch 7: 0.789 over
// 61 responses (0.711 over the 55 real answers) at its one held-out
// measurement under errors-v9 (docs/rubric.md, "Issue 25: errors-v9 and a
// seventh held-out batch"), 0.933 after errors-v10 was tuned on it.
const minIssue25eRho = 0.93

// TestHeldoutIssue25e grades the held-out batch 7, pins its confusion
// counts and its rank correlation, and reports the recall on the responses
// (all, and real only) that offer a next action, retry guidance or closest
// matches.
func TestHeldoutIssue25e(t *testing.T) {
	realBatch(t, heldoutIssue25eFile, "heldout-issue25e", minIssue25eRho, 60, 55)
}

// heldoutIssue25fFile is issue 25's sixth batch (batch 8 of the corpus):
// 43 real answers of nine npm servers no earlier batch used, recorded by
// testdata/errors/record/issue25f.py, and 5 fixtures modelled on the
// background texts' payloads, labelled with hand scores by
// testdata/errors/record/issue25f_label.py and committed (a051e49, merged
// into main 74a6afb) before errors-v10 was tuned (on batch 7) and before
// the grader ran on it. Measured once under errors-v10 (0.896); from
// errors-v11 on it is a tuning set (TestIssue25fTuningMisses).
const heldoutIssue25fFile = "../testdata/errors/heldout/issue25f.jsonl"

// minIssue25fRho guards the Spearman correlation on batch 8: 0.896 over 48
// responses (0.867 over the 43 real answers) at its one held-out
// measurement under errors-v10 (docs/rubric.md, "Issue 25: errors-v10 and
// an eighth held-out batch"), 0.968 after errors-v11 was tuned on it.
const minIssue25fRho = 0.96

// TestHeldoutIssue25f grades the held-out batch 8, pins its confusion
// counts and its rank correlation, and reports the recall on the responses
// (all, and real only) that offer a next action, retry guidance or closest
// matches.
func TestHeldoutIssue25f(t *testing.T) {
	realBatch(t, heldoutIssue25fFile, "heldout-issue25f", minIssue25fRho, 45, 40)
}

// heldoutIssue25gFile is issue 25's seventh batch (batch 9 of the corpus):
// 43 real answers of eight npm servers no earlier batch used, recorded by
// testdata/errors/record/issue25g.py, and 4 fixtures modelled on the
// background texts' payloads, labelled with hand scores by
// testdata/errors/record/issue25g_label.py and committed (0662e40, merged
// into main 5ef06a3) before errors-v11 was tuned (on batch 8) and before
// the grader ran on it. Measured once under errors-v11 (0.933); from
// errors-v12 on it is a tuning set (TestIssue25gTuningMisses).
const heldoutIssue25gFile = "../testdata/errors/heldout/issue25g.jsonl"

// minIssue25gRho guards the Spearman correlation on batch 9: 0.933 over 47
// responses (0.922 over the 43 real answers) at its one held-out
// measurement under errors-v11 (docs/rubric.md, "Issue 25: errors-v11 and
// a ninth held-out batch"), 0.959 after errors-v12 was tuned on it.
const minIssue25gRho = 0.95

// TestHeldoutIssue25g grades the held-out batch 9, pins its confusion
// counts and its rank correlation, and reports the recall on the responses
// (all, and real only) that offer a next action, retry guidance or closest
// matches.
func TestHeldoutIssue25g(t *testing.T) {
	realBatch(t, heldoutIssue25gFile, "heldout-issue25g", minIssue25gRho, 45, 40)
}

// heldoutIssue25hFile is issue 25's eighth batch (batch 10 of the corpus):
// 42 real answers of nine npm servers no earlier batch used, recorded by
// testdata/errors/record/issue25h.py, and 4 fixtures modelled on the
// background texts' payloads, labelled with hand scores by
// testdata/errors/record/issue25h_label.py and committed (e5bc985, merged
// into main 571883a) before errors-v12 was tuned (on batch 9) and before
// the grader ran on it. Measured once under errors-v12 (0.919); the
// errors-v13 refit of the score formula used it with batches 3 to 9
// (0.936 after it, a tuning figure).
const heldoutIssue25hFile = "../testdata/errors/heldout/issue25h.jsonl"

// minIssue25hRho guards the Spearman correlation of batch 10's one
// measurement, 0.919 over 46 responses (0.899 over the 42 real answers;
// docs/rubric.md, "Issue 25: errors-v12 and a tenth held-out batch"): the
// issue asks 0.95, not reached. The errors-v13 refit of the score formula
// used it with batches 3 to 9: 0.936 (0.920 real), a tuning figure. A later
// change that lowers it shows here.
const minIssue25hRho = 0.93

// TestHeldoutIssue25h grades the held-out batch 10, pins its confusion
// counts and its rank correlation, and reports the recall on the responses
// (all, and real only) that offer a next action, retry guidance or closest
// matches.
func TestHeldoutIssue25h(t *testing.T) {
	realBatch(t, heldoutIssue25hFile, "heldout-issue25h", minIssue25hRho, 45, 40)
}

// heldoutIssue25iFile is issue 25's ninth batch (batch 11 of the corpus):
// 42 real answers of nine npm servers no earlier batch used, recorded by
// testdata/errors/record/issue25i.py, and 4 fixtures modelled on the
// background texts' payloads, labelled with hand scores by
// testdata/errors/record/issue25i_label.py and committed (9510fcc, merged
// into main 3f2b389) before errors-v13 refitted the score formula (on
// batches 3 to 10) and before the grader ran on it. Measured once under
// errors-v13; never tuned on.
const heldoutIssue25iFile = "../testdata/errors/heldout/issue25i.jsonl"

// minIssue25iRho guards the Spearman correlation of batch 11's one
// measurement (docs/rubric.md, "Issue 25: errors-v13, the score formula
// refitted"): 0.953 over 46 responses (0.939 over the 42 real answers);
// errors-v12 gives 0.951 (0.937) on it, computed afterwards for comparison
// only. A later change that lowers it shows here.
const minIssue25iRho = 0.95

// TestHeldoutIssue25i grades the held-out batch 11, pins its confusion
// counts and its rank correlation, and reports the recall on the responses
// (all, and real only) that offer a next action, retry guidance or closest
// matches.
func TestHeldoutIssue25i(t *testing.T) {
	realBatch(t, heldoutIssue25iFile, "heldout-issue25i", minIssue25iRho, 45, 40)
}
