package scoring

import "testing"

// TestGuardHit: a guard runs its regexp when one of its hints occurs (a
// hint of one byte, which the index cannot hold, or of two or more), and
// a guard without hints always runs it (the mutant `len(g.hints) == 0` ->
// `!= 0` at the end of hit lived through the whole suite, since every
// guard of the rubric has hints).
func TestGuardHit(t *testing.T) {
	bare := guard(`\d+ ms`)
	hinted := guard(`(x|ab)\d`, "x", "ab")
	for _, tt := range []struct {
		g    guarded
		s    string
		want bool
	}{
		{bare, "", true},
		{bare, "took 12 ms", true},
		{hinted, "zzz", false},
		{hinted, "x1", true},
		{hinted, "an ab3", true},
		{hinted, "a b", false},
	} {
		if got := tt.g.hit(tt.s, hintMask(tt.s)); got != tt.want {
			t.Errorf("guard %q hints %q: hit(%q) = %v, want %v", tt.g.re, tt.g.hints, tt.s, got, tt.want)
		}
	}
	if nGuards > maxGuards {
		t.Fatalf("%d guards, the mask holds %d", nGuards, maxGuards)
	}
}
