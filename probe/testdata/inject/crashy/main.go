// Command crashy is an MCP stdio server that dies on invalid input, for
// probe's failure-injection tests (inject_test.go, TestInjectCrashProcess).
//
// It has two tools with strict input schemas. fragile exits with code 3
// and a JavaScript-style TypeError on stderr whenever its required path
// argument is missing, as a handler that reads a property of undefined
// would; sturdy validates its argument and answers every problem with an
// isError result.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "crashy", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{
		Name:        "fragile",
		Description: "Reads a file.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Path *string `json:"path"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		if args.Path == nil {
			fmt.Fprintln(os.Stderr, "TypeError: Cannot read properties of undefined (reading 'path')")
			os.Exit(3)
		}
		return errorResult("no file at " + *args.Path), nil
	})
	srv.AddTool(&mcp.Tool{
		Name:        "sturdy",
		Description: "Counts.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || args == nil {
			return errorResult("arguments must be an object with the integer n"), nil
		}
		n, ok := args["n"].(float64)
		if !ok || n != float64(int64(n)) {
			return errorResult("n must be an integer"), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(int64(n))}}}, nil
	})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "crashy:", err)
		os.Exit(1)
	}
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
