package scoring

import "testing"

// TestKeyedParamEcho: a keyed credential the caller sent itself (an
// argument echoed in the error) is not a leak, and the same text with a
// value the caller did not send is one (the echo check of keyedSecrets'
// reKeyedParam branch; its mutant `echo != ""` -> `echo == ""` lived
// through the whole suite).
func TestKeyedParamEcho(t *testing.T) {
	const token = "9f8e7d6c5b4a39281706f5e4"
	text := "request to https://api.weather.example/v1/current?api_key=" + token + " failed"
	w := Context{ToolNames: []string{"get_weather"}, ParamNames: []string{"key"}}
	for _, tt := range []struct {
		name string
		args string
		leak bool
	}{
		{"sent by the caller", `{"name":"get_weather","arguments":{"key":"` + token + `"}}`, false},
		{"another value sent", `{"name":"get_weather","arguments":{"key":"0a1b2c3d4e5f60718293a4b5"}}`, true},
		{"nothing sent", ``, true},
	} {
		r := Response{Kind: KindRuntime, Method: "tools/call", Tool: "get_weather", Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: text}
		if tt.args != "" {
			r.Arguments = raw(tt.args)
		}
		g := Grade(r, w)
		if g.Pass(ElemNoLeak) == tt.leak {
			t.Errorf("%s: no_leak %v, want %v (%s)", tt.name, g.Pass(ElemNoLeak), !tt.leak, evidenceOf(g, ElemNoLeak))
		}
	}
}
