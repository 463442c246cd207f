package scoring

import "testing"

// TestIssue25GraderItems pins the four grader fixes of issue 25, each on
// the shape the issue measured on real servers.
func TestIssue25GraderItems(t *testing.T) {
	calc := Context{ToolNames: []string{"add", "remove"}, ParamNames: []string{"a", "b"}, Required: []string{"a", "b"}}
	t.Run("item 1: the tool's own name is not an instruction", func(t *testing.T) {
		for _, text := range []string{
			"MCP error -32602: Input validation error: Invalid arguments for tool add: Invalid input: expected number, received undefined at b",
			"MCP error -32602: Input validation error: Invalid arguments for tool remove: Required at b",
		} {
			g := Grade(Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "add", Param: "b", Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: text}, calc)
			if g.Pass(ElemNextAction) {
				t.Errorf("%q passes next_action: %v", text, g.Elements)
			}
		}
		// A cue before the name still instructs.
		g := Grade(Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "remove", Param: "b", Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Required at b. Call add with a and b instead."}, calc)
		if !g.Pass(ElemNextAction) {
			t.Errorf("'Call add with a and b' fails next_action: %v", g.Elements)
		}
	})
	t.Run("item 2: a two-character echo of the received value counts", func(t *testing.T) {
		code := int64(-32602)
		g := Grade(Response{Kind: KindUnknownTool, Method: "tools/call", Tool: "ad", Param: "name", Sent: raw(`"ad"`), Class: ClassProtocolError,
			ProtocolVersion: "2025-11-25", ErrorCode: &code, ErrorMessage: "Tool ad not found"}, calc)
		if !g.Pass(ElemParam) || !g.Pass(ElemValueOrForm) {
			t.Errorf("'Tool ad not found': %v", g)
		}
		// "is" is an English word: no echo in "Tool name is not found".
		g = Grade(Response{Kind: KindUnknownTool, Method: "tools/call", Tool: "is", Param: "name", Sent: raw(`"is"`), Class: ClassProtocolError,
			ProtocolVersion: "2025-11-25", ErrorCode: &code, ErrorMessage: "Tool name is not found"}, calc)
		if g.Pass(ElemValueOrForm) {
			t.Errorf("'is' in a sentence counts as the echo: %v", g)
		}
	})
	t.Run("item 3: a permitted form stated in words earns full credit", func(t *testing.T) {
		draw := Context{ToolNames: []string{"export_diagram"}, ParamNames: []string{"path"}, Required: []string{"path"}}
		for _, text := range []string{"Only .drawio and .xml files are supported: 12345", "Path '12345' is not absolute"} {
			g := Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "export_diagram", Param: "path", Sent: raw(`"12345"`),
				Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: text}, draw)
			for i, e := range g.Elements {
				if e.Name == ElemValueOrForm && g.Credits[i] != 1 {
					t.Errorf("%q: value_or_form credit %v (%s), want 1", text, g.Credits[i], e.Evidence)
				}
			}
		}
	})
	t.Run("item 4: a leaked credential caps the score below any non-leaking answer", func(t *testing.T) {
		w := Context{ToolNames: []string{"get_weather"}, ParamNames: []string{"city"}, Required: []string{"city"}}
		leak := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "get_weather", Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "request to https://api.weather.example/v1/current?city=Paris&api_key=9f8e7d6c5b4a39281706f5e4 failed, reason: getaddrinfo ENOTFOUND api.weather.example"}, w)
		if leak.Pass(ElemNoLeak) || leak.Score > MaxLeakingScore {
			t.Errorf("leaking answer: %v, score %.1f, want no_leak failed and at most %d", leak, leak.Score, MaxLeakingScore)
		}
		// The least a non-leaking answer that signals its failure earns.
		bare := Grade(Response{Kind: KindWrongType, Method: "tools/call", Tool: "get_weather", Param: "city", Sent: raw(`3`), Class: ClassProtocolError,
			ProtocolVersion: "2025-11-25", ErrorCode: new(int64(-32603)), ErrorMessage: "Internal error"}, w)
		if leak.Score >= bare.Score {
			t.Errorf("leaking answer %.1f outranks a bare internal error %.1f", leak.Score, bare.Score)
		}
		for _, text := range []string{"sk_live_51Hc9xQ2mN8vR3tY7uK4pL6wZ", "password=hunter2hunter2hunter22"} {
			g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "get_weather", Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "upstream said: " + text}, w)
			if g.Pass(ElemNoLeak) {
				t.Errorf("%q is not a leak: %v", text, g)
			}
		}
		g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "get_weather", Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Set api_key=YOUR_API_KEY_HERE_PLEASE in the config"}, w)
		if !g.Pass(ElemNoLeak) {
			t.Errorf("a placeholder counts as a leak: %v", g)
		}
	})
}
