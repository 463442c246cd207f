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
	// bounded       true  ~30 tokens, largest enumeration 0
	// score 63.2 rubric errors-v2
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
