// Command hostile-hugeline sends one 100 MB JSON-RPC line on stdout (a
// notification whose data is 100 MB of "a"), then serves MCP.
//
// Used by the sandbox hostile tests: the message size limit must kill it
// while the scanner's memory stays bounded.
package main

import (
	"context"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	chunk := []byte(strings.Repeat("a", 1<<20))
	os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`)
	for range 100 {
		if _, err := os.Stdout.Write(chunk); err != nil {
			os.Exit(1)
		}
	}
	os.Stdout.WriteString("\"}}\n")
	server := mcp.NewServer(&mcp.Implementation{Name: "hostile-hugeline", Version: "0.1.0"}, nil)
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
}
