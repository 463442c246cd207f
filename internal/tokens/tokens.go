// Package tokens counts the tokens a model pays for a text, offline: the
// o200k_base encoding (GPT-4o and later), with its BPE ranks read from the
// copy embedded in the binary (github.com/pkoukk/tiktoken-go-loader), so
// no count ever downloads anything. The encoder is tiktoken's (the
// pre-split regexp, then byte-pair merges by rank) over a flat rank table
// built in tens of milliseconds; its counts equal js-tiktoken's and
// github.com/pkoukk/tiktoken-go's (the tests compare both).
//
// Counts are of ordinary text: special-token strings such as
// "<|endoftext|>" in a server's output are counted as the text they are,
// never as control tokens.
//
// Count is safe for concurrent use. The ranks (about 200,000) are parsed
// once, on first use or by [Warm].
package tokens

import (
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// Encoding names the encoding every count uses; outputs say it with each
// figure.
const Encoding = "o200k_base"

// MaxExact is the longest text counted token by token; the rest of a
// longer text is estimated at the rate of the counted part (the encoder is
// a backtracking regexp: a hostile 100 MB description must not cost
// minutes).
const MaxExact = 1 << 20

// pattern is o200k_base's pre-split regexp (tiktoken's, as tiktoken-go
// and js-tiktoken have it): a text is cut into pieces, and each piece is
// merged into tokens on its own.
var pattern = strings.Join([]string{
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`\p{N}{1,3}`,
	` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
	`\s*[\r\n]+`,
	`\s+(?!\S)`,
	`\s+`,
}, "|")

// bpe is the o200k_base encoder: the pre-split regexp and the ranks.
type bpe struct {
	split *regexp2.Regexp
	ranks *rankTable
}

var encoder = sync.OnceValues(func() (*bpe, error) {
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, err
	}
	ranks, err := loadRanks()
	if err != nil {
		return nil, err
	}
	return &bpe{split: re, ranks: ranks}, nil
})

// count returns the number of tokens of s, special-token strings counted
// as ordinary text. Like tiktoken-go, it splits the text's runes (an
// invalid UTF-8 byte is U+FFFD).
func (e *bpe) count(s string) int {
	if isASCII(s) {
		n := 0
		var piece []byte
		asciiSplit(s, func(p string) {
			piece = append(piece[:0], p...)
			n += e.pieceTokens(piece)
		})
		return n
	}
	return e.countRegexp(s)
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// countRegexp is count through the pre-split regexp.
func (e *bpe) countRegexp(s string) int {
	runes := []rune(s)
	n := 0
	var piece []byte
	m, _ := e.split.FindRunesMatch(runes)
	for m != nil {
		piece = piece[:0]
		for _, r := range runes[m.Index : m.Index+m.Length] {
			piece = utf8.AppendRune(piece, r)
		}
		n += e.pieceTokens(piece)
		m, _ = e.split.FindNextMatch(m)
	}
	return n
}

// pieceTokens merges one piece by byte-pair ranks and returns how many
// tokens it ends as: tiktoken's merge, lowest rank first, leftmost on a
// tie.
func (e *bpe) pieceTokens(piece []byte) int {
	if len(piece) <= 1 || e.ranks.rank(piece) >= 0 {
		return 1
	}
	const none = math.MaxInt
	type part struct{ start, rank int }
	parts := make([]part, len(piece)+1)
	rankAt := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r := e.ranks.rank(piece[parts[i].start:parts[i+skip+2].start]); r >= 0 {
				return r
			}
		}
		return none
	}
	for i := range parts {
		parts[i] = part{i, none}
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rankAt(i, 0)
	}
	for len(parts) > 1 {
		minRank, minIdx := none, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < minRank {
				minRank, minIdx = parts[i].rank, i
			}
		}
		if minIdx < 0 {
			break
		}
		parts[minIdx].rank = rankAt(minIdx, 1)
		if minIdx > 0 {
			parts[minIdx-1].rank = rankAt(minIdx-1, 1)
		}
		parts = append(parts[:minIdx+1], parts[minIdx+2:]...)
	}
	return len(parts) - 1
}

// Warm parses the ranks now (in the background of a probe, say) so the
// first [Count] does not pay for it.
func Warm() { _, _ = encoder() }

// Count returns the number of o200k_base tokens of s. A text longer than
// [MaxExact] bytes is counted exactly up to there and estimated beyond, and
// a run of more than [MaxRun] bytes of one character class (letters, digits,
// spaces or other) is counted on its first MaxRun bytes and estimated
// beyond; either way estimated is true. Ordinary text never has such runs
// and is counted exactly.
func Count(s string) (n int, estimated bool) {
	if s == "" {
		return 0, false
	}
	enc, err := encoder()
	if err != nil {
		// The ranks are compiled in; this cannot happen in a built
		// binary. Fall back to the usual four bytes a token.
		return (len(s) + 3) / 4, true
	}
	if len(s) <= MaxExact {
		return countRuns(enc, s)
	}
	cut := MaxExact
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	head, _ := countRuns(enc, s[:cut])
	return head + int(float64(head)*float64(len(s)-cut)/float64(cut)+0.5), true
}

// MaxRun is the longest run of one character class encoded as it is. The
// encoder merges pairs within one regexp piece in time quadratic in its
// length: a 1 MiB run of one letter took minutes. Runs this long occur in
// padding and attacks, not in text a model is meant to read.
const MaxRun = 256

// maxRunsCounted bounds how many long runs are sampled; the others are
// estimated at the sampled runs' rate.
const maxRunsCounted = 16

// countRuns counts s exactly unless it holds runs longer than MaxRun; the
// text between such runs is counted exactly, and each run at the rate of
// its first MaxRun bytes.
func countRuns(enc *bpe, s string) (int, bool) {
	runs := longRuns(s)
	if len(runs) == 0 {
		return enc.count(s), false
	}
	total, prev := 0, 0
	sampledTokens, sampledBytes := 0, 0
	for i, r := range runs {
		if r[0] > prev {
			total += enc.count(s[prev:r[0]])
		}
		run := s[r[0]:r[1]]
		if i < maxRunsCounted {
			head := MaxRun
			for head > 0 && run[head]&0xC0 == 0x80 {
				head--
			}
			k := enc.count(run[:head])
			sampledTokens += k
			sampledBytes += head
			total += int(float64(k)*float64(len(run))/float64(head) + 0.5)
		} else {
			total += int(float64(sampledTokens)*float64(len(run))/float64(sampledBytes) + 0.5)
		}
		prev = r[1]
	}
	if prev < len(s) {
		total += enc.count(s[prev:])
	}
	return total, true
}

// longRuns returns the [start, end) byte offsets of the runs of one
// character class longer than MaxRun.
func longRuns(s string) [][2]int {
	var runs [][2]int
	start, class := 0, -1
	for i, r := range s {
		c := classOf(r)
		if c != class {
			if i-start > MaxRun {
				runs = append(runs, [2]int{start, i})
			}
			start, class = i, c
		}
	}
	if len(s)-start > MaxRun {
		runs = append(runs, [2]int{start, len(s)})
	}
	return runs
}

// classOf sorts a rune into the classes the encoder's pre-split regexp
// separates: letters and marks, digits, white space, everything else.
func classOf(r rune) int {
	switch {
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return 0
	case unicode.IsDigit(r) || unicode.IsNumber(r):
		return 1
	case unicode.IsSpace(r):
		return 2
	}
	return 3
}
