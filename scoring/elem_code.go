package scoring

import (
	"fmt"
	"slices"
	"strings"
)

// Rubric element 5, code (docs/rubric.md).

var (
	errnoCodes = map[string]bool{}
	// envSuffixes mark an UPPER_SNAKE token as an environment variable name
	// rather than an error code.
	envSuffixes = []string{"_KEY", "_TOKEN", "_SECRET", "_URL", "_URI", "_PATH", "_DIR", "_HOST", "_PORT", "_ID", "_PASSWORD", "_USER", "_HOME", "_FILE", "_ENDPOINT", "_REGION", "_PROFILE"}
)

func init() {
	for c := range strings.FieldsSeq(`ENOENT ENOTDIR EISDIR EACCES EPERM EEXIST ENOTEMPTY ETIMEDOUT
		ECONNREFUSED ECONNRESET ECONNABORTED EHOSTUNREACH ENETUNREACH ENOSPC EMFILE EBUSY EINVAL EAI_AGAIN
		ENOTFOUND EPIPE EROFS ELOOP ENAMETOOLONG EXDEV`) {
		errnoCodes[c] = true
	}
}

// codeKeys are JSON keys that carry an error code.
var codeKeys = []string{"code", "errorcode", "errcode", "errortype"}

func gradeCode(in *input) (bool, string) {
	for _, f := range in.fieldsWithKey(codeKeys...) {
		switch v := f.val.(type) {
		case string:
			if v != "" && len(v) <= 64 && !strings.ContainsAny(v, " \t\n") {
				return true, fieldEvidence(f)
			}
		case float64:
			if !jsonrpcReserved(int64(v)) {
				return true, fieldEvidence(f)
			}
		}
	}
	if c := in.r.ErrorCode; c != nil && !jsonrpcReserved(*c) {
		return true, fmt.Sprintf("error.code = %d", *c)
	}
	for _, seg := range in.text {
		underscore := strings.IndexByte(seg.s, '_') >= 0
		if !underscore && !maybeErrno(seg.s) {
			continue
		}
		if !underscore {
			if ev, ok := findErrno(seg); ok {
				return true, ev
			}
			continue
		}
		if i, j, ok := in.findCodeToken(seg); ok {
			return true, span(seg, i, j)
		}
	}
	for _, seg := range in.text {
		if i, j, ok := pydanticType(seg.s); ok {
			return true, span(seg, i, j)
		}
	}
	return false, "no stable machine-readable code"
}

// pydanticType finds the error type of a pydantic validation error, the
// stable code its documentation is keyed by: "Field required
// [type=missing, input_value={...}, input_type=dict]" (the Python SDK's and
// FastMCP's argument errors).
func pydanticType(s string) (int, int, bool) {
	const key = "[type="
	for from := 0; from < len(s); {
		k := strings.Index(s[from:], key)
		if k < 0 {
			return 0, 0, false
		}
		i := from + k + len(key)
		j := i
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] == '_') {
			j++
		}
		if j > i && j < len(s) && (s[j] == ',' || s[j] == ']') {
			return i, j, true
		}
		from = i
	}
	return 0, 0, false
}

// maybeErrno reports whether s has an 'E' followed by three capitals, the
// shape of every errno name.
func maybeErrno(s string) bool {
	for i := strings.IndexByte(s, 'E'); i >= 0 && i+3 < len(s); {
		if isUpper(s[i+1]) && isUpper(s[i+2]) && isUpper(s[i+3]) {
			return true
		}
		j := strings.IndexByte(s[i+1:], 'E')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// findErrno finds a POSIX errno name (ENOENT, ECONNREFUSED) as a token.
func findErrno(seg segment) (string, bool) {
	if !maybeErrno(seg.s) {
		return "", false
	}
	best := -1
	var code string
	for c := range errnoCodes {
		if i := findToken(seg.s, c, 0); i >= 0 && (best < 0 || i < best) {
			best, code = i, c
		}
	}
	if best < 0 {
		return "", false
	}
	return span(seg, best, best+len(code)), true
}

// codeKeywords precede a lower-snake code: "code: unknown_project",
// "error=rate_limited".
var codeKeywords = map[string]bool{"code": true, "error": true, "err": true, "reason": true, "type": true}

// findCodeToken finds a code-shaped token in seg: an UPPER_SNAKE token that
// is not an environment variable name, a POSIX errno name, a namespaced
// "auth/expired_token", or a lower_snake token in code position (at the
// start, after '[', or after code/error/err/reason/type). Names of the
// server's tools and parameters and the value sent are not codes.
func (in *input) findCodeToken(seg segment) (int, int, bool) {
	s, low := seg.s, seg.lower
	var lowerHits [][2]int
	for i := 0; i < len(s); {
		c := s[i]
		if !isSnakeByte(c) {
			i++
			continue
		}
		j := i
		under := false
		for j < len(s) && isSnakeByte(s[j]) {
			under = under || s[j] == '_'
			j++
		}
		tok := s[i:j]
		start := i
		i = j
		if !under || !isLetter(tok[0]) || !wellFormedSnake(low[start:j]) {
			continue
		}
		switch {
		case isUpperSnake(tok):
			// A file's name is not a code: "SOURCE_MAP.json" (errors-v10).
			if !in.isName(tok) && !hasEnvSuffix(tok) && !inFileName(s, j) {
				return start, j, true
			}
		case isLowerSnake(low[start:j]):
			lowerHits = append(lowerHits, [2]int{start, j})
		}
	}
	if ev, ok := errnoAt(seg); ok {
		return ev[0], ev[1], true
	}
	for _, h := range lowerHits {
		i, j := h[0], h[1]
		tok := s[i:j]
		if in.isName(tok) || in.isName(low[i:j]) {
			continue
		}
		if k := nsStart(low, i); k >= 0 {
			return k, j, true
		}
		if codePosition(low, i) || parenthesised(low, i, j) {
			return i, j, true
		}
	}
	return 0, 0, false
}

func isSnakeByte(c byte) bool { return isDigitOrLetter(c) || c == '_' }
func isLetter(c byte) bool    { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// wellFormedSnake reports whether every '_' in a lowercased token sits
// between two letters or digits.
func wellFormedSnake(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] == '_' && (i == 0 || i+1 == len(t) || t[i-1] == '_' || t[i+1] == '_') {
			return false
		}
	}
	return true
}

func isUpperSnake(t string) bool {
	for i := 0; i < len(t); i++ {
		if c := t[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func isLowerSnake(t string) bool {
	for i := 0; i < len(t); i++ {
		if c := t[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// nsStart returns where a namespaced code "area/name_x" starts when the
// token at i is its name part, or -1: "auth/expired_token", but not a path
// segment such as "/srv/app_data".
func nsStart(low string, i int) int {
	if i < 2 || low[i-1] != '/' {
		return -1
	}
	k := i - 1
	for k > 0 && (low[k-1] >= 'a' && low[k-1] <= 'z' || low[k-1] >= '0' && low[k-1] <= '9') {
		k--
	}
	if k == i-1 || !(low[k] >= 'a' && low[k] <= 'z') {
		return -1
	}
	if k > 0 {
		switch c := low[k-1]; {
		case c == '/' || c == '.' || c == '-' || c == '_' || isDigitOrLetter(c):
			return -1
		}
	}
	return k
}

// parenthesised reports whether the token low[i:j] stands alone in
// parentheses, where prose puts a code: "access was revoked
// (invalid_grant)".
func parenthesised(low string, i, j int) bool {
	return i > 0 && low[i-1] == '(' && j < len(low) && low[j] == ')'
}

// codePosition reports whether the token at i stands where a code does: at
// the start of the text (after an optional quote or bracket), right after
// '[', or after a code keyword and an optional ':' or '='.
func codePosition(low string, i int) bool {
	p := i
	if p > 0 && strings.IndexByte("\"'[(", low[p-1]) >= 0 {
		if low[p-1] == '[' {
			return true
		}
		p--
	}
	q := p
	for q > 0 && (low[q-1] == ' ' || low[q-1] == '\t' || low[q-1] == '\n') {
		q--
	}
	if q == 0 {
		return true
	}
	if low[q-1] == ':' || low[q-1] == '=' {
		q--
		for q > 0 && (low[q-1] == ' ' || low[q-1] == '\t') {
			q--
		}
		// A quoted key: "code": "invalid_type" in JSON the grader could
		// not parse (cut off, or embedded mid-text).
		if q > 0 && low[q-1] == '"' {
			q--
		}
	}
	k := q
	for k > 0 && low[k-1] >= 'a' && low[k-1] <= 'z' {
		k--
	}
	if k > 0 && isSnakeByte(low[k-1]) {
		return false
	}
	return codeKeywords[low[k:q]]
}

// errnoAt finds an errno name in seg.
func errnoAt(seg segment) ([2]int, bool) {
	if !maybeErrno(seg.s) {
		return [2]int{}, false
	}
	best := -1
	var code string
	for c := range errnoCodes {
		if i := findToken(seg.s, c, 0); i >= 0 && (best < 0 || i < best) {
			best, code = i, c
		}
	}
	if best < 0 {
		return [2]int{}, false
	}
	return [2]int{best, best + len(code)}, true
}

// jsonrpcReserved reports whether code is in the JSON-RPC reserved range
// (-32768 to -32000): generic transport codes every error carries.
func jsonrpcReserved(code int64) bool { return code >= -32768 && code <= -32000 }

func hasEnvSuffix(tok string) bool {
	return slices.ContainsFunc(envSuffixes, func(s string) bool { return strings.HasSuffix(tok, s) })
}

// isName reports whether tok is a name that looks like a code but is not:
// one of the server's tools or parameters, the called tool, the value
// sent, a secret variable's name.
func (in *input) isName(tok string) bool {
	if tok == in.r.Tool || tok == in.r.Param || in.sentType == 's' && tok == in.sent {
		return true
	}
	if in.r.Param != "" && tok == leafName(in.r.Param) {
		return true
	}
	for _, l := range [][]string{in.c.ToolNames, in.c.ParamNames, in.c.Required, in.c.PromptNames} {
		if slices.Contains(l, tok) {
			return true
		}
	}
	_, ok := in.c.Canaries[tok]
	return ok
}

// inFileName reports whether the token that ends at s[j] is followed by a
// file extension: '.', then one to five lower-case letters or digits, then
// the end of the token ("SOURCE_MAP.json", "README_FIRST.md").
func inFileName(s string, j int) bool {
	if j >= len(s) || s[j] != '.' {
		return false
	}
	k := j + 1
	for k < len(s) && k-j <= 6 && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= '0' && s[k] <= '9') {
		k++
	}
	return k > j+1 && k-j <= 6 && (k == len(s) || !isSnakeByte(s[k]))
}
