package scoring

import "testing"

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

// TestPydanticType: the type of a pydantic error is read at the start of
// the text, with any lower-case letter from a to z, and a text that ends
// inside it is not one (mutants elem_code.go:76 `k < 0` -> `<= 0` and :81
// `j < len(s)`, `>= 'a'`, `<= 'z'` at their edges lived through the whole
// suite).
func TestPydanticType(t *testing.T) {
	for s, want := range map[string]string{
		"[type=missing, input_value={}]":            "missing",
		"1 error [type=value_error, input_value=3]": "value_error",
		"1 error [type=size_limit]":                 "size_limit",
		"1 error [type=missing":                     "",
	} {
		i, j, ok := pydanticType(s)
		if got := s[i:j]; ok != (want != "") || got != want {
			t.Errorf("pydanticType(%q) = %q, %v; want %q", s, got, ok, want)
		}
	}
}
