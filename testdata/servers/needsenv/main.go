// Command needsenv is an MCP stdio server that refuses to start without a
// credential, the way many registry servers do: when FIXTURE_API_KEY is empty
// it prints a message naming the variable to stderr and exits 1; otherwise it
// serves one tool.
//
// Checked by internal/testfixture (TestNeedsEnv); written for the sandbox and
// probe tests that classify a run as missing_credentials.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	key := os.Getenv("FIXTURE_API_KEY")
	if key == "" {
		fmt.Fprintln(os.Stderr, "Error: FIXTURE_API_KEY environment variable is required. Get one at https://example.com/keys")
		os.Exit(1)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "needsenv", Version: "0.3.0"}, nil)
	server.AddTool(&mcp.Tool{
		Name:        "check_key",
		Title:       "Check the API key",
		Description: "Report whether the server holds an API key, without revealing it.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text := fmt.Sprintf("An API key of %d characters is configured.", len(key))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "needsenv:", err)
		os.Exit(1)
	}
}
