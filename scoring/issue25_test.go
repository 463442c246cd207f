package scoring

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
)

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
	t.Run("item 5: the channel penalty keeps content differences visible", func(t *testing.T) {
		// The issue's three answers, which all scored 57.9: two thin
		// answers on the right channel and a complete enum answer (the
		// parameter, the received value, the options, a code) on the
		// wrong one.
		up := Context{ToolNames: []string{"upload", "deploy", "get_weather"}, ParamNames: []string{"filePaths", "apiVersion", "units"}}
		thin1 := Grade(Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "upload", Param: "filePaths", Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: tsValidation("upload", "Required at filePaths")}, up)
		thin2 := Grade(Response{Kind: KindWrongType, Method: "tools/call", Tool: "deploy", Param: "apiVersion", Sent: raw(`2`), Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: "apiVersion is not a string"}, up)
		full := func(class string) Graded {
			r := Response{Kind: KindEnumViolation, Method: "tools/call", Tool: "get_weather", Param: "units", Sent: raw(`"parsec"`), Class: class, ProtocolVersion: "2025-11-25"}
			const msg = "invalid_enum_value: units must be one of metric, imperial, kelvin; received 'parsec'"
			if class == ClassProtocolError {
				r.ErrorCode, r.ErrorMessage = new(int64(-32602)), msg
			} else {
				r.Text = msg
			}
			return Grade(r, up)
		}
		wrong, right := full(ClassProtocolError), full(ClassToolError)
		if !wrong.WrongChannel || right.WrongChannel {
			t.Fatalf("channels: %v / %v", wrong, right)
		}
		if wrong.Score <= thin1.Score || wrong.Score <= thin2.Score {
			t.Errorf("complete answer on the wrong channel %.1f does not outrank thin answers on the right one (%.1f, %.1f)", wrong.Score, thin1.Score, thin2.Score)
		}
		if wrong.Score >= right.Score {
			t.Errorf("the wrong channel costs nothing: %.1f against %.1f", wrong.Score, right.Score)
		}
		// The ordering ladder holds on the wrong channel too, each rung
		// below its right-channel twin.
		prevWrong := -1.0
		for i, text := range []string{
			"Invalid arguments",
			"Invalid arguments: project_id",
			`Invalid arguments: project_id "prj_8Fk2" does not exist`,
			`unknown_project: project_id "prj_8Fk2" does not exist; ids must match ^prj_[A-Za-z0-9]{5}$`,
			`unknown_project: project_id "prj_8Fk2" does not exist; ids must match ^prj_[A-Za-z0-9]{5}$. Call list_projects to see the ids of this workspace.`,
		} {
			r := ladderResponse("")
			r.Class, r.ErrorCode, r.ErrorMessage = ClassProtocolError, new(int64(-32602)), text
			w, ok := Grade(r, ladderContext), Grade(ladderResponse(text), ladderContext)
			if !w.WrongChannel {
				t.Fatalf("rung %d: not on the wrong channel: %v", i+1, w)
			}
			if w.Score <= prevWrong {
				t.Errorf("wrong-channel rung %d %q scores %.1f, not above the rung before (%.1f)", i+1, text, w.Score, prevWrong)
			}
			if w.Score >= ok.Score {
				t.Errorf("rung %d: wrong channel %.1f, right channel %.1f", i+1, w.Score, ok.Score)
			}
			prevWrong = w.Score
		}
	})
}

// TestIssue25TuningMisses pins the element fixes made on batch 3
// (issue25.jsonl) once it became the tuning set for batch 4: an argument
// that is the object of an instruction is executable even when it is an
// ordinary word, and a parameter capitalised at the head of a sentence,
// next to the value it received, is named.
func TestIssue25TuningMisses(t *testing.T) {
	search := Context{ToolNames: []string{"search", "list_projects"}, ParamNames: []string{"query", "limit"}, Required: []string{"query"}}
	for _, tt := range []struct {
		r    Response
		want bool
	}{
		{Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "search", Param: "query", Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Missing required argument. Provide query as a non-empty string."}, true},
		{Response{Kind: KindOutOfRange, Method: "tools/call", Tool: "search", Param: "limit", Sent: raw(`500`), Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Out of range. Retry with limit between 1 and 100."}, true},
		{Response{Kind: KindBadCursor, Method: "tools/list", Param: "cursor", Sent: raw(`"zzz"`), Class: ClassProtocolError, ProtocolVersion: "2025-11-25",
			ErrorCode: new(int64(-32602)), ErrorMessage: "Invalid cursor: zzz. Omit the cursor to start from the first page."}, true},
		// Not instructions: the cue is negated, or the word is not the
		// object of the cue.
		{Response{Kind: KindOutOfRange, Method: "tools/call", Tool: "search", Param: "limit", Sent: raw(`500`), Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Cannot set limit above 100."}, false},
		{Response{Kind: KindOutOfRange, Method: "tools/call", Tool: "search", Param: "limit", Sent: raw(`500`), Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "The limit you used is too high."}, false},
	} {
		g := Grade(tt.r, search)
		if g.Pass(ElemNextAction) != tt.want {
			t.Errorf("%q: next_action %v, want %v (%s)", tt.r.Text+tt.r.ErrorMessage, g.Pass(ElemNextAction), tt.want, evidenceOf(g, ElemNextAction))
		}
	}
	draw := Context{ToolNames: []string{"open_diagram"}, ParamNames: []string{"path"}, Required: []string{"path"}}
	g := Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "open_diagram", Param: "path", Sent: raw(`"12345"`),
		Arguments: raw(`{"name":"open_diagram","arguments":{"path":"12345"}}`), Class: ClassToolError, ProtocolVersion: "2025-11-25",
		Text: "Path '12345' is not absolute"}, draw)
	if !g.Pass(ElemParam) {
		t.Errorf("\"Path '12345' is not absolute\": param failed (%s)", evidenceOf(g, ElemParam))
	}
	g = Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "open_diagram", Param: "path", Sent: raw(`"12345"`),
		Arguments: raw(`{"name":"open_diagram","arguments":{"path":"12345"}}`), Class: ClassToolError, ProtocolVersion: "2025-11-25",
		Text: "The file was not found. Path names are case-sensitive."}, draw)
	if g.Pass(ElemParam) {
		t.Errorf("\"Path\" without the value counts as naming the parameter (%s)", evidenceOf(g, ElemParam))
	}
}

// TestIssue25bTuningMisses pins the errors-v7 fixes made on batch 4
// (issue25b.jsonl) once it became a tuning set for batch 5: each case is
// one of batch 4's misses or inversions, rewritten in other words so the
// test pins the rule, not the fixture.
func TestIssue25bTuningMisses(t *testing.T) {
	cal := Context{ToolNames: []string{"book_room", "reauthorize"}, ParamNames: []string{"room", "number"}, Required: []string{"room"}}
	t.Run("a lower_snake code alone in parentheses", func(t *testing.T) {
		g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "book_room", Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "The booking service refused the token (expired_token). Call reauthorize first."}, cal)
		if !g.Pass(ElemCode) {
			t.Errorf("(expired_token) is not a code: %s", evidenceOf(g, ElemCode))
		}
		// A parameter's name in parentheses is no code.
		g = Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "book_room", Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "The room is taken (room_id)."}, Context{ToolNames: []string{"book_room"}, ParamNames: []string{"room_id"}})
		if g.Pass(ElemCode) {
			t.Errorf("(room_id) counts as a code: %s", evidenceOf(g, ElemCode))
		}
	})
	t.Run("an argument after a determiner and a noun is the object of the instruction", func(t *testing.T) {
		g := Grade(Response{Kind: KindWrongType, Method: "tools/call", Tool: "book_room", Param: "number", Sent: raw(`"four"`), Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: "number must be an integer. Send the seat number as digits, e.g. 4."}, cal)
		if !g.Pass(ElemNextAction) {
			t.Errorf("'Send the seat number as digits' is no next action: %s", evidenceOf(g, ElemNextAction))
		}
		g = Grade(Response{Kind: KindWrongType, Method: "tools/call", Tool: "book_room", Param: "number", Sent: raw(`"four"`), Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: "The seat number you sent is not an integer."}, cal)
		if g.Pass(ElemNextAction) {
			t.Errorf("a statement passes next_action: %s", evidenceOf(g, ElemNextAction))
		}
	})
	t.Run("a listing method named as the next call", func(t *testing.T) {
		r := Response{Kind: KindBadCursor, Method: "prompts/list", Param: "cursor", Sent: raw(`"abc"`), Class: ClassProtocolError, ProtocolVersion: "2025-11-25",
			ErrorCode: new(int64(-32602)), ErrorMessage: "Cursor abc is stale. Call prompts/list again without a cursor."}
		ctx := Context{Capabilities: raw(`{"prompts":{}}`)}
		if g := Grade(r, ctx); !g.Pass(ElemNextAction) {
			t.Errorf("'Call prompts/list again' is no next action: %s", evidenceOf(g, ElemNextAction))
		}
		// Not a feature the server declared.
		if g := Grade(r, Context{Capabilities: raw(`{"tools":{}}`)}); g.Pass(ElemNextAction) {
			t.Errorf("prompts/list of a server without prompts is executable: %s", evidenceOf(g, ElemNextAction))
		}
		r.ErrorMessage = "Cursor abc is stale. Do not call prompts/list with it."
		if g := Grade(r, ctx); g.Pass(ElemNextAction) {
			t.Errorf("a negated call passes: %s", evidenceOf(g, ElemNextAction))
		}
	})
	t.Run("a source file named like the parameter is not the parameter", func(t *testing.T) {
		g := Grade(Response{Kind: KindUnknownID, Method: "tools/call", Tool: "book_room", Param: "room", Sent: raw(`"B-204"`), Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: "Error: 404\n    at lookup (/srv/booking/dist/room.js:12:9)"}, cal)
		if g.Pass(ElemParam) {
			t.Errorf("room.js names the parameter room: %s", evidenceOf(g, ElemParam))
		}
	})
	t.Run("a content-free answer scores below a thin argument error", func(t *testing.T) {
		generic := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "book_room", Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Oops, something failed."}, cal)
		thin := Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "book_room", Param: "room", Sent: raw(`"x"`), Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: "Invalid room format"}, cal)
		if generic.Score >= thin.Score {
			t.Errorf("generic runtime answer %.1f >= thin argument error %.1f", generic.Score, thin.Score)
		}
		if generic.Score != 100*SignalShare {
			t.Errorf("content-free answer scores %.1f, want the signal share %.1f", generic.Score, 100*SignalShare)
		}
	})
}

// TestIssue25cTuningMisses pins the general rules that fix the misses of
// batch 5 (issue25c.jsonl, a tuning set from errors-v8 on): each subtest
// fails on errors-v7.
func TestIssue25cTuningMisses(t *testing.T) {
	lit := Context{ToolNames: []string{"find_related", "search"}, ParamNames: []string{"pmid"}, Required: []string{"pmid"}}
	t.Run("a form stated as a kind of value or by a quoted example", func(t *testing.T) {
		for _, text := range []string{
			`PMID must be a numeric identifier (e.g. "13054692"). at pmid`,
			`pmid must be a positive whole number`,
			`pmid: e.g. "13054692"`,
		} {
			g := Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "find_related", Param: "pmid", Sent: raw(`"PMC12345"`),
				Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: text}, lit)
			if !g.Pass(ElemValueOrForm) {
				t.Errorf("%q states no form: %s", text, evidenceOf(g, ElemValueOrForm))
			}
		}
		// An example that is not quoted, or a kind without "must be", is no form.
		g := Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "find_related", Param: "pmid", Sent: raw(`"PMC12345"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "pmid is wrong, e.g. see the docs; numeric ids only work upstream"}, lit)
		if g.Pass(ElemValueOrForm) {
			t.Errorf("no form stated, yet value_or_form passes: %s", evidenceOf(g, ElemValueOrForm))
		}
	})
	t.Run("an argument after each, every or any is the object of the instruction", func(t *testing.T) {
		g := Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "find_related", Param: "pmid", Sent: raw(`"PMC12345"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Invalid identifier. Remove any non-digit characters, provide each PMID separately."}, lit)
		if !g.Pass(ElemNextAction) {
			t.Errorf("'provide each PMID separately' is no next action: %s", evidenceOf(g, ElemNextAction))
		}
		g = Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "find_related", Param: "pmid", Sent: raw(`"PMC12345"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "Each PMID must be numeric."}, lit)
		if g.Pass(ElemNextAction) {
			t.Errorf("a statement about each PMID passes next_action: %s", evidenceOf(g, ElemNextAction))
		}
	})
	t.Run("a compound parameter named in words", func(t *testing.T) {
		db := Context{ToolNames: []string{"connect"}, ParamNames: []string{"connectionString"}, Required: []string{"connectionString"}}
		g := Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "connect", Param: "connectionString", Sent: raw(`"localhost-orders"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "Invalid scheme, expected connection string to start with mongodb://"}, db)
		if !g.Pass(ElemParam) {
			t.Errorf("'connection string' does not name connectionString: %s", evidenceOf(g, ElemParam))
		}
		g = Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "connect", Param: "connectionString", Sent: raw(`"localhost-orders"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "Invalid connection, expected a string"}, db)
		if g.Pass(ElemParam) {
			t.Errorf("the words apart name connectionString: %s", evidenceOf(g, ElemParam))
		}
		if nameWords("pmid") != "" || nameWords("issue_number") != "issue number" || nameWords("per-page") != "per page" || nameWords("a__b") != "" {
			t.Errorf("nameWords: %q %q %q %q", nameWords("pmid"), nameWords("issue_number"), nameWords("per-page"), nameWords("a__b"))
		}
	})
	t.Run("an unknown id answered with the tool that lists the ids earns half of closest_matches", func(t *testing.T) {
		db := Context{ToolNames: []string{"find", "list-connections"}, ParamNames: []string{"connectionId"}}
		r := Response{Kind: KindUnknownID, Method: "tools/call", Tool: "find", Param: "connectionId", Sent: raw(`"conn-7f3a"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: `Connection "conn-7f3a" does not exist. Call the "list-connections" tool to see the active connections.`}
		g := Grade(r, db)
		if !g.Pass(ElemClosestMatches) || creditOf(g, ElemClosestMatches) != ToolMentionCredit {
			t.Errorf("closest_matches %v credit %v, want a pass at %v: %s", g.Pass(ElemClosestMatches), creditOf(g, ElemClosestMatches),
				ToolMentionCredit, evidenceOf(g, ElemClosestMatches))
		}
		// The called tool itself is no way on.
		r.Text = `Connection "conn-7f3a" does not exist; find needs an active connection.`
		if g := Grade(r, db); g.Pass(ElemClosestMatches) {
			t.Errorf("the called tool counts as a match: %s", evidenceOf(g, ElemClosestMatches))
		}
		// The ids themselves earn the whole weight.
		r.Text = `Connection "conn-7f3a" does not exist. Did you mean "conn-7f3b"?`
		if g := Grade(r, db); creditOf(g, ElemClosestMatches) != 1 {
			t.Errorf("closest ids earn %v, want 1", creditOf(g, ElemClosestMatches))
		}
	})
}

// creditOf returns the share of element name's weight g earned.
func creditOf(g Graded, name string) float64 {
	for i, e := range g.Elements {
		if e.Name == name {
			return g.Credits[i]
		}
	}
	return -1
}

// TestIssue25dTuningMisses pins the general rules errors-v9 adds for the
// misses of batch 6 (testdata/errors/heldout/issue25d.jsonl, measured once
// under errors-v8 at 0.895, a tuning set since). Every subtest fails on
// errors-v8.
func TestIssue25dTuningMisses(t *testing.T) {
	t.Run("a success result whose text reports the failure is read, on the wrong channel", func(t *testing.T) {
		post := Context{ToolNames: []string{"post_message", "list_channels"}, ParamNames: []string{"channel_id", "text"}, Required: []string{"channel_id", "text"}}
		r := Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "post_message", Param: "text",
			Class: ClassAccepted, ProtocolVersion: "2024-11-05", Text: `{"error":"Missing required arguments: channel_id and text"}`}
		g := Grade(r, post)
		if g.Pass(ElemChannel) || !g.Pass(ElemParam) || g.WrongChannel {
			t.Errorf("channel %v param %v wrongChannel %v, want a failed channel without a finding and the param named: %s", g.Pass(ElemChannel), g.Pass(ElemParam), g.WrongChannel, g)
		}
		// It earns more than a content-free answer on the wrong channel.
		if want := 100 * SignalShare * WrongChannelFactor; g.Score <= want {
			t.Errorf("score %.1f, want above %.1f", g.Score, want)
		}
		for _, text := range []string{
			`{"status": "task_not_found", "message": "No such task found"}`,
			`{"status": "error", "message": "Request not found"}`,
			`{"success": false, "reason": "no such request"}`,
			"Unknown tool: send_message",
			"Error: channel_id is required",
			"Command failed: spawnSync /bin/sh ENOENT",
		} {
			r.Text = text
			if g := Grade(r, post); g.Score == 0 || g.Pass(ElemChannel) {
				t.Errorf("%q: score %.1f channel %v, want a score on the wrong channel", text, g.Score, g.Pass(ElemChannel))
			}
		}
		// A success result that does not report a failure is accepted:
		// the gate, score 0.
		for _, text := range []string{"Echo: hi", `{"valid": false, "number": "123"}`, `{"entities": [], "relations": []}`, "MockServer Status: unreachable", `{"error": null, "items": []}`} {
			r.Text = text
			if g := Grade(r, post); g.Score != 0 || g.Pass(ElemParam) {
				t.Errorf("%q: score %.1f, want 0 (accepted)", text, g.Score)
			}
		}
	})
	t.Run("arguments nested under an object argument are arguments", func(t *testing.T) {
		res := &probe.Result{Tools: []probe.Tool{{Name: "get_build_failure_logs", InputSchema: json.RawMessage(`{"type":"object","properties":{"params":{"type":"object","properties":{"projectSlug":{"type":"string"},"branch":{"type":"string"},"projectURL":{"type":"string"},"workspaceRoot":{"type":"string"},"gitRemoteURL":{"type":"string"}}}},"required":["params"]}`)}}}
		c := ContextFor(res, "get_build_failure_logs", nil)
		g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "get_build_failure_logs", Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Missing required inputs. Please provide either: 1) projectSlug with branch, 2) projectURL, or 3) workspaceRoot with gitRemoteURL and branch."}, c)
		if !g.Pass(ElemNextAction) {
			t.Errorf("nested arguments as the object of 'provide' are no next action: %s (params %v)", evidenceOf(g, ElemNextAction), c.ParamNames)
		}
		if !slices.Equal(c.Required, []string{"params"}) {
			t.Errorf("required %v, want the top level's [params]", c.Required)
		}
		// Array items' objects too, and a boolean schema does not stop it.
		p, _ := schemaParams(json.RawMessage(`{"properties":{"entities":{"type":"array","items":{"properties":{"entityName":{},"observations":true}}},"flag":true}}`))
		if !slices.Equal(p, []string{"entities", "entityName", "flag", "observations"}) {
			t.Errorf("schemaParams = %v", p)
		}
	})
	t.Run("a prompt's invalid arguments belong in -32602", func(t *testing.T) {
		code := int64(codeInvalidParams)
		r := Response{Kind: KindMissingRequired, Method: "prompts/get", Param: "path", Class: ClassProtocolError, ProtocolVersion: "2025-11-25",
			ErrorCode: &code, ErrorMessage: "MCP error -32602: Invalid arguments for prompt audit: Required at path"}
		if g := Grade(r, Context{}); !g.Pass(ElemChannel) {
			t.Errorf("-32602 to prompts/get fails the channel: %s", evidenceOf(g, ElemChannel))
		}
		internal := int64(codeInternalError)
		r.ErrorCode = &internal
		if g := Grade(r, Context{}); g.Pass(ElemChannel) {
			t.Errorf("-32603 to prompts/get passes the channel")
		}
	})
	t.Run("a common word listed with another argument names it", func(t *testing.T) {
		post := Context{ToolNames: []string{"post_message"}, ParamNames: []string{"channel_id", "text"}, Required: []string{"channel_id", "text"}}
		r := Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "post_message", Param: "text", Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Missing required arguments: channel_id and text"}
		if g := Grade(r, post); !g.Pass(ElemParam) {
			t.Errorf("'channel_id and text' does not name text: %s", evidenceOf(g, ElemParam))
		}
		r.Text = "Missing required arguments: channel_id; see the help text above"
		if g := Grade(r, post); g.Pass(ElemParam) {
			t.Errorf("a 'text' in prose names the argument: %s", evidenceOf(g, ElemParam))
		}
	})
	t.Run("a cue word after when or if opens a condition", func(t *testing.T) {
		c := Context{ToolNames: []string{"get_logs"}, ParamNames: []string{"projectSlug", "branch"}}
		r := Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "get_logs", Param: "branch", Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Invalid input. When using projectSlug, a branch must also be specified"}
		if g := Grade(r, c); g.Pass(ElemNextAction) {
			t.Errorf("a condition passes next_action: %s", evidenceOf(g, ElemNextAction))
		}
		r.Text = "When using projectSlug, pass branch too"
		if g := Grade(r, c); !g.Pass(ElemNextAction) {
			t.Errorf("an instruction after the condition is no next action: %s", evidenceOf(g, ElemNextAction))
		}
	})
}

// TestIssue25eTuningMisses pins the general rules errors-v10 adds for the
// misses of batch 7 (testdata/errors/heldout/issue25e.jsonl, measured once
// under errors-v9 at 0.789, a tuning set since). Every subtest fails on
// errors-v9.
func TestIssue25eTuningMisses(t *testing.T) {
	docs := Context{ToolNames: []string{"get_doc", "start_course"}, ParamNames: []string{"paths"}, Required: []string{"paths"}}
	unknown := func(text string) Response {
		return Response{Kind: KindUnknownID, Method: "tools/call", Tool: "get_doc", Param: "paths", Sent: raw(`["docs/agentz"]`),
			Class: ClassAccepted, ProtocolVersion: "2025-11-25", Text: text}
	}
	t.Run("a success result reports its failure under a heading, in its first sentence, or as no X found", func(t *testing.T) {
		for _, text := range []string{
			"## docs/agentz\n\nPath \"docs/agentz\" not found.\nHere are the available paths:\n- docs/agents/",
			"Primitive \"agentz\" not found. Available primitives: agents, avatar",
			"No SOURCE_MAP.json found for @acme/nope.",
			"You need to register for the course first. Please use the `start_course` tool to register.",
			"Invalid primitives: agentz. Available: agents, avatar",
			"Migration \"v9\" does not exist.",
		} {
			if g := Grade(unknown(text), docs); g.Score == 0 || g.Pass(ElemChannel) {
				t.Errorf("%q: score %.1f channel %v, want it read on the wrong channel", text, g.Score, g.Pass(ElemChannel))
			}
		}
		for _, text := range []string{"# Results\n\nFound 3 documents.", "Echo: hi", "Primitive accordion: an expandable panel."} {
			if g := Grade(unknown(text), docs); g.Score != 0 {
				t.Errorf("%q: score %.1f, want 0 (accepted)", text, g.Score)
			}
		}
	})
	t.Run("lists introduced by available, supported or relevant are matches and forms", func(t *testing.T) {
		for _, text := range []string{
			"Invalid primitives: agentz. Available: agents, avatar",
			"Path \"docs/agentz\" not found.\nHere are the available paths in \"docs\":\n\n- docs/agents/\n- docs/auth/",
			"Path \"docs/agentz\" not found.\nHere are some paths that might be relevant based on your query:\n\n- docs/agents/overview.md",
		} {
			r := unknown(text)
			r.Class = ClassToolError
			if g := Grade(r, docs); !g.Pass(ElemClosestMatches) {
				t.Errorf("%q offers no matches: %s", text, evidenceOf(g, ElemClosestMatches))
			}
		}
		icons := Context{ToolNames: []string{"get_platform_usage"}, ParamNames: []string{"platform"}, Required: []string{"platform"}}
		g := Grade(Response{Kind: KindEnumViolation, Method: "tools/call", Tool: "get_platform_usage", Param: "platform", Sent: raw(`"qwik"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "Invalid platform. Supported platforms are: react, vue, angular"}, icons)
		if !g.Pass(ElemValueOrForm) {
			t.Errorf("'Supported platforms are: ...' states no form: %s", evidenceOf(g, ElemValueOrForm))
		}
	})
	t.Run("an item of an array sent is the received value", func(t *testing.T) {
		lint := Context{ToolNames: []string{"lint-files"}, ParamNames: []string{"filePaths"}, Required: []string{"filePaths"}}
		g := Grade(Response{Kind: KindUnknownID, Method: "tools/call", Tool: "lint-files", Param: "filePaths", Sent: raw(`["/work/app/missing.js"]`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "No files matching '/work/app/missing.js' were found."}, lint)
		if !g.Pass(ElemParam) || !g.Pass(ElemValueOrForm) {
			t.Errorf("param %v value_or_form %v, want both from the echoed item: %s", g.Pass(ElemParam), g.Pass(ElemValueOrForm), g)
		}
	})
	t.Run("an echo of the arguments with one member names it", func(t *testing.T) {
		c := Context{ToolNames: []string{"get_doc"}, ParamNames: []string{"paths", "depth"}, Required: []string{"paths"}}
		r := Response{Kind: KindOutOfRange, Method: "tools/call", Tool: "get_doc", Param: "paths", Sent: raw(`[]`), Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: "Tool validation failed:\nToo small: expected array to have >=1 items\n\nProvided arguments: {\n  \"paths\": []\n}"}
		if g := Grade(r, c); !g.Pass(ElemParam) {
			t.Errorf("the sole echoed argument is not named: %s", evidenceOf(g, ElemParam))
		}
		r.Text = "Tool validation failed:\nToo small: expected array to have >=1 items\n\nProvided arguments: {\n  \"paths\": [],\n  \"depth\": 2\n}"
		if g := Grade(r, c); g.Pass(ElemParam) {
			t.Errorf("one of two echoed arguments names the parameter: %s", evidenceOf(g, ElemParam))
		}
	})
	t.Run("a file name is not a code", func(t *testing.T) {
		r := unknown("No SOURCE_MAP.json found for @acme/nope.")
		r.Class = ClassToolError
		if g := Grade(r, docs); g.Pass(ElemCode) {
			t.Errorf("SOURCE_MAP.json is a code: %s", evidenceOf(g, ElemCode))
		}
		r.Text = "E_RATE_LIMIT: slow down."
		if g := Grade(r, docs); !g.Pass(ElemCode) {
			t.Errorf("E_RATE_LIMIT is no code: %s", evidenceOf(g, ElemCode))
		}
	})
	t.Run("the received value of a nested argument is found", func(t *testing.T) {
		pc := probe.ProbeCall{Kind: KindEnumViolation, Method: "tools/call", Tool: "ask", Param: "messages[0].role", Class: ClassToolError,
			Sent:     json.RawMessage(`{"name":"ask","arguments":{"messages":[{"role":"robot","content":"hi"}]}}`),
			Response: json.RawMessage(`{"content":[{"type":"text","text":"Invalid enum value. Expected 'system' | 'user', received 'robot' at messages[0].role"}],"isError":true}`)}
		r := FromProbeCall(pc, "2025-11-25")
		if string(r.Sent) != `"robot"` {
			t.Errorf("sent %s, want \"robot\"", r.Sent)
		}
		pc.Param = "workflowId"
		pc.Sent = json.RawMessage(`{"name":"rerun","arguments":{"params":{"workflowId":"not-a-uuid"}}}`)
		if r := FromProbeCall(pc, "2025-11-25"); string(r.Sent) != `"not-a-uuid"` {
			t.Errorf("sent %s, want the value under params", r.Sent)
		}
	})
}

// TestIssue25fTuningMisses pins the general rules errors-v11 adds for the
// misses of batch 8 (testdata/errors/heldout/issue25f.jsonl, measured once
// under errors-v10 at 0.896, a tuning set since). Every subtest fails on
// errors-v10.
func TestIssue25fTuningMisses(t *testing.T) {
	t.Run("a short name written as an acronym, and a host or an example as the form", func(t *testing.T) {
		c := Context{ToolNames: []string{"get_doc"}, ParamNames: []string{"url"}, Required: []string{"url"}}
		g := Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "get_doc", Param: "url", Sent: raw(`"https://example.com/x"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Error: URL must be from docs.acme.dev\n\nSuggestions:\n• Example: https://docs.acme.dev/api/widget"}, c)
		if !g.Pass(ElemParam) || !g.Pass(ElemValueOrForm) {
			t.Errorf("param %v value_or_form %v: %s", g.Pass(ElemParam), g.Pass(ElemValueOrForm), g)
		}
	})
	t.Run("a list introduced by two words offers matches", func(t *testing.T) {
		c := Context{ToolNames: []string{"get_page"}, ParamNames: []string{"path", "page"}}
		g := Grade(Response{Kind: KindUnknownID, Method: "tools/call", Tool: "get_page", Param: "page", Sent: raw(`"Detail"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: `Error: No page with name or id "Detail" found. Available page names: Overview`}, c)
		if !g.Pass(ElemClosestMatches) {
			t.Errorf("'Available page names:' offers no matches: %s", evidenceOf(g, ElemClosestMatches))
		}
	})
	t.Run("make sure, and please with a tool of the server, are instructions", func(t *testing.T) {
		c := Context{ToolNames: []string{"open_xml"}, ParamNames: []string{"content"}, Required: []string{"content"}}
		g := Grade(Response{Kind: KindWrongType, Method: "tools/call", Tool: "open_xml", Param: "content", Sent: raw(`5`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25",
			Text: "Error: content parameter must be a string, but received number: 5\n\nMake sure the diagram content is passed directly as a string value."}, c)
		if !g.Pass(ElemNextAction) {
			t.Errorf("'Make sure the diagram content is passed ...' is no next action: %s", evidenceOf(g, ElemNextAction))
		}
		acc := Context{ToolNames: []string{"login", "select-account"}, ParamNames: []string{"account"}, Required: []string{"account"}}
		r := Response{Kind: KindUnknownID, Method: "tools/call", Tool: "select-account", Param: "account", Sent: raw(`"nobody@acme.test"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: `{"error":"Failed to select account: No accounts found. Please login first."}`}
		g = Grade(r, acc)
		if !g.Pass(ElemNextAction) {
			t.Errorf("'Please login first' with a login tool is no next action: %s", evidenceOf(g, ElemNextAction))
		}
		// The tool's own name in words is not its argument.
		if g.Pass(ElemParam) {
			t.Errorf("'select account' names the argument account: %s", evidenceOf(g, ElemParam))
		}
		// Please with no tool of that name is not a call.
		r.Text = `{"error":"No accounts found. Please hurry."}`
		if g := Grade(r, acc); g.Pass(ElemNextAction) {
			t.Errorf("'Please hurry' is a next action: %s", evidenceOf(g, ElemNextAction))
		}
	})
	t.Run("a missing argument rendered as undefined is the received value", func(t *testing.T) {
		c := Context{ToolNames: []string{"geocode"}, ParamNames: []string{"address"}, Required: []string{"address"}}
		r := Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "geocode", Param: "address", Class: ClassToolError, ProtocolVersion: "2024-11-05",
			Text: "Error: request to https://maps.example.com/geo?address=undefined&source=mcp failed, reason: getaddrinfo EAI_AGAIN maps.example.com"}
		if g := Grade(r, c); !g.Pass(ElemValueOrForm) {
			t.Errorf("address=undefined states no received value: %s", evidenceOf(g, ElemValueOrForm))
		}
		r.Text = "Command failed: spawnSync /bin/sh ENOENT\\nStderr: null"
		if g := Grade(r, c); g.Pass(ElemValueOrForm) {
			t.Errorf("another name's null states the value: %s", evidenceOf(g, ElemValueOrForm))
		}
	})
}

// TestIssue25gTuningMisses pins the general rules errors-v12 adds for the
// misses of batch 9 (testdata/errors/heldout/issue25g.jsonl, measured once
// under errors-v11 at 0.933, a tuning set since). Every subtest fails on
// errors-v11.
func TestIssue25gTuningMisses(t *testing.T) {
	jira := Context{ToolNames: []string{"manage_sprint"}, ParamNames: []string{"operation", "sprintId", "startAt", "boardId", "name"}, Required: []string{"operation"}}
	t.Run("a type stated as 'as a number' or 'a valid number'", func(t *testing.T) {
		for _, text := range []string{
			"Missing or invalid sprintId parameter. Please provide a valid sprint ID as a number for the get operation.",
			"Invalid startAt parameter. Please provide a valid number.",
		} {
			g := Grade(Response{Kind: KindWrongType, Method: "tools/call", Tool: "manage_sprint", Param: "startAt", Sent: raw(`"x"`),
				Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: text}, jira)
			if !g.Pass(ElemValueOrForm) {
				t.Errorf("%q states no form: %s", text, evidenceOf(g, ElemValueOrForm))
			}
		}
	})
	t.Run("required said of authentication or of another argument is not the received value", func(t *testing.T) {
		tasks := Context{ToolNames: []string{"search"}, ParamNames: []string{"query", "taskListId"}, Required: []string{"query"}}
		r := Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "search", Param: "query", Class: ClassToolError, ProtocolVersion: "2024-11-05",
			Text: "Authentication required. Please configure Google Tasks credentials."}
		if g := Grade(r, tasks); g.Pass(ElemValueOrForm) {
			t.Errorf("'Authentication required' states the missing query: %s", evidenceOf(g, ElemValueOrForm))
		}
		r.Text = "Missing or invalid taskListId parameter."
		if g := Grade(r, tasks); g.Pass(ElemValueOrForm) {
			t.Errorf("another argument's 'missing' states the missing query: %s", evidenceOf(g, ElemValueOrForm))
		}
		r.Text = "Missing required arguments: taskListId and query"
		if g := Grade(r, tasks); !g.Pass(ElemValueOrForm) {
			t.Errorf("'missing' with query listed does not state it: %s", evidenceOf(g, ElemValueOrForm))
		}
	})
	t.Run("setting an environment variable or 'one of these methods' is not the agent's call", func(t *testing.T) {
		drive := Context{ToolNames: []string{"readFile", "search"}, ParamNames: []string{"fileId"}}
		code := int64(codeInternalError)
		g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "readFile", Class: ClassProtocolError, ProtocolVersion: "2025-11-25", ErrorCode: &code,
			ErrorMessage: "Error loading OAuth keys: OAuth credentials not found. Please provide credentials using one of these methods:\n\n1. Place your keys file in the config directory\n\n2. Environment variable:\n   Set GOOGLE_DRIVE_OAUTH_CREDENTIALS to the path of your credentials file"}, drive)
		if g.Pass(ElemNextAction) {
			t.Errorf("a human's setup passes next_action: %s", evidenceOf(g, ElemNextAction))
		}
		// A value to use is still one: "Use one of: a, b".
		g = Grade(Response{Kind: KindEnumViolation, Method: "tools/call", Tool: "search", Param: "fileId", Sent: raw(`"x"`), Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: "Invalid fileId. Use one of: f1, f2."}, drive)
		if !g.Pass(ElemNextAction) {
			t.Errorf("'Use one of: f1, f2' is no next action: %s", evidenceOf(g, ElemNextAction))
		}
	})
}

// TestThinCredits pins errors-v13's two rules of the score refit on
// batches 3 to 10 (docs/rubric.md, "Issue 25: errors-v13"): a code with no
// other content earns nothing, so an errno alone scores what a content-free
// answer scores; a parameter named with nothing about what is wrong or what
// to do earns half its weight, and its full weight beside the received
// value. Both fail on errors-v12 (the errno answer scored 31.4 against 20.0,
// the parameter alone kept its whole credit).
func TestThinCredits(t *testing.T) {
	ctx := Context{ToolNames: []string{"get_dashboard"}, ParamNames: []string{"dashboardId"}}
	runtime := func(text string) Graded {
		return Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "get_dashboard", Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: text}, ctx)
	}
	errno := runtime("request failed, reason: getaddrinfo EAI_AGAIN api.example.com")
	bare := runtime("fetch failed")
	if !errno.Pass(ElemCode) {
		t.Fatalf("EAI_AGAIN is no code: %s", errno)
	}
	if errno.Score != bare.Score {
		t.Errorf("errno alone scores %.1f, content-free %.1f; want equal", errno.Score, bare.Score)
	}
	credit := func(g Graded, name string) float64 {
		for i, e := range g.Elements {
			if e.Name == name {
				return g.Credits[i]
			}
		}
		t.Fatalf("%s not graded: %s", name, g)
		return 0
	}
	if c := credit(errno, ElemCode); c != CodeAloneCredit {
		t.Errorf("code alone keeps credit %.2f, want %.2f", c, CodeAloneCredit)
	}
	alone := Grade(ladderResponse("Invalid arguments: project_id"), ladderContext)
	withValue := Grade(ladderResponse(`Invalid arguments: project_id "prj_8Fk2" does not exist`), ladderContext)
	if c := credit(alone, ElemParam); c != ParamAloneCredit {
		t.Errorf("parameter alone keeps credit %.2f, want %.2f: %s", c, ParamAloneCredit, alone)
	}
	if c := credit(withValue, ElemParam); c != 1 {
		t.Errorf("parameter beside its value keeps credit %.2f, want 1: %s", c, withValue)
	}
	// With a code beside it, a code is content: the ladder's rung 5.
	withCode := Grade(ladderResponse(`unknown_project: project_id "prj_8Fk2" does not exist`), ladderContext)
	if c := credit(withCode, ElemCode); c != 1 {
		t.Errorf("code beside other content keeps credit %.2f, want 1: %s", c, withCode)
	}
}
