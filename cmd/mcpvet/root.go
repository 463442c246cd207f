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
	cancel  context.CancelFunc
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	g := &globalFlags{}
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
			return nil
		},
		PersistentPostRun: func(cmd *cobra.Command, args []string) {
			if g.cancel != nil {
				g.cancel()
			}
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
