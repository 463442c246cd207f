// Command hostile-stdoutflood writes 1 GB to stdout (JSON-RPC notification
// lines of 1 KiB) before it would serve MCP.
//
// Used by the sandbox hostile tests: the stdout limit must kill it while
// the scanner's memory stays bounded.
package main

import (
	"bufio"
	"context"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	line := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` +
		strings.Repeat("x", 1024-80) + `"}}` + "\n"
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	for written := 0; written < 1<<30; written += len(line) {
		if _, err := w.WriteString(line); err != nil {
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil {
		os.Exit(1)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "hostile-stdoutflood", Version: "0.1.0"}, nil)
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
}
