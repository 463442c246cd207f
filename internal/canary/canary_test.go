package canary

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/ascii85"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

const testSecret = "mcpvet-canary-0a1b2c3d4e5f6789"

var testSecrets = map[string]string{"API_KEY": testSecret, "SHORT": "abc"}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func compress(t *testing.T, kind string, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	switch kind {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "zlib":
		w = zlib.NewWriter(&buf)
	case "deflate":
		w, _ = flate.NewWriter(&buf, flate.BestCompression)
	}
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func xor(b []byte, key string) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[i] = b[i] ^ key[i%len(key)]
	}
	return out
}

func utf16le(s string) []byte {
	var out []byte
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// b85 encodes RFC 1924 base85 (Python's base64.b85encode).
func b85(b []byte) string {
	var out []byte
	for i := 0; i < len(b); i += 4 {
		var chunk [4]byte
		n := copy(chunk[:], b[i:])
		v := uint32(chunk[0])<<24 | uint32(chunk[1])<<16 | uint32(chunk[2])<<8 | uint32(chunk[3])
		var d [5]byte
		for j := 4; j >= 0; j-- {
			d[j] = b85Alphabet[v%85]
			v /= 85
		}
		out = append(out, d[:n+1]...)
	}
	return string(out)
}

func interleave(s, filler string) string {
	var b strings.Builder
	for i, r := range s {
		b.WriteRune(r)
		b.WriteByte(filler[i%len(filler)])
	}
	return b.String()
}

func interleave3(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
		b.WriteString("k9")
	}
	return b.String()
}

// TestFindHostileTransforms: each transform of the secret a hostile
// server used to get past the listed forms (issue 22 item 8). Before, only
// the verbatim, hex and base64 rows were found; each row must now name
// API_KEY, and the text around it must not matter.
func TestFindHostileTransforms(t *testing.T) {
	v := []byte(testSecret)
	var octal, entities []string
	for _, c := range v {
		octal = append(octal, fmt.Sprintf("%03o", c))
		entities = append(entities, fmt.Sprintf("&#%d;", c))
	}
	a85 := make([]byte, ascii85.MaxEncodedLen(len(v)))
	a85 = a85[:ascii85.Encode(a85, v)]
	cases := map[string]string{
		"verbatim":              testSecret,
		"hex":                   hex.EncodeToString(v),
		"base64 at offset 1":    b64(append([]byte("x"), v...)),
		"gzip+base64":           b64(compress(t, "gzip", v)),
		"zlib+base64":           b64(compress(t, "zlib", v)),
		"deflate+base64":        b64(compress(t, "deflate", v)),
		"gzipped blob":          `{"blob":"` + b64(compress(t, "gzip", []byte("log line\nkey="+testSecret+"\n"))) + `"}`,
		"base32":                base32.StdEncoding.EncodeToString(v),
		"base32 lower, wrapped": strings.ToLower(base32.StdEncoding.EncodeToString(append([]byte("ab"), v...))),
		"ascii85":               "<~" + string(a85) + "~>",
		"base85 (RFC 1924)":     b85(v),
		"double base64":         b64([]byte(b64(v))),
		"reversed":              string([]rune(reverse(testSecret))),
		"ROT13":                 ROT13(testSecret),
		"interleaved":           interleave(testSecret, "QZ"),
		"interleaved by 3":      interleave3(testSecret),
		"upper case":            strings.ToUpper(testSecret),
		"UTF-16 hex":            hex.EncodeToString(utf16le(testSecret)),
		"UTF-16 base64":         b64(utf16le(testSecret)),
		"octal":                 strings.Join(octal, " "),
		"octal escapes":         `\` + strings.Join(octal, `\`),
		"JSON unicode escapes": strings.Join(func() []string {
			var o []string
			for _, c := range v {
				o = append(o, fmt.Sprintf(`\u%04x`, c))
			}
			return o
		}(), ""),
		"HTML entities":         strings.Join(entities, ""),
		"percent":               "%" + strings.ToUpper(hex.EncodeToString(v[:1])) + "%" + strings.Join(strings.Split(hex.EncodeToString(v[1:]), "")[:0], "") + testSecret[1:],
		"XOR+base64":            b64(xor(v, "k3y")),
		"XOR single byte + hex": hex.EncodeToString(xor(append([]byte("pre:"), v...), "\x5a")),
		"zero-width separators": strings.Join(strings.Split(testSecret, ""), "\u200b"),
		"dash separated":        strings.Join(strings.Split(testSecret, ""), "-"),
		"spaced upper":          strings.ToUpper(strings.Join(strings.Split(testSecret, ""), " ")),
		"base64 of reversed":    b64([]byte(reverse(testSecret))),
		"hex of gzip of base32": hex.EncodeToString(compress(t, "gzip", []byte(base32.StdEncoding.EncodeToString(v)))),
	}
	f := NewFinder(testSecrets)
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			for _, wrapped := range []string{text, "The answer is: " + text + " (done)"} {
				hits := f.Find(wrapped)
				if len(hits) != 1 || hits[0].Name != "API_KEY" {
					t.Errorf("Find(%.80q) = %v, want API_KEY", wrapped, hits)
				}
			}
		})
	}
}

// TestFindPieces: a secret cut in two or three pieces with text between
// (issue 22 item 8: "part1=…/part2=…" and "|" gave keep). A piece that
// alone matches is not enough, and half a secret is not a hit.
func TestFindPieces(t *testing.T) {
	f := NewFinder(testSecrets)
	s := testSecret
	for name, text := range map[string]string{
		"part1/part2":      "part1=" + s[:15] + " part2=" + s[15:],
		"pipes, 3 pieces":  s[:10] + "|" + s[10:20] + "|" + s[20:],
		"out of order":     "b=" + s[14:] + "; a=" + s[:14],
		"upper case parts": strings.ToUpper("x:" + s[:16] + ", y:" + s[16:]),
	} {
		if hits := f.FindPieces(text); len(hits) != 1 || hits[0].Name != "API_KEY" {
			t.Errorf("%s: FindPieces(%q) = %v, want API_KEY (split)", name, text, hits)
		}
	}
	for name, text := range map[string]string{
		"half":           "part1=" + s[:15],
		"four tiny bits": s[:4] + "|" + s[4:8] + "|" + s[8:12] + "|" + s[12:],
		"other canary":   "mcpvet-canary-ffffffffffffffff",
	} {
		if hits := f.FindPieces(text); len(hits) != 0 {
			t.Errorf("%s: FindPieces(%q) = %v, want none", name, text, hits)
		}
	}
}

// TestFindNoFalsePositives: a megabyte of random printable text, base64
// and hex blobs of random bytes and another canary hold no secret.
func TestFindNoFalsePositives(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < 1<<20 {
		switch r.IntN(3) {
		case 0:
			buf := make([]byte, 64)
			for i := range buf {
				buf[i] = byte(r.UintN(256))
			}
			b.WriteString(b64(buf) + " " + hex.EncodeToString(buf) + "\n")
		default:
			for range 80 {
				b.WriteByte(byte(0x20 + r.IntN(95)))
			}
			b.WriteByte('\n')
		}
	}
	b.WriteString("mcpvet-canary-ffffffffffffffff")
	f := NewFinder(testSecrets)
	if hits := f.Find(b.String()); len(hits) != 0 {
		t.Errorf("Find(random) = %v, want none", hits)
	}
	if hits := f.FindPieces(b.String()); len(hits) != 0 {
		t.Errorf("FindPieces(random) = %v, want none", hits)
	}
}

// TestNeedlesBase64Alignments: every base64 needle is found in the
// encoding of the secret after 0, 1 or 2 bytes, and short values have none.
func TestNeedlesBase64Alignments(t *testing.T) {
	ns := Needles(testSecrets)
	for _, n := range ns {
		if n.Name != "API_KEY" {
			t.Fatalf("needle of %s: values shorter than MinLen are not searched", n.Name)
		}
	}
	for k := range 3 {
		enc := b64(append(bytes.Repeat([]byte("p"), k), testSecret...))
		found := false
		for _, n := range ns {
			if n.Enc == "base64" && strings.Contains(enc, n.Text) {
				found = true
			}
		}
		if !found {
			t.Errorf("no base64 needle in %q (offset %d)", enc, k)
		}
	}
}

// BenchmarkFind measures the search over a 256 KiB listing-like text that
// holds no secret (the common case: every layer is tried).
func BenchmarkFind(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var sb strings.Builder
	for sb.Len() < 256<<10 {
		fmt.Fprintf(&sb, `{"name":"tool_%d","description":"Reads the file at path and returns its content as text, id %x","inputSchema":{"type":"object"}},`, r.IntN(1000), r.Uint64())
	}
	text := sb.String()
	f := NewFinder(testSecrets)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		f.Find(text)
	}
}

// TestFindBoundedMemory: the search of one 9 MiB description (issue 22
// item 9's hostile listing) holds a bounded amount of memory at once, not
// a normalised copy of the whole text per form, and still finds a secret
// at its end. Peak live heap is sampled every millisecond.
func TestFindBoundedMemory(t *testing.T) {
	text := strings.Repeat("Reads the file at path and returns its content. ", 9<<20/48) + strings.ToUpper(testSecret)
	f := NewFinder(testSecrets)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var max uint64
		for {
			runtime.ReadMemStats(&m)
			max = maxU(max, m.HeapAlloc)
			select {
			case <-stop:
				peak <- max
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	hits := f.Find(text)
	close(stop)
	got := (<-peak - base.HeapAlloc) >> 20
	if len(hits) != 1 {
		t.Errorf("Find = %v, want API_KEY", hits)
	}
	t.Logf("peak live heap over the text: %d MiB", got)
	if got > 40 {
		t.Errorf("Find of %d MiB held %d MiB at its peak, want at most 40 MiB", len(text)>>20, got)
	}
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}
