package tokens

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
)

// rankBlob is the o200k_base rank table, built from the rank file of
// github.com/pkoukk/tiktoken-go-loader (o200k_base.tiktoken: one "base64
// rank" line a token, in rank order) by TestRankBlobCurrent, which
// rewrites it with -update and fails when it differs from what that file
// gives. The table is used where it lies in the binary: nothing is parsed,
// allocated or hashed to load it. Parsing the 200,000 lines on each run
// took 40–90 ms of CPU, in every probe, while the server started
// (BenchmarkLoad).
//
// Layout, little-endian: the magic "o200kR1\n"; uint32 n (ranks), data
// length, slot bits; start offsets (n+1 uint32: token r's bytes are
// data[start[r]:start[r+1]]); an open-addressing hash table of 1<<bits
// uint32 slots holding rank+1 or 0 (empty), indexed by FNV-1a 64 of the
// token's bytes, probed linearly; then the tokens' bytes in rank order.
//
//go:embed o200k_base.ranks
var rankBlob []byte

const rankMagic = "o200kR1\n"

// rankTable maps a token's bytes to its rank and back, over rankBlob.
type rankTable struct {
	start []byte // n+1 uint32
	slots []byte // 1<<bits uint32
	data  []byte
	n     int
	mask  uint64
}

// loadRanks checks rankBlob's header and sizes and returns the table over
// it.
func loadRanks() (*rankTable, error) { return ranksFrom(rankBlob) }

func ranksFrom(b []byte) (*rankTable, error) {
	const head = len(rankMagic) + 12
	if len(b) < head || string(b[:len(rankMagic)]) != rankMagic {
		return nil, errors.New("embedded o200k_base rank table: bad header")
	}
	n := uint64(binary.LittleEndian.Uint32(b[8:]))
	dataLen := uint64(binary.LittleEndian.Uint32(b[12:]))
	bits := binary.LittleEndian.Uint32(b[16:])
	if bits > 30 || n == 0 {
		return nil, errors.New("embedded o200k_base rank table: bad sizes")
	}
	slots := uint64(1) << bits
	if uint64(len(b)) != uint64(head)+4*(n+1)+4*slots+dataLen {
		return nil, errors.New("embedded o200k_base rank table: truncated")
	}
	startEnd := uint64(head) + 4*(n+1)
	slotEnd := startEnd + 4*slots
	t := &rankTable{start: b[head:startEnd], slots: b[startEnd:slotEnd], data: b[slotEnd:], n: int(n), mask: slots - 1}
	if uint64(t.offset(uint32(n))) != dataLen {
		return nil, errors.New("embedded o200k_base rank table: bad offsets")
	}
	return t, nil
}

func (t *rankTable) offset(r uint32) uint32 { return binary.LittleEndian.Uint32(t.start[4*r:]) }

// token returns rank r's bytes.
func (t *rankTable) token(r uint32) []byte { return t.data[t.offset(r):t.offset(r+1)] }

// rank returns b's rank, or -1 when b is not a token.
func (t *rankTable) rank(b []byte) int {
	h := fnv1a(b) & t.mask
	for {
		s := binary.LittleEndian.Uint32(t.slots[4*h:])
		if s == 0 {
			return -1
		}
		if s <= uint32(t.n) && bytes.Equal(t.token(s-1), b) {
			return int(s - 1)
		}
		h = (h + 1) & t.mask
	}
}

// len is the number of ranks.
func (t *rankTable) len() int { return t.n }

// fnv1a is FNV-1a 64 of b.
func fnv1a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}
