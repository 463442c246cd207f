package scoring

import (
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
