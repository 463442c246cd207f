package scoring

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	"github.com/mcpvet/mcpvet/internal/safe"
)

// maxSnippet bounds the quoted text in one piece of evidence.
const maxSnippet = 120

// isIdent reports whether c can be part of a name: a tool called get-sum
// or a parameter called entity_name is one token.
func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// findToken returns the first index at or after from where tok occurs in s
// as a whole token, or -1. A trailing '-' or '.' after the token is a
// boundary (end of sentence, "name-" never appears in practice).
func findToken(s, tok string, from int) int {
	if tok == "" {
		return -1
	}
	for from <= len(s)-len(tok) {
		i := strings.Index(s[from:], tok)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(tok)
		before := i == 0 || !isIdent(s[i-1])
		after := end == len(s) || !isIdent(s[end]) || (s[end] == '-' && (end+1 == len(s) || !isIdent(s[end+1])))
		if before && after {
			return i
		}
		from = i + 1
	}
	return -1
}

// commonWords are parameter names that are also ordinary English (or too
// short to be told apart from it); they count as mentioned only in a
// qualifying context.
var commonWords = map[string]bool{}

func init() {
	for w := range strings.FieldsSeq(`a b c d e f g h i j k l m n o p q r s t u v w x y z
		an as at be by do go id if in is it no of on or so to up us we
		all and any are but can for get has its key may new not one out per set the use was who why yes
		body code data date days file from head host kind last limit list mode name names next page path
		port size sort tail text time type unit url uri user value values with
		count error input items level limit offset order query range scope since start state status
		string number object array until units label labels model month email format field fields
		filter source target title token words message content request result action method option
		options number params prompt domain entity things object reason`) {
		commonWords[w] = true
	}
}

// distinctive reports whether a name is unlikely to appear in prose by
// accident: it has a '_', '-' or digit, an inner capital, or is a longer
// uncommon word.
func distinctive(name string) bool {
	if len(name) < 3 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' || c >= '0' && c <= '9' || i > 0 && c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return len(name) >= 4 && !commonWords[strings.ToLower(name)]
}

// nameCueWords precede a parameter name in prose: "at message",
// "parameter city", "field 'units'".
var nameCueWords = map[string]bool{
	"at": true, "parameter": true, "param": true, "field": true, "argument": true,
	"arg": true, "property": true, "key": true, "option": true, "input": true,
	"properties": true, "parameters": true, "arguments": true, "fields": true, "keys": true,
	"both": true,
}

// nameFollowers follow a parameter name in prose: "city is required",
// "units: must be one of".
var nameFollowers = []string{
	":", "=", " is required", " is missing", " must ", " should ", " is invalid",
	" field", " parameter", " argument", " property", " is not ", " was ", " has ",
	" cannot ", " can't ", " expected", " needs ", " outside", " not ",
}

// inFilePath reports whether s[i:j] is a file's base name in a path: after
// '/' and before a '.' and a letter ("/srv/app/dist/tools/repo.js").
func inFilePath(s string, i, j int) bool {
	return i > 0 && s[i-1] == '/' && j+1 < len(s) && s[j] == '.' && isLetter(s[j+1])
}

// quoted reports whether s[i:j] is wrapped in quotes, backticks, brackets,
// or is a JSON-pointer or path segment ("/properties/city", ".city").
func quoted(s string, i, j int) bool {
	if i > 0 {
		switch s[i-1] {
		case '\'', '"', '`', '[', '/', '.', '<', '(':
			return true
		}
	}
	if j < len(s) {
		switch s[j] {
		case '\'', '"', '`', ']', '>', ')':
			return true
		}
	}
	return false
}

// prevWord returns the word just before index i (skipping spaces).
func prevWord(s string, i int) string {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	k := j
	for k > 0 && isIdent(s[k-1]) {
		k--
	}
	return strings.ToLower(s[k:j])
}

// findName finds a mention of name in s. A distinctive name counts
// anywhere as a token; a common word only in a qualifying context.
func findName(s, name string) (int, int, bool) {
	if name == "" {
		return 0, 0, false
	}
	strong := distinctive(name)
	for from := 0; ; {
		i := findToken(s, name, from)
		if i < 0 {
			return 0, 0, false
		}
		j := i + len(name)
		if inFilePath(s, i, j) {
			// "tools/repo.js:14:5" in a stack frame names a source
			// file, not the argument repo.
			from = i + 1
			continue
		}
		if strong || quoted(s, i, j) || nameCueWords[prevWord(s, i)] {
			return i, j, true
		}
		rest := s[j:]
		for _, f := range nameFollowers {
			if strings.HasPrefix(rest, f) {
				return i, j, true
			}
		}
		from = i + 1
	}
}

// quotedValue finds v in s: anywhere for values of three or more
// characters that are not common words, otherwise only when quoted.
func quotedValue(s, v string) (int, int, bool) {
	if v == "" {
		return 0, 0, false
	}
	if len(v) > 64 {
		cut := 64
		for cut > 0 && (v[cut]&0xC0) == 0x80 {
			cut--
		}
		v = v[:cut]
	}
	if len(v) >= 3 && !commonWords[strings.ToLower(v)] {
		if i := strings.Index(s, v); i >= 0 {
			return i, i + len(v), true
		}
		return 0, 0, false
	}
	if len(v) == 2 && !commonWords[strings.ToLower(v)] {
		// A two-character value that is no English word counts as a whole
		// token: "Tool ad not found" (issue 25 item 2).
		if i, j, ok := wholeToken(s, v); ok {
			return i, j, true
		}
	}
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], v)
		if i < 0 {
			return 0, 0, false
		}
		i += from
		if quoted(s, i, i+len(v)) {
			return i, i + len(v), true
		}
		from = i + 1
	}
	return 0, 0, false
}

// wholeToken finds v in s with no letter, digit, '_' or '-' on either
// side.
func wholeToken(s, v string) (int, int, bool) {
	word := func(c byte) bool { return isDigitOrLetter(c) || c == '_' || c == '-' }
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], v)
		if i < 0 {
			return 0, 0, false
		}
		i += from
		j := i + len(v)
		if (i == 0 || !word(s[i-1])) && (j == len(s) || !word(s[j])) {
			return i, j, true
		}
		from = i + 1
	}
	return 0, 0, false
}

// findNumber finds the literal n as a number token in s.
func findNumber(s, n string) (int, int, bool) {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], n)
		if i < 0 {
			return 0, 0, false
		}
		i += from
		j := i + len(n)
		okBefore := i == 0 || !(isDigitOrLetter(s[i-1]) || s[i-1] == '.' || s[i-1] == '-' && n[0] != '-')
		okAfter := j == len(s) || !isDigitOrLetter(s[j]) && !(s[j] == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9')
		if okBefore && okAfter {
			return i, j, true
		}
		from = i + 1
	}
	return 0, 0, false
}

func isDigitOrLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// span formats evidence for s[i:j] of a segment: `text[12:22] "at message"`.
func span(seg segment, i, j int) string {
	return fmt.Sprintf("%s[%d:%d] %q", seg.label, i, j, safe.Truncate(seg.s[i:j], maxSnippet, safe.Ellipsis))
}

// fieldEvidence formats evidence for a JSON leaf: `text.code = "unknown_project"`.
func fieldEvidence(f field) string {
	switch v := f.val.(type) {
	case string:
		return fmt.Sprintf("%s = %q", f.path, safe.Truncate(v, maxSnippet, safe.Ellipsis))
	case int:
		if len(f.items) > 0 {
			return fmt.Sprintf("%s = [%s] (%d items)", f.path, safe.Truncate(strings.Join(quoteAll(f.items), ", "), maxSnippet, safe.Ellipsis), v)
		}
		if v >= 0 {
			return fmt.Sprintf("%s = array of %d", f.path, v)
		}
		return f.path + " = object"
	case nil:
		return f.path + " = null"
	default:
		return fmt.Sprintf("%s = %v", f.path, v)
	}
}

func quoteAll(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// asciiLower lowercases ASCII letters only, so byte offsets into the
// result are offsets into s.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !(s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	// One allocation, eight bytes at a time: a 10 MB response is lowered
	// in a few milliseconds.
	b := make([]byte, len(s))
	copy(b, s[:i])
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	j := i
	for ; j+8 <= len(s); j += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[j : j+8]))
		h := x &^ highs
		ge := h + ones*(0x80-'A')
		gt := h + ones*(0x80-'Z'-1)
		upper := ge &^ gt &^ x & highs
		binary.LittleEndian.PutUint64(b[j:], x|upper>>2)
	}
	for ; j < len(s); j++ {
		c := s[j]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[j] = c
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// guarded is a regular expression that only runs when one of the literal
// hints occurs in the text: most error texts contain none, and a
// substring search is far cheaper than a regexp.
type guarded struct {
	re    *lazyRE
	hints []string
	// pre, when set, replaces the hints.
	pre func(string) bool
	// mask is the guard's bit in a hint mask; short are its one-byte
	// hints, which the hint index cannot hold.
	mask  uint64
	short []string
}

func guard(expr string, hints ...string) guarded {
	g := guarded{re: lazy(expr), hints: hints}
	g.register()
	return g
}

// guardFunc guards expr with a custom precheck.
func guardFunc(expr string, pre func(string) bool) guarded {
	return guarded{re: lazy(expr), pre: pre}
}

func (g guarded) possible(s string) bool {
	if g.pre != nil {
		return g.pre(s)
	}
	for _, h := range g.hints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return len(g.hints) == 0
}
