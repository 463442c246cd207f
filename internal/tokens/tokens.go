// Package tokens counts the tokens a model pays for a text, offline: the
// o200k_base encoding (GPT-4o and later) of
// github.com/pkoukk/tiktoken-go, with its BPE ranks read from the copy
// embedded in the binary (github.com/pkoukk/tiktoken-go-loader), so no
// count ever downloads anything.
//
// Counts are of ordinary text: special-token strings such as
// "<|endoftext|>" in a server's output are counted as the text they are,
// never as control tokens.
//
// Count is safe for concurrent use. The ranks (about 200,000) are parsed
// once, on first use or by [Warm].
package tokens

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"path"
	"strconv"
	"sync"
	"unicode"

	"github.com/pkoukk/tiktoken-go"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// Encoding names the encoding every count uses; outputs say it with each
// figure.
const Encoding = "o200k_base"

// MaxExact is the longest text counted token by token; the rest of a
// longer text is estimated at the rate of the counted part (the encoder is
// a backtracking regexp: a hostile 100 MB description must not cost
// minutes).
const MaxExact = 1 << 20

// embeddedLoader reads BPE ranks from the embedded files.
type embeddedLoader struct{}

func (embeddedLoader) LoadTiktokenBpe(file string) (map[string]int, error) {
	data, err := assets.Assets.ReadFile(path.Base(file))
	if err != nil {
		return nil, fmt.Errorf("reading embedded ranks %s: %w", path.Base(file), err)
	}
	ranks := make(map[string]int, 200_100)
	sc := bufio.NewScanner(bytes.NewReader(data))
	buf := make([]byte, 0, 256)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("embedded ranks %s: malformed line %q", path.Base(file), line)
		}
		buf = buf[:base64.StdEncoding.DecodedLen(sp)]
		n, err := base64.StdEncoding.Decode(buf, line[:sp])
		if err != nil {
			return nil, fmt.Errorf("embedded ranks %s: %w", path.Base(file), err)
		}
		rank, err := strconv.Atoi(string(line[sp+1:]))
		if err != nil {
			return nil, fmt.Errorf("embedded ranks %s: %w", path.Base(file), err)
		}
		ranks[string(buf[:n])] = rank
	}
	return ranks, sc.Err()
}

var encoder = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(embeddedLoader{})
	return tiktoken.GetEncoding(Encoding)
})

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
func countRuns(enc *tiktoken.Tiktoken, s string) (int, bool) {
	runs := longRuns(s)
	if len(runs) == 0 {
		return len(enc.EncodeOrdinary(s)), false
	}
	total, prev := 0, 0
	sampledTokens, sampledBytes := 0, 0
	for i, r := range runs {
		if r[0] > prev {
			total += len(enc.EncodeOrdinary(s[prev:r[0]]))
		}
		run := s[r[0]:r[1]]
		if i < maxRunsCounted {
			head := MaxRun
			for head > 0 && run[head]&0xC0 == 0x80 {
				head--
			}
			k := len(enc.EncodeOrdinary(run[:head]))
			sampledTokens += k
			sampledBytes += head
			total += int(float64(k)*float64(len(run))/float64(head) + 0.5)
		} else {
			total += int(float64(sampledTokens)*float64(len(run))/float64(sampledBytes) + 0.5)
		}
		prev = r[1]
	}
	if prev < len(s) {
		total += len(enc.EncodeOrdinary(s[prev:]))
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
