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
	"html"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Search by construction. A server that wants a secret out past a search
// for listed forms only has to pick a form not on the list. A [Finder]
// instead undoes what can be undone cheaply: it decodes every layer it
// can reach (JSON, C and octal escapes, percent-encoding, HTML entities,
// base16/32/64/85 runs at every alignment, gzip, zlib and deflate inside
// them, UTF-16), up to [MaxDepth] layers deep, and searches each layer
// as it is and normalised: case-folded, with zero-width characters and
// separators removed, reversed, ROT13, and every second or third
// character (interleaved). A secret XORed with a repeating key of up to
// [maxXORKey] bytes is recognised in any decoded binary layer by its
// known plaintext. A secret cut into pieces with text between them
// ("part1=…", "part2=…", "a|b|c") is found by [Finder.FindPieces].
// Every step is bounded ([MaxLayerBytes], [MaxLayers]), so the cost stays
// a small multiple of the text's size.

// MaxDepth bounds the decoding layers stacked on one another (base64 of
// gzip of hex is three).
const MaxDepth = 3

// MaxLayers bounds the layers decoded from one text.
const MaxLayers = 256

// MaxLayerBytes bounds the bytes of all decoded layers of one text; a
// decompressed layer is cut there.
const MaxLayerBytes = 4 << 20

// maxXORKey is the longest repeating XOR key recognised.
const maxXORKey = 8

// maxXORBytes bounds the decoded layers searched for XORed secrets.
const maxXORBytes = 64 << 10

// minRun is the shortest encoded run decoded: shorter ones cannot hold a
// secret of MinLen bytes in any of the encodings.
const minRun = 8

// A Hit is one secret found, with how it was encoded ("" verbatim; steps
// joined by " > ", outermost first, e.g. "base64 > gzip > case-folded").
type Hit struct {
	Name string
	Enc  string
}

type secret struct {
	name                   string
	value, lower, stripped string
	reversed, rot13        string
	raw                    []byte
}

// A Finder searches texts for a fixed set of secrets. It is safe for
// concurrent use.
type Finder struct {
	secrets []secret
	needles []Needle
	longest int // the longest secret, in bytes
}

// NewFinder returns a Finder for every value of at least MinLen bytes.
func NewFinder(secrets map[string]string) *Finder {
	f := &Finder{needles: Needles(secrets)}
	names := make([]string, 0, len(secrets))
	for n := range secrets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := secrets[n]
		if len(v) < MinLen {
			continue
		}
		lower := strings.ToLower(v)
		s := secret{name: n, value: v, lower: lower, stripped: strip(lower), raw: []byte(v)}
		s.reversed = reverse(s.stripped)
		s.rot13 = ROT13(lower)
		f.secrets = append(f.secrets, s)
		f.longest = max(f.longest, len(v))
	}
	return f
}

// Empty reports whether the Finder has nothing to search for.
func (f *Finder) Empty() bool { return f == nil || len(f.secrets) == 0 }

// layer is one decoded form of the text.
type layer struct {
	s     string
	enc   string
	depth int
}

// Find returns every secret found in s or in any layer decoded from it,
// each with the first (outermost) form it was found in, in a stable order.
func (f *Finder) Find(s string) []Hit {
	if f.Empty() || len(s) < MinLen {
		return nil
	}
	found := map[string]string{}
	var order []string
	hit := func(name, enc string) {
		if _, ok := found[name]; !ok {
			found[name] = enc
			order = append(order, name)
		}
	}
	// Fast path: the listed forms in the text as it is.
	for _, n := range f.needles {
		if strings.Contains(s, n.Text) {
			hit(n.Name, n.Enc)
		}
	}
	if len(found) == len(f.secrets) {
		return f.hits(found, order)
	}
	queue := []layer{{s: s}}
	budget := MaxLayerBytes
	seen := map[string]bool{}
	for i := 0; i < len(queue) && i < MaxLayers; i++ {
		l := queue[i]
		f.searchLayer(l, hit)
		if len(found) == len(f.secrets) || l.depth >= MaxDepth {
			continue
		}
		for _, d := range decodeLayer(l.s) {
			if len(d.s) < MinLen || budget < len(d.s) || seen[d.s] {
				continue
			}
			budget -= len(d.s)
			seen[d.s] = true
			f.searchXOR(d.s, joinEnc(l.enc, d.enc), hit)
			queue = append(queue, layer{s: d.s, enc: joinEnc(l.enc, d.enc), depth: l.depth + 1})
		}
	}
	return f.hits(found, order)
}

func (f *Finder) hits(found map[string]string, order []string) []Hit {
	out := make([]Hit, 0, len(order))
	for _, n := range order {
		out = append(out, Hit{Name: n, Enc: found[n]})
	}
	return out
}

func joinEnc(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " > " + b
}

// normWindow bounds the text normalised at once: a 9 MiB description is
// searched in overlapping windows, so the normalised copies (case-folded,
// stripped, every 2nd and 3rd character) stay a few MiB whatever the size
// of what a server sends.
const normWindow = 1 << 20

// searchLayer searches one layer as it is and normalised.
func (f *Finder) searchLayer(l layer, hit func(name, enc string)) {
	t := l.s
	for _, s := range f.secrets {
		if strings.Contains(t, s.value) {
			hit(s.name, l.enc)
		}
	}
	if !utf8.ValidString(t) && printableRatio(t) < 0.7 {
		return // binary: only the verbatim bytes can match
	}
	// Windows overlap by what an interleaved secret with filler spans.
	overlap := 4*f.longest + 64
	for i := 0; i < len(t); i += normWindow {
		f.searchNormalised(t[i:min(len(t), i+normWindow+overlap)], l.enc, hit)
	}
}

// searchNormalised searches t case-folded, stripped, in ROT13, reversed
// and interleaved.
func (f *Finder) searchNormalised(t, enc string, hit func(name, enc string)) {
	l := layer{s: t, enc: enc}
	lower := strings.ToLower(t)
	stripped := strip(lower)
	var inter []string
	for _, s := range f.secrets {
		switch {
		case strings.Contains(lower, s.lower):
			hit(s.name, joinEnc(l.enc, "case-folded"))
		case len(s.stripped) >= MinLen && strings.Contains(stripped, s.stripped):
			hit(s.name, joinEnc(l.enc, "separators removed"))
		case strings.Contains(lower, s.rot13):
			hit(s.name, joinEnc(l.enc, "ROT13"))
		case len(s.reversed) >= MinLen && strings.Contains(stripped, s.reversed):
			hit(s.name, joinEnc(l.enc, "reversed"))
		default:
			if len(s.stripped) < MinLen {
				continue
			}
			if inter == nil {
				for k := 2; k <= 3; k++ {
					for phase := range k {
						inter = append(inter, every(lower, k, phase), every(stripped, k, phase))
					}
				}
			}
			for _, x := range inter {
				if strings.Contains(x, s.lower) || strings.Contains(x, s.stripped) {
					hit(s.name, joinEnc(l.enc, "interleaved"))
					break
				}
			}
		}
	}
}

// searchXOR recognises a secret XORed with a repeating key of 1 to
// maxXORKey bytes in the binary layer b: at each offset where the key
// derived from the secret's first bytes repeats over the whole secret.
func (f *Finder) searchXOR(b, enc string, hit func(name, enc string)) {
	if len(b) > maxXORBytes {
		return
	}
	for _, s := range f.secrets {
		v := s.raw
		if len(b) < len(v) {
			continue
		}
	offsets:
		for i := 0; i+len(v) <= len(b); i++ {
			for k := 1; k <= maxXORKey && k < len(v)/2; k++ {
				ok := true
				for j := k; j < len(v); j++ {
					if b[i+j]^v[j] != b[i+j-k]^v[j-k] {
						ok = false
						break
					}
				}
				if ok && b[i]^v[0] != 0 {
					hit(s.name, joinEnc(enc, "XOR"))
					break offsets
				}
			}
		}
	}
}

// FindPieces returns every secret that s holds cut into at most maxPieces
// pieces, in any order, with anything between them: "part1=AB…",
// "part2=…CD", "AB|CD|EF". Each piece is at least a third of the secret
// and at least minPiece bytes, so random text does not complete a secret.
// The search is case-folded.
func (f *Finder) FindPieces(s string) []Hit {
	if f.Empty() || len(s) < MinLen {
		return nil
	}
	lower := strings.ToLower(s)
	var out []Hit
	for _, sec := range f.secrets {
		v := sec.lower
		min := max(minPiece, (len(v)+maxPieces-1)/maxPieces)
		if len(v) < 2*min {
			continue
		}
		pieces, at := 0, 0
		for at < len(v) && pieces < maxPieces {
			n := 0
			for l := min; at+l <= len(v); l++ {
				if !strings.Contains(lower, v[at:at+l]) {
					break
				}
				n = l
			}
			if n == 0 {
				break
			}
			at += n
			pieces++
		}
		if at == len(v) && pieces > 1 {
			out = append(out, Hit{Name: sec.name, Enc: "split"})
		}
	}
	return out
}

const (
	maxPieces = 3
	minPiece  = 5
)

// maxRuns bounds the runs of one encoding decoded from one layer.
const maxRuns = 64

// decodeLayer returns the layers directly under t.
func decodeLayer(t string) []layer {
	var out []layer
	add := func(s, enc string) {
		if len(s) >= MinLen && s != t {
			out = append(out, layer{s: s, enc: enc})
			// A decoded byte string may be compressed or UTF-16.
			out = append(out, binaryLayers(s, enc)...)
		}
	}
	if strings.ContainsRune(t, '\\') {
		add(unescape(t), "escapes")
	}
	if strings.ContainsRune(t, '%') {
		add(percentDecode(t), "percent")
	}
	if strings.ContainsRune(t, '&') {
		add(html.UnescapeString(t), "HTML entities")
	}
	for _, r := range base64Runs(t) {
		r = strings.TrimRight(r, "=")
		for off := range 4 {
			if len(r)-off < minRun {
				break
			}
			x := r[off:]
			if len(x)%4 == 1 {
				x = x[:len(x)-1]
			}
			enc := base64.RawStdEncoding
			if strings.ContainsAny(x, "-_") {
				enc = base64.RawURLEncoding
			}
			if b, err := enc.DecodeString(x); err == nil {
				add(string(b), "base64")
			}
		}
	}
	for _, r := range base32Runs(t) {
		r = strings.ToUpper(strings.TrimRight(r, "="))
		for off := range 8 {
			if len(r)-off < minRun {
				break
			}
			x := r[off:]
			if rem := len(x) % 8; rem == 1 || rem == 3 || rem == 6 {
				x = x[:len(x)-1]
			}
			if b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(x); err == nil {
				add(string(b), "base32")
			}
		}
	}
	for _, x := range hexRuns(t) {
		for off := range 2 {
			y := x[off:]
			if b, err := hex.DecodeString(y[:len(y)/2*2]); err == nil {
				add(string(b), "hex")
			}
		}
	}
	for _, r := range octalRuns(t) {
		add(decodeOctal(r), "octal")
	}
	for _, x := range a85Runs(t) {
		for off := range 5 {
			if len(x)-off < minRun {
				break
			}
			dst := make([]byte, 4*len(x)/5+4)
			if n, _, err := ascii85.Decode(dst, []byte(x[off:]), true); err == nil {
				add(string(dst[:n]), "base85")
			}
		}
	}
	for _, r := range b85Runs(t) {
		for off := range 5 {
			if len(r)-off < minRun {
				break
			}
			if b, ok := decodeB85(r[off:]); ok {
				add(string(b), "base85")
			}
		}
	}
	return out
}

// Byte classes of the encodings.
const (
	clUpper = 1 << iota
	clLower
	clDigit
	clB64Sym // + / - _
	clA85Sym // other printable ASCII
)

func class(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return clUpper
	case c >= 'a' && c <= 'z':
		return clLower
	case c >= '0' && c <= '9':
		return clDigit
	case c == '+' || c == '/' || c == '-' || c == '_':
		return clB64Sym
	case c > ' ' && c < 0x7f:
		return clA85Sym
	}
	return 0
}

// runs returns the first maxRuns maximal runs of t whose bytes satisfy in,
// at least minLen long, for which keep (given the classes seen) holds.
func runs(t string, minLen int, in func(byte) bool, keep func(run string, classes int) bool) []string {
	var out []string
	for i := 0; i < len(t) && len(out) < maxRuns; {
		if !in(t[i]) {
			i++
			continue
		}
		j, cl := i, 0
		for j < len(t) && in(t[j]) {
			cl |= class(t[j])
			j++
		}
		if j-i >= minLen && keep(t[i:j], cl) {
			out = append(out, t[i:j])
		}
		i = j
	}
	return out
}

func isB64(c byte) bool { cl := class(c); return cl != 0 && cl != clA85Sym || c == '=' }
func isB32(c byte) bool {
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7') || c == '='
}
func isHexByte(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
func isA85(c byte) bool { return c >= '!' && c <= 'u' }
func isB85(c byte) bool { return b85Index[c] >= 0 }

// base64Runs: mixed case with a digit or a symbol, as encoded bytes are
// (a word is not).
func base64Runs(t string) []string {
	return runs(t, 16, isB64, func(r string, cl int) bool {
		return cl&clUpper != 0 && cl&clLower != 0 && (cl&(clDigit|clB64Sym) != 0 || len(r) >= 24)
	})
}

// base32Runs: one case only, with a digit.
func base32Runs(t string) []string {
	return runs(t, 16, isB32, func(r string, cl int) bool {
		return cl&clDigit != 0 && (cl&clUpper == 0) != (cl&clLower == 0)
	})
}

func hexRuns(t string) []string {
	return runs(t, 12, isHexByte, func(r string, cl int) bool { return cl&clDigit != 0 })
}

// a85Runs: delimited by <~ ~>, or long runs mixing every class outside
// JSON's structure.
func a85Runs(t string) []string {
	var out []string
	for rest := t; len(out) < maxRuns; {
		i := strings.Index(rest, "<~")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "~>")
		if j < 0 {
			break
		}
		out = append(out, rest[i+2:i+j])
		rest = rest[i+j+2:]
	}
	return append(out, runs(t, 20, isA85, func(r string, cl int) bool {
		return cl == clUpper|clLower|clDigit|clA85Sym|clB64Sym&cl && !strings.Contains(r, `":`) && !strings.Contains(r, `","`)
	})...)
}

func b85Runs(t string) []string {
	return runs(t, 20, isB85, func(r string, cl int) bool {
		return cl&(clUpper|clLower|clDigit) == clUpper|clLower|clDigit && cl&(clA85Sym|clB64Sym) != 0 && !strings.Contains(r, `":`)
	})
}

// octalRuns returns runs of at least six three-digit octal codes
// separated by white space, commas or backslashes.
func octalRuns(t string) []string {
	var out []string
	i := 0
	for i < len(t) && len(out) < maxRuns {
		start, n, j := i, 0, i
		for {
			k := j
			for k < len(t) && (t[k] == ' ' || t[k] == ',' || t[k] == '\\' || t[k] == '\n') {
				k++
			}
			if k+3 <= len(t) && isOctal(t[k:k+3]) && (k+3 == len(t) || t[k+3] < '0' || t[k+3] > '9') {
				if n == 0 {
					start = k
				}
				n++
				j = k + 3
				continue
			}
			break
		}
		if n >= 6 {
			out = append(out, t[start:j])
			i = j
			continue
		}
		i = max(j, i) + 1
	}
	return out
}

// binaryLayers decompresses b (gzip, zlib, raw deflate) and decodes
// UTF-16, each bounded by MaxLayerBytes.
func binaryLayers(b, enc string) []layer {
	var out []layer
	inflate := func(r io.Reader, err error, name string) {
		if err != nil {
			return
		}
		data, _ := io.ReadAll(io.LimitReader(r, MaxLayerBytes))
		if len(data) >= MinLen {
			out = append(out, layer{s: string(data), enc: joinEnc(enc, name)})
		}
	}
	switch {
	case strings.HasPrefix(b, "\x1f\x8b"):
		r, err := gzip.NewReader(strings.NewReader(b))
		inflate(r, err, "gzip")
	case len(b) > 2 && b[0] == 0x78 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0:
		r, err := zlib.NewReader(strings.NewReader(b))
		inflate(r, err, "zlib")
	case len(b) <= maxXORBytes && printableRatio(b) < 0.7 && rawDeflateStart(b):
		inflate(flate.NewReader(strings.NewReader(b)), nil, "deflate")
	}
	if u, ok := decodeUTF16(b); ok {
		out = append(out, layer{s: u, enc: joinEnc(enc, "UTF-16")})
	}
	return out
}

// rawDeflateStart reports whether b can start a raw deflate stream: the
// first block's type (bits 1-2 of the first byte) is not the reserved 3.
func rawDeflateStart(b string) bool { return len(b) > 2 && (b[0]>>1)&3 != 3 }

// decodeUTF16 decodes b as UTF-16 (little- or big-endian) when every
// other byte is mostly zero, as in ASCII text.
func decodeUTF16(b string) (string, bool) {
	if len(b) < 2*MinLen {
		return "", false
	}
	for _, le := range []bool{true, false} {
		zeros := 0
		for i := 0; i+1 < len(b); i += 2 {
			hi := b[i+1]
			if !le {
				hi = b[i]
			}
			if hi == 0 {
				zeros++
			}
		}
		if zeros*4 < len(b)/2*3 {
			continue
		}
		u := make([]uint16, 0, len(b)/2)
		for i := 0; i+1 < len(b); i += 2 {
			if le {
				u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
			} else {
				u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
			}
		}
		return string(utf16.Decode(u)), true
	}
	return "", false
}

// unescape decodes JSON and C escapes (\uXXXX with surrogate pairs,
// \xHH, \NNN octal, \n and the like), leaving anything else as it is.
func unescape(s string) string {
	var b strings.Builder
	var pending []uint16
	flush := func() {
		if len(pending) > 0 {
			b.WriteString(string(utf16.Decode(pending)))
			pending = pending[:0]
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			flush()
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == 'u' && i+6 <= len(s) && isHex(s[i+2:i+6]):
			v, _ := hex.DecodeString(s[i+2 : i+6])
			pending = append(pending, uint16(v[0])<<8|uint16(v[1]))
			i += 5
			continue
		case n == 'x' && i+4 <= len(s) && isHex(s[i+2:i+4]):
			flush()
			v, _ := hex.DecodeString(s[i+2 : i+4])
			b.WriteByte(v[0])
			i += 3
			continue
		case n >= '0' && n <= '7' && i+4 <= len(s) && isOctal(s[i+1:i+4]):
			flush()
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		flush()
		switch n {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '/', '\\', '"', '\'':
			b.WriteByte(n)
		default:
			b.WriteByte(c)
			b.WriteByte(n)
		}
		i++
	}
	flush()
	return b.String()
}

func isHex(s string) bool {
	for i := range len(s) {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

func isOctal(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '7' {
			return false
		}
	}
	return s[0] <= '3'
}

// percentDecode decodes %HH, leaving malformed escapes as they are.
func percentDecode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+3 <= len(s) && isHex(s[i+1:i+3]) {
			v, _ := hex.DecodeString(s[i+1 : i+3])
			b.WriteByte(v[0])
			i += 2
			continue
		}
		if s[i] == '+' {
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeOctal decodes a run of three-digit octal codes.
func decodeOctal(r string) string {
	var b bytes.Buffer
	digits := 0
	var v byte
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c >= '0' && c <= '7' {
			v = v<<3 | (c - '0')
			digits++
			if digits == 3 {
				b.WriteByte(v)
				v, digits = 0, 0
			}
			continue
		}
		v, digits = 0, 0
	}
	return b.String()
}

const b85Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"

var b85Index = func() [256]int {
	var t [256]int
	for i := range t {
		t[i] = -1
	}
	for i := range len(b85Alphabet) {
		t[b85Alphabet[i]] = i
	}
	return t
}()

// decodeB85 decodes RFC 1924 base85 (Python's base64.b85encode), the
// last group possibly short.
func decodeB85(s string) ([]byte, bool) {
	var out []byte
	for i := 0; i < len(s); i += 5 {
		chunk := s[i:min(i+5, len(s))]
		if len(chunk) == 1 {
			break
		}
		pad := 5 - len(chunk)
		var acc uint64
		for j := range 5 {
			d := 84
			if j < len(chunk) {
				d = b85Index[chunk[j]]
				if d < 0 {
					return nil, false
				}
			}
			acc = acc*85 + uint64(d)
		}
		if acc > 0xffffffff {
			return nil, false
		}
		w := []byte{byte(acc >> 24), byte(acc >> 16), byte(acc >> 8), byte(acc)}
		out = append(out, w[:4-pad]...)
	}
	return out, len(out) > 0
}

// strip removes zero-width characters, white space, punctuation and
// symbols: what a server puts between a secret's characters.
func strip(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// ROT13 rotates the ASCII letters of s by 13 places: the form a secret
// (or an instruction) takes to slip past a plain text search.
func ROT13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// every returns every k-th byte of s from phase on.
func every(s string, k, phase int) string {
	b := make([]byte, 0, len(s)/k+1)
	for i := phase; i < len(s); i += k {
		b = append(b, s[i])
	}
	return string(b)
}

// printableRatio is the share of bytes of s that are printable ASCII or
// white space.
func printableRatio(s string) float64 {
	if len(s) == 0 {
		return 1
	}
	n := 0
	for i := range len(s) {
		if c := s[i]; (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' || c == '\t' {
			n++
		}
	}
	return float64(n) / float64(len(s))
}
