package scoring

import (
	"strings"
)

// Rubric element 2, param (docs/rubric.md).

// paramCandidates returns the names whose mention satisfies the param
// element, and whether the element applies at all.
func paramCandidates(r *Response, c *Context) ([]string, bool) {
	switch r.Kind {
	case KindUnknownMethod:
		return nil, false
	case KindUnknownTool, KindUnknownPrompt:
		return []string{"name"}, true
	case KindUnknownResource:
		return []string{"uri"}, true
	case KindBadCursor:
		return []string{"cursor"}, true
	}
	if r.Param != "" {
		leaf := leafName(r.Param)
		if leaf != r.Param {
			return []string{leaf, r.Param}, true
		}
		return []string{leaf}, true
	}
	if missingKinds[r.Kind] && len(c.Required) > 0 {
		return c.Required, true
	}
	return nil, false
}

// paramKeys are JSON keys whose value names the field at fault.
var paramKeys = []string{"field", "param", "parameter", "argument", "arg", "property", "key", "path", "pointer", "loc", "location", "name", "fields", "params", "parameters", "missing", "invalid"}

func gradeParam(in *input, names []string) (bool, string) {
	for _, f := range in.fieldsWithKey(paramKeys...) {
		vals := f.items
		if s, ok := f.val.(string); ok {
			vals = []string{s}
		}
		for _, v := range vals {
			for _, n := range names {
				if v == n || leafName(v) == n {
					return true, fieldEvidence(f)
				}
			}
		}
	}
	// An echo of the arguments that holds the parameter alone names it:
	// "Provided arguments: {\"paths\": []}" (errors-v10).
	if ev, ok := in.soleEchoedKey(names); ok {
		return true, ev
	}
	toolWords := nameWords(in.r.Tool)
	for _, seg := range in.text {
		for _, n := range names {
			if i, j, ok := findNameOutside(seg, n, toolWords); ok {
				return true, span(seg, i, j)
			}
			// A short name written as an acronym: "URL must be from ..."
			// for url (errors-v11).
			if up := strings.ToUpper(n); len(n) <= 4 && n == strings.ToLower(n) && up != n {
				if i, j, ok := findName(seg.s, up); ok {
					return true, span(seg, i, j)
				}
			}
			// A common word counts next to the value it received:
			// "path ... /etc/passwd".
			if i := findToken(seg.s, n, 0); i >= 0 && in.sentIn(seg) {
				return true, span(seg, i, i+len(n))
			}
			// A common word listed with another argument of the tool:
			// "Missing required arguments: channel_id and text".
			if i := in.listedWithParam(seg.s, n); i >= 0 {
				return true, span(seg, i, i+len(n))
			}
			// A compound name spelled in words: "connection string"
			// for connectionString, "issue number" for issue_number.
			if w := nameWords(n); w != "" {
				if i := findToken(seg.lower, w, 0); i >= 0 {
					return true, span(seg, i, i+len(w))
				}
			}
			// Capitalised at the head of a sentence, next to the value:
			// "Path '12345' is not absolute".
			if low := strings.ToLower(n); low == n {
				if i := findToken(seg.lower, low, 0); i >= 0 && sentenceHead(seg.s, i) && in.sentIn(seg) {
					return true, span(seg, i, i+len(n))
				}
			}
		}
	}
	// For an unknown name, id or a runtime refusal of a value, the received
	// value itself identifies the input at fault: "Tool ech not found",
	// "ENOTDIR: not a directory, scandir '/srv/a.txt'".
	echoes := nameKinds[in.r.Kind] || in.r.Kind == KindBadCursor ||
		in.r.Kind == KindRuntime && in.sentType == 's' && len(in.sent) >= 3
	if echoes {
		if ev, ok := findSent(in); ok {
			return true, ev
		}
	}
	return false, "no mention of " + quoteList(names)
}

// nameWords spells a compound parameter name in lower-case words
// separated by spaces: connectionString, connection_string and
// connection-string give "connection string". It returns "" for a name of
// one word or with characters other than ASCII letters.
func nameWords(n string) string {
	var b strings.Builder
	words := 1
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c == '_' || c == '-':
			if i == 0 || i == len(n)-1 || n[i-1] == '_' || n[i-1] == '-' {
				return ""
			}
			b.WriteByte(' ')
			words++
		case c >= 'A' && c <= 'Z':
			if i > 0 && n[i-1] >= 'a' && n[i-1] <= 'z' {
				b.WriteByte(' ')
				words++
			}
			b.WriteByte(c + 'a' - 'A')
		case c >= 'a' && c <= 'z':
			b.WriteByte(c)
		default:
			return ""
		}
	}
	if words < 2 {
		return ""
	}
	return b.String()
}

// sentenceHead reports whether s[i:] starts a sentence: at the start of
// s, or after ". ", "! ", "? ", ": " or a line break.
func sentenceHead(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	return j == 0 || strings.ContainsRune(".!?:\n", rune(s[j-1]))
}

func quoteList(names []string) string {
	q := quoteAll(names)
	if len(q) > 4 {
		q = append(q[:4], "…")
	}
	return strings.Join(q, " or ")
}

// sentIn reports whether the received value appears in seg.
func (in *input) sentIn(seg segment) bool {
	switch in.sentType {
	case 's':
		_, _, ok := quotedValue(seg.s, in.sent)
		return ok
	case 'n':
		_, _, ok := findNumber(seg.s, in.sent)
		return ok
	}
	return false
}

// findSent finds the received value in the text.
func findSent(in *input) (string, bool) {
	if in.sent == "" {
		return "", false
	}
	for _, seg := range in.text {
		var i, j int
		var ok bool
		switch in.sentType {
		case 's':
			i, j, ok = quotedValue(seg.s, in.sent)
		case 'n':
			i, j, ok = findNumber(seg.s, in.sent)
		case 'b':
			i, j, ok = findBool(seg, in.sent)
		}
		if ok {
			return span(seg, i, j), true
		}
		for _, it := range in.sentItems {
			if i, j, ok := quotedValue(seg.s, it); ok {
				return span(seg, i, j), true
			}
		}
	}
	return "", false
}

// findSentPart finds a quoted part of a received string: "Invalid minute:
// \"99\"" for the cron expression "99 * * * *", "Invalid digit 'z'" for
// "zz".
func findSentPart(in *input) (string, bool) {
	if in.sentType != 's' || in.sent == "" {
		return "", false
	}
	for _, seg := range in.text {
		s := seg.s
		for i := 0; i < len(s); i++ {
			q := s[i]
			if q != '\'' && q != '"' && q != '`' {
				continue
			}
			j := strings.IndexByte(s[i+1:], q)
			if j <= 0 {
				continue
			}
			part := s[i+1 : i+1+j]
			if len(part) <= len(in.sent) && strings.Contains(in.sent, part) {
				return span(seg, i+1, i+1+j), true
			}
			i += j
		}
	}
	return "", false
}

var boolContext = lazy(`\b(received|got|given|value|was|is)\s*:?\s*["'` + "`" + `]?(true|false)\b`)

func findBool(seg segment, v string) (int, int, bool) {
	for _, loc := range boolContext.FindAllStringSubmatchIndex(seg.lower, -1) {
		if seg.lower[loc[4]:loc[5]] == v {
			return loc[4], loc[5], true
		}
	}
	return 0, 0, false
}

// listedWithParam finds name in s right after another argument name of the
// called tool and "and", "or" or a comma: "channel_id and text",
// "query, limit". It returns the index of name, or -1 (errors-v9).
func (in *input) listedWithParam(s, name string) int {
	for from := 0; ; {
		i := findToken(s, name, from)
		if i < 0 {
			return -1
		}
		from = i + 1
		j := i
		for j > 0 && s[j-1] == ' ' {
			j--
		}
		switch {
		case j > 0 && s[j-1] == ',':
			j--
		case strings.HasSuffix(strings.ToLower(s[:j]), "and") || strings.HasSuffix(strings.ToLower(s[:j]), "or"):
			w := prevWord(s, j)
			if w != "and" && w != "or" {
				continue
			}
			j -= len(w)
		default:
			continue
		}
		for j > 0 && s[j-1] == ' ' {
			j--
		}
		k := j
		for k > 0 && (isIdent(s[k-1]) || s[k-1] == '-') {
			k--
		}
		prev := s[k:j]
		for _, p := range in.c.ParamNames {
			if prev != "" && p != name && strings.EqualFold(p, prev) {
				return i
			}
		}
	}
}

// soleEchoedKey finds one of names as the only member of a JSON object in
// the response: an echo of the call's arguments that holds the parameter
// alone identifies it ("Provided arguments: {\"paths\": []}"); an object
// of several members does not say which one is at fault.
func (in *input) soleEchoedKey(names []string) (string, bool) {
	for _, f := range in.fields {
		if f.val != -1 {
			continue
		}
		var only *field
		n := 0
		prefix := f.path + "."
		for k := range in.fields {
			g := &in.fields[k]
			if rest, ok := strings.CutPrefix(g.path, prefix); ok && !strings.ContainsAny(rest, ".[") {
				n++
				only = g
			}
		}
		if n != 1 {
			continue
		}
		for _, name := range names {
			if only.key == normKey(name) {
				return only.path + " (the only member of the object)", true
			}
		}
	}
	return "", false
}

// inToolWords reports whether low[i:j] lies inside the called tool's name
// spelled in words (tw, from [nameWords]): "Failed to select account" for
// the tool select-account names the tool, not its argument account
// (errors-v11).
func inToolWords(low string, i, j int, tw string) bool {
	if tw == "" {
		return false
	}
	for from := 0; ; {
		k := strings.Index(low[from:], tw)
		if k < 0 {
			return false
		}
		k += from
		if k <= i && j <= k+len(tw) {
			return true
		}
		from = k + 1
	}
}

// findNameOutside is findName skipping mentions inside the called tool's
// name spelled in words (tw).
func findNameOutside(seg segment, n, tw string) (int, int, bool) {
	for from := 0; from < len(seg.s); {
		i, j, ok := findName(seg.s[from:], n)
		if !ok {
			return 0, 0, false
		}
		i, j = i+from, j+from
		if !inToolWords(seg.lower, i, j, tw) {
			return i, j, true
		}
		from = j
	}
	return 0, 0, false
}
