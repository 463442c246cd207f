// Command paginated is an MCP stdio server with 23 tools that tools/list
// delivers 5 per page, linked by nextCursor (pages of 5, 5, 5, 5 and 3).
//
// With FIXTURE_CURSOR_LOOP=1 pagination never ends: whatever cursor the
// client sends, the server returns the first page and the same nextCursor,
// so a client that follows cursors blindly loops forever.
//
// Checked by internal/testfixture (TestPaginated); written for the probe
// tests for cursor following and the repeated-cursor guard.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	toolCount = 23
	pageSize  = 5
)

type numberArgs struct {
	N float64 `json:"n" jsonschema:"the number to transform"`
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "paginated", Version: "2.0.0"}, &mcp.ServerOptions{PageSize: pageSize})
	for i := 1; i <= toolCount; i++ {
		tool := &mcp.Tool{
			Name:        fmt.Sprintf("multiply_by_%02d", i),
			Title:       fmt.Sprintf("Multiply by %d", i),
			Description: fmt.Sprintf("Multiply a number by %d and return the product.", i),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)},
		}
		mcp.AddTool(server, tool, func(_ context.Context, _ *mcp.CallToolRequest, in numberArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.N * float64(i))}}}, nil, nil
		})
	}
	if os.Getenv("FIXTURE_CURSOR_LOOP") == "1" {
		server.AddReceivingMiddleware(loopCursor)
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "paginated:", err)
		os.Exit(1)
	}
}

// loopCursor drops the cursor of every tools/list request, so each answer is
// the first page carrying the cursor of the second page.
func loopCursor(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.ListToolsRequest); ok && r.Params != nil {
			r.Params.Cursor = ""
		}
		return next(ctx, method, req)
	}
}
