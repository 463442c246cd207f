package probe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
)

// invisibleRune reports whether r is one of the characters the poison
// checks treat as invisible: tag characters, zero-width characters and
// bidirectional controls.
func invisibleRune(r rune) bool {
	return isTagRune(r) || isZeroWidth(r) || isBidiControl(r)
}

func isTagRune(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// blackFlag is U+1F3F4 WAVING BLACK FLAG, the base of the emoji flags of
// subdivisions.
const blackFlag = 0x1F3F4

// emojiFlagEnd returns, for s[i:] starting with [blackFlag], the end of
// the valid emoji tag sequence it begins, or i. UTS #51 (ED-14a, and
// Annex C on validity) writes the flag of England, Scotland or Wales as
// U+1F3F4, tag characters spelling a subdivision code in lowercase
// (gbeng, gbsct, gbwls; usca, ...) and U+E007F CANCEL TAG: those tags are
// part of a picture, not hidden text. The code must have the shape of a
// CLDR unicode_subdivision_id (a region, two letters or three digits,
// then one to four letters or digits) or be a three-digit region, and its
// region must be one ISO 3166-1 or UN M.49 assign: so the tags of a flag
// hide at most seven letters or digits, with no space, and the smuggled
// sentences of the ASCII-smuggling attack never pass for a flag.
func emojiFlagEnd(s string, i int) int {
	var sd [7]byte
	n := 0
	for j := i + utf8.RuneLen(blackFlag); j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		j += size
		if r == 0xE007F {
			if subdivisionCode(sd[:n]) {
				return j
			}
			return i
		}
		c := r - 0xE0000
		if n == len(sd) || !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return i
		}
		sd[n] = byte(c)
		n++
	}
	return i
}

// subdivisionCode reports whether sd, lowercase letters and digits, is a
// three-digit region or a region followed by a suffix of one to four
// letters or digits, the region assigned and not for private use.
func subdivisionCode(sd []byte) bool {
	var region int
	switch {
	case len(sd) >= 3 && isDigit(sd[0]) && isDigit(sd[1]) && isDigit(sd[2]):
		region = 3
	case len(sd) >= 3 && !isDigit(sd[0]) && !isDigit(sd[1]):
		region = 2
	default:
		return false
	}
	if len(sd) > region+4 {
		return false
	}
	r, err := language.ParseRegion(string(sd[:region]))
	return err == nil && !r.IsPrivateUse()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isZeroWidth: zero-width space, non-joiner, joiner, word joiner, the
// invisible operators, the Mongolian vowel separator and a byte order mark
// that is not at the start.
func isZeroWidth(r rune) bool {
	switch r {
	case 0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x180E, 0xFEFF:
		return true
	}
	return false
}

// isBidiControl: the embedding, override and isolate controls of Unicode
// bidi (UAX #9). The plain marks U+200E and U+200F are left alone: right-
// to-left text uses them legitimately.
func isBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// checkInvisible reports runs of tag characters (decoding the hidden
// ASCII) outside emoji flags, zero-width characters outside emoji
// sequences and bidi controls.
func checkInvisible(f textField) []Finding {
	var out []Finding
	s := f.text
	type run struct {
		kind       string
		start, end int
	}
	var runs []run
	var prev rune
	flag := 0 // the end of the emoji flag being read
	for i, r := range s {
		if r == blackFlag {
			flag = emojiFlagEnd(s, i)
		}
		kind := ""
		switch {
		case isTagRune(r):
			if i < flag {
				break
			}
			kind = CodePoisonUnicodeTag
		case isBidiControl(r):
			kind = CodePoisonBidi
		case isZeroWidth(r):
			if r == 0xFEFF && i == 0 {
				break
			}
			if (r == 0x200D || r == 0x200C) && (emojiJoin(prev, s[i+utf8.RuneLen(r):]) || joiningScript(prev)) {
				break
			}
			kind = CodePoisonZeroWidth
		}
		n := utf8.RuneLen(r)
		if n < 0 {
			n = 1
		}
		if kind != "" {
			if len(runs) > 0 && runs[len(runs)-1].kind == kind && runs[len(runs)-1].end == i {
				runs[len(runs)-1].end = i + n
			} else {
				runs = append(runs, run{kind, i, i + n})
			}
		}
		prev = r
	}
	for _, r := range runs {
		sp := span{r.start, r.end}
		count := utf8.RuneCountInString(s[r.start:r.end])
		switch r.kind {
		case CodePoisonUnicodeTag:
			out = append(out, poisonFinding(r.kind, f, sp,
				"%s, hiding the text %q: models read it, people do not see it",
				plural(count, "invisible Unicode tag character"), decodeTags(s[r.start:r.end])))
		case CodePoisonBidi:
			out = append(out, poisonFinding(r.kind, f, sp,
				"%s: the displayed text differs from what the model reads", plural(count, "bidirectional control character")))
		case CodePoisonZeroWidth:
			out = append(out, poisonFinding(r.kind, f, sp,
				"%s inside %q; invisible, they can split words past filters", plural(count, "zero-width character"), visible(around(s, r.start, r.end, 24))))
		}
	}
	return out
}

// emojiJoin reports whether a joiner after prev and before rest sits
// inside an emoji sequence.
func emojiJoin(prev rune, rest string) bool {
	next, _ := utf8.DecodeRuneInString(rest)
	return isEmojiish(prev) && isEmojiish(next)
}

// joiningScript reports whether r is a letter or mark of a script whose
// spelling uses the zero-width joiner and non-joiner (Arabic and Persian,
// Hebrew, Syriac, the Indic scripts, Sinhala, Myanmar, ...).
func joiningScript(r rune) bool {
	return r >= 0x0590 && r < 0x1100 && (unicode.IsLetter(r) || unicode.IsMark(r))
}

func isEmojiish(r rune) bool {
	return r >= 0x1F000 || unicode.Is(unicode.So, r) || r == 0xFE0F || (r >= 0x2600 && r <= 0x27BF)
}

// decodeTags maps tag characters to the ASCII they encode.
func decodeTags(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > 0xE0000 && r < 0xE007F {
			b.WriteRune(r - 0xE0000)
		}
	}
	return b.String()
}

// around returns s[start:end] with up to n bytes of context on each side,
// cut on rune boundaries.
func around(s string, start, end, n int) string {
	a := max(0, start-n)
	for a > 0 && !utf8.RuneStart(s[a]) {
		a--
	}
	z := min(len(s), end+n)
	for z < len(s) && !utf8.RuneStart(s[z]) {
		z++
	}
	return s[a:z]
}

// confusables maps letters of other scripts that look like ASCII letters
// to the letter they imitate: the Cyrillic and Greek entries of the
// Unicode confusables data (UTS #39) whose prototype is a single ASCII
// letter or digit. Fullwidth forms are mapped arithmetically.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'һ': 'h', 'і': 'i', 'ј': 'j', 'к': 'k', 'м': 'm', 'н': 'h',
	'о': 'o', 'р': 'p', 'с': 'c', 'ѕ': 's', 'т': 't', 'у': 'y', 'х': 'x', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w',
	'ү': 'y', 'ɡ': 'g', 'ӏ': 'l', 'ո': 'n', 'ս': 'u', 'օ': 'o',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'Х': 'X', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'Ү': 'Y', 'Ԛ': 'Q', 'Ԝ': 'W',
	// Greek
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'τ': 't', 'ι': 'i', 'κ': 'k', 'υ': 'u', 'χ': 'x', 'γ': 'y',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// Latin letters that imitate others
	'ı': 'i', 'ȷ': 'j', 'ℓ': 'l',
}

// skeletonRune returns the ASCII letter r imitates, or 0.
func skeletonRune(r rune) rune {
	if c, ok := confusables[r]; ok {
		return c
	}
	if r >= 0xFF01 && r <= 0xFF5E { // fullwidth ASCII
		return r - 0xFF01 + '!'
	}
	return 0
}

// Skeleton maps a name to the ASCII it imitates: look-alike letters of
// other scripts become the ASCII letter, everything else stays. Two names
// with the same skeleton look the same to a person.
func Skeleton(name string) string {
	var b strings.Builder
	for _, r := range name {
		if c := skeletonRune(r); c != 0 {
			b.WriteRune(c)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// checkHomoglyph reports a name that contains look-alike letters while the
// rest of it is ASCII, or that consists only of look-alike letters: in
// both cases it reads as an ASCII name that it is not.
func checkHomoglyph(f textField) []Finding {
	s := f.text
	ascii, foreign, other := 0, 0, 0
	first, last := -1, -1
	for i, r := range s {
		switch {
		case r < 0x80:
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				ascii++
			}
		case skeletonRune(r) != 0:
			foreign++
			if first < 0 {
				first = i
			}
			last = i + utf8.RuneLen(r)
		case unicode.IsLetter(r):
			other++
		}
	}
	if foreign == 0 {
		return nil
	}
	// A name in Russian or Greek has many letters without an ASCII look-
	// alike; it imitates nothing.
	if other > 0 && other >= foreign {
		return nil
	}
	if ascii == 0 && foreign < 3 {
		return nil
	}
	sk := Skeleton(s)
	return []Finding{poisonFinding(CodePoisonHomoglyph, f, span{first, last},
		"the name %q reads as %q but %s from another script (%s)", s, sk, plural(foreign, "letter is", "letters are"), scriptsOf(s))}
}

// scriptsOf names the non-ASCII scripts in s.
func scriptsOf(s string) string {
	var names []string
	seen := map[string]bool{}
	for _, r := range s {
		name := ""
		switch {
		case r < 0x80:
			continue
		case unicode.Is(unicode.Cyrillic, r), unicode.Is(unicode.Armenian, r):
			name = "Cyrillic/Armenian"
		case unicode.Is(unicode.Greek, r):
			name = "Greek"
		case r >= 0xFF01 && r <= 0xFF5E:
			name = "fullwidth"
		default:
			name = fmt.Sprintf("U+%04X", r)
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// plural writes n with the singular or plural form: plural(1, "letter")
// is "1 letter", plural(2, "letter") "2 letters"; a third argument gives
// an irregular plural.
func plural(n int, one string, many ...string) string {
	if n == 1 {
		return "1 " + one
	}
	if len(many) > 0 {
		return fmt.Sprintf("%d %s", n, many[0])
	}
	return fmt.Sprintf("%d %ss", n, one)
}
