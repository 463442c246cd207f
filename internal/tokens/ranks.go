package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"hash/maphash"
	"strconv"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// rankFile is the embedded o200k_base rank file: one "base64 rank" line a
// token, in rank order.
const rankFile = "o200k_base.tiktoken"

// rankTable maps a token's bytes to its rank without one allocation per
// token: every token's bytes in one array, and an open-addressing hash
// table of rank+1 (0 is an empty slot). Building it takes 70–90 ms on a
// loaded 2-core machine, against 0.35–0.86 s for tiktoken-go's encoder in
// the same run (two 200,000-entry maps and a sort of every token), which
// every probe paid (BenchmarkLoad).
type rankTable struct {
	data  []byte   // the tokens' bytes, in rank order
	start []uint32 // start[r], start[r+1]: token r's bytes in data
	slots []uint32 // rank+1, or 0; len is a power of two
	mask  uint64
	seed  maphash.Seed
}

// loadRanks parses the embedded rank file.
func loadRanks() (*rankTable, error) {
	src, err := assets.Assets.ReadFile(rankFile)
	if err != nil {
		return nil, fmt.Errorf("reading embedded ranks %s: %w", rankFile, err)
	}
	n := bytes.Count(src, []byte{'\n'}) + 1
	t := &rankTable{
		data:  make([]byte, 0, len(src)*3/8),
		start: make([]uint32, 0, n+1),
		seed:  maphash.MakeSeed(),
	}
	size := 1
	for size < 2*n {
		size <<= 1
	}
	t.slots = make([]uint32, size)
	t.mask = uint64(size - 1)
	var buf [256]byte
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 || base64.StdEncoding.DecodedLen(sp) > len(buf) {
			return nil, fmt.Errorf("embedded ranks %s: malformed line %.80q", rankFile, line)
		}
		k, err := base64.StdEncoding.Decode(buf[:], line[:sp])
		if err != nil {
			return nil, fmt.Errorf("embedded ranks %s: %w", rankFile, err)
		}
		rank, err := strconv.Atoi(string(line[sp+1:]))
		if err != nil || rank != len(t.start) {
			// The table relies on the file listing ranks 0, 1, 2, … in order.
			return nil, fmt.Errorf("embedded ranks %s: rank %q where %d was expected", rankFile, line[sp+1:], len(t.start))
		}
		t.start = append(t.start, uint32(len(t.data)))
		t.data = append(t.data, buf[:k]...)
		h := maphash.Bytes(t.seed, buf[:k]) & t.mask
		for t.slots[h] != 0 {
			h = (h + 1) & t.mask
		}
		t.slots[h] = uint32(rank + 1)
	}
	t.start = append(t.start, uint32(len(t.data)))
	return t, nil
}

// token returns rank r's bytes.
func (t *rankTable) token(r uint32) []byte { return t.data[t.start[r]:t.start[r+1]] }

// rank returns b's rank, or -1 when b is not a token.
func (t *rankTable) rank(b []byte) int {
	h := maphash.Bytes(t.seed, b) & t.mask
	for {
		s := t.slots[h]
		if s == 0 {
			return -1
		}
		if bytes.Equal(t.token(s-1), b) {
			return int(s - 1)
		}
		h = (h + 1) & t.mask
	}
}

// len is the number of ranks.
func (t *rankTable) len() int { return len(t.start) - 1 }
