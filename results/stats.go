package results

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// Z95 is the standard normal quantile of a two-sided 95% interval.
const Z95 = 1.959963984540054

// Wilson returns the Wilson score interval of k successes in n trials at
// normal quantile z (use [Z95] for 95%). Unlike the normal approximation
// it stays inside [0, 1] and is informative at k = 0 and k = n, which
// census figures often are ("zero fatal violations across 2,766 tools").
// n <= 0 has no interval: both bounds are NaN.
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n <= 0 || k < 0 || k > n {
		return math.NaN(), math.NaN()
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = center-half, center+half
	// The bounds are exactly 0 at k = 0 and 1 at k = n; rounding must not
	// push them past.
	if k == 0 || lo < 0 {
		lo = 0
	}
	if k == n || hi > 1 {
		hi = 1
	}
	return lo, hi
}

// A Proportion is a census figure stated the way the literature states
// it: a count, its denominator, the rate and its 95% Wilson interval.
// Rate, Low and High are NaN when Total is 0.
type Proportion struct {
	Count int
	Total int
	Rate  float64
	Low   float64
	High  float64
	// Exact marks a figure of a complete census: there is no sampling
	// error, so it has no interval (CI is "", the JSON ci95 is null).
	Exact bool
}

// Prop returns k of n with its 95% Wilson interval.
func Prop(k, n int) Proportion {
	p := Proportion{Count: k, Total: n, Rate: math.NaN()}
	if n > 0 {
		p.Rate = float64(k) / float64(n)
	}
	p.Low, p.High = Wilson(k, n, Z95)
	return p
}

// Defined reports whether the proportion has a denominator.
func (p Proportion) Defined() bool { return p.Total > 0 }

// Percent formats the rate as "48.8%", or "n/a" without a denominator.
func (p Proportion) Percent() string {
	if !p.Defined() {
		return "n/a"
	}
	return fmtPct(p.Rate)
}

// CI formats the 95% interval as "43.9–53.6%", or "n/a".
func (p Proportion) CI() string {
	if p.Exact {
		return ""
	}
	if !p.Defined() || math.IsNaN(p.Low) {
		return "n/a"
	}
	return fmt.Sprintf("%s–%s", fmtPctNumber(p.Low), fmtPct(p.High))
}

// String formats the proportion as the literature does:
// "195 of 400 (48.8%, 95% CI 43.9–53.6%)".
func (p Proportion) String() string {
	if !p.Defined() {
		return fmt.Sprintf("%d of 0 (n/a)", p.Count)
	}
	if p.Exact {
		return fmt.Sprintf("%d of %d (%s)", p.Count, p.Total, p.Percent())
	}
	return fmt.Sprintf("%d of %d (%s, 95%% CI %s)", p.Count, p.Total, p.Percent(), p.CI())
}

func fmtPct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func fmtPctNumber(x float64) string { return fmt.Sprintf("%.1f", 100*x) }

// proportionJSON is the JSON form of a Proportion (docs/report-schema.md).
type proportionJSON struct {
	Count int         `json:"count"`
	Total int         `json:"total"`
	Rate  *float64    `json:"rate"`
	CI95  *[2]float64 `json:"ci95"`
}

// MarshalJSON encodes {"count","total","rate","ci95":[low,high]}, with
// null rate and interval when Total is 0. Rates are rounded to six
// decimals so reports are stable across platforms.
func (p Proportion) MarshalJSON() ([]byte, error) {
	j := proportionJSON{Count: p.Count, Total: p.Total}
	if p.Defined() {
		r := round6(p.Rate)
		j.Rate = &r
		if !p.Exact && !math.IsNaN(p.Low) {
			j.CI95 = &[2]float64{round6(p.Low), round6(p.High)}
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (p *Proportion) UnmarshalJSON(b []byte) error {
	var j proportionJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = Proportion{Count: j.Count, Total: j.Total, Rate: math.NaN(), Low: math.NaN(), High: math.NaN()}
	if j.Rate != nil {
		p.Rate = *j.Rate
	}
	if j.CI95 != nil {
		p.Low, p.High = j.CI95[0], j.CI95[1]
	}
	return nil
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// Quantile returns the q-quantile (0 <= q <= 1) of sorted values by
// linear interpolation between closest ranks (Hyndman and Fan type 7, the
// default of R and NumPy): the median of 1, 2, 3, 4 is 2.5 and its p90 is
// 3.7. It returns NaN for no values.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if q <= 0 {
		return sorted[0]
	}
	if q >= 1 {
		return sorted[n-1]
	}
	h := q * float64(n-1)
	i := int(math.Floor(h))
	if i+1 >= n {
		return sorted[n-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// A Distribution summarises a sample. Its float fields are NaN when N is
// 0 (JSON null).
type Distribution struct {
	N      int
	Sum    float64
	Mean   float64
	Median float64
	P10    float64
	P90    float64
	Min    float64
	Max    float64
}

// Describe summarises values; it sorts a copy, so values is unchanged.
func Describe(values []float64) Distribution {
	d := Distribution{N: len(values)}
	nan := math.NaN()
	if d.N == 0 {
		d.Mean, d.Median, d.P10, d.P90, d.Min, d.Max = nan, nan, nan, nan, nan, nan
		return d
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	for _, v := range s {
		d.Sum += v
	}
	d.Mean = d.Sum / float64(d.N)
	d.Median = Quantile(s, 0.5)
	d.P10 = Quantile(s, 0.1)
	d.P90 = Quantile(s, 0.9)
	d.Min, d.Max = s[0], s[d.N-1]
	return d
}

type distributionJSON struct {
	N      int      `json:"n"`
	Sum    float64  `json:"sum"`
	Mean   *float64 `json:"mean"`
	Median *float64 `json:"median"`
	P10    *float64 `json:"p10"`
	P90    *float64 `json:"p90"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
}

// MarshalJSON encodes the summary with null statistics for no values.
func (d Distribution) MarshalJSON() ([]byte, error) {
	f := func(x float64) *float64 {
		if math.IsNaN(x) {
			return nil
		}
		r := round6(x)
		return &r
	}
	return json.Marshal(distributionJSON{N: d.N, Sum: round6(d.Sum), Mean: f(d.Mean), Median: f(d.Median),
		P10: f(d.P10), P90: f(d.P90), Min: f(d.Min), Max: f(d.Max)})
}

// Deciles counts scores (0-100) in ten bins [0,10), [10,20), ...,
// [90,100]; 100 falls in the last bin and values outside 0-100 are
// clamped into the end bins.
func Deciles(scores []float64) [10]int {
	var bins [10]int
	for _, s := range scores {
		bins[decileIndex(s)]++
	}
	return bins
}

func decileIndex(s float64) int {
	i := int(math.Floor(s / 10))
	if math.IsNaN(s) || i < 0 {
		return 0
	}
	if i > 9 {
		return 9
	}
	return i
}
