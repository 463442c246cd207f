// Package safe neutralises untrusted text (anything a server or a registry
// sent) before it reaches a terminal.
package safe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Terminal returns s with every control sequence and control character
// removed, except newline and tab. ESC-initiated sequences (CSI, OSC, DCS,
// ...) are dropped whole so that half a sequence cannot survive; invalid
// UTF-8 becomes U+FFFD. Bidi overrides are dropped too, since they can
// reorder what a reader sees.
func Terminal(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
			i++
			continue
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == 0x9b: // C1 CSI
			i += size
			for i < len(s) && !(s[i] >= 0x40 && s[i] <= 0x7e) {
				i++
			}
			if i < len(s) {
				i++
			}
			continue
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			// A bare CR lets text overwrite what came before it on the line.
		case unicode.IsControl(r), isBidi(r):
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// Line is [Terminal] with newlines and tabs folded to spaces, for table
// cells and one-line summaries.
func Line(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, Terminal(s))
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func isBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f
}

// escapeLen returns the length of the escape sequence at the start of s
// (which begins with ESC).
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameters and intermediates, then a final byte 0x40-0x7e
		i := 2
		for i < len(s) && !(s[i] >= 0x40 && s[i] <= 0x7e) {
			i++
		}
		if i < len(s) {
			i++
		}
		return i
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: until BEL or ST
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	default:
		return 2
	}
}
