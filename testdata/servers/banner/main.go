// Command banner is an MCP stdio server that pollutes stdout: before serving
// it prints the plain line "Banner Server v0.1 starting on stdio..." to
// stdout, where only JSON-RPC belongs, then serves two tools normally.
//
// Checked by internal/testfixture (TestBanner); written for the probe tests
// that report stdout_pollution with a completed handshake.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type textArgs struct {
	Text string `json:"text" jsonschema:"the text to transform"`
}

func main() {
	fmt.Println("Banner Server v0.1 starting on stdio...")

	server := mcp.NewServer(&mcp.Implementation{Name: "banner", Version: "0.1.0"}, nil)
	annotations := &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Return the text unchanged.", Annotations: annotations},
		func(_ context.Context, _ *mcp.CallToolRequest, in textArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "upper", Description: "Return the text in upper case.", Annotations: annotations},
		func(_ context.Context, _ *mcp.CallToolRequest, in textArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "banner:", err)
		os.Exit(1)
	}
}
