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
