package scoring

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
)

// Tests that kill the survivors issue 26's session 8 shard (clone at
// 8dd5433) left in scoring; see docs/testing.md "Survivors of session 8
// (scoring)". Each kill was checked with `go run ./internal/mutantrun
// -verify`: KILLED with the mutant, and the test passes without it.

// TestAuthorItemsWorstKeepsFirst: the worst severity is the first of the
// highest rank, so a finding whose severity probe does not know (rank 0,
// a result written by another version) or has none never replaces one
// already seen at that rank: the verdict never says "(worst: )" of
// items that name a severity (verdict_actor.go:226 `>` -> `>=`).
func TestAuthorItemsWorstKeepsFirst(t *testing.T) {
	for _, tt := range []struct {
		fs    []probe.Finding
		n     int
		worst probe.Severity
	}{
		{[]probe.Finding{{Code: "a/x", Severity: "critical"}, {Code: "a/y"}}, 2, "critical"},
		{[]probe.Finding{{Code: "a/x", Severity: "critical"}, {Code: "a/y", Severity: "severe"}}, 2, "critical"},
		{[]probe.Finding{{Code: "a/x"}, {Code: "a/y", Severity: probe.SeverityInfo}}, 2, probe.SeverityInfo},
		{[]probe.Finding{{Code: "a/x", Severity: probe.SeverityWarn}, {Code: "a/y", Severity: probe.SeverityError}, {Code: "a/z", Severity: probe.SeverityWarn}}, 3, probe.SeverityError},
		{[]probe.Finding{{Code: "a/x", Subject: "tool:t", Severity: probe.SeverityWarn}, {Code: "a/x", Subject: "tool:t", Severity: probe.SeverityFatal}}, 1, probe.SeverityWarn},
		{nil, 0, ""},
	} {
		n, worst := authorItems(tt.fs)
		if n != tt.n || worst != tt.worst {
			t.Errorf("authorItems(%v) = %d, %q, want %d, %q", tt.fs, n, worst, tt.n, tt.worst)
		}
	}
}

// TestFindTokenTrailingHyphen: a token followed by a '-' is whole when the
// hyphen ends the text or a word ("get_sum-", "get_sum- failed"), and
// part of a longer name when a name byte follows ("get_sum-v2"): match.go
// :36 `end+1` -> `end-1` (read past the end: panic) and `s[end+1]` ->
// `s[end-1]` (the token's own last byte read).
func TestFindTokenTrailingHyphen(t *testing.T) {
	for _, tt := range []struct {
		s, tok string
		want   int
	}{
		{"call get_sum-", "get_sum", 5},
		{"get_sum- failed", "get_sum", 0},
		{"get_sum-.", "get_sum", 0},
		{"get_sum-v2 failed", "get_sum", -1},
		{"get_sum-v2 or get_sum- now", "get_sum", 14},
		{"get_sum-_", "get_sum", -1},
	} {
		if got := findToken(tt.s, tt.tok, 0); got != tt.want {
			t.Errorf("findToken(%q, %q) = %d, want %d", tt.s, tt.tok, got, tt.want)
		}
	}
}

// TestDistinctiveLength: a name of four letters or more that is no common
// word is distinctive ("city", "zone"), three letters are not; a short
// name is distinctive by a digit, 0 to 9, or an inner capital, A to Z,
// but not by a capital first (match.go :73, the ends of each range and
// `i > 0`).
func TestDistinctiveLength(t *testing.T) {
	for name, want := range map[string]bool{
		"city": true, "zone": true, "cities": true, "abc": false, "path": false, "ab": false,
		"a_b": true, "a-b": true, "ab1": true, "ab0": true, "ab9": true, "aBc": true, "aAb": true, "aZb": true,
		"Abc": false, "Zab": false, "ab.": false, "ab/": false, "ab:": false, "ab@": false, "ab[": false,
	} {
		if got := distinctive(name); got != want {
			t.Errorf("distinctive(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestInFilePathEdges: a name is a file's base name in a path only with
// a '.' and a letter after it; a name ending the text, or a '.' ending
// it, is no file (match.go :100 `j+1 < len(s)` -> `<=` and `j+1` ->
// `j-1`, both reading past the end: panic; `s[j+1]` -> `s[j-1]`, the
// name's own last letter taken for the extension's first).
func TestInFilePathEdges(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"/srv/repo.js", true}, {"/srv/repo.js:14:5", true}, {"/srv/repo", false}, {"/srv/repo.", false},
		{"/srv/repo.1", false}, {"srv repo.js", false},
	} {
		i := strings.Index(tt.s, "repo")
		if got := inFilePath(tt.s, i, i+4); got != tt.want {
			t.Errorf("inFilePath(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
	for _, s := range []string{"no such file /srv/repo", "read /srv/repo."} {
		if _, _, ok := findName(s, "repo"); !ok {
			t.Errorf("findName(%q, repo): not found", s)
		}
	}
}

// TestPrevWordBlanks: the word before a name is found across spaces and
// tabs ("parameter\tlimit"; match.go :124 `s[j-1] == '\t'` -> `s[j+1]`).
func TestPrevWordBlanks(t *testing.T) {
	for _, tt := range []struct {
		s    string
		i    int
		want string
	}{
		{"parameter\tlimit", 10, "parameter"}, {"field \t limit", 8, "field"}, {"Param  limit", 7, "param"},
		{"limit", 0, ""}, {"\tlimit", 1, ""}, {"get-sum limit", 8, "get-sum"},
	} {
		if got := prevWord(tt.s, tt.i); got != tt.want {
			t.Errorf("prevWord(%q, %d) = %q, want %q", tt.s, tt.i, got, tt.want)
		}
	}
	if _, _, ok := findName("parameter\tlimit out of range", "limit"); !ok {
		t.Error(`findName("parameter\tlimit ...", limit): not found`)
	}
}

// TestQuotedValueLongValues: a sent value over 64 bytes is searched by its
// first 64, backed off to a rune boundary (match.go :172 `len(v) > 64` ->
// `>=`: a value of exactly 64 bytes indexed one past its end, a panic;
// :174 `cut > 0` negated: the cut left in the middle of "é"; :174
// `(v[cut]&0xC0) == 0x80` negated: an ASCII value backed off to nothing).
func TestQuotedValueLongValues(t *testing.T) {
	a64 := strings.Repeat("x", 64)
	a70 := strings.Repeat("y", 70)
	e := strings.Repeat("z", 63) + "é" + "tail"
	for _, tt := range []struct {
		s, v   string
		i, j   int
		wantOK bool
	}{
		{"bad: " + a64 + "!", a64, 5, 69, true},
		{"bad: " + a70 + "!", a70, 5, 69, true},
		{"bad: " + e, e, 5, 68, true},
		{"bad: " + a70[:63] + "!", a70, 0, 0, false},
	} {
		i, j, ok := quotedValue(tt.s, tt.v)
		if i != tt.i || j != tt.j || ok != tt.wantOK {
			t.Errorf("quotedValue(%.20q..., %d bytes) = %d, %d, %v, want %d, %d, %v", tt.s, len(tt.v), i, j, ok, tt.i, tt.j, tt.wantOK)
		}
	}
}

// TestWholeTokenAtTheStart: a two-character value that opens the text is
// a whole token (match.go :212 `i < 0` -> `<=`, :217 `i == 0` negated:
// s[-1] read, a panic).
func TestWholeTokenAtTheStart(t *testing.T) {
	for _, tt := range []struct {
		s    string
		i, j int
		ok   bool
	}{
		{"ad not found", 0, 2, true}, {"Tool ad not found", 5, 7, true}, {"tool ad", 5, 7, true},
		{"adx ad-1 ad", 9, 11, true}, {"_ad", 0, 0, false},
	} {
		i, j, ok := wholeToken(tt.s, "ad")
		if i != tt.i || j != tt.j || ok != tt.ok {
			t.Errorf("wholeToken(%q, ad) = %d, %d, %v, want %d, %d, %v", tt.s, i, j, ok, tt.i, tt.j, tt.ok)
		}
	}
	if i, j, ok := quotedValue("ad not found", "ad"); i != 0 || j != 2 || !ok {
		t.Errorf(`quotedValue("ad not found", ad) = %d, %d, %v`, i, j, ok)
	}
}

// TestFindNumberEdges: the number sent is found as a number token: at the
// start of the text (match.go :229 `i < 0` -> `<=`, :234 `i == 0` negated),
// not inside another number ("0.42", "-5", "5.0", "5.9", "x42"; :234
// `s[i-1]` -> `s[i+1]`, `n[0] != '-'` negated; :235 the digit range of
// the byte after a '.'), before a sentence's stop at the end of the text
// or before a letter ("5.", "5.Use"; :235 `j+1 < len(s)` -> `<=`, `j+1`
// -> `j-1`: a panic; `s[j+1]` -> `s[j-1]`), and before a space and more
// digits ("5 10"; :235 `s[j] == '.'` negated).
func TestFindNumberEdges(t *testing.T) {
	for _, tt := range []struct {
		s, n string
		i    int
		ok   bool
	}{
		{"42 is too large", "42", 0, true},
		{"got 0.42", "42", 0, false},
		{"got x42", "42", 0, false},
		{"got -5", "5", 0, false},
		{"got -5", "-5", 4, true},
		{"got 5.0", "5", 0, false},
		{"got 5.9", "5", 0, false},
		{"got 5.5", "5", 0, false},
		{"limit is 5.", "5", 9, true},
		{"at most 5.Use fewer", "5", 8, true},
		{"5 10", "5", 0, true},
		{"15 or 5", "5", 6, true},
	} {
		i, _, ok := findNumber(tt.s, tt.n)
		if i != tt.i || ok != tt.ok {
			t.Errorf("findNumber(%q, %q) = %d, %v, want %d, %v", tt.s, tt.n, i, ok, tt.i, tt.ok)
		}
	}
}

// TestIsDigitOrLetterEdges: the ends of each byte range (match.go :245).
func TestIsDigitOrLetterEdges(t *testing.T) {
	for c, want := range map[byte]bool{
		'a': true, 'z': true, 'A': true, 'Z': true, '0': true, '9': true,
		'`': false, '{': false, '@': false, '[': false, '/': false, ':': false, '_': false, '-': false,
	} {
		if got := isDigitOrLetter(c); got != want {
			t.Errorf("isDigitOrLetter(%q) = %v, want %v", c, got, want)
		}
	}
}

// TestFieldEvidenceEmptyArray: an empty array is "array of 0", not an
// object (match.go :262 `v >= 0` -> `>`).
func TestFieldEvidenceEmptyArray(t *testing.T) {
	for _, tt := range []struct {
		f    field
		want string
	}{
		{field{path: "text.items", val: 0}, "text.items = array of 0"},
		{field{path: "text.items", val: 2}, "text.items = array of 2"},
		{field{path: "text.error", val: -1}, "text.error = object"},
	} {
		if got := fieldEvidence(tt.f); got != tt.want {
			t.Errorf("fieldEvidence(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// TestASCIILowerOnlyZ: a text whose only capital is a Z is lowered
// (match.go :285 `s[i] <= 'Z'` -> `<`: returned as it was).
func TestASCIILowerOnlyZ(t *testing.T) {
	for s, want := range map[string]string{"Z": "z", "fizZ": "fizz", "A": "a", "abc[@": "abc[@"} {
		if got := asciiLower(s); got != want {
			t.Errorf("asciiLower(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestQuotedValueShortValues: a value of one character, or a common word,
// counts only quoted; the search goes on past an unquoted mention at the
// start (match.go :194 `i < 0` -> `<=`: "x 'x'" not found) and checks the
// byte after the value for the closing quote (:198 `i+len(v)` ->
// `i-len(v)`).
func TestQuotedValueShortValues(t *testing.T) {
	for _, tt := range []struct {
		s, v string
		i, j int
		ok   bool
	}{
		{"x 'x'", "x", 3, 4, true},
		{"bad id' here", "id", 4, 6, true},
		{"id' here", "id", 0, 2, true},
		{"'id'", "id", 1, 3, true},
		{"id is bad", "id", 0, 0, false},
		{"the x is bad", "x", 0, 0, false},
	} {
		i, j, ok := quotedValue(tt.s, tt.v)
		if i != tt.i || j != tt.j || ok != tt.ok {
			t.Errorf("quotedValue(%q, %q) = %d, %d, %v, want %d, %d, %v", tt.s, tt.v, i, j, ok, tt.i, tt.j, tt.ok)
		}
	}
}

// TestGuardPossible: possible, the precheck of reCue and reWaitFor, says
// yes to every text for a guard without hints and only to texts holding a
// hint for one with hints (match.go :349 `len(g.hints) == 0` -> `!= 0`;
// every guard of the grader has hints, like hints.go's hit).
func TestGuardPossible(t *testing.T) {
	bare := guarded{}
	hinted := guarded{hints: []string{"retry", "wait"}}
	pre := guarded{hints: []string{"retry"}, pre: func(s string) bool { return s == "x" }}
	for _, tt := range []struct {
		g    guarded
		s    string
		want bool
	}{
		{bare, "", true}, {bare, "anything", true},
		{hinted, "zzz", false}, {hinted, "please retry", true}, {hinted, "wait 5 s", true},
		{pre, "x", true}, {pre, "retry", false},
	} {
		if got := tt.g.possible(tt.s); got != tt.want {
			t.Errorf("guard hints %q: possible(%q) = %v, want %v", tt.g.hints, tt.s, got, tt.want)
		}
	}
}

// TestCanaryEdges: a canary of six bytes is searched (leaks.go :163
// `len(v) < 6` -> `<=`), five are not, and one that opens the text is
// found (:166 `i >= 0` -> `>`).
func TestCanaryEdges(t *testing.T) {
	c := &Context{Canaries: map[string]string{"SIX": "k9Qz7w", "FIVE": "k9Qz7"}}
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"k9Qz7w is the key", []string{"text[0:6]"}},
		{"key: k9Qz7w", []string{"text[5:11]"}},
		{"key: k9Qz7", nil},
	} {
		var got []string
		for _, l := range ScanLeaks("text", tt.text, c) {
			if l.Kind == LeakSecret {
				got = append(got, l.Where)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("ScanLeaks(%q) canaries at %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestHostPathAtTheStart: a host path that opens the text is reported
// (leaks.go :241 `i < 0` -> `<=`: the second group's -1 used, a panic).
func TestHostPathAtTheStart(t *testing.T) {
	for text, want := range map[string]string{
		"/home/bob/notes.txt: not found":  "text[0:19]",
		"open /home/bob/notes.txt failed": "text[5:24]",
		`C:\Users\bob\notes.txt missing`:  "text[0:22]",
	} {
		var got []string
		for _, l := range ScanLeaks("text", text, nil) {
			if l.Kind == LeakHostPath {
				got = append(got, l.Where)
			}
		}
		if !slices.Equal(got, []string{want}) {
			t.Errorf("ScanLeaks(%q) host paths at %v, want [%s]", text, got, want)
		}
	}
}

// TestHasLineColEdges: ":<digits>:<digits>" is found with a ':' at byte
// 0 (leaks.go :257 `i >= 0` -> `>`), digits 0 and 9 on either side (:259,
// :262 the range ends), after an empty "::" (:266 `k < 0` -> `<=`), and
// not with no digit before the second ':' (:262 `j > i+1`, `i+1` ->
// `i-1`), a ':' ending the text (:262 `j+1 < len(s)` -> `<=`: a panic) or
// a letter after it (:262 `s[j+1]` -> `s[j-1]`).
func TestHasLineColEdges(t *testing.T) {
	for s, want := range map[string]bool{
		":12:5":           true,
		"at f (x.js:0:0)": true,
		"x.js:9:9":        true,
		"x.js:09:90":      true,
		"a::12:3":         true,
		"a::1":            false,
		"x:12:":           false,
		"x:12:y":          false,
		"x:1:a":           false,
		"x:/:1":           false,
		"x:1:/":           false,
		"x:1:;":           false,
		"x:;:1":           false,
		"no colon":        false,
	} {
		if got := hasLineCol(s); got != want {
			t.Errorf("hasLineCol(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestRedactShortAndUserless: a credential of four bytes or fewer shows
// nothing of itself (leaks.go :294 `len(s) <= 4` -> `<`), and a URL's
// password goes even with no user name, the form Redis URLs take
// ("redis://:pw@host"; :305 `colon >= 0` -> `>`).
func TestRedactShortAndUserless(t *testing.T) {
	for s, want := range map[string]string{"abcd": "…", "abc": "…", "abcde": "abcd…"} {
		if got := redact(s); got != want {
			t.Errorf("redact(%q) = %q, want %q", s, got, want)
		}
	}
	for s, want := range map[string]string{
		"redis://:hunter2@cache:6379":    `"redis://:***@cache:6379"`,
		"postgres://app:hunter2@db/prod": `"postgres://app:***@db/prod"`,
		"postgres://app@db/prod":         `"postgres://app@db/prod"`,
	} {
		if got := redactURL(s); got != want {
			t.Errorf("redactURL(%q) = %s, want %s", s, got, want)
		}
	}
	for _, l := range ScanLeaks("text", "cannot reach redis://:hunter2@cache:6379", nil) {
		if strings.Contains(l.Evidence, "hunter2") {
			t.Errorf("evidence repeats the password: %s", l.Evidence)
		}
	}
}

// TestEchoesDepthAndCap: what the caller sent counts as an echo down to
// depth 8 of the arguments, through objects and arrays alike (leaks.go
// :332 `depth > 8` -> `>=`; :343 and :347 `depth+1` -> `depth-1`: no
// depth bound), and until the echo holds more than maxScanBytes (:332
// `b.Len() > maxScanBytes` -> `>=`). The decoded string differs from its
// JSON text (`\u00f6`), so only the decoded strings can echo it; the JSON
// text is an echo of its own (TestEchoOfEscapedArguments).
func TestEchoesDepthAndCap(t *testing.T) {
	nest := func(open, close string, n int) string {
		return strings.Repeat(open, n) + `"/home/b\u00f6b/deep.txt"` + strings.Repeat(close, n)
	}
	echoOf := func(args string) string {
		return newInput(&Response{Kind: KindRuntime, Class: ClassToolError, Text: "x", Arguments: []byte(args)}, &Context{}).echoes()
	}
	for _, tt := range []struct {
		name, args string
		want       bool
	}{
		{"8 objects", nest(`{"a":`, `}`, 8), true},
		{"9 objects", nest(`{"a":`, `}`, 9), false},
		{"8 arrays", nest(`[`, `]`, 8), true},
		{"9 arrays", nest(`[`, `]`, 9), false},
		{"echo of exactly the cap, then more", `["` + strings.Repeat("x", maxScanBytes-1) + `", "/home/b\u00f6b/deep.txt"]`, true},
		{"echo over the cap, then more", `["` + strings.Repeat("x", maxScanBytes) + `", "/home/b\u00f6b/deep.txt"]`, false},
	} {
		if got := strings.Contains(echoOf(tt.args), "/home/böb/deep.txt"); got != tt.want {
			t.Errorf("%s: echoed %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestWalkJSONDepthAndOffsets: the message walker follows 64 levels of
// nesting, objects or arrays (leaks.go :424 `depth > maxWalkDepth` ->
// `>=`; :437 `depth+1` -> `depth-1`: no bound through objects), and
// numbers the items of a list result's top-level array from the page's
// offset on, one by one (:443 `depth == 1`, `offset != nil` negated; :447
// `i++` -> `i--`; :448 `base+i` -> `base-i`).
func TestWalkJSONDepthAndOffsets(t *testing.T) {
	has := func(out []strand, s string) bool {
		return slices.ContainsFunc(out, func(st strand) bool { return st.s == s })
	}
	for _, tt := range []struct {
		name, raw string
		want      bool
	}{
		{"65 arrays", strings.Repeat("[", 65) + `"deep"` + strings.Repeat("]", 65), true},
		{"66 arrays", strings.Repeat("[", 66) + `"deep"` + strings.Repeat("]", 66), false},
		{"65 objects", strings.Repeat(`{"a":`, 65) + `"deep"` + strings.Repeat("}", 65), true},
		{"66 objects", strings.Repeat(`{"a":`, 66) + `"deep"` + strings.Repeat("}", 66), false},
	} {
		if got := has(walkJSON([]byte(tt.raw), "", nil, nil), "deep"); got != tt.want {
			t.Errorf("%s: found %v, want %v", tt.name, got, tt.want)
		}
	}
	off := map[string]int{"tools": 2}
	out := walkJSON([]byte(`{"tools":[{"name":"a"},{"name":"b"}],"x":[["c"]]}`), "", off, nil)
	var chans []string
	for _, st := range out {
		chans = append(chans, st.channel)
	}
	want := []string{"tools (key)", "tools[2].name (key)", "tools[2].name", "tools[3].name (key)", "tools[3].name", "x (key)", "x[0][0]"}
	if !slices.Equal(chans, want) {
		t.Errorf("channels %q, want %q", chans, want)
	}
	if off["tools"] != 4 || off["x"] != 1 {
		t.Errorf("offsets after the page %v, want tools 4, x 1", off)
	}
	out = walkJSON([]byte(`[["a","b"]]`), "", nil, nil)
	if len(out) != 2 || out[0].channel != "[0][0]" || out[1].channel != "[0][1]" {
		t.Errorf("without offsets: %v", out)
	}
}

// TestMessageStrandsChannels: a list result's strings are named from the
// list itself (leaks.go :488 `m.Kind == "result"` negated: prefixed with
// the method), the items of a later page by their place in the whole
// list, and a listing from its first page again from 0 (:511 both
// halves negated, :515 `== nil` negated); a leak's subject is the prompt
// or resource it came from (:530 `m.Method == "prompts/get"` negated).
func TestMessageStrandsChannels(t *testing.T) {
	offsets := map[string]map[string]int{}
	page := func(params, body string) []string {
		var out []string
		for _, st := range messageStrands(probe.Message{Kind: "result", Method: "tools/list", Params: []byte(params), Body: []byte(body)}, offsets) {
			if st.s == "a" || st.s == "b" || st.s == "c" {
				out = append(out, st.channel)
			}
		}
		return out
	}
	for i, tt := range []struct {
		params, body string
		want         []string
	}{
		{`{}`, `{"tools":[{"name":"a"},{"name":"b"}]}`, []string{"tools[0].name", "tools[1].name"}},
		{`{"cursor":"p2"}`, `{"tools":[{"name":"c"}]}`, []string{"tools[2].name"}},
		{`{}`, `{"tools":[{"name":"a"}]}`, []string{"tools[0].name"}},
		{``, `{"tools":[{"name":"b"}]}`, []string{"tools[0].name"}},
	} {
		if got := page(tt.params, tt.body); !slices.Equal(got, tt.want) {
			t.Errorf("page %d: channels %q, want %q", i+1, got, tt.want)
		}
	}
	for m, want := range map[*probe.Message]string{
		{Kind: "result", Method: "prompts/get", Name: "p"}:            "prompt:p",
		{Kind: "result", Method: "resources/read", Name: "file:///x"}: "resource:file:///x",
		{Kind: "result", Method: "tools/call", Name: "t"}:             "tool:t",
		{Kind: "result", Method: "ping", Name: "x"}:                   "server",
		{Kind: "notification", Method: "prompts/get", Name: "p"}:      "server",
	} {
		if got := subjectOfMessage(*m); got != want {
			t.Errorf("subjectOfMessage(%+v) = %q, want %q", *m, got, want)
		}
	}
}

// TestSplitCanaryJoins: a canary's hex form split over two strings is
// found in the message's strings joined, also when it opens the joined
// text (leaks.go :603 `from < len(joined)` negated, :605 `i < 0` ->
// `<=`), and named by the two strings it spans (:599 `off+1` ->
// `off-1`); one split over the same field of two items, with other
// strings between, is found in that field's strings joined (:577 both
// comparisons negated). Hex, since the piece finder also finds the
// verbatim value cut in pieces, under the same channel.
func TestSplitCanaryJoins(t *testing.T) {
	const v = "k9Qz7wX2mP4r"
	h := hex.EncodeToString([]byte(v))
	ns := canaryNeedles(map[string]string{"TOKEN": v})
	split := func(strands []strand) []string {
		var out []string
		searchStrands(strands, ns, func(h canaryHit) {
			if h.enc == "split, hex" && !slices.Contains(out, h.channel) {
				out = append(out, h.channel)
			}
		})
		return out
	}
	for _, tt := range []struct {
		name    string
		strands []strand
		want    []string
	}{
		{"two strings", []strand{{channel: "a", group: "a", s: "xx " + h[:5]}, {channel: "b", group: "b", s: h[5:] + " yy"}}, []string{"a + b"}},
		{"at the start", []strand{{channel: "a", group: "a", s: h[:5]}, {channel: "b", group: "b", s: h[5:]}}, []string{"a + b"}},
		{"ends at a string's end", []strand{{channel: "a", group: "a", s: "xx " + h[:4]}, {channel: "b", group: "b", s: h[4:]}, {channel: "c", group: "c", s: "zz"}}, []string{"a + b"}},
		{"within one string", []strand{{channel: "a", group: "a", s: "xxxx"}, {channel: "b", group: "b", s: h}}, nil},
		{"same field of two items", []strand{
			{channel: "tools[0].description", group: "tools[*].description", s: "xx " + h[:6]},
			{channel: "tools[1].name", group: "tools[*].name", s: "zz"},
			{channel: "tools[1].description", group: "tools[*].description", s: h[6:] + " yy"},
			{channel: "tools[1].title", group: "tools[*].title", s: "tt"},
		}, []string{"tools[0].description + tools[1].description"}},
	} {
		if got := split(tt.strands); !slices.Equal(got, tt.want) {
			t.Errorf("%s: split hits %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestDecodedFormsEdges: a string that opens with a JSON escape or a
// percent escape is decoded too (leaks.go :653, :658 `>= 0` -> `>` and
// negated); a string of 16 bytes or more with a line break, carriage
// return, tab or space gets a form without them (:663 `len(s) >= 16`,
// :665 each comparison negated, :666 `-1` -> `1`).
func TestDecodedFormsEdges(t *testing.T) {
	const v = "k9Qz7wX2mP4r"
	has := func(s, want, enc string) bool {
		return slices.ContainsFunc(decodedForms(s), func(f form) bool { return f.s == want && f.enc == enc })
	}
	for _, tt := range []struct {
		s, want, enc string
	}{
		{`\u006b9Qz7wX2mP4r`, v, "JSON escapes"},
		{`x\u006b9Qz7wX2mP4r`, "x" + v, "JSON escapes"},
		{"%6b9Qz7wX2mP4r", v, "percent-encoded"},
		{"x%6b9Qz7wX2mP4r", "x" + v, "percent-encoded"},
		{"ab k9Qz7w\nX2mP4r", "abk9Qz7wX2mP4r", "wrapped"},
		{"abcd" + v[:6] + "\n" + v[6:], "abcd" + v, "wrapped"},
		{"abcd" + v[:6] + "\r" + v[6:], "abcd" + v, "wrapped"},
		{"abcd" + v[:6] + "\t" + v[6:], "abcd" + v, "wrapped"},
		{"abcd" + v[:6] + " " + v[6:], "abcd" + v, "wrapped"},
	} {
		if !has(tt.s, tt.want, tt.enc) {
			t.Errorf("decodedForms(%q) = %q, want the %s form %q", tt.s, decodedForms(tt.s), tt.enc, tt.want)
		}
	}
	if fs := decodedForms("a k9Qz7w\nX2mP4"); len(fs) != 1 {
		t.Errorf("decodedForms of 15 bytes = %q, want the text alone", fs)
	}
}

// TestPiecesChannelAndJoinEnc: a canary cut in pieces is named by the one
// string it is in, or by the first and last strings of the message
// (leaks.go :618 `len(strands) > 1` -> `>=` and negated: "a + a", or "a"
// for two strings); an encoding list is joined without an empty part
// (:638, :640 negated: ", hex").
func TestPiecesChannelAndJoinEnc(t *testing.T) {
	ns := canaryNeedles(map[string]string{"TOKEN": "k9Qz7wX2mP4r"})
	chans := func(strands []strand) []string {
		var out []string
		searchJoined(strands, ns, func(h canaryHit) {
			if !slices.Contains(out, h.channel) {
				out = append(out, h.channel)
			}
		})
		return out
	}
	if got := chans([]strand{{channel: "a", s: "part1=k9Qz7w part2=X2mP4r"}}); !slices.Equal(got, []string{"a"}) {
		t.Errorf("pieces in one string: channels %q, want [a]", got)
	}
	if got := chans([]strand{{channel: "a", s: "part1=k9Qz7w part2=X2mP4r"}, {channel: "b", s: "other"}}); !slices.Equal(got, []string{"a + b"}) {
		t.Errorf("pieces in a message of two strings: channels %q, want [a + b]", got)
	}
	for _, tt := range [][3]string{{"", "hex", "hex"}, {"split", "", "split"}, {"split", "hex", "split, hex"}, {"", "", ""}} {
		if got := joinEnc(tt[0], tt[1]); got != tt[2] {
			t.Errorf("joinEnc(%q, %q) = %q, want %q", tt[0], tt[1], got, tt[2])
		}
	}
}

// TestMessagesOfListings: a result read back without its received
// messages gets its listings rebuilt as one list each, items in order and
// separated by commas, an item without its JSON as null (leaks.go :742
// `len(raws) == 0` negated, :748 `i > 0` -> `>=` and negated, :785
// `len(r) == 0` negated).
func TestMessagesOfListings(t *testing.T) {
	res := &probe.Result{Tools: []probe.Tool{{Name: "a", Raw: []byte(`{"name":"a"}`)}, {Name: "b", Raw: []byte(`{"name":"b"}`)}, {Name: "c"}}}
	ms := messagesOf(res)
	if len(ms) != 1 || ms[0].Method != "tools/list" || string(ms[0].Body) != `{"tools":[{"name":"a"},{"name":"b"},null]}` {
		t.Fatalf("messagesOf = %+v", ms)
	}
	if ms := messagesOf(&probe.Result{}); len(ms) != 0 {
		t.Errorf("messagesOf(empty result) = %+v, want none", ms)
	}
}

// TestMaskCanariesSixBytes: a canary of six bytes is masked in findings
// (leaks.go :799 `len(v) >= 6` -> `>`), one of five is not.
func TestMaskCanariesSixBytes(t *testing.T) {
	fs := []probe.Finding{{Code: "x/y", Value: "got k9Qz7w and abcde"}}
	maskCanaries(fs, map[string]string{"SIX": "k9Qz7w", "FIVE": "abcde"})
	if fs[0].Value != "got [secret SIX] and abcde" {
		t.Errorf("value %q, want %q", fs[0].Value, "got [secret SIX] and abcde")
	}
}

// TestStdoutNoiseSearched: a canary in the server's non-protocol stdout
// is a secret written to its logs (leaks.go :884 both halves negated),
// unless the sandbox's stderr search already answered.
func TestStdoutNoiseSearched(t *testing.T) {
	const v = "k9Qz7wX2mP4r"
	res := &probe.Result{Liveness: probe.Liveness{StdoutNoise: "debug: token " + v}}
	fs := secretLeaks(res, map[string]string{"TOKEN": v}, nil)
	if len(fs) != 1 || fs[0].Code != probe.CodeLeaksSecretStderr || !strings.Contains(fs[0].Value+fs[0].Message, "stdout (non-protocol lines): TOKEN") {
		t.Errorf("secretLeaks = %+v, want one %s naming stdout", fs, probe.CodeLeaksSecretStderr)
	}
	fs = secretLeaks(res, map[string]string{"TOKEN": v}, []string{"TOKEN"})
	if len(fs) != 1 || strings.Contains(fs[0].Message, "stdout") {
		t.Errorf("with the sandbox's stderr answer: %+v, want only that", fs)
	}
}

// TestPiecesReportedOnce: a canary cut in pieces inside one string of a
// message of several is reported once, for the message's strings joined,
// not once more for that string alone (leaks.go :577 `len(groups[g]) > 1`
// -> `>=`: every one-string field joined again).
func TestPiecesReportedOnce(t *testing.T) {
	ns := canaryNeedles(map[string]string{"TOKEN": "k9Qz7wX2mP4r"})
	var got []string
	searchStrands([]strand{{channel: "a", group: "a", s: "part1=k9Qz7w part2=X2mP4r"}, {channel: "b", group: "b", s: "other"}}, ns, func(h canaryHit) {
		if !slices.Contains(got, h.channel) {
			got = append(got, h.channel)
		}
	})
	if !slices.Equal(got, []string{"a + b"}) {
		t.Errorf("channels %q, want [a + b]", got)
	}
}
