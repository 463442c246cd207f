package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/internal/sariftest"
	"github.com/mcpvet/mcpvet/internal/testenv"
	"github.com/mcpvet/mcpvet/internal/testfixture"
)

// runReportCLI runs mcpvet with args through run, like every CLI test.
func runReportCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeTriageConfig writes a Claude Desktop config with one server per
// fixture binary, in the given order, and returns its path.
func writeTriageConfig(t *testing.T, dir string, bins map[string]string, order ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i, name := range order {
		cmd, _ := json.Marshal(bins[name])
		b.WriteString("    \"" + name + "\": {\n      \"command\": " + string(cmd) + "\n    }")
		if i < len(order)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  }\n}\n")
	path := filepath.Join(dir, "claude_desktop_config.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type triageJSON struct {
	ScanID int64  `json:"scanId"`
	Source string `json:"source"`
	Status string `json:"status"`
	Counts struct {
		Keep, Fix, Drop, Ungraded, Pending int
	} `json:"counts"`
	Servers []struct {
		Name     string   `json:"name"`
		Status   string   `json:"status"`
		Decision string   `json:"decision"`
		Rule     string   `json:"rule"`
		Score    *float64 `json:"score"`
		Reasons  []string `json:"reasons"`
		NextStep string   `json:"nextStep"`
		Line     int      `json:"line"`
	} `json:"servers"`
}

func decodeTriage(t *testing.T, s string) triageJSON {
	t.Helper()
	var tj triageJSON
	if err := json.Unmarshal([]byte(s), &tj); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, s)
	}
	return tj
}

// TestTriageEndToEnd triages a Claude Desktop config of three real fixture
// servers: one exemplary, one that crashes at startup and one that needs a
// credential.
func TestTriageEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("launches fixture servers")
	}
	bins := testfixture.Build(t, "wellbehaved", "crash", "needsenv")
	dir := t.TempDir()
	config := writeTriageConfig(t, dir, bins, "wellbehaved", "crash", "needsenv")
	db := filepath.Join(dir, "triage.db")

	type verdict struct{ Status, Decision, Rule string }
	want := map[string]verdict{
		// The exemplary server completes the handshake and answers every
		// injected failure actionably; under the default policy only an
		// error or warn finding or a score below 70 could make it fix.
		"wellbehaved": {"ok", "keep", "keep_otherwise"},
		"crash":       {"exited_early", "drop", "no_handshake"},
		// A missing credential is the user's to supply (issue 28):
		// needs_setup, never drop.
		"needsenv": {"missing_credentials", "needs_setup", "setup_required"},
	}
	verdicts := func(tj triageJSON) map[string]verdict {
		got := map[string]verdict{}
		for _, s := range tj.Servers {
			got[s.Name] = verdict{s.Status, s.Decision, s.Rule}
		}
		return got
	}

	t.Run("sandbox none, json, fail on drop", func(t *testing.T) {
		code, stdout, stderr := runReportCLI("triage", config, "--sandbox", "none", "--db", db, "--format", "json", "--fail-on", "drop")
		if code != exitFindings {
			t.Errorf("exit %d, want %d (drops with --fail-on drop); stderr:\n%s", code, exitFindings, stderr)
		}
		tj := decodeTriage(t, stdout)
		if diff := cmp.Diff(want, verdicts(tj)); diff != "" {
			t.Errorf("verdicts (-want +got):\n%s\nreport:\n%s", diff, stdout)
		}
		if tj.Source != "config:"+config || tj.Status != "done" || tj.Counts.Drop != 1 || tj.Counts.Keep != 1 {
			t.Errorf("header: %+v", tj)
		}
		// Config order, with each entry's line.
		var names []string
		var lines []int
		for _, s := range tj.Servers {
			names = append(names, s.Name)
			lines = append(lines, s.Line)
		}
		if diff := cmp.Diff([]string{"wellbehaved", "crash", "needsenv"}, names); diff != "" {
			t.Errorf("order (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int{3, 6, 9}, lines); diff != "" {
			t.Errorf("lines (-want +got):\n%s", diff)
		}
		for _, s := range tj.Servers {
			if s.Decision == "drop" && (s.NextStep == "" || len(s.Reasons) == 0) {
				t.Errorf("%s: drop without reasons or next step: %+v", s.Name, s)
			}
		}
		if !strings.Contains(stderr, "1 of 3 servers at or below --fail-on drop: crash (drop)") {
			t.Errorf("stderr does not name the failing servers:\n%s", stderr)
		}
		for _, s := range tj.Servers {
			if s.Name == "needsenv" && !strings.Contains(strings.Join(s.Reasons, "\n"), "FIXTURE_API_KEY") {
				t.Errorf("needsenv reasons do not name the credential: %q", s.Reasons)
			}
		}
	})

	t.Run("the credential brings needsenv up; table; no fail-on", func(t *testing.T) {
		code, stdout, stderr := runReportCLI("triage", config, "--sandbox", "none", "--db", db, "-q",
			"--env", "FIXTURE_API_KEY=test-key", "--verbose")
		if code != exitOK {
			t.Fatalf("exit %d without --fail-on; stderr:\n%s", code, stderr)
		}
		if stderr != "" {
			t.Errorf("-q run wrote to stderr:\n%s", stderr)
		}
		lines := strings.Split(stdout, "\n")
		row := func(name string) string {
			for _, l := range lines {
				if strings.HasPrefix(l, name+" ") {
					return l
				}
			}
			t.Errorf("no row for %s:\n%s", name, stdout)
			return ""
		}
		if f := strings.Fields(row("needsenv")); len(f) < 2 || f[1] == "drop" {
			t.Errorf("needsenv row with the key: %q", row("needsenv"))
		}
		if f := strings.Fields(row("crash")); len(f) < 2 || f[1] != "drop" {
			t.Errorf("crash row: %q", row("crash"))
		}
		if !strings.HasPrefix(lines[2], "SERVER") || !strings.Contains(stdout, "3 servers:") {
			t.Errorf("table:\n%s", stdout)
		}
	})

	t.Run("diff of the two triages", func(t *testing.T) {
		code, stdout, stderr := runReportCLI("diff", "--db", db, "1", "2", "--format", "json")
		if code != exitOK {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr)
		}
		var d struct {
			Changed []struct {
				Name    string `json:"name"`
				Changes []struct {
					Kind string `json:"kind"`
					Old  string `json:"old"`
					New  string `json:"new"`
				} `json:"changes"`
			} `json:"changed"`
			Compared int `json:"compared"`
		}
		if err := json.Unmarshal([]byte(stdout), &d); err != nil {
			t.Fatalf("diff is not JSON: %v\n%s", err, stdout)
		}
		kinds := map[string][]string{}
		for _, s := range d.Changed {
			for _, c := range s.Changes {
				kinds[s.Name] = append(kinds[s.Name], c.Kind+":"+c.Old+"->"+c.New)
			}
		}
		got := kinds["needsenv"]
		if d.Compared != 3 || len(got) < 2 || !strings.HasPrefix(got[0], "revived:missing_credentials") ||
			!strings.HasPrefix(got[1], "verdict:needs_setup") {
			t.Errorf("needsenv changes %q, compared %d; diff:\n%s", got, d.Compared, stdout)
		}
		if len(kinds["crash"]) != 0 {
			t.Errorf("crash changed: %q", kinds["crash"])
		}
	})

	t.Run("sarif to a file, fail on fix", func(t *testing.T) {
		out := filepath.Join(dir, "triage.sarif")
		code, stdout, stderr := runReportCLI("triage", config, "--sandbox", "none", "--db", db, "-q",
			"--format", "sarif", "-o", out, "--fail-on", "fix", "--sarif-root", dir)
		if code != exitFindings || stdout != "" {
			t.Errorf("exit %d, stdout %q; stderr:\n%s", code, stdout, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var log sariftest.Log
		if err := json.Unmarshal(data, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
			t.Fatalf("SARIF: %v\n%s", err, data)
		}
		rules := map[string]bool{}
		for _, r := range log.Runs[0].Tool.Driver.Rules {
			rules[r.ID] = true
		}
		sawCrash := false
		for _, r := range log.Runs[0].Results {
			if !rules[r.RuleID] {
				t.Errorf("ruleId %q has no rule", r.RuleID)
			}
			loc := r.Locations[0].PhysicalLocation
			// Relative to --sarif-root, never a path of this machine.
			if loc.ArtifactLocation.URI != "claude_desktop_config.json" {
				t.Errorf("artifact %q", loc.ArtifactLocation.URI)
			}
			if r.Properties["server"] == "crash" {
				sawCrash = true
				if loc.Region.StartLine != 6 {
					t.Errorf("crash result at line %d, want 6", loc.Region.StartLine)
				}
			}
		}
		if !sawCrash {
			t.Errorf("no SARIF result for the crashing server:\n%s", data)
		}
	})

	t.Run("junit", func(t *testing.T) {
		code, stdout, stderr := runReportCLI("triage", config, "--sandbox", "none", "--db", db, "-q", "--format", "junit")
		if code != exitOK {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr)
		}
		var doc struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Type string `xml:"type,attr"`
					} `xml:"failure"`
					Skipped *struct{} `xml:"skipped"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("JUnit: %v\n%s", err, stdout)
		}
		got := map[string]string{}
		for _, c := range doc.Suites[0].Cases {
			got[c.Name] = "pass"
			if c.Failure != nil {
				got[c.Name] = c.Failure.Type
			}
			if c.Skipped != nil {
				got[c.Name] = "skipped"
			}
		}
		if diff := cmp.Diff(map[string]string{"wellbehaved": "pass", "crash": "drop", "needsenv": "skipped"}, got); diff != "" {
			t.Errorf("test cases (-want +got):\n%s", diff)
		}
	})

	t.Run("sandbox auto", func(t *testing.T) {
		code, stdout, stderr := runReportCLI("triage", config, "--sandbox", "auto", "--db", db, "-q", "--format", "json", "--fail-on", "drop")
		if code == exitFailed {
			testenv.Need(t, "the auto sandbox is not available here: "+strings.TrimSpace(stderr))
		}
		if code != exitFindings {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFindings, stderr)
		}
		if diff := cmp.Diff(want, verdicts(decodeTriage(t, stdout))); diff != "" {
			t.Errorf("verdicts under auto (-want +got):\n%s", diff)
		}
	})
}

// TestTriageInterrupted: when the command's deadline ends the scan, the
// report still shows what finished, marks the rest pending, and the exit
// code is 4 (partial results).
func TestTriageInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("launches fixture servers")
	}
	bins := testfixture.Build(t, "crash", "hang")
	dir := t.TempDir()
	config := writeTriageConfig(t, dir, bins, "crash", "hang")
	code, stdout, stderr := runReportCLI("triage", config, "--sandbox", "none", "--db", filepath.Join(dir, "t.db"), "-q",
		"--concurrency", "1", "--handshake-timeout", "1m", "--timeout", "2s", "--format", "json", "--fail-on", "drop")
	if code != exitPartial {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitPartial, stderr)
	}
	tj := decodeTriage(t, stdout)
	if tj.Status != "interrupted" || tj.Counts.Drop != 1 || tj.Counts.Pending != 1 || len(tj.Servers) != 2 ||
		tj.Servers[0].Decision != "drop" || tj.Servers[1].Name != "hang" || tj.Servers[1].Decision != "" {
		t.Errorf("report after the interrupt:\n%s", stdout)
	}
	if !strings.Contains(stderr, "run triage again") {
		t.Errorf("stderr does not say how to finish: %q", stderr)
	}
}

// TestTriageUsage: bad input is exit 2 with one line naming what to do,
// and nothing is launched or stored.
func TestTriageUsage(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"mcpServers": {"a": {"command": "/nonexistent/a"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db := filepath.Join(dir, "never.db")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		// Without a config, triage looks for the clients' configs; this
		// HOME has none.
		{"no config", []string{"triage"}, "no MCP client config found on this machine"},
		{"two configs", []string{"triage", good, good}, "(got 2)"},
		{"bad format", []string{"triage", good, "--format", "html"}, `--format: unknown triage format "html": use one of table, json, junit, sarif`},
		{"bad fail-on", []string{"triage", good, "--fail-on", "keep"}, `--fail-on "keep": not a verdict threshold; use drop`},
		{"bad sandbox", []string{"triage", good, "--sandbox", "docker"}, `--sandbox "docker"`},
		{"missing config", []string{"triage", filepath.Join(dir, "nope.json")}, "no such file or directory"},
		{"directory", []string{"triage", dir}, "is a directory"},
		{"not JSON", []string{"triage", write("bad.json", "{oops")}, "bad.json: config"},
		{"not a client config", []string{"triage", write("other.json", `{"name": "x"}`)}, `no "mcpServers"`},
		{"no servers", []string{"triage", write("empty.json", `{"mcpServers": {}}`)}, "lists no servers"},
		{"bad policy", []string{"triage", good, "--policy", write("p.json", `{"minScore": 140}`)}, "out of range"},
		{"unknown flag", []string{"triage", good, "--frobnicate"}, "unknown flag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--db", db)
			if tc.name == "no config" || tc.name == "two configs" {
				args = tc.args
			}
			if tc.name == "no config" {
				t.Setenv("HOME", t.TempDir())
				t.Setenv("XDG_CONFIG_HOME", "")
				t.Setenv("CODEX_HOME", "")
			}
			code, stdout, stderr := runReportCLI(args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, exitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line containing %q", stderr, tc.want)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("a usage error created the database")
			}
		})
	}
}
