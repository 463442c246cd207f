package scoring

import (
	"regexp"
	"strings"
	"testing"
)

func TestCodeTokens(t *testing.T) {
	for text, want := range map[string]bool{
		"unknown_project: no such project":        true,
		"Error [rate_limited] slow down":          true,
		"error code: invalid_zip":                 true,
		"failed for auth/expired_token":           true,
		"cannot read /srv/app_data/x":             false,
		"Invalid arguments for tool get_forecast": false,
		"E_RATE_LIMIT":                            true,
		"Missing GITHUB_TOKEN":                    false,
		"type=bad_request":                        true,
		"the user_id field":                       false,
		"ENOENT: x":                               true,
		"__init__ failed":                         false,
		"  'quota_exceeded' was returned":         true,
	} {
		g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "get_forecast", Class: ClassToolError, Text: text}, Context{ToolNames: []string{"get_forecast"}})
		if got := g.Pass(ElemCode); got != want {
			t.Errorf("%q: code %v, want %v", text, got, want)
		}
	}
}

func TestHasCue(t *testing.T) {
	for text, want := range map[string]bool{
		"call list_projects to see ids":         true,
		"did you mean echo?":                    true,
		"cannot specify both head and tail":     false,
		"failed to call upstream":               false,
		"unable to use the cache":               false,
		"the settings page":                     false,
		"because the address is local":          false,
		"perhaps you meant 'tools/list'":        true,
		"you should not retry":                  false,
		"re-run the query with a smaller limit": true,
	} {
		if got := hasCue(text); got != want {
			t.Errorf("hasCue(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestASCIILower(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC", "Hello, World! 123 @[`{ ZZ AA", "ÄÖÜ Straße MIXED ascii", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ@[\x7f\x80\xff"} {
		want := []byte(s)
		for i, c := range want {
			if c >= 'A' && c <= 'Z' {
				want[i] = c + 'a' - 'A'
			}
		}
		if got := asciiLower(s); got != string(want) {
			t.Errorf("asciiLower(%q) = %q, want %q", s, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		s := strings.Repeat(string([]byte{byte(c)}), 17)
		want := s
		if c >= 'A' && c <= 'Z' {
			want = strings.Repeat(string([]byte{byte(c + 32)}), 17)
		}
		if got := asciiLower("A" + s); got != "a"+want {
			t.Errorf("byte %#x: got %q, want %q", c, got, "a"+want)
		}
	}
}

// TestPhraseFinders checks the string-search forms of reEnumForm and
// rePattern against the regexps they replace.
func TestPhraseFinders(t *testing.T) {
	texts := []string{
		"", "must match ^[a-z]+$", "the format is wrong", "formats vary", "reformat it", "invalid url: x", "invalid urls",
		"expected one of: a, b", "expected 'a' | 'b'", "value must be one of a or b; expected 'x', got y",
		"someone of us", "use any of them", "doesn't match the pattern", "regexes", "a regular expression", "invalid_uuid",
		"valid values are a, b", "x one of y pattern z", "expected 'a', expected 'b' or c",
		"must be between 1 and 10", "up to 5 items", "up to 50 items", "limit >= 2", "x<=-3", "no more than 3", "it exceeds the maximum",
		"exceeded", "too long by far", "at least one; at most two", "the minimum", "out of range: 9", "more than", "between a and b",
	}
	for _, s := range texts {
		low := asciiLower(s)
		check := func(name string, re *regexp.Regexp, i, j int, ok bool) {
			loc := re.FindStringIndex(low)
			if (loc != nil) != ok || ok && (loc[0] != i || loc[1] != j) {
				t.Errorf("%s(%q) = %d, %d, %v; regexp says %v", name, s, i, j, ok, loc)
			}
		}
		i, j, ok := patternPhrases.find(low)
		check("pattern", rePattern.re, i, j, ok)
		i, j, ok = findEnumForm(low)
		check("enum", reEnumForm.re, i, j, ok)
		i, j, ok = findRange(low)
		check("range", reRange.re, i, j, ok)
	}
}
