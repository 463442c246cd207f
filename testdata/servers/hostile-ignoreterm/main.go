// Command hostile-ignoreterm is an MCP stdio server that will not stop: it
// ignores SIGTERM, SIGINT and SIGHUP, serves an empty MCP server, and keeps
// running after stdin closes. Only SIGKILL ends it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	server := mcp.NewServer(&mcp.Implementation{Name: "hostile-ignoreterm", Version: "0.1.0"}, nil)
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
	fmt.Fprintln(os.Stderr, "stdin closed; staying alive")
	select {}
}
