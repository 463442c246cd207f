package scoring

import (
	"math"
	"slices"
	"strings"
)

// KindScore is the mean score of one probe kind.
type KindScore struct {
	Kind  string  `json:"kind"`
	Score float64 `json:"score"`
	// N is the number of responses of this kind.
	N int `json:"n"`
}

// ScoresByKind returns the mean score of each probe kind, sorted by kind,
// rounded to one decimal.
func ScoresByKind(graded []Graded) []KindScore {
	ks := kindMeans(graded)
	for i := range ks {
		ks[i].Score = round1(ks[i].Score)
	}
	return ks
}

func kindMeans(graded []Graded) []KindScore {
	sum := map[string]float64{}
	n := map[string]int{}
	for _, g := range graded {
		sum[g.Kind] += g.Score
		n[g.Kind]++
	}
	out := make([]KindScore, 0, len(n))
	for k, c := range n {
		out = append(out, KindScore{Kind: k, Score: sum[k] / float64(c), N: c})
	}
	slices.SortFunc(out, func(a, b KindScore) int { return strings.Compare(a.Kind, b.Kind) })
	return out
}

// ServerScore is a server's actionability score: the mean over probe kinds
// of the mean score of that kind's responses, so forty wrong_type probes do
// not drown one unknown_tool probe (a per-kind average, like a per-code
// recovery rate, cannot be moved by changing the mix). It is nil when no
// response was graded.
func ServerScore(graded []Graded) *float64 {
	ks := kindMeans(graded)
	if len(ks) == 0 {
		return nil
	}
	var sum float64
	for _, k := range ks {
		sum += k.Score
	}
	s := round1(sum / float64(len(ks)))
	return &s
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
