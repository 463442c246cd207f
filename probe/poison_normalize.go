package probe

import (
	"strings"
	"unicode"
	"unicode/utf8"

	tr39 "github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"
)

// view is a text as the intent grammar reads it, with the byte offset in
// the original field of every byte, so a match is reported on the text
// the server sent.
type view struct {
	text string
	off  []int // off[i] is the original offset of text byte i
	// how says how the text was derived from the field ("" for the field
	// itself after normalisation, "base64", "hex", "rot13", ...); a match
	// in a derived view is reported on the whole encoded run.
	how        string
	start, end int // the encoded run in the original, for derived views
}

// origin maps a byte range of the view back to the original field.
func (v view) origin(a, b int) (int, int) {
	if v.how != "" {
		return v.start, v.end
	}
	if len(v.off) == 0 {
		return 0, 0
	}
	x := v.off[min(a, len(v.off)-1)]
	y := v.off[max(min(b, len(v.off))-1, 0)] + 1
	return x, y
}

// maxNormalized bounds the text one field contributes to the grammar.
const maxNormalized = 64 << 10

// normalize returns the view of s the grammar reads: Unicode tag
// characters decoded to the ASCII they hide, invisible characters (zero
// width, soft hyphens, variation selectors, bidi controls) removed, NFKC
// (fullwidth and compatibility forms folded), letters of other scripts
// inside a Latin word replaced by their TR39 confusable skeleton, and
// Markdown emphasis, code marks and struck-through text removed. ident
// splits identifiers into words at _, -, ., / and camelCase.
func normalize(s string, ident bool) view {
	if len(s) > maxNormalized {
		s = s[:maxNormalized]
	}
	var b strings.Builder
	var off []int
	emit := func(t string, at int) {
		b.WriteString(t)
		for range len(t) {
			off = append(off, at)
		}
	}
	var prev rune
	flag := 0 // the end of the emoji flag being read, whose tags are dropped
	for i, r := range s {
		if r == blackFlag {
			flag = emojiFlagEnd(s, i)
		}
		switch {
		case isTagRune(r):
			if c := r - 0xE0000; i >= flag && c >= 0x20 && c < 0x7F {
				emit(string(c), i)
			}
		case hiddenRune(r):
			// dropped
		case r == utf8.RuneError:
			emit(" ", i)
		case r < 0x80:
			if ident && splitsIdent(prev, r, s[i+1:]) {
				if r == '_' || r == '-' || r == '.' || r == '/' {
					emit(" ", i)
					prev = ' '
					continue
				}
				emit(" ", i)
			}
			emit(string(r), i)
		default:
			emit(norm.NFKC.String(string(r)), i)
		}
		prev = r
	}
	v := view{text: b.String(), off: off}
	v = foldConfusables(v)
	return stripMarkdown(v)
}

// hiddenRune: characters that render as nothing or as a modification of
// the previous character: zero-width characters, bidi controls, the soft
// hyphen, variation selectors, the combining grapheme joiner and the
// Hangul fillers.
func hiddenRune(r rune) bool {
	switch {
	case isZeroWidth(r), isBidiControl(r), r == 0x00AD, r == 0x034F, r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0:
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF, r >= 0x200E && r <= 0x200F:
		return true
	}
	return false
}

// splitsIdent reports whether an identifier splits before r: at a
// separator, and where a lower-case letter or digit is followed by an
// upper-case one (sessionToken, apiKeys2).
func splitsIdent(prev, r rune, rest string) bool {
	switch r {
	case '_', '-', '.', '/':
		return true
	}
	if r >= 'A' && r <= 'Z' {
		if prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9' {
			return true
		}
		// The last capital of an acronym starts the next word (APIKeys).
		if prev >= 'A' && prev <= 'Z' && len(rest) > 0 && rest[0] >= 'a' && rest[0] <= 'z' {
			return true
		}
	}
	return false
}

// foldConfusables replaces, in each word that has Latin letters, the
// letters of other scripts by their TR39 skeleton when that is a Latin
// letter: "аlwаys" with Cyrillic а reads "always". Words wholly in
// another script are left alone, so Russian or Greek text stays itself.
func foldConfusables(v view) view {
	s := v.text
	mixed := false
	for i := 0; i < len(s); {
		j := i
		latin, other := false, false
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) {
				break
			}
			if r < 0x80 {
				latin = true
			} else if unicode.IsLetter(r) {
				other = true
			}
			j += n
		}
		if latin && other {
			mixed = true
			break
		}
		if j == i {
			_, n := utf8.DecodeRuneInString(s[i:])
			j = i + n
		}
		i = j
	}
	if !mixed {
		return v
	}
	var b strings.Builder
	off := make([]int, 0, len(v.off))
	for i := 0; i < len(s); {
		j := i
		latin := false
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) {
				break
			}
			latin = latin || r < 0x80
			j += n
		}
		if j == i {
			_, n := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+n])
			off = append(off, v.off[i:i+n]...)
			i += n
			continue
		}
		for k := i; k < j; {
			r, n := utf8.DecodeRuneInString(s[k:])
			if latin && r >= 0x80 {
				if sk := latinSkeleton(r); sk != "" {
					b.WriteString(sk)
					for range len(sk) {
						off = append(off, v.off[k])
					}
					k += n
					continue
				}
			}
			b.WriteString(s[k : k+n])
			off = append(off, v.off[k:k+n]...)
			k += n
		}
		i = j
	}
	return view{text: b.String(), off: off}
}

// latinSkeleton returns the TR39 skeleton of r when it is one or two
// ASCII letters, else "".
func latinSkeleton(r rune) string {
	sk := tr39.Skeleton(string(r))
	if sk == "" || len(sk) > 2 {
		return ""
	}
	for i := 0; i < len(sk); i++ {
		c := sk[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return ""
		}
	}
	return sk
}

// stripMarkdown removes what Markdown does not show as text: struck-out
// spans (~~old~~) and the emphasis and code marks (*, **, `), so
// "~~ignore~~ **Ignore** all *previous* instructions" reads as the
// sentence it renders to.
func stripMarkdown(v view) view {
	s := v.text
	if !strings.ContainsAny(s, "*`~") {
		return v
	}
	var b strings.Builder
	off := make([]int, 0, len(v.off))
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "~~") {
			if j := strings.Index(s[i+2:], "~~"); j >= 0 && j < 200 && !strings.Contains(s[i+2:i+2+j], "\n") {
				i += j + 4
				continue
			}
		}
		if s[i] == '*' || s[i] == '`' {
			i++
			continue
		}
		b.WriteByte(s[i])
		off = append(off, v.off[i])
		i++
	}
	return view{text: b.String(), off: off}
}
