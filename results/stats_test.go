package results_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/results"
)

func TestWilson(t *testing.T) {
	// Expected bounds: Newcombe (1998), "Two-sided confidence intervals for
	// the single proportion", Statistics in Medicine 17:857-872, table II,
	// method 3 (score interval without continuity correction), plus
	// closed forms at the edges: for k = 0 the upper bound is z²/(n+z²).
	tests := []struct {
		name   string
		k, n   int
		lo, hi float64
	}{
		{"newcombe 81/263", 81, 263, 0.2553, 0.3662},
		{"newcombe 15/148", 15, 148, 0.0624, 0.1605},
		{"newcombe 0/20", 0, 20, 0, 0.1611},
		{"newcombe 1/29", 1, 29, 0.0061, 0.1718},
		{"census 195/400", 195, 400, 0.4389, 0.5364},
		{"zero of 2766 tools", 0, 2766, 0, z95sq() / (2766 + z95sq())},
		{"all of 10", 10, 10, 0.7225, 1},
		{"zero of 10", 0, 10, 0, z95sq() / (10 + z95sq())},
		{"one of one", 1, 1, 0.2065, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := results.Wilson(tt.k, tt.n, results.Z95)
			if math.Abs(lo-tt.lo) > 5e-5 || math.Abs(hi-tt.hi) > 5e-5 {
				t.Errorf("Wilson(%d, %d) = [%.5f, %.5f], want [%.4f, %.4f]", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
			}
			if lo < 0 || hi > 1 || lo > hi {
				t.Errorf("Wilson(%d, %d) = [%v, %v] is not inside [0, 1]", tt.k, tt.n, lo, hi)
			}
			if p := float64(tt.k) / float64(tt.n); p < lo || p > hi {
				t.Errorf("Wilson(%d, %d) = [%v, %v] does not contain %v", tt.k, tt.n, lo, hi, p)
			}
		})
	}
	for _, bad := range [][2]int{{0, 0}, {1, 0}, {-1, 5}, {6, 5}} {
		if lo, hi := results.Wilson(bad[0], bad[1], results.Z95); !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("Wilson(%d, %d) = [%v, %v], want NaN", bad[0], bad[1], lo, hi)
		}
	}
}

func z95sq() float64 { return results.Z95 * results.Z95 }

func TestProportion(t *testing.T) {
	tests := []struct {
		name             string
		k, n             int
		str, pct, ci, js string
	}{
		{"census", 195, 400, "195 of 400 (48.8%, 95% CI 43.9–53.6%)", "48.8%", "43.9–53.6%",
			`{"count":195,"total":400,"rate":0.4875,"ci95":[0.438869,0.536369]}`},
		{"zero", 0, 2766, "0 of 2766 (0.0%, 95% CI 0.0–0.1%)", "0.0%", "0.0–0.1%",
			`{"count":0,"total":2766,"rate":0,"ci95":[0,0.001387]}`},
		{"no denominator", 0, 0, "0 of 0 (n/a)", "n/a", "n/a", `{"count":0,"total":0,"rate":null,"ci95":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := results.Prop(tt.k, tt.n)
			js, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			got := [4]string{p.String(), p.Percent(), p.CI(), string(js)}
			want := [4]string{tt.str, tt.pct, tt.ci, tt.js}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Prop(%d, %d) (-want +got):\n%s", tt.k, tt.n, diff)
			}
			var back results.Proportion
			if err := json.Unmarshal(js, &back); err != nil {
				t.Fatal(err)
			}
			if back.Count != tt.k || back.Total != tt.n || back.Defined() != p.Defined() {
				t.Errorf("round trip of %s = %+v", js, back)
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		q      float64
		want   float64
	}{
		{"median of even", []float64{1, 2, 3, 4}, 0.5, 2.5},
		{"p90 interpolates", []float64{1, 2, 3, 4}, 0.9, 3.7},
		{"median of odd", []float64{1, 5, 9}, 0.5, 5},
		{"p90 of ten", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9, 9.1},
		{"single", []float64{7}, 0.9, 7},
		{"min", []float64{1, 2}, 0, 1},
		{"max", []float64{1, 2}, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := results.Quantile(tt.values, tt.q); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Quantile(%v, %v) = %v, want %v", tt.values, tt.q, got, tt.want)
			}
		})
	}
	if got := results.Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile(nil) = %v, want NaN", got)
	}
}

func TestDescribe(t *testing.T) {
	in := []float64{3, 1, 2, 2}
	d := results.Describe(in)
	want := results.Distribution{N: 4, Sum: 8, Mean: 2, Median: 2, P10: 1.3, P90: 2.7, Min: 1, Max: 3}
	if diff := cmp.Diff(want, d, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
	if in[0] != 3 {
		t.Errorf("Describe sorted its input: %v", in)
	}
	js, _ := json.Marshal(results.Describe(nil))
	if want := `{"n":0,"sum":0,"mean":null,"median":null,"p10":null,"p90":null,"min":null,"max":null}`; string(js) != want {
		t.Errorf("Describe(nil) JSON = %s, want %s", js, want)
	}
}

func TestDeciles(t *testing.T) {
	got := results.Deciles([]float64{0, 9.99, 10, 55, 99.9, 100, -3, 140})
	want := [10]int{3, 1, 0, 0, 0, 1, 0, 0, 0, 3}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Deciles (-want +got):\n%s", diff)
	}
}
