package scoring

import (
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
