package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
	"github.com/mcpvet/mcpvet/scan"
	"github.com/mcpvet/mcpvet/vocab"
)

// readGateBaseline reads --baseline; a missing file is an empty baseline
// only with --update-baseline.
func readGateBaseline(path string, update bool) (*scan.Baseline, error) {
	b, err := scan.ReadBaseline(path, update)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return nil, usagef("--baseline %q: %v; create it with --update-baseline", path, pe.Err)
	case err != nil:
		return nil, usagef("--baseline %q: %v", path, err)
	}
	return b, nil
}

// reportGate prints the gate outcome on stderr, one line per new finding.
func reportGate(w io.Writer, path string, g scan.GateResult, maxDrop float64) {
	for _, f := range g.New {
		fmt.Fprintf(w, "mcpvet: new %s %s on %s%s: %s\n", f.Severity, f.Code, safe.Line(f.Subject), safe.Line(f.Pointer), safe.Line(f.Message))
	}
	if g.Drop > 0 {
		fmt.Fprintf(w, "mcpvet: score dropped by %.1f points from the baseline's %.1f (allowed: %g)\n", g.Drop, *g.OldScore, maxDrop)
	}
	if g.Failed() {
		fmt.Fprintf(w, "mcpvet: gate failed against %s: %d new findings; accept them with a reason in the file, or run with --update-baseline\n", safe.Line(path), len(g.New))
	} else {
		fmt.Fprintf(w, "mcpvet: gate passed against %s\n", safe.Line(path))
	}
}

// reportContextGate prints the context-cost outcome on stderr: the limit
// that failed, and the tools that grew.
func reportContextGate(w io.Writer, g scan.ContextGate, l scan.ContextLimits) {
	if g.Encoding == "" {
		return
	}
	if g.OverMax {
		fmt.Fprintf(w, "mcpvet: context cost %d %s tokens exceeds --max-context-tokens %d\n", g.Tokens, g.Encoding, l.MaxTokens)
	}
	if g.NoBaseline {
		fmt.Fprintf(w, "mcpvet: the baseline records no %s context cost; growth not checked (write it with --update-baseline)\n", g.Encoding)
	}
	if l.MaxGrowthPct >= 0 && !g.NoBaseline {
		verb := "within"
		if g.OverGrowth {
			verb = "beyond"
		}
		fmt.Fprintf(w, "mcpvet: context cost %d %s tokens, %+.1f%% from the baseline's %d (%s the allowed %g%%)\n", g.Tokens, g.Encoding, g.GrowthPct, g.Baseline, verb, l.MaxGrowthPct)
		for i, t := range g.Growth {
			if i == 10 {
				fmt.Fprintf(w, "mcpvet:   ... %d more tools changed\n", len(g.Growth)-i)
				break
			}
			switch {
			case t.Added:
				fmt.Fprintf(w, "mcpvet:   tool %s: new, %d tokens\n", safe.Line(t.Name), t.New)
			case t.Removed:
				fmt.Fprintf(w, "mcpvet:   tool %s: removed, was %d tokens\n", safe.Line(t.Name), t.Old)
			default:
				fmt.Fprintf(w, "mcpvet:   tool %s: %d -> %d tokens (%+d)\n", safe.Line(t.Name), t.Old, t.New, t.New-t.Old)
			}
		}
	}
}

// sarifRoot returns the directory SARIF locations are relative to: the
// flag's value, else the root of the git checkout around the working
// directory, else the working directory.
func sarifRoot(flag string) (string, error) {
	if flag != "" {
		abs, err := filepath.Abs(flag)
		if err != nil {
			return "", usagef("--sarif-root %q: %v", flag, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", usagef("--sarif-root %q: not a directory; give the repository root", flag)
		}
		return abs, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return wd, nil
		}
	}
}

// relToRoot returns path relative to root with forward slashes, or ""
// when it is outside root.
func relToRoot(root, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// probeArtifact picks the file a probe's SARIF results are located in:
// the --server-json file, else the first file of the command inside the
// root (the entry point, such as dist/index.js), else a manifest at the
// root, else the baseline file.
func probeArtifact(root, serverJSON string, command []string, baseline string) string {
	if serverJSON != "" {
		if r := relToRoot(root, serverJSON); r != "" {
			return r
		}
	}
	for _, a := range command {
		if fi, err := os.Stat(a); err == nil && !fi.IsDir() {
			if r := relToRoot(root, a); r != "" {
				return r
			}
		}
	}
	for _, m := range []string{"server.json", "package.json", "pyproject.toml", "go.mod", "Cargo.toml"} {
		if _, err := os.Stat(filepath.Join(root, m)); err == nil {
			return m
		}
	}
	if baseline != "" {
		if r := relToRoot(root, baseline); r != "" {
			return r
		}
	}
	return "."
}

// gateFlags are the author-gate flags of `mcpvet probe`.
type gateFlags struct {
	baseline     string
	update       bool
	maxScoreDrop float64
	sarif        string
	sarifRoot    string
	// maxContextTokens and maxContextGrowth are the context-cost limits
	// (0 and unset: none).
	maxContextTokens int
	maxContextGrowth float64
	flags            *pflag.FlagSet

	root string
	base *scan.Baseline
}

// contextLimits are the context-cost limits the flags set.
func (g *gateFlags) contextLimits() scan.ContextLimits {
	l := scan.ContextLimits{MaxTokens: g.maxContextTokens, MaxGrowthPct: -1}
	if g.flags != nil && g.flags.Changed("max-context-growth") {
		l.MaxGrowthPct = g.maxContextGrowth
	}
	return l
}

func (g *gateFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&g.baseline, "baseline", "", "JSON file of accepted findings, each with a reason; exit 1 on findings not in it or a score drop beyond --max-score-drop")
	fl.BoolVar(&g.update, "update-baseline", false, "write the probe's findings and score to --baseline (keeping the reasons of findings still present) and pass")
	fl.Float64Var(&g.maxScoreDrop, "max-score-drop", results.DefaultDiffScoreDrop, "points the score may fall below the baseline's before the gate fails")
	fl.StringVar(&g.sarif, "sarif", "", "also write the findings as SARIF 2.1.0 to this file, located relative to the repository root")
	fl.StringVar(&g.sarifRoot, "sarif-root", "", "directory SARIF locations are relative to (default: the git checkout around the working directory)")
	fl.IntVar(&g.maxContextTokens, "max-context-tokens", 0, "exit 1 when what a client loads from the server (tools, prompts, resources lists and instructions) exceeds this many o200k_base tokens (0: no limit)")
	fl.Float64Var(&g.maxContextGrowth, "max-context-growth", 0, "exit 1 when the context cost grew by more than this percentage over --baseline's (default: not checked)")
	g.flags = fl
}

// check validates the flags and reads the baseline before any server runs.
func (g *gateFlags) check() error {
	if g.update && g.baseline == "" {
		return usagef("--update-baseline needs --baseline FILE, the file to write")
	}
	if g.maxScoreDrop < 0 || g.maxScoreDrop > 100 {
		return usagef("--max-score-drop %g: out of range; use 0 to 100 points", g.maxScoreDrop)
	}
	if g.maxContextTokens < 0 {
		return usagef("--max-context-tokens %d: negative; give a token count, or 0 for no limit", g.maxContextTokens)
	}
	if g.flags != nil && g.flags.Changed("max-context-growth") {
		if g.maxContextGrowth < 0 {
			return usagef("--max-context-growth %g: negative; give a percentage such as 10", g.maxContextGrowth)
		}
		if g.baseline == "" {
			return usagef("--max-context-growth %g: needs --baseline FILE, the accepted context cost to compare with", g.maxContextGrowth)
		}
	}
	if g.sarifRoot != "" && g.sarif == "" {
		return usagef("--sarif-root %q: only used with --sarif FILE", g.sarifRoot)
	}
	if g.sarif != "" {
		root, err := sarifRoot(g.sarifRoot)
		if err != nil {
			return err
		}
		g.root = root
	}
	if g.baseline != "" {
		b, err := readGateBaseline(g.baseline, g.update)
		if err != nil {
			return err
		}
		g.base = b
	}
	return nil
}

// sarifOptions are the options of the probe's SARIF file: located in the
// artifact [probeArtifact] picks, with the reasons of the baseline's
// accepted findings (none with --update-baseline, which rewrites them).
func (g *gateFlags) sarifOptions(plan *vocab.Plan, serverJSON string) report.ProbeSARIFOptions {
	accepted := g.base
	if g.update {
		accepted = nil
	}
	command := append([]string{plan.Command}, plan.Args...)
	return report.ProbeSARIFOptions{
		Artifact: probeArtifact(g.root, serverJSON, command, g.baseline),
		Accepted: accepted.Reason,
	}
}
