package tokens

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
)

// tiktokenGoLoader gives github.com/pkoukk/tiktoken-go tiktoken-go-loader's
// rank file, read apart from the embedded table, so the comparison
// downloads nothing and shares nothing with the encoder but that file.
type tiktokenGoLoader struct{}

func (tiktokenGoLoader) LoadTiktokenBpe(string) (map[string]int, error) {
	tokens, err := parseRankFile()
	if err != nil {
		return nil, err
	}
	m := make(map[string]int, len(tokens))
	for r, tok := range tokens {
		m[string(tok)] = r
	}
	return m, nil
}

// randomText mixes what the pre-split regexp tells apart: cased letters,
// contractions, digits, spaces and line breaks, punctuation and slashes,
// CJK, marks, emoji, and invalid UTF-8.
func randomText(r *rand.Rand) string {
	atoms := []string{"a", "Z", "é", "ß", "İ", "'s", "'LL", "'d", "0", "42", "1234567",
		" ", "  ", "\t", "\n", "\r\n", "\n\n ", ".", "/", ",", "{\"", "\":", "}", "//",
		"中文", "日本語の", "ё", "\u0301", "🙂", "👩‍💻", "\xff", "\xe2\x82", "<|endoftext|>",
		"the", " quick", "Brown", "FOX", "jumps", "_id", "camelCase", "snake_case", "https://x.test/a?b=c"}
	var b strings.Builder
	for n := r.IntN(40); n >= 0; n-- {
		b.WriteString(atoms[r.IntN(len(atoms))])
	}
	return b.String()
}

// TestCountMatchesTiktokenGo compares the encoder with a second
// implementation, github.com/pkoukk/tiktoken-go v0.1.8 (maps and its own
// merge) over the same ranks, on every line of the error corpus
// (testdata/errors, files under 50 kB: about 250 kB of responses,
// fixtures and real servers' listings) and 1,000 random mixes of the classes the pre-split
// regexp separates.
func TestCountMatchesTiktokenGo(t *testing.T) {
	tiktoken.SetBpeLoader(tiktokenGoLoader{})
	other, err := tiktoken.GetEncoding(Encoding)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	err = filepath.WalkDir("../../testdata/errors", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl")) {
			return err
		}
		if info, err := d.Info(); err != nil || info.Size() > 50_000 {
			return err // the 0.5 MB census files would take seconds
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		texts = append(texts, strings.Split(string(b), "\n")...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) < 500 {
		t.Fatalf("%d corpus lines, want the whole error corpus", len(texts))
	}
	r := rand.New(rand.NewPCG(25, 1))
	for range 1000 {
		texts = append(texts, randomText(r))
	}
	enc, err := encoder()
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, s := range texts {
		if got, want := enc.count(s), len(other.EncodeOrdinary(s)); got != want {
			if bad++; bad <= 5 {
				t.Errorf("count(%.80q) = %d, tiktoken-go says %d", s, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d texts differ", bad, len(texts))
	}
}

// BenchmarkLoad compares loading the embedded rank table with parsing the
// rank file into it and with building tiktoken-go's encoder from the file.
func BenchmarkLoad(b *testing.B) {
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			if _, err := loadRanks(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		// What each run did before the table was embedded: parse the
		// rank file and build the table.
		for b.Loop() {
			tokens, err := parseRankFile()
			if err != nil {
				b.Fatal(err)
			}
			buildRankBlob(tokens)
		}
	})
	b.Run("tiktoken-go", func(b *testing.B) {
		for b.Loop() {
			m, _ := tiktokenGoLoader{}.LoadTiktokenBpe("")
			if _, err := tiktoken.NewCoreBPE(m, map[string]int{"<|endoftext|>": 199999}, pattern); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestASCIISplitMatchesRegexp compares the hand-written ASCII pre-split
// with the regexp's pieces on ASCII mixes of every class boundary:
// contractions in both cases, runs of spaces before words, punctuation and
// line breaks, digits, slashes and tabs.
func TestASCIISplitMatchesRegexp(t *testing.T) {
	enc, err := encoder()
	if err != nil {
		t.Fatal(err)
	}
	atoms := []string{"a", "Z", "ab", "AB", "Ab", "aB", "'s", "'S", "'re", "'RE", "'ll", "'d", "'x", "'", "0", "42", "12345",
		" ", "  ", "   ", "\t", "\n", "\r\n", "\n\n", " \n ", "\v", "\f", ".", "/", "//", ",", "{\"", "\":", "}", "(", "-", "_",
		"the", " quick", "Brown", "FOX", "snake_case", "camelCase", "https://x.test/a?b=c", "e.g.", "don't", "I'M"}
	r := rand.New(rand.NewPCG(25, 2))
	for range 3000 {
		var b strings.Builder
		for n := r.IntN(30); n >= 0; n-- {
			b.WriteString(atoms[r.IntN(len(atoms))])
		}
		s := b.String()
		var got []string
		asciiSplit(s, func(p string) { got = append(got, p) })
		var want []string
		runes := []rune(s)
		m, _ := enc.split.FindRunesMatch(runes)
		for m != nil {
			want = append(want, string(runes[m.Index:m.Index+m.Length]))
			m, _ = enc.split.FindNextMatch(m)
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("%q: split %q, the regexp %q", s, got, want)
		}
	}
}
