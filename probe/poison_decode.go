package probe

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpvet/mcpvet/internal/canary"
	"github.com/mcpvet/mcpvet/internal/lazyre"
)

// The encodings a text can hide an instruction in. Each decoded run that
// reads as text becomes a derived view the grammar reads too; a match
// there is reported on the encoded run, with the encoding named.

// base64Lines: base64 characters, possibly wrapped over lines.
var base64Lines = lazyre.New(`[A-Za-z0-9+/_-]{16,}={0,2}(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/_-]{4,}={0,2})*`)

var hexRun = lazyre.New(`(?:[0-9a-fA-F]{2}){16,}`)

var percentRun = lazyre.New(`(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9._~+-]){12,}`)

// rot13Hint: a text that says it is ROT13, or uses the ROT13 forms of the
// commonest English words.
var rot13Hint = lazyre.New(`(?i)\brot-?13\b|\b(?:gur|naq|lbh|vf|gb|bs|gung|guvf)\b`)

// maxDecodeDepth bounds layers of encoding (base64 of hex, ...).
const maxDecodeDepth = 2

// decodedViews returns the views hidden in v's text by base64 (also
// wrapped), hex, percent-encoding and ROT13, recursively.
func decodedViews(v view, depth int) []view {
	if depth >= maxDecodeDepth || len(v.text) < 24 {
		return nil
	}
	var out []view
	add := func(how string, a, b int, text string) {
		x, y := v.origin(a, b)
		if v.how != "" {
			how = v.how + "+" + how
		}
		d := view{text: text, how: how, start: x, end: y}
		out = append(out, d)
		out = append(out, decodedViews(d, depth+1)...)
	}
	s := v.text
	for _, loc := range base64Lines.FindAllStringIndex(s, 8) {
		blob := strings.Join(strings.Fields(s[loc[0]:loc[1]]), "")
		if len(blob) < 24 || isHexOrIdent(blob) {
			continue
		}
		if text, ok := decodeBase64Text(blob); ok {
			add("base64", loc[0], loc[1], text)
		}
	}
	for _, loc := range hexRun.FindAllStringIndex(s, 8) {
		if b, err := hex.DecodeString(s[loc[0]:loc[1]]); err == nil && textLike(b) {
			add("hex", loc[0], loc[1], string(b))
		}
	}
	if strings.Contains(s, "%") {
		for _, loc := range percentRun.FindAllStringIndex(s, 8) {
			run := s[loc[0]:loc[1]]
			if strings.Count(run, "%") < 6 {
				continue
			}
			if text, err := url.PathUnescape(run); err == nil && textLike([]byte(text)) {
				add("percent-encoding", loc[0], loc[1], text)
			}
		}
	}
	if v.how == "" && (len(rot13Hint.FindAllStringIndex(s, 3)) >= 2 || strings.Contains(strings.ToLower(s), "rot13")) {
		add("ROT13", 0, len(s), canary.ROT13(s))
	}
	return out
}

// textLike: valid UTF-8, almost all printable, mostly letters and spaces.
func textLike(b []byte) bool {
	if len(b) < 12 || !utf8.Valid(b) {
		return false
	}
	printable, letters, n := 0, 0, 0
	for _, r := range string(b) {
		n++
		if unicode.IsPrint(r) || r == '\n' || r == '\t' {
			printable++
		}
		if unicode.IsLetter(r) || r == ' ' {
			letters++
		}
	}
	return printable*100 >= n*95 && letters*100 >= n*60
}

// decodeBase64Text decodes a base64 blob (standard or URL alphabet,
// padded or not) that holds text.
func decodeBase64Text(blob string) (string, bool) {
	trimmed := strings.TrimRight(blob, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(trimmed)
		if err != nil || len(b) < 24 {
			continue
		}
		if textLike(b) {
			return string(b), true
		}
	}
	return "", false
}
