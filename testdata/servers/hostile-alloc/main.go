// Command hostile-alloc is an MCP stdio server that allocates memory
// without end (1 MiB at a time, every page touched, nothing freed) while it
// serves an empty MCP server.
//
// Used by the sandbox hostile tests: the memory limit must kill it.
package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var keep [][]byte

func main() {
	go func() {
		for {
			b := make([]byte, 1<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			keep = append(keep, b)
		}
	}()
	server := mcp.NewServer(&mcp.Implementation{Name: "hostile-alloc", Version: "0.1.0"}, nil)
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
	select {}
}
