package tokens

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

var update = flag.Bool("update", false, "rewrite o200k_base.ranks from the tiktoken-go-loader rank file")

// rankFile is tiktoken-go-loader's embedded o200k_base rank file.
const rankFile = "o200k_base.tiktoken"

// parseRankFile reads tiktoken-go-loader's rank file: each token's bytes,
// in rank order (the file lists ranks 0, 1, 2, ... in order).
func parseRankFile() ([][]byte, error) {
	src, err := assets.Assets.ReadFile(rankFile)
	if err != nil {
		return nil, err
	}
	var tokens [][]byte
	for line := range bytes.SplitSeq(src, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		b64, r, ok := bytes.Cut(line, []byte{' '})
		if !ok {
			return nil, fmt.Errorf("malformed line %.80q", line)
		}
		tok, err := base64.StdEncoding.DecodeString(string(b64))
		if err != nil {
			return nil, err
		}
		rank, err := strconv.Atoi(string(r))
		if err != nil || rank != len(tokens) {
			return nil, fmt.Errorf("rank %q where %d was expected", r, len(tokens))
		}
		tokens = append(tokens, tok)
	}
	return tokens, nil
}

// buildRankBlob lays tokens out as rankBlob (see ranks.go).
func buildRankBlob(tokens [][]byte) []byte {
	n := len(tokens)
	bits := uint32(1)
	for 1<<bits < 2*n {
		bits++
	}
	slots := make([]uint32, 1<<bits)
	mask := uint64(len(slots) - 1)
	var data []byte
	start := make([]uint32, 0, n+1)
	for r, tok := range tokens {
		start = append(start, uint32(len(data)))
		data = append(data, tok...)
		h := fnv1a(tok) & mask
		for slots[h] != 0 {
			h = (h + 1) & mask
		}
		slots[h] = uint32(r + 1)
	}
	start = append(start, uint32(len(data)))
	out := []byte(rankMagic)
	out = binary.LittleEndian.AppendUint32(out, uint32(n))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(data)))
	out = binary.LittleEndian.AppendUint32(out, bits)
	for _, s := range start {
		out = binary.LittleEndian.AppendUint32(out, s)
	}
	for _, s := range slots {
		out = binary.LittleEndian.AppendUint32(out, s)
	}
	return append(out, data...)
}

// TestRankBlobCurrent rebuilds the rank table from tiktoken-go-loader's
// file and compares it with the embedded one (-update rewrites it), then
// checks every token's rank both ways.
func TestRankBlobCurrent(t *testing.T) {
	tokens, err := parseRankFile()
	if err != nil {
		t.Fatal(err)
	}
	want := buildRankBlob(tokens)
	if *update {
		if err := os.WriteFile("o200k_base.ranks", want, 0o644); err != nil {
			t.Fatal(err)
		}
		rankBlob = want
	}
	if !bytes.Equal(rankBlob, want) {
		t.Fatalf("o200k_base.ranks differs from what %s gives (%d bytes, want %d): go test ./internal/tokens -run TestRankBlobCurrent -update", rankFile, len(rankBlob), len(want))
	}
	tab, err := loadRanks()
	if err != nil {
		t.Fatal(err)
	}
	if tab.len() != len(tokens) || tab.len() != 199998 {
		t.Fatalf("%d ranks, file has %d", tab.len(), len(tokens))
	}
	for r, tok := range tokens {
		if got := tab.rank(tok); got != r {
			t.Fatalf("rank(%q) = %d, want %d", tok, got, r)
		}
		if got := tab.token(uint32(r)); !bytes.Equal(got, tok) {
			t.Fatalf("token(%d) = %q, want %q", r, got, tok)
		}
	}
	for _, b := range []string{"", "\x00\x00\x00\x00\x00\x00\x00\x00", "not-a-token-at-all-xyzzy"} {
		if got := tab.rank([]byte(b)); got != -1 {
			t.Errorf("rank(%q) = %d, want -1", b, got)
		}
	}
}

// TestRanksFromRefusesBadTables: a table whose header, sizes or offsets do
// not hold is an error, never a panic on a later lookup.
func TestRanksFromRefusesBadTables(t *testing.T) {
	good := buildRankBlob([][]byte{[]byte("a"), []byte("bc")})
	if _, err := ranksFrom(good); err != nil {
		t.Fatalf("good table: %v", err)
	}
	bad := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for name, b := range map[string][]byte{
		"empty":     nil,
		"magic":     bad(func(b []byte) []byte { b[0] = 'x'; return b }),
		"truncated": good[:len(good)-1],
		"longer":    append(bytes.Clone(good), 0),
		"no ranks":  bad(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 0); return b }),
		"bits":      bad(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[16:], 31); return b }),
		"offsets":   bad(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[20+8:], 9); return b }),
	} {
		if _, err := ranksFrom(b); err == nil {
			t.Errorf("%s: ranksFrom accepted it", name)
		}
	}
}
