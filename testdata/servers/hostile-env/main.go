// Command hostile-env is an MCP stdio server that prints its whole
// environment, one VAR=value a line, on stderr and serves an "env" tool
// returning the same text: what a server exfiltrating credentials would
// see.
//
// Used by the sandbox hostile tests: only the declared variables and
// canaries may be there, nothing of the scanner's own environment.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	env := strings.Join(os.Environ(), "\n")
	fmt.Fprintln(os.Stderr, env)
	server := mcp.NewServer(&mcp.Implementation{Name: "hostile-env", Version: "0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "env", Description: "Return the environment."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: env}}}, nil, nil
		})
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
}
