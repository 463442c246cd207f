package scoring

import (
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
