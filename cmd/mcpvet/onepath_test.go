package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/results"
)

// clientHome writes, in a fresh HOME, the configs of five clients in the
// forms their documentation shows, naming two servers: a local fixture
// command and one loopback URL (in Claude Code twice, per project, with
// different working directories that cannot matter to a URL), plus Zed's
// extension form, which names no command. It returns the config paths by
// client.
func clientHome(t *testing.T, home, bin, url string) map[string]string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	p1, p2 := filepath.Join(home, "src", "a"), filepath.Join(home, "src", "b")
	for _, d := range []string{p1, p2} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]string{
		"Claude Code": writeFile(t, filepath.Join(home, ".claude.json"), `{
  "numStartups": 3,
  "mcpServers": {"good": {"type": "stdio", "command": `+q(bin)+`, "args": [], "env": {}}},
  "projects": {
    `+q(p1)+`: {"allowedTools": [], "mcpServers": {"remote": {"type": "http", "url": `+q(url)+`}}},
    `+q(p2)+`: {"allowedTools": [], "mcpServers": {"remote": {"type": "http", "url": `+q(url)+`}}}
  }
}`),
		"Windsurf": writeFile(t, filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"),
			`{"mcpServers": {"remote": {"serverUrl": `+q(url)+`}, "good": {"command": `+q(bin)+`}}}`),
		"Gemini CLI": writeFile(t, filepath.Join(home, ".gemini", "settings.json"),
			`{"theme": "Default", "mcpServers": {"web": {"httpUrl": `+q(url)+`}}}`),
		"Codex CLI": writeFile(t, filepath.Join(home, ".codex", "config.toml"),
			"model = \"gpt-5-codex\"\n\n[mcp_servers.remote]\nurl = "+q(url)+"\n"),
		// mcp-server-github's Zed extension README: settings, no command.
		"Zed": writeFile(t, filepath.Join(home, ".config", "zed", "settings.json"), `// Zed settings
{
  "context_servers": {
    "mcp-server-github": {"settings": {"github_personal_access_token": "ghp_example"}},
    "good": {"source": "custom", "command": `+q(bin)+`, "args": []}
  }
}`),
	}
}

// TestTriageSameServerOnce: entries that reach the same server are one
// server, whatever they are called and whichever client names them: the
// loopback URL named by four clients (twice by Claude Code's projects,
// whose working directories differ) is probed once, the local command
// named by three once; Zed's extension entry is skipped with a note and
// Zed's other entry is still read; and --baseline matches the servers of
// a scan of another config naming the same command under another name.
func TestTriageSameServerOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("launches fixture servers")
	}
	bins := testfixture.Build(t, "wellbehaved")
	url := testfixture.StartHTTP(t)
	home := fakeHome(t)
	t.Chdir(t.TempDir())
	configs := clientHome(t, home, bins["wellbehaved"], url)

	// The baseline: a scan of a config elsewhere, the command called "wb".
	base := filepath.Join(t.TempDir(), "base.db")
	other := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), `{"mcpServers": {"wb": {"command": `+jsonString(bins["wellbehaved"])+`}, "web": {"url": `+jsonString(url)+`}}}`)
	if code, _, stderr := runCLI("scan", "--config", other, "--db", base, "--sandbox", "none", "--no-inject", "-q"); code != exitOK {
		t.Fatalf("baseline scan: exit %d: %s", code, stderr)
	}

	db := filepath.Join(t.TempDir(), "m.db")
	code, stdout, stderr := runCLI("triage", "--db", db, "--format", "json", "--sandbox", "none", "--no-inject", "--baseline", base)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, `skipping "mcp-server-github": a Zed extension server`) {
		t.Errorf("stderr lacks the note on the Zed extension entry:\n%s", stderr)
	}
	var tr results.Triage
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range tr.Servers {
		got[s.Client+" "+s.Project+"#"+s.Name] = string(s.Status) + " " + s.Definitions
	}
	p1, p2 := filepath.Join(home, "src", "a"), filepath.Join(home, "src", "b")
	want := map[string]string{
		"Claude Code #good": "ok unchanged", "Claude Code " + p1 + "#remote": "ok unchanged", "Claude Code " + p2 + "#remote": "ok unchanged",
		"Windsurf #remote": "ok unchanged", "Windsurf #good": "ok unchanged", "Gemini CLI #web": "ok unchanged",
		"Codex CLI #remote": "ok unchanged", "Zed #good": "ok unchanged",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if len(tr.Skipped) != 1 || tr.Skipped[0].Name != "mcp-server-github" || tr.Skipped[0].Client != "Zed" {
		t.Errorf("skipped = %+v, want the Zed extension entry", tr.Skipped)
	}
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
		t.Errorf("%d runs stored for %d entries, want 2 (one URL, one command)", runs, len(tr.Servers))
	}
	_ = configs
}

// TestConfigOnePath runs one config through `scan --config`, `triage` and
// `probe --config --server` and gets the same status for every server: a
// pinned real npm server behind `npx -y` (translated into a package
// mcpvet installs), a node project's script named relative to its Claude
// Code project, and a node script outside any project that requires its
// sibling (its own folder is exposed). Before the one path, `scan
// --config` neither translated launchers nor ran entries as their client
// does, and `probe` could not take a config entry.
func TestConfigOnePath(t *testing.T) {
	if testing.Short() {
		t.Skip("installs an npm package and probes real servers")
	}
	if _, err := os.Stat("/usr/bin/npm"); err != nil {
		t.Skip("npm is not installed")
	}
	cache, err := filepath.Abs(filepath.Join("..", "..", ".cache", "mcpvet"))
	if err != nil {
		t.Fatal(err)
	}
	l := testfixture.LocalServers(t)
	// A script with no project marker: index.js and lib.js only.
	tools := filepath.Join(l.Root, "tools", "srv")
	for _, f := range []string{"index.js", "lib.js"} {
		data, err := os.ReadFile(filepath.Join(l.NodeDir, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(tools, f), string(data))
	}
	os.Chmod(filepath.Dir(tools), 0o755)
	q := jsonString
	cfg := writeFile(t, filepath.Join(t.TempDir(), ".claude.json"), `{
  "mcpServers": {
    "memory": {"type": "stdio", "command": "npx", "args": ["-y", `+q(memorySpec)+`], "env": {}},
    "tools": {"type": "stdio", "command": "node", "args": [`+q(filepath.Join(tools, "index.js"))+`], "env": {}}
  },
  "projects": {
    `+q(l.NodeDir)+`: {"mcpServers": {"notes": {"type": "stdio", "command": "node", "args": ["index.js"], "env": {}}}}
  }
}`)
	common := []string{"--cache-dir", cache, "--no-inject", "-q"}
	want := map[string]string{"memory": "ok", "tools": "ok", "notes": "ok"}

	statuses := func(db string) map[string]string {
		st, err := results.Open(t.Context(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		sc, err := st.LatestScan(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for rec, err := range st.Runs(t.Context(), sc.ID) {
			if err != nil {
				t.Fatal(err)
			}
			out[rec.Result.Target.Name] = string(rec.Result.Liveness.Status)
			if rec.Result.Liveness.Status != "ok" {
				t.Logf("%s: %s: %s", rec.Result.Target.Name, rec.Result.Liveness.Status, rec.Result.Liveness.Evidence)
			}
		}
		return out
	}
	t.Run("triage", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "t.db")
		if code, _, stderr := runCLI(append([]string{"triage", cfg, "--db", db, "--format", "json"}, common...)...); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if diff := cmp.Diff(want, statuses(db)); diff != "" {
			t.Errorf("triage statuses (-want +got):\n%s", diff)
		}
	})
	t.Run("scan", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "s.db")
		if code, _, stderr := runCLI(append([]string{"scan", "--config", cfg, "--db", db}, common...)...); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if diff := cmp.Diff(want, statuses(db)); diff != "" {
			t.Errorf("scan --config statuses (-want +got):\n%s", diff)
		}
	})
	t.Run("probe", func(t *testing.T) {
		got := map[string]string{}
		for name := range want {
			db := filepath.Join(t.TempDir(), "p.db")
			code, _, stderr := runCLI(append([]string{"probe", "--config", cfg, "--server", name, "--db", db}, common...)...)
			if code != exitOK && code != exitFindings {
				t.Fatalf("probe %s: exit %d: %s", name, code, stderr)
			}
			for k, v := range statuses(db) {
				got[k] = v
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("probe --config statuses (-want +got):\n%s", diff)
		}
	})
}
