package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/sariftest"
	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/scan"
)

// TestProbeGate runs the author gate on the poisoned fixture: a baseline
// written by --update-baseline passes, the same server with one new
// defect (its "extra" tool) exits 1 naming it, --update-baseline accepts
// it and the gate passes again. Reasons written by hand survive updates.
func TestProbeGate(t *testing.T) {
	bin := testfixture.Path(t, "poisoned")
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	base := filepath.Join(dir, "mcpvet-baseline.json")
	probeArgs := func(extra ...string) []string {
		return append([]string{"probe", "--no-inject", "--sandbox", "none", "--db", db, "-q"}, extra...)
	}

	code, _, stderr := runCLI(append(probeArgs("--baseline", base), "--", bin)...)
	if code != exitUsage || !strings.Contains(stderr, "--baseline") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("missing baseline: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr = runCLI(append(probeArgs("--baseline", base, "--update-baseline"), "--", bin)...); code != 0 {
		t.Fatalf("--update-baseline: exit %d, stderr %q", code, stderr)
	}
	var b scan.Baseline
	readJSON(t, base, &b)
	if len(b.Accepted) == 0 {
		t.Fatal("the baseline accepted nothing")
	}
	// The author writes a real reason for one finding.
	b.Accepted[0].Reason = "demonstration text of a published attack, kept on purpose"
	writeJSON(t, base, b)

	if code, _, stderr = runCLI(append(probeArgs("--baseline", base), "--", bin)...); code != 0 || !strings.Contains(stderr, "gate passed") {
		t.Fatalf("unchanged server against its baseline: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(append(probeArgs("--baseline", base), "--", bin, "extra")...)
	if code != exitFindings || !strings.Contains(stderr, "poison/pseudo_system_tag on tool:extra_admin/description") || !strings.Contains(stderr, "gate failed") {
		t.Fatalf("new defect: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr = runCLI(append(probeArgs("--baseline", base, "--update-baseline"), "--", bin, "extra")...); code != 0 {
		t.Fatalf("--update-baseline with the new defect: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr = runCLI(append(probeArgs("--baseline", base), "--", bin, "extra")...); code != 0 {
		t.Fatalf("after --update-baseline: exit %d, stderr %q", code, stderr)
	}
	readJSON(t, base, &b)
	kept := false
	for _, e := range b.Accepted {
		if e.Reason == "demonstration text of a published attack, kept on purpose" {
			kept = true
		}
	}
	if !kept {
		t.Error("--update-baseline dropped a reason the author wrote")
	}

	// A reason is required.
	b.Accepted[1].Reason = " "
	writeJSON(t, base, b)
	code, _, stderr = runCLI(append(probeArgs("--baseline", base), "--", bin)...)
	if code != exitUsage || !strings.Contains(stderr, "accepted[1]") || !strings.Contains(stderr, "has no reason") {
		t.Errorf("baseline without a reason: exit %d, stderr %q", code, stderr)
	}
}

// TestProbeGateScoreDrop: a score below the baseline's by more than
// --max-score-drop fails the gate even without new findings.
func TestProbeGateScoreDrop(t *testing.T) {
	bin := testfixture.Path(t, "poisoned")
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	base := filepath.Join(dir, "b.json")
	args := []string{"probe", "--sandbox", "none", "--db", db, "-q", "--baseline", base}
	if code, _, stderr := runCLI(append(args, "--update-baseline", "--", bin)...); code != 0 {
		t.Fatalf("--update-baseline: exit %d, %q", code, stderr)
	}
	var b scan.Baseline
	readJSON(t, base, &b)
	if b.Score == nil {
		t.Fatal("no score recorded")
	}
	higher := *b.Score + 10
	b.Score = &higher
	writeJSON(t, base, b)
	code, _, stderr := runCLI(append(args, "--", bin)...)
	if code != exitFindings || !strings.Contains(stderr, "score dropped by 10.0 points") {
		t.Errorf("score 10 below the baseline: exit %d, %q", code, stderr)
	}
	if code, _, stderr = runCLI(append(args, "--max-score-drop", "15", "--", bin)...); code != 0 {
		t.Errorf("with --max-score-drop 15: exit %d, %q", code, stderr)
	}
}

// TestProbeSARIFRelative: probe --sarif locates results relative to the
// repository root (--sarif-root), never as a file:// path of this machine,
// and marks baseline-accepted findings as suppressed with their reason.
func TestProbeSARIFRelative(t *testing.T) {
	bin := testfixture.Path(t, "poisoned")
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The server's entry point inside the repository.
	entry := filepath.Join(repo, "dist", "server")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entry, data, 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(repo, "mcpvet-baseline.json")
	sarif := filepath.Join(repo, "mcpvet.sarif")
	common := []string{"probe", "--no-inject", "--sandbox", "none", "--db", filepath.Join(repo, "r.db"), "-q", "--baseline", base}
	if code, _, stderr := runCLI(append(common, "--update-baseline", "--", entry)...); code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	code, _, stderr := runCLI(append(common, "--sarif", sarif, "--sarif-root", repo, "--", entry, "extra")...)
	if code != exitFindings {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	var log sariftest.Log
	readJSON(t, sarif, &log)
	suppressed, open := 0, 0
	for _, r := range log.Runs[0].Results {
		if u := r.Locations[0].PhysicalLocation.ArtifactLocation.URI; u != "dist/server" {
			t.Fatalf("%s located at %q, want dist/server", r.RuleID, u)
		}
		if len(r.Suppressions) > 0 {
			suppressed++
			if r.Suppressions[0].Kind != "external" || r.Suppressions[0].Justification != scan.ReasonTODO {
				t.Errorf("suppression %+v", r.Suppressions[0])
			}
		} else if r.Properties["severity"] != "info" {
			open++
		}
	}
	if suppressed == 0 || open != 1 {
		t.Errorf("%d suppressed, %d open warn+ results; want the one new defect open", suppressed, open)
	}
}

// TestActionScript runs the shell steps of the GitHub Action (action.yml
// calls scripts/action.sh) the way a workflow would: it builds mcpvet
// from this checkout, probes the fixture, writes SARIF, and its exit code
// is the gate's.
func TestActionScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpvet")
	}
	bin := testfixture.Path(t, "poisoned")
	src, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	run := func(command string, update bool) (int, string) {
		cmd := exec.Command("bash", filepath.Join(src, "scripts", "action.sh"))
		cmd.Dir = work
		cmd.Env = append(os.Environ(),
			"GITHUB_ACTION_PATH="+src,
			"GITHUB_WORKSPACE="+work,
			"RUNNER_TEMP="+work,
			"INPUT_COMMAND="+command,
			"INPUT_BASELINE=mcpvet-baseline.json",
			"INPUT_SARIF=mcpvet.sarif",
			"INPUT_MAX_SCORE_DROP=5",
			"INPUT_ARGS=--no-inject --sandbox none",
			"INPUT_UPDATE_BASELINE="+map[bool]string{true: "true", false: "false"}[update],
		)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := run(bin, true); code != 0 {
		t.Fatalf("update: exit %d\n%s", code, out)
	}
	if code, out := run(bin, false); code != 0 {
		t.Fatalf("baseline: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(work, "mcpvet.sarif")); err != nil {
		t.Errorf("no SARIF written: %v", err)
	}
	if code, out := run(bin+" extra", false); code != 1 || !strings.Contains(out, "extra_admin") {
		t.Fatalf("new defect: exit %d\n%s", code, out)
	}
	if code, out := run(bin+" 'extra", false); code != 2 || !strings.Contains(out, "quote") {
		t.Errorf("unbalanced quote: exit %d\n%s", code, out)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProbeGateContext: the context-cost limits of the author gate. The
// poisoned fixture with its "extra" tool loads more tokens than the
// baseline accepted: --max-context-growth fails it naming the new tool,
// --max-context-tokens fails a listing over the limit without a baseline,
// and a growth limit without a baseline is a usage error.
func TestProbeGateContext(t *testing.T) {
	bin := testfixture.Path(t, "poisoned")
	dir := t.TempDir()
	base := filepath.Join(dir, "mcpvet-baseline.json")
	probeArgs := func(extra ...string) []string {
		return append([]string{"probe", "--no-inject", "--sandbox", "none", "--db", filepath.Join(dir, "r.db"), "-q"}, extra...)
	}
	if code, _, stderr := runCLI(append(probeArgs("--baseline", base, "--update-baseline"), "--", bin, "extra")...); code != 0 {
		t.Fatalf("--update-baseline: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runCLI(append(probeArgs("--baseline", base, "--update-baseline"), "--", bin)...); code != 0 {
		t.Fatalf("--update-baseline: exit %d, stderr %q", code, stderr)
	}
	var b scan.Baseline
	readJSON(t, base, &b)
	if b.Context == nil || b.Context.Encoding != "o200k_base" || b.Context.Total <= 0 || len(b.Context.Tools) == 0 {
		t.Fatalf("baseline context = %+v, want o200k_base counts", b.Context)
	}
	code, _, stderr := runCLI(append(probeArgs("--baseline", base, "--max-context-growth", "0"), "--", bin)...)
	if code != 0 || !strings.Contains(stderr, "+0.0% from the baseline's") {
		t.Fatalf("unchanged listing: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(append(probeArgs("--baseline", base, "--max-context-growth", "1"), "--", bin, "extra")...)
	if code != exitFindings || !strings.Contains(stderr, "beyond the allowed 1%") || !strings.Contains(stderr, "tool extra_admin: new") {
		t.Fatalf("grown listing: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(append(probeArgs("--max-context-tokens", "10"), "--", bin)...)
	if code != exitFindings || !strings.Contains(stderr, "exceeds --max-context-tokens 10") {
		t.Fatalf("over the token limit: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr = runCLI(append(probeArgs("--max-context-tokens", fmt.Sprint(b.Context.Total)), "--", bin)...); code != 0 {
		t.Fatalf("at the token limit: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(append(probeArgs("--max-context-growth", "5"), "--", bin)...)
	if code != exitUsage || !strings.Contains(stderr, "--max-context-growth 5: needs --baseline") {
		t.Fatalf("growth without a baseline: exit %d, stderr %q", code, stderr)
	}
}
