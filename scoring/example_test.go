package scoring_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpvet/mcpvet/scoring"
)

// Grade a recorded error from @modelcontextprotocol/server-everything: it
// names the parameter and the expected type but carries no code, no next
// action and no retry advice.
func ExampleGrade() {
	r := scoring.Response{
		Kind:            scoring.KindWrongType,
		Method:          "tools/call",
		Tool:            "echo",
		Param:           "message",
		Sent:            json.RawMessage(`42`),
		Class:           scoring.ClassToolError,
		ProtocolVersion: "2025-11-25",
		Text:            "MCP error -32602: Input validation error: Invalid arguments for tool echo: Expected string, received number at message",
	}
	c := scoring.Context{ToolNames: []string{"echo", "get-sum"}, ParamNames: []string{"message"}, Required: []string{"message"}}
	g := scoring.Grade(r, c)
	for _, e := range g.Elements {
		fmt.Printf("%-13s %-5v %s\n", e.Name, e.Pass, e.Evidence)
	}
	fmt.Println("score", g.Score, "rubric", g.RubricVersion)
	// Output:
	// channel       true  result.isError=true for an input validation error
	// param         true  text[111:118] "message"
	// value_or_form true  text[92:107] "received number"; text[75:90] "Expected string"
	// next_action   false no executable next action (a tool of this server, an argument to change, a value to use)
	// code          false no stable machine-readable code
	// retryable     false does not say whether retrying can help (never / after a stated delay / with different arguments)
	// no_leak       true  no stack trace, host path, connection string, internal host, credential or canary
	// bounded       true  24 o200k_base tokens, largest enumeration 0
	// score 56.9 rubric errors-v14
}

// Decide a verdict from a policy file.
func ExampleDecide() {
	p, err := scoring.LoadPolicy([]byte(`{"minScore": 140}`))
	fmt.Println(p, err)
	p, _ = scoring.LoadPolicy([]byte(`{"minScore": 60}`))
	fmt.Println(p.MinScore, p.FixSeverities)
	// Output:
	// <nil> policy: "minScore": 140 is out of range; use 0 to 100
	// 60 [error warn]
}

// Grade an exchange as recorded on the wire: betterprompt-mcp@0.2.1 (SDK
// 1.18) embeds zod's issue array, whose "code" is a stable code.
func ExampleRecorded_Prepare() {
	line := `{"id": 1, "kind": "enum_violation", "param": "category", "protocolVersion": "2025-06-18",
	  "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
	    "params": {"name": "get-template", "arguments": {"category": "nope"}}},
	  "response": {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602,
	    "message": "MCP error -32602: Invalid arguments for tool get-template: [\n  {\n    \"received\": \"nope\",\n    \"code\": \"invalid_enum_value\",\n    \"options\": [\n      \"code-generation\",\n      \"technical-analysis\"\n    ],\n    \"path\": [\n      \"category\"\n    ],\n    \"message\": \"Invalid enum value. Expected 'code-generation' | 'technical-analysis', received 'nope'\"\n  }\n]"}}}`
	var rec scoring.Recorded
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		panic(err)
	}
	r, c, err := rec.Prepare()
	if err != nil {
		panic(err)
	}
	g := scoring.Grade(r, c)
	fmt.Println(g.Class, g.Score)
	for _, e := range g.Elements {
		if e.Name == scoring.ElemCode || e.Name == scoring.ElemBounded {
			fmt.Printf("%s %v: %s\n", e.Name, e.Pass, e.Evidence)
		}
	}
	// Output:
	// protocol_error 63.1
	// code true: error.message[0].code = "invalid_enum_value"
	// bounded true: 89 o200k_base tokens, largest enumeration 2
}
