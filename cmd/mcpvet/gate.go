package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
	"github.com/mcpvet/mcpvet/sandbox"
)

// gateBaseline is the committed file of accepted findings that `mcpvet
// probe --baseline FILE` compares a probe with. A finding is identified by
// code, subject and pointer: its message and value may be reworded by a
// later mcpvet without it becoming new.
type gateBaseline struct {
	// Version is the file format, 1.
	Version int `json:"version"`
	// Server names what was probed, for the reader.
	Server string `json:"server,omitempty"`
	// Score is the accepted actionability score; a probe whose score is
	// lower by more than --max-score-drop fails the gate.
	Score *float64 `json:"score"`
	// Accepted are the accepted findings, each with the reason.
	Accepted []gateEntry `json:"accepted"`
}

type gateEntry struct {
	Code    string `json:"code"`
	Subject string `json:"subject"`
	Pointer string `json:"pointer,omitempty"`
	// Reason says why the finding is accepted; required.
	Reason string `json:"reason"`
	// Message is the finding's message when it was accepted, for the
	// reader; it does not take part in matching.
	Message string `json:"message,omitempty"`
}

func (e gateEntry) key() string { return e.Code + "\x00" + e.Subject + "\x00" + e.Pointer }

func gateKey(f probe.Finding) string { return f.Code + "\x00" + f.Subject + "\x00" + f.Pointer }

// gateReasonTODO is the reason --update-baseline writes for a finding it
// accepts; the author replaces it with the real reason.
const gateReasonTODO = "accepted by --update-baseline; replace this with why the finding is acceptable"

// gateSeverity is the mildest severity the gate counts: info findings
// (such as the sandbox the CI machine offers) never fail it.
var gateSeverity = probe.SeverityWarn

// readGateBaseline reads and validates a baseline file. A missing file is
// an empty baseline only when update is set.
func readGateBaseline(path string, update bool) (*gateBaseline, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && update {
		return &gateBaseline{Version: 1}, nil
	}
	if err != nil {
		return nil, usagef("--baseline %q: %v; create it with --update-baseline", path, errors.Unwrap(err))
	}
	var b gateBaseline
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, usagef("--baseline %q: not a baseline file (%v); it holds {\"version\": 1, \"score\": N, \"accepted\": [{\"code\", \"subject\", \"pointer\", \"reason\"}]}", path, err)
	}
	if b.Version != 1 {
		return nil, usagef("--baseline %q: version %d: unknown; this mcpvet reads version 1", path, b.Version)
	}
	for i, e := range b.Accepted {
		switch {
		case e.Code == "":
			return nil, usagef("--baseline %q: accepted[%d].code is empty; give the finding code, such as tool/title_missing", path, i)
		case strings.TrimSpace(e.Reason) == "":
			return nil, usagef("--baseline %q: accepted[%d] (%s on %s) has no reason; say why the finding is accepted", path, i, e.Code, e.Subject)
		}
	}
	return &b, nil
}

// gateResult is what the gate found.
type gateResult struct {
	// New are the findings the baseline does not accept.
	New []probe.Finding
	// Drop is the score drop beyond the threshold, 0 when none.
	Drop     float64
	OldScore *float64
}

func (g gateResult) failed() bool { return len(g.New) > 0 || g.Drop > 0 }

// checkGate compares a probe result with a baseline.
func checkGate(b *gateBaseline, res *probe.Result, maxDrop float64) gateResult {
	accepted := map[string]bool{}
	for _, e := range b.Accepted {
		accepted[e.key()] = true
	}
	var g gateResult
	seen := map[string]bool{}
	for _, f := range res.Findings {
		k := gateKey(f)
		if f.Severity.Rank() < gateSeverity.Rank() || accepted[k] || seen[k] {
			continue
		}
		seen[k] = true
		g.New = append(g.New, f)
	}
	if b.Score != nil && res.Score != nil && *b.Score-*res.Score > maxDrop {
		g.Drop, g.OldScore = *b.Score-*res.Score, b.Score
	}
	return g
}

// updateGateBaseline rewrites the baseline with the probe's findings:
// reasons of findings still present are kept, new ones get
// [gateReasonTODO], findings gone are dropped; the score becomes the
// probe's.
func updateGateBaseline(path string, old *gateBaseline, res *probe.Result) (added, removed int, err error) {
	reason := map[string]string{}
	for _, e := range old.Accepted {
		reason[e.key()] = e.Reason
	}
	nb := gateBaseline{Version: 1, Server: res.Target.Name, Score: res.Score, Accepted: []gateEntry{}}
	seen := map[string]bool{}
	for _, f := range res.Findings {
		k := gateKey(f)
		if f.Severity.Rank() < gateSeverity.Rank() || seen[k] {
			continue
		}
		seen[k] = true
		r, ok := reason[k]
		if !ok {
			r = gateReasonTODO
			added++
		}
		nb.Accepted = append(nb.Accepted, gateEntry{Code: f.Code, Subject: f.Subject, Pointer: f.Pointer, Reason: r, Message: f.Message})
	}
	for k := range reason {
		if !seen[k] {
			removed++
		}
	}
	slices.SortFunc(nb.Accepted, func(a, b gateEntry) int { return strings.Compare(a.key(), b.key()) })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(nb); err != nil {
		return 0, 0, err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return 0, 0, usagef("--baseline %q: %v; give a writable path", path, err)
	}
	return added, removed, nil
}

// reportGate prints the gate outcome on stderr, one line per new finding.
func reportGate(w io.Writer, path string, g gateResult, maxDrop float64) {
	for _, f := range g.New {
		fmt.Fprintf(w, "mcpvet: new %s %s on %s%s: %s\n", f.Severity, f.Code, safe.Line(f.Subject), safe.Line(f.Pointer), safe.Line(f.Message))
	}
	if g.Drop > 0 {
		fmt.Fprintf(w, "mcpvet: score dropped by %.1f points from the baseline's %.1f (allowed: %g)\n", g.Drop, *g.OldScore, maxDrop)
	}
	if g.failed() {
		fmt.Fprintf(w, "mcpvet: gate failed against %s: %d new findings; accept them with a reason in the file, or run with --update-baseline\n", safe.Line(path), len(g.New))
	} else {
		fmt.Fprintf(w, "mcpvet: gate passed against %s\n", safe.Line(path))
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

// writeProbeSARIF writes the probe's SARIF file.
func writeProbeSARIF(path, key string, res *probe.Result, opts report.ProbeSARIFOptions) error {
	f, err := os.Create(path)
	if err != nil {
		return usagef("--sarif %q: %v; give a writable file path", path, err)
	}
	werr := report.WriteProbeSARIF(f, key, res, opts)
	return errors.Join(werr, f.Close())
}

// gateFlags are the author-gate flags of `mcpvet probe`.
type gateFlags struct {
	baseline     string
	update       bool
	maxScoreDrop float64
	sarif        string
	sarifRoot    string

	root string
	base *gateBaseline
}

func (g *gateFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&g.baseline, "baseline", "", "JSON file of accepted findings, each with a reason; exit 1 on findings not in it or a score drop beyond --max-score-drop")
	fl.BoolVar(&g.update, "update-baseline", false, "write the probe's findings and score to --baseline (keeping the reasons of findings still present) and pass")
	fl.Float64Var(&g.maxScoreDrop, "max-score-drop", results.DefaultDiffScoreDrop, "points the score may fall below the baseline's before the gate fails")
	fl.StringVar(&g.sarif, "sarif", "", "also write the findings as SARIF 2.1.0 to this file, located relative to the repository root")
	fl.StringVar(&g.sarifRoot, "sarif-root", "", "directory SARIF locations are relative to (default: the git checkout around the working directory)")
}

// check validates the flags and reads the baseline before any server runs.
func (g *gateFlags) check() error {
	if g.update && g.baseline == "" {
		return usagef("--update-baseline needs --baseline FILE, the file to write")
	}
	if g.maxScoreDrop < 0 || g.maxScoreDrop > 100 {
		return usagef("--max-score-drop %g: out of range; use 0 to 100 points", g.maxScoreDrop)
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

// finish writes the SARIF file and applies the gate: with --update-baseline
// it rewrites the baseline and passes; otherwise new findings or a score
// drop fail with exit 1.
func (g *gateFlags) finish(plan *sandbox.Plan, serverJSON string, res *probe.Result, stderr io.Writer) error {
	if g.sarif != "" {
		accepted := map[string]string{}
		if g.base != nil && !g.update {
			for _, e := range g.base.Accepted {
				accepted[e.key()] = e.Reason
			}
		}
		command := append([]string{plan.Command}, plan.Args...)
		opts := report.ProbeSARIFOptions{
			Artifact: probeArtifact(g.root, serverJSON, command, g.baseline),
			Accepted: func(f probe.Finding) string { return accepted[gateKey(f)] },
		}
		if err := writeProbeSARIF(g.sarif, plan.Key, res, opts); err != nil {
			return err
		}
	}
	if g.base == nil {
		return nil
	}
	if g.update {
		added, removed, err := updateGateBaseline(g.baseline, g.base, res)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "mcpvet: wrote %s: %d findings newly accepted, %d no longer present; give each new one its reason\n", safe.Line(g.baseline), added, removed)
		return nil
	}
	gr := checkGate(g.base, res, g.maxScoreDrop)
	reportGate(stderr, g.baseline, gr, g.maxScoreDrop)
	if gr.failed() {
		return errFindings
	}
	return nil
}
