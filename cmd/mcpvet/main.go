// Command mcpvet tells which MCP servers actually work.
//
// See the README for usage; `mcpvet help` lists the commands.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpvet/mcpvet/internal/timeline"
	"github.com/mcpvet/mcpvet/scan"
)

func main() {
	// The built-in sandbox re-executes this binary as the init process of
	// a server's namespaces; that path never returns.
	scan.MaybeRunInit()
	timeline.Mark("main")
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: tests call it with their own writers.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g := &globalFlags{}
	defer g.release()
	cmd := newRoot(stdout, stderr, g)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err != nil && !g.running {
		// Cobra stopped before RunE: a flag, an argument or an unknown
		// command.
		err = usageError{err}
	}
	return exitCode(err, stderr)
}
