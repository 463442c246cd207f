package tokens

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestCountMatchesJSTiktoken compares Count with js-tiktoken 1.0.21's
// o200k_base on the same texts: plain and Unicode text, special-token
// strings, the background text's unknown_project payload, and every tool
// definition (and the whole tools/list) of
// @modelcontextprotocol/server-everything@2026.1.26 as it sent them. The
// counts were written by
//
//	npm install js-tiktoken@1.0.21
//	node -e 'enc = new Tiktoken(o200k_base); enc.encode(text, [], []).length'
//
// (testdata/README.md has the script).
func TestCountMatchesJSTiktoken(t *testing.T) {
	b, err := os.ReadFile("testdata/js-tiktoken-o200k.json")
	if err != nil {
		t.Fatal(err)
	}
	var known []struct {
		Text   string `json:"text"`
		Tokens int    `json:"tokens"`
	}
	if err := json.Unmarshal(b, &known); err != nil {
		t.Fatal(err)
	}
	if len(known) < 20 {
		t.Fatalf("%d known counts, want the whole file", len(known))
	}
	for _, k := range known {
		got, est := Count(k.Text)
		if got != k.Tokens || est {
			name := k.Text
			if len(name) > 60 {
				name = name[:60] + "…"
			}
			t.Errorf("Count(%q) = %d (estimated %v), js-tiktoken says %d", name, got, est, k.Tokens)
		}
	}
}

// TestCountLongTextEstimated: past MaxExact the count is estimated from the
// counted part, and says so.
func TestCountLongTextEstimated(t *testing.T) {
	unit := "the quick brown fox jumps over the lazy dog. "
	s := strings.Repeat(unit, 2*MaxExact/len(unit))
	n, est := Count(s)
	if !est {
		t.Fatal("a text twice MaxExact is not marked estimated")
	}
	ten, _ := Count(strings.Repeat(unit, 10))
	want := ten * (len(s) / len(unit)) / 10
	if n < want*95/100 || n > want*105/100 {
		t.Errorf("Count = %d, want about %d", n, want)
	}
}

// TestCountLongRunBounded: a run of one letter, the padding of a hostile
// listing, is counted on its head and estimated, in bounded time; the
// same text cut into words is counted exactly.
func TestCountLongRunBounded(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("x", 9<<20),
		strings.Repeat("=", MaxExact),
		strings.Repeat("ab"+strings.Repeat("q", 4*MaxRun)+" ", 200),
	} {
		n, est := Count(s)
		if !est {
			t.Errorf("a text with a run of %d bytes is not marked estimated", len(s))
		}
		if n <= 0 || n > len(s) {
			t.Errorf("Count of a %d-byte run = %d", len(s), n)
		}
	}
	words := strings.Repeat("padding ", MaxExact/8)
	if _, est := Count(words); est {
		t.Error("ordinary words are marked estimated")
	}
}

// BenchmarkCountRun is the case that stalled a scan test past 30 minutes:
// a 9 MiB description of one letter.
func BenchmarkCountRun(b *testing.B) {
	s := strings.Repeat("x", 9<<20)
	Warm()
	for b.Loop() {
		Count(s)
	}
}
