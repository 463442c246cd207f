package probe

import (
	"fmt"
	"unicode/utf8"
)

// validateURITemplate checks t against the syntax of RFC 6570 (URI
// Template) up to level 4: literals, expressions with the operators
// + # . / ; ? &, comma-separated variable lists, dotted and percent-encoded
// variable names, prefix modifiers :1 to :9999 and the explode modifier.
// The operators = , ! @ | are reserved by the RFC and rejected. It returns
// nil for a valid template and an error naming the byte offset otherwise.
//
// It is hand-written against the RFC's ABNF (section 2.1 to 2.4) rather than
// taken from a module: the grammar is small, the checker needs only syntax
// (no expansion), and the errors name the offset and the rule broken.
func validateURITemplate(t string) error {
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case c == '{':
			end, err := parseTemplateExpression(t, i)
			if err != nil {
				return err
			}
			i = end
		case c == '}':
			return fmt.Errorf("unmatched '}' at offset %d", i)
		case c == '%':
			if !templatePct(t, i) {
				return fmt.Errorf("'%%' at offset %d is not followed by two hex digits", i)
			}
			i += 3
		case c < utf8.RuneSelf:
			if !templateLiteral(c) {
				return fmt.Errorf("character %q at offset %d is not allowed in a URI template literal; percent-encode it", c, i)
			}
			i++
		default:
			r, size := utf8.DecodeRuneInString(t[i:])
			if r == utf8.RuneError && size == 1 {
				return fmt.Errorf("invalid UTF-8 at offset %d", i)
			}
			if !templateUcschar(r) && !templateIprivate(r) {
				return fmt.Errorf("character %q at offset %d is not allowed in a URI template literal", r, i)
			}
			i += size
		}
	}
	return nil
}

// parseTemplateExpression parses the expression starting with '{' at t[start] and
// returns the offset after its '}'.
func parseTemplateExpression(t string, start int) (int, error) {
	i := start + 1
	if i >= len(t) {
		return 0, fmt.Errorf("unclosed expression at offset %d", start)
	}
	switch t[i] {
	case '+', '#', '.', '/', ';', '?', '&':
		i++
	case '=', ',', '!', '@', '|':
		return 0, fmt.Errorf("operator %q at offset %d is reserved by RFC 6570 for future extensions", t[i], i)
	}
	for {
		// varname = templateVarchar *( ["."] templateVarchar )
		nameStart := i
		for {
			n := templateVarchar(t, i)
			if n == 0 {
				break
			}
			i += n
			if i < len(t) && t[i] == '.' && templateVarchar(t, i+1) > 0 {
				i++
			}
		}
		if i == nameStart {
			if i >= len(t) {
				return 0, fmt.Errorf("unclosed expression at offset %d", start)
			}
			if t[i] == '}' {
				return 0, fmt.Errorf("empty variable name at offset %d", i)
			}
			return 0, fmt.Errorf("character %q at offset %d is not allowed in a variable name", t[i], i)
		}
		if i < len(t) && t[i] == ':' {
			i++
			digits := i
			for i < len(t) && t[i] >= '0' && t[i] <= '9' {
				i++
			}
			if i == digits || t[digits] == '0' || i-digits > 4 {
				return 0, fmt.Errorf("prefix modifier at offset %d must be a number from 1 to 9999", digits-1)
			}
		} else if i < len(t) && t[i] == '*' {
			i++
		}
		if i >= len(t) {
			return 0, fmt.Errorf("unclosed expression at offset %d", start)
		}
		switch t[i] {
		case ',':
			i++
		case '}':
			return i + 1, nil
		default:
			return 0, fmt.Errorf("character %q at offset %d is not allowed in an expression", t[i], i)
		}
	}
}

// templateVarchar returns the length of the templateVarchar at t[i] (ALPHA / DIGIT / "_"
// / pct-encoded), or 0.
func templateVarchar(t string, i int) int {
	if i >= len(t) {
		return 0
	}
	c := t[i]
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		return 1
	case c == '%' && templatePct(t, i):
		return 3
	}
	return 0
}

func templatePct(t string, i int) bool {
	return i+2 < len(t) && templateHex(t[i+1]) && templateHex(t[i+2])
}

func templateHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// templateLiteral reports whether an ASCII byte may appear literally:
// %x21 / %x23-24 / %x26 / %x28-3B / %x3D / %x3F-5B / %x5D / %x5F /
// %x61-7A / %x7E.
func templateLiteral(c byte) bool {
	switch {
	case c == 0x21, c >= 0x23 && c <= 0x24, c == 0x26, c >= 0x28 && c <= 0x3B, c == 0x3D,
		c >= 0x3F && c <= 0x5B, c == 0x5D, c == 0x5F, c >= 0x61 && c <= 0x7A, c == 0x7E:
		return true
	}
	return false
}

// templateUcschar is RFC 3987's templateUcschar.
func templateUcschar(r rune) bool {
	switch {
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFEF:
		return true
	case r >= 0x10000 && r <= 0xEFFFD:
		// %x10000-1FFFD / %x20000-2FFFD / ... / %xE1000-EFFFD: every plane
		// except its last two code points (and E0000-E0FFF).
		if r&0xFFFF >= 0xFFFE {
			return false
		}
		return !(r >= 0xE0000 && r <= 0xE0FFF)
	}
	return false
}

// templateIprivate is RFC 3987's templateIprivate.
func templateIprivate(r rune) bool {
	return r >= 0xE000 && r <= 0xF8FF || r >= 0xF0000 && r <= 0xFFFFD || r >= 0x100000 && r <= 0x10FFFD
}
