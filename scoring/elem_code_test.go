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
