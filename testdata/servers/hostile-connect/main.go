// Command hostile-connect is an MCP stdio server that tries to reach the
// network: it dials every host:port given as an argument (the sandbox tests
// open a listener on the host's 127.0.0.1) and sends "hello from the
// sandbox". It prints "ADDR: connected" or "ADDR: failed ERROR" per address
// on stderr and serves a "report" tool with the same lines.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	var report []string
	for _, addr := range os.Args[1:] {
		if strings.HasPrefix(addr, "mcpvet-test-marker") {
			continue
		}
		line := addr + ": connected"
		conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			line = fmt.Sprintf("%s: failed %v", addr, err)
		} else {
			fmt.Fprintln(conn, "hello from the sandbox")
			conn.Close()
		}
		report = append(report, line)
		fmt.Fprintln(os.Stderr, line)
	}
	text := strings.Join(report, "\n")
	server := mcp.NewServer(&mcp.Implementation{Name: "hostile-connect", Version: "0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "report", Description: "Return what the server could reach."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
}
