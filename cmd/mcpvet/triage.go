package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
	"github.com/mcpvet/mcpvet/scan"
)

type triageFlags struct {
	runFlags
	format      string
	failOn      string
	output      string
	concurrency int
	baseline    string
	sarifRoot   string
	listConfigs bool
	verbose     bool
	server      string
}

// newTriageCmd builds `mcpvet triage CONFIG`: probe every server of a
// client config and report keep / fix / drop with reasons and next steps.
func newTriageCmd(stdout, stderr io.Writer, g *globalFlags) *cobra.Command {
	var f triageFlags
	cmd := &cobra.Command{
		Use:   "triage [CONFIG] [flags]",
		Short: "Probe every server of an MCP client config and say which to keep, fix or drop",
		Long: `triage reads an MCP client config (Claude Desktop, Claude Code, VS Code,
Cursor, Windsurf, Gemini CLI, Codex CLI config.toml, Zed), probes every server
in it in the sandbox, stores the scan in --db and reports each server's
verdict in your words, one line per server (usable; usable, author has N
items; needs setup: what to supply; do not use: why; not assessed: why);
--verbose or --server NAME show each entry's score, reasons and next step.

Without CONFIG, triage finds every client config on this machine (and the
project configs of the current folder: .mcp.json, .vscode/mcp.json, ...);
--list-configs prints what it found. A server named in several configs is
probed once and reported under each.

Servers run as their client runs them: in the config's "cwd" or the current
folder, seeing the paths in their arguments, their project and their
installation (read-only); --expose and --expose-rw add paths. Launchers
(npx -y, uvx, docker run) become packages mcpvet installs before launch,
unless --no-translate.

Formats: table (terminals), json, junit (one test case per server; fix and
drop fail) and sarif (SARIF 2.1.0, one result per finding, located in the
config file) for CI systems and code-scanning dashboards.

With --fail-on, the exit code is 1 when any server's verdict is at or below
the threshold (drop: only dropped servers count; fix: fix or drop), after
the report is written.

With --baseline OLD.db, each server is compared with its run in the latest
scan of OLD.db: servers whose tools (descriptions, schemas, annotations),
prompts, resources or instructions changed are marked, as a rug pull would
show.`,
		Example: `  mcpvet triage ~/Library/Application\ Support/Claude/claude_desktop_config.json
  mcpvet triage .vscode/mcp.json --format sarif -o mcpvet.sarif --fail-on drop
  mcpvet triage .cursor/mcp.json --format junit -o triage.xml --env GITHUB_TOKEN=test`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("triage takes at most one argument, the client config file (got %d); e.g. mcpvet triage claude_desktop_config.json, or none to find the configs on this machine", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			config := ""
			if len(args) == 1 {
				config = args[0]
			}
			return runTriage(cmd.Context(), config, &f, g, stdout, stderr)
		},
	}
	f.register(cmd)
	f.registerConfigFlags(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "table", "report format: "+strings.Join(report.Formats(report.KindTriage), ", "))
	fl.StringVar(&f.failOn, "fail-on", "", "exit 1 when a verdict is at or below this: drop or fix")
	fl.StringVarP(&f.output, "output", "o", "-", "write the report here (- is stdout)")
	fl.IntVar(&f.concurrency, "concurrency", 0, "servers probed at once (default: number of CPUs)")
	fl.StringVar(&f.sarifRoot, "sarif-root", "", "directory SARIF locations are relative to (default: the git checkout around the working directory)")
	fl.StringVar(&f.baseline, "baseline", "", "results database of an earlier triage or scan; mark servers whose tools, prompts, resources or instructions changed since it")
	fl.BoolVar(&f.listConfigs, "list-configs", false, "print the client configs found (or the one given) and their servers, and exit")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "table: every entry with its reasons and next step, instead of one line per server")
	fl.StringVar(&f.server, "server", "", "triage only the server of this entry, and show its details")
	registerEnumCompletion(cmd, "format", report.Formats(report.KindTriage)...)
	registerEnumCompletion(cmd, "fail-on", results.TriageFailOn...)
	return cmd
}

func runTriage(ctx context.Context, config string, f *triageFlags, g *globalFlags, stdout, stderr io.Writer) error {
	// Every flag is checked before a server is launched.
	popts, root, err := f.check()
	if err != nil {
		return err
	}
	var baseline *results.Store
	if f.baseline != "" {
		// Opened before any server runs, so a bad path costs nothing.
		if baseline, err = openDiffDB(ctx, f.baseline, "--baseline"); err != nil {
			return err
		}
		defer baseline.Close()
	}
	copts, err := f.configOptions()
	if err != nil {
		return err
	}
	set, err := loadConfigSet(config, copts, stderr, g.quiet)
	if err != nil {
		return err
	}
	if f.listConfigs {
		return writeConfigList(stdout, set)
	}
	if len(set.Unique) == 0 {
		return usagef("the configs found list no servers; add one, or give a config file: mcpvet triage claude_desktop_config.json")
	}
	plans := set.Unique
	if f.server != "" {
		// Only the server of that entry: every entry reaching it is
		// reported, in detail.
		pl, ok := set.Entry(f.server)
		if !ok {
			return usagef("--server %q: no such entry in %s; its entries are %s", f.server, set.Label(), strings.Join(set.EntryNames(), ", "))
		}
		probed := set.Probed[pl.Key]
		plans = nil
		for _, u := range set.Unique {
			if u.Key == probed {
				plans = append(plans, u)
			}
		}
	}
	st, err := results.Open(ctx, f.db, nil)
	if err != nil {
		return err
	}
	defer st.Close()

	src := "config:" + set.Label()
	optsJSON, _ := json.Marshal(map[string]any{
		"config": set.Label(), "configs": set.Paths(), "sandbox": f.s.Backend, "allowNetwork": f.s.AllowNetwork, "allowPrivateNetwork": f.s.AllowPrivateNetwork, "noInject": f.s.NoInject,
		"failOn": f.failOn, "policy": popts.Policy, "expose": popts.Sandbox.Expose, "exposeRw": popts.Sandbox.ExposeRW,
		"noTranslate": f.noTranslate, "passEnv": f.passEnv,
	})
	o := &scan.Options{
		Store:       st,
		Plans:       plans,
		Concurrency: f.concurrency,
		Probe:       *popts,
		Info:        results.ScanInfo{Kind: results.KindTriage, Source: src, Options: optsJSON},
	}
	if !g.quiet {
		fmt.Fprintf(stderr, "mcpvet: triaging %d servers from %s\n", len(plans), safe.Line(set.Label()))
		o.Progress = newProgress(stderr)
	}
	sum, runErr := scan.Run(ctx, o)
	if !g.quiet {
		fmt.Fprintln(stderr)
	}
	interrupted := errors.Is(runErr, scan.ErrInterrupted)
	if runErr != nil && (!interrupted || sum.ScanID == 0) {
		return runErr
	}
	// The report is written even after an interrupt, from what is stored.
	t, err := results.LoadTriage(context.WithoutCancel(ctx), st, sum.ScanID)
	if err != nil {
		return err
	}
	scan.ExpandTriage(t, set)
	if baseline != nil {
		if err := t.CompareBaseline(context.WithoutCancel(ctx), baseline, f.baseline); err != nil {
			if errors.Is(err, results.ErrNotFound) {
				return usagef("--baseline %q holds no scan; give the database of an earlier triage or scan", f.baseline)
			}
			return err
		}
	}
	if root != "" {
		relativeConfigs(t, root, config)
	}
	width := 0
	if f.output == "" || f.output == "-" {
		width = terminalWidth(stdout)
	}
	if err := writeOutput(f.output, stdout, func(w io.Writer) error {
		return report.WriteTriage(w, t, f.format, &report.TriageOptions{Width: width, FailOn: f.failOn, Summary: !f.verbose && f.server == ""})
	}); err != nil {
		return err
	}
	if interrupted {
		return errTriageInterrupted
	}
	return f.gate(t, stderr, g.quiet)
}

// gate returns errFindings when a server's verdict is at or below
// --fail-on, after naming them on stderr.
func (f *triageFlags) gate(t *results.Triage, stderr io.Writer, quiet bool) error {
	if f.failOn == "" {
		return nil
	}
	failing := t.Failing(f.failOn)
	if len(failing) == 0 {
		return nil
	}
	if !quiet {
		names := make([]string, len(failing))
		for i, s := range failing {
			names[i] = safe.Line(s.Name) + " (" + s.Decision + ")"
		}
		fmt.Fprintf(stderr, "mcpvet: %d of %d servers at or below --fail-on %s: %s\n",
			len(failing), len(t.Servers), f.failOn, strings.Join(names, ", "))
	}
	return errFindings
}

// relativeConfigs makes the config paths of t relative to the SARIF
// root: SARIF locations are relative to the repository, not to this
// machine. A config outside the root keeps its own path.
func relativeConfigs(t *results.Triage, root, config string) {
	if config != "" {
		if rel := relToRoot(root, config); rel != "" {
			t.Config = rel
		}
	}
	for i := range t.Servers {
		if c := t.Servers[i].Config; c != "" {
			if rel := relToRoot(root, c); rel != "" {
				t.Servers[i].Config = rel
			}
		}
	}
}

// check validates the flags and returns the per-server options and the
// SARIF root ("" unless --format sarif).
func (f *triageFlags) check() (popts *scan.ProbeOptions, root string, err error) {
	format, err := formatFlag(report.KindTriage, f.format)
	if err != nil {
		return nil, "", err
	}
	f.format = format
	if err := checkFailOn(f.failOn); err != nil {
		return nil, "", err
	}
	if f.concurrency < 0 {
		return nil, "", usagef("--concurrency %d: must be at least 1", f.concurrency)
	}
	if popts, err = f.options(); err != nil {
		return nil, "", err
	}
	if f.format == "sarif" {
		if root, err = sarifRoot(f.sarifRoot); err != nil {
			return nil, "", err
		}
	} else if f.sarifRoot != "" {
		return nil, "", usagef("--sarif-root %q: only used with --format sarif", f.sarifRoot)
	}
	return popts, root, nil
}

// errTriageInterrupted is a partial triage (exit 4) with advice that fits
// triage, which has no --resume: the scan is stored, the report marks the
// servers that did not run as pending.
var errTriageInterrupted error = partialError("triage interrupted; the report shows the servers that finished and marks the rest pending; run triage again for a complete report")
