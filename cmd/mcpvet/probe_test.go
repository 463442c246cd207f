package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testfixture"
)

func TestProbeCommand(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved", "needsenv")
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")

	t.Run("json result is stored and printed", func(t *testing.T) {
		code, stdout, stderr := runCLI("probe", "--json", "--sandbox", "none", "--db", db, "--", bins["wellbehaved"])
		if code != 0 {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		var res struct {
			Target   map[string]any `json:"target"`
			Liveness struct {
				Status     string            `json:"status"`
				ServerInfo map[string]string `json:"serverInfo"`
			} `json:"liveness"`
			Tools    []map[string]any `json:"tools"`
			Findings []any            `json:"findings"`
			Calls    []map[string]any `json:"calls"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
		}
		if res.Liveness.Status != "ok" || res.Liveness.ServerInfo["name"] != "wellbehaved" || len(res.Tools) != 4 || len(res.Calls) == 0 {
			t.Errorf("result = %+v", res)
		}
		if _, err := os.Stat(db); err != nil {
			t.Errorf("database not written: %v", err)
		}
	})
	t.Run("limits are applied and recorded", func(t *testing.T) {
		code, stdout, stderr := runCLI("probe", "--json", "--no-inject", "--sandbox", "none", "--db", db,
			"--memory", "512", "--max-processes", "64", "--cpu-time", "30s", "--server-timeout", "45s", "--", bins["wellbehaved"])
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var res struct {
			Target struct {
				Isolation struct {
					Backend     string   `json:"backend"`
					Mechanisms  []string `json:"mechanisms"`
					MemoryBytes int64    `json:"memoryBytes"`
					Processes   int      `json:"processes"`
					CPUTimeMs   int64    `json:"cpuTimeMs"`
					WallMs      int64    `json:"wallMs"`
				} `json:"isolation"`
			} `json:"target"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		iso := res.Target.Isolation
		if iso.Backend != "none" || iso.MemoryBytes != 512<<20 || iso.Processes != 64 || iso.CPUTimeMs != 30000 || iso.WallMs != 45000 || len(iso.Mechanisms) == 0 {
			t.Errorf("isolation = %+v", iso)
		}
	})
	t.Run("env is passed to the server", func(t *testing.T) {
		code, stdout, _ := runCLI("probe", "--sandbox", "none", "--no-inject", "--db", db, "--env", "FIXTURE_API_KEY=k", "--", bins["needsenv"])
		if code != 0 || !strings.Contains(stdout, "liveness   ok") {
			t.Errorf("exit %d, stdout:\n%s", code, stdout)
		}
	})
	t.Run("summary names the credential", func(t *testing.T) {
		code, stdout, _ := runCLI("probe", "--sandbox", "none", "--db", db, "--", bins["needsenv"])
		if code != 0 || !strings.Contains(stdout, "missing_credentials") || !strings.Contains(stdout, "FIXTURE_API_KEY") {
			t.Errorf("exit %d, stdout:\n%s", code, stdout)
		}
	})
}

func TestProbeFailOnAndServerJSON(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved", "crash")
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	code, stdout, _ := runCLI("probe", "--sandbox", "none", "--db", db, "--fail-on", "drop", "--", bins["crash"])
	if code != exitFindings || !strings.Contains(stdout, "verdict    DROP") {
		t.Errorf("crash with --fail-on drop: exit %d, stdout:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI("probe", "--sandbox", "none", "--db", db, "--fail-on", "drop", "--", bins["wellbehaved"])
	if code != 0 || !strings.Contains(stdout, "verdict    KEEP") {
		t.Errorf("wellbehaved with --fail-on drop: exit %d, stdout:\n%s", code, stdout)
	}
	serverJSON := filepath.Join(dir, "server.json")
	if err := os.WriteFile(serverJSON, []byte(`{"name":"io.example/wellbehaved","version":"9.9.9","packages":[{"registryType":"npm","identifier":"wellbehaved","version":"9.9.9","transport":{"type":"stdio"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runCLI("probe", "--json", "--no-inject", "--sandbox", "none", "--db", db, "--server-json", serverJSON, "--", bins["wellbehaved"])
	if code != 0 || !strings.Contains(stdout, `"code": "declared/version_mismatch"`) {
		t.Errorf("--server-json with another version: exit %d, no declared/version_mismatch in\n%s", code, stdout)
	}
}

// TestUsageErrors: bad input gets exit 2 and one line naming the field, the
// value and what would work; infrastructure failures get exit 3.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.db")
	junk := []byte("this is not a database, it is a text file\n")
	if err := os.WriteFile(corrupt, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"unknown flag", []string{"probe", "--bogus", "--", "x"}, 2, "unknown flag: --bogus"},
		{"missing target", []string{"probe", "--db", filepath.Join(dir, "a.db")}, 2, "target: missing"},
		{"bad sandbox", []string{"probe", "--sandbox", "docker", "--", "x"}, 2, `--sandbox "docker": not a sandbox backend; use auto, builtin, bwrap or none`},
		{"bad env", []string{"probe", "--env", "NOEQUALS", "--", "x"}, 2, `--env "NOEQUALS": not KEY=VALUE`},
		{"bad protocol version", []string{"probe", "--protocol-version", "2020-01-01", "--", "x"}, 2, `--protocol-version "2020-01-01": not a published MCP revision`},
		{"bad timeout", []string{"probe", "--timeout", "soon", "--", "x"}, 2, `invalid argument "soon" for "--timeout"`},
		{"missing server json", []string{"probe", "--server-json", filepath.Join(dir, "nope.json"), "--", "x"}, 2, "--server-json"},
		{"corrupt database", []string{"probe", "--db", corrupt, "--sandbox", "none", "--", "/bin/true"}, 3, "corrupt.db"},
		{"database in missing folder", []string{"probe", "--db", filepath.Join(dir, "no", "such", "dir.db"), "--sandbox", "none", "--", "/bin/true"}, 3, "dir.db"},
		{"bad shard", []string{"scan", "--from", "x.json", "--shard", "4/4"}, 2, `--shard "4/4": not i/n with 0 <= i < n`},
		{"two sources", []string{"scan", "--from", "x.json", "--config", "c.json"}, 2, "give exactly one of"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(tt.args...)
			if code != tt.code {
				t.Errorf("exit = %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			if !strings.Contains(stderr, tt.contains) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.contains)
			}
		})
	}
	after, err := os.ReadFile(corrupt)
	if err != nil || string(after) != string(junk) {
		t.Errorf("corrupt database was modified: %q, %v", after, err)
	}
}

// TestProbeTimeoutIsPartial: a probe cut short by --timeout stores and
// prints what it saw and exits 4.
func TestProbeTimeoutIsPartial(t *testing.T) {
	bin := testfixture.Path(t, "hang")
	code, stdout, stderr := runCLI("probe", "--sandbox", "none", "--db", filepath.Join(t.TempDir(), "r.db"), "--timeout", "1s", "--", bin)
	if code != exitPartial {
		t.Errorf("exit %d, want %d (stderr %q)", code, exitPartial, stderr)
	}
	if !strings.Contains(stdout, "liveness") || !strings.Contains(stderr, "the probe was interrupted") {
		t.Errorf("stdout:\n%s\nstderr: %q", stdout, stderr)
	}
}
