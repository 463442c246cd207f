package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/results"
)

// fakeHome makes an empty HOME for discovery and returns it.
func fakeHome(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("APPDATA", "")
	t.Setenv("CODEX_HOME", "")
	return home
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTriageDiscovers triages with no config: the configs of a fixture
// home are found, a server named in two of them is probed once and
// reported under each, and --list-configs prints what was found.
func TestTriageDiscovers(t *testing.T) {
	if testing.Short() {
		t.Skip("launches fixture servers")
	}
	bins := testfixture.Build(t, "wellbehaved", "crash")
	home := fakeHome(t)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	desktop := writeFile(t, filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"),
		`{"mcpServers": {"good": {"command": `+q(bins["wellbehaved"])+`}, "broken": {"command": `+q(bins["crash"])+`}}}`)
	codex := writeFile(t, filepath.Join(home, ".codex", "config.toml"),
		"[mcp_servers.same-as-good]\ncommand = "+q(bins["wellbehaved"])+"\n")
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"theme": "Default"}`) // no servers: listed, not probed

	code, stdout, stderr := runReportCLI("triage", "--list-configs")
	if code != exitOK {
		t.Fatalf("--list-configs: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Claude Desktop (user): " + desktop, "Codex CLI (user): " + codex, "  good ", "  same-as-good ", "Gemini CLI (user)", "no servers read"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--list-configs lacks %q:\n%s", want, stdout)
		}
	}

	db := filepath.Join(t.TempDir(), "m.db")
	code, stdout, stderr = runReportCLI("triage", "--db", db, "--format", "json", "--sandbox", "none", "--no-inject")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var tr results.Triage
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range tr.Servers {
		got[s.Config+"#"+s.Name] = s.Decision
	}
	want := map[string]string{desktop + "#good": "keep", desktop + "#broken": "drop", codex + "#same-as-good": "keep"}
	if len(got) != len(want) {
		t.Errorf("servers = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if tr.Counts.Keep != 2 || tr.Counts.Drop != 1 {
		t.Errorf("counts = %+v", tr.Counts)
	}
	// Probed once: the scan stored two runs for three entries.
	st, err := results.Open(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs := 0
	for _, err := range st.Runs(t.Context(), tr.ScanID) {
		if err != nil {
			t.Fatal(err)
		}
		runs++
	}
	if runs != 2 {
		t.Errorf("%d runs stored, want 2 (the shared server probed once)", runs)
	}
}

// TestRunFlagErrors checks the one-line usage errors of the new flags: a
// credential store or $HOME named with --expose is refused, not exposed.
func TestRunFlagErrors(t *testing.T) {
	home := fakeHome(t)
	ssh := filepath.Join(home, ".ssh")
	os.MkdirAll(ssh, 0o700)
	cfg := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), `{"mcpServers": {"x": {"command": "true"}}}`)
	file := writeFile(t, filepath.Join(t.TempDir(), "f.txt"), "x")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"triage", cfg, "--expose", ssh}, "~/.ssh is a credential store"},
		{[]string{"triage", cfg, "--expose", home}, "$HOME holds your credentials"},
		{[]string{"triage", cfg, "--expose", "/"}, "whole file system"},
		{[]string{"triage", cfg, "--expose", "/nonexistent/dir"}, "no such file or folder"},
		{[]string{"triage", cfg, "--expose-rw", file}, "not a folder"},
		{[]string{"triage", cfg, "--input", "novalue"}, `--input "novalue": not KEY=VALUE`},
		{[]string{"triage", cfg, "--pass-env", "A=B"}, "give the name of one environment variable"},
		{[]string{"probe", "--expose", ssh, "--", "true"}, "~/.ssh is a credential store"},
	} {
		db := filepath.Join(t.TempDir(), "m.db")
		code, stdout, stderr := runReportCLI(append(tc.args, "--db", db)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d stdout %q stderr %q, want one line with %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// runRoot runs the real root command.
func runRoot(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestVersionCommand(t *testing.T) {
	code, stdout, _ := runRoot("version")
	code2, stdout2, _ := runRoot("--version")
	if code != exitOK || code2 != exitOK || !strings.HasPrefix(stdout, "mcpvet version ") || stdout != stdout2 {
		t.Errorf("version: %d %q; --version: %d %q", code, stdout, code2, stdout2)
	}
}

// TestCompletionValues asks cobra's completion machinery for the values
// of the enum flags.
func TestCompletionValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "triage", "--format", ""}, []string{"table", "json", "junit", "sarif"}},
		{[]string{"__complete", "triage", "--fail-on", ""}, []string{"drop", "fix"}},
		{[]string{"__complete", "probe", "--sandbox", ""}, []string{"auto", "builtin", "bwrap", "none"}},
		{[]string{"__complete", "diff", "--format", ""}, nil},
	} {
		code, stdout, stderr := runRoot(tc.args...)
		if code != exitOK {
			t.Errorf("%v: exit %d %s", tc.args, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout, w+"\n") {
				t.Errorf("%v: completion lacks %q:\n%s", tc.args, w, stdout)
			}
		}
		if strings.Contains(stdout, ":0\n") && tc.want != nil {
			t.Errorf("%v: completion falls back to files:\n%s", tc.args, stdout)
		}
	}
}

// TestDeadlineNamed runs `probe --timeout 2s` against a server that never
// answers: the detail names the deadline that fired (before: "no answer
// to the handshake within 20s", the handshake deadline that did not).
func TestDeadlineNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("launches a fixture server")
	}
	bins := testfixture.Build(t, "hang")
	db := filepath.Join(t.TempDir(), "m.db")
	code, stdout, stderr := runReportCLI("probe", "--timeout", "2s", "--sandbox", "none", "--db", db, "--json", "--", bins["hang"])
	if code != exitPartial {
		t.Errorf("exit %d, want %d; stderr %s", code, exitPartial, stderr)
	}
	var res struct {
		Liveness struct {
			Status, Detail string
		} `json:"liveness"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if res.Liveness.Status != "handshake_timeout" || !strings.Contains(res.Liveness.Detail, "run's deadline (--timeout or --server-timeout)") ||
		strings.Contains(res.Liveness.Detail, "within 20s") {
		t.Errorf("liveness %+v", res.Liveness)
	}
}
