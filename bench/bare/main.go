// Command bare is the floor for the probe benchmark: the go-sdk client's
// handshake plus one tools/list against a stdio server, with nothing else.
//
//	go run ./bench/bare -- node server.js
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: bare -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{
		Command: exec.Command(args[0], args[1:]...),
		// The floor should not include the SDK's default 5 s wait for
		// the server to exit after stdin closes.
		TerminateDuration: 100 * time.Millisecond,
	}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tools/list:", err)
		os.Exit(1)
	}
	listed := time.Since(start)
	_ = cs.Close()
	fmt.Printf("%d tools; listed after %v, closed after %v\n", len(res.Tools), listed.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}
