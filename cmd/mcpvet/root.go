package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpvet/mcpvet/internal/version"
)

// globalFlags are shared by every command.
type globalFlags struct {
	timeout time.Duration
	quiet   bool

	// running is set once the root's PersistentPreRunE has passed: an
	// error before it (a flag, an argument, an unknown command) is a usage
	// error.
	running bool
	// cancel releases the --timeout context; [run] defers it, since cobra
	// skips post-run hooks when RunE fails.
	cancel context.CancelFunc
}

// release cancels the --timeout context, if there is one.
func (g *globalFlags) release() {
	if g.cancel != nil {
		g.cancel()
	}
}

// newRoot builds the command tree on g, which [run] reads after the
// command returns.
func newRoot(stdout, stderr io.Writer, g *globalFlags) *cobra.Command {
	root := &cobra.Command{
		Use:           "mcpvet",
		Short:         "Tell which MCP servers actually work",
		Long:          "mcpvet launches MCP servers in a sandbox, probes their handshake, listings and error paths, grades what their errors tell an agent, and stores everything in SQLite.",
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if g.timeout < 0 {
				return usagef("--timeout %s: must not be negative; use a duration such as 30s or 10m, or 0 for none", g.timeout)
			}
			if g.timeout > 0 {
				ctx, cancel := context.WithTimeout(cmd.Context(), g.timeout)
				g.cancel = cancel
				cmd.SetContext(ctx)
			}
			g.running = true
			return nil
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError{err} })
	root.PersistentFlags().DurationVar(&g.timeout, "timeout", 0, "stop the whole command after this long (0: no limit); per-server deadlines are separate")
	root.PersistentFlags().BoolVarP(&g.quiet, "quiet", "q", false, "no progress or log lines on stderr")
	root.AddCommand(
		newProbeCmd(stdout, stderr, g),
		newScanCmd(stdout, stderr, g),
		newRegistryCmd(stdout, stderr, g),
		newResultsCmd(stdout, stderr),
		newTriageCmd(stdout, stderr, g),
		newDiffCmd(stdout, stderr, g),
		newReportCmd(stdout, stderr, g),
		newGradeCmd(stdout, stderr),
		&cobra.Command{
			Use:   "version",
			Short: "Print the mcpvet version",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				_, err := fmt.Fprintf(stdout, "mcpvet version %s\n", version.String())
				return err
			},
		},
	)
	return root
}
