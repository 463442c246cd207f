package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/scan/source"
	"github.com/mcpvet/mcpvet/vocab"
)

// loadConfigSet reads the given config, or discovers the machine's
// (scan/source owns both), and notes on stderr each discovered config that
// could not be read and each entry skipped.
func loadConfigSet(config string, copts *source.ConfigOptions, stderr io.Writer, quiet bool) (*source.ConfigSet, error) {
	wd, _ := os.Getwd()
	set, err := source.LoadConfigSet(config, source.HostDiscoverEnv(runtime.GOOS, wd), copts)
	if err != nil {
		return nil, usageError{err}
	}
	if quiet {
		return set, nil
	}
	for _, c := range set.Configs {
		if c.Err != nil {
			// A settings.json without servers is no news.
			if msg := c.Err.Error(); !strings.Contains(msg, "lists no servers") && !strings.Contains(msg, "does not look like an MCP client config") {
				fmt.Fprintf(stderr, "mcpvet: skipping %s\n", safe.Line(msg))
			}
			continue
		}
		for _, sk := range c.Skipped {
			fmt.Fprintf(stderr, "mcpvet: %s: skipping %q: %s\n", safe.Line(c.Found.Path), safe.Line(sk.Name), safe.Line(sk.Reason))
		}
	}
	return set, nil
}

// writeConfigList prints the configs found and their servers.
func writeConfigList(w io.Writer, s *source.ConfigSet) error {
	var b bytes.Buffer
	for _, c := range s.Configs {
		head := safe.Line(c.Found.Path)
		if c.Found.Client != "" {
			scope := c.Found.Scope
			if scope == "" {
				scope = "given"
			}
			head = fmt.Sprintf("%s (%s): %s", c.Found.Client, scope, head)
		}
		fmt.Fprintln(&b, head)
		if c.Err != nil {
			fmt.Fprintf(&b, "  no servers read: %s\n", safe.Line(c.Err.Error()))
			continue
		}
		tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		for _, pl := range c.Plans {
			fmt.Fprintf(tw, "  %s\t%s\n", safe.Line(pl.Name), safe.Line(describePlan(pl)))
		}
		for _, sk := range c.Skipped {
			fmt.Fprintf(tw, "  %s\tskipped: %s\n", safe.Line(sk.Name), safe.Line(sk.Reason))
		}
		tw.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}

// describePlan says in one line what a plan runs.
func describePlan(pl vocab.Plan) string {
	var parts []string
	switch {
	case pl.URL != "":
		parts = append(parts, pl.Transport, pl.URL)
	case pl.Launcher != "" && pl.Package != nil:
		v := pl.Package.Version
		if v == "" {
			v = "latest"
		}
		parts = append(parts, fmt.Sprintf("%s %s@%s (installed by mcpvet)", pl.Launcher, pl.Package.Identifier, v))
		parts = append(parts, pl.Args...)
	default:
		parts = append(parts, pl.Command)
		parts = append(parts, pl.Args...)
	}
	if pl.Dir != "" {
		parts = append(parts, "(in "+pl.Dir+")")
	}
	if pl.Status != "" {
		parts = append(parts, "["+string(pl.Status)+": "+pl.StatusDetail+"]")
	}
	return strings.Join(parts, " ")
}

// terminalWidth returns the width reports should fit: $COLUMNS, else the
// terminal's when w is one, else 0 (no limit).
func terminalWidth(w io.Writer) int {
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	if f, ok := w.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return 0
}

// registerEnumCompletion makes shell completion offer values for flag.
func registerEnumCompletion(cmd *cobra.Command, flag string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	})
}
