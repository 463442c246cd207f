package source

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscover lays out home folders as each client writes them on each
// OS, with HOME, XDG_CONFIG_HOME, APPDATA and CODEX_HOME set, and checks
// what discovery finds.
func TestDiscover(t *testing.T) {
	config := []byte(`{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}`)
	tests := []struct {
		name  string
		goos  string
		xdg   bool // set XDG_CONFIG_HOME to HOME/xdg
		files []string
		want  []FoundConfig // Path relative to HOME (or the project)
	}{
		{name: "linux", goos: "linux",
			files: []string{".config/Claude/claude_desktop_config.json", ".claude.json", ".config/Code/User/mcp.json", ".config/Code/User/settings.json",
				".cursor/mcp.json", ".codeium/windsurf/mcp_config.json", ".gemini/settings.json", ".codex/config.toml", ".config/zed/settings.json"},
			want: []FoundConfig{
				{Client: ClientClaudeDesktop, Scope: "user", Path: ".config/Claude/claude_desktop_config.json"},
				{Client: ClientClaudeCode, Scope: "user", Path: ".claude.json"},
				{Client: ClientVSCode, Scope: "user", Path: ".config/Code/User/mcp.json"},
				{Client: ClientVSCode, Scope: "user", Path: ".config/Code/User/settings.json"},
				{Client: ClientCursor, Scope: "user", Path: ".cursor/mcp.json"},
				{Client: ClientWindsurf, Scope: "user", Path: ".codeium/windsurf/mcp_config.json"},
				{Client: ClientGemini, Scope: "user", Path: ".gemini/settings.json"},
				{Client: ClientCodex, Scope: "user", Path: ".codex/config.toml"},
				{Client: ClientZed, Scope: "user", Path: ".config/zed/settings.json"},
			}},
		{name: "linux with XDG_CONFIG_HOME", goos: "linux", xdg: true,
			files: []string{".config/Claude/claude_desktop_config.json", "xdg/Claude/claude_desktop_config.json", "xdg/Code - Insiders/User/mcp.json", "xdg/zed/settings.json"},
			want: []FoundConfig{
				{Client: ClientClaudeDesktop, Scope: "user", Path: "xdg/Claude/claude_desktop_config.json"},
				{Client: ClientVSCode, Scope: "user", Path: "xdg/Code - Insiders/User/mcp.json"},
				{Client: ClientZed, Scope: "user", Path: "xdg/zed/settings.json"},
			}},
		{name: "macos", goos: "darwin",
			files: []string{"Library/Application Support/Claude/claude_desktop_config.json", "Library/Application Support/Code/User/mcp.json",
				".cursor/mcp.json", ".config/zed/settings.json", ".config/Claude/claude_desktop_config.json"},
			want: []FoundConfig{
				{Client: ClientClaudeDesktop, Scope: "user", Path: "Library/Application Support/Claude/claude_desktop_config.json"},
				{Client: ClientVSCode, Scope: "user", Path: "Library/Application Support/Code/User/mcp.json"},
				{Client: ClientCursor, Scope: "user", Path: ".cursor/mcp.json"},
				{Client: ClientZed, Scope: "user", Path: ".config/zed/settings.json"},
			}},
		{name: "windows", goos: "windows",
			files: []string{"AppData/Roaming/Claude/claude_desktop_config.json", "AppData/Roaming/Code/User/settings.json", "AppData/Roaming/Zed/settings.json",
				".codeium/windsurf/mcp_config.json", ".codex/config.toml"},
			want: []FoundConfig{
				{Client: ClientClaudeDesktop, Scope: "user", Path: "AppData/Roaming/Claude/claude_desktop_config.json"},
				{Client: ClientVSCode, Scope: "user", Path: "AppData/Roaming/Code/User/settings.json"},
				{Client: ClientWindsurf, Scope: "user", Path: ".codeium/windsurf/mcp_config.json"},
				{Client: ClientCodex, Scope: "user", Path: ".codex/config.toml"},
				{Client: ClientZed, Scope: "user", Path: "AppData/Roaming/Zed/settings.json"},
			}},
		{name: "nothing installed", goos: "linux", files: []string{".config/other/settings.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("APPDATA", "")
			t.Setenv("CODEX_HOME", "")
			if tc.xdg {
				t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
			}
			if tc.goos == "windows" {
				t.Setenv("APPDATA", filepath.Join(home, "AppData", "Roaming"))
			}
			for _, f := range tc.files {
				p := filepath.Join(home, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, config, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := Discover(HostDiscoverEnv(tc.goos, ""))
			for i := range got {
				got[i].Path, _ = filepath.Rel(home, got[i].Path)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Discover (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverProjectAndCodexHome(t *testing.T) {
	home, proj, codex := t.TempDir(), t.TempDir(), t.TempDir()
	for _, p := range []string{
		filepath.Join(proj, ".mcp.json"), filepath.Join(proj, ".vscode", "mcp.json"), filepath.Join(proj, ".cursor", "mcp.json"),
		filepath.Join(proj, ".gemini", "settings.json"), filepath.Join(proj, ".zed", "settings.json"), filepath.Join(codex, "config.toml"),
		filepath.Join(home, ".codex", "config.toml"),
	} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}"), 0o644)
	}
	got := Discover(DiscoverEnv{GOOS: "linux", Home: home, CodexHome: codex, Dir: proj})
	want := []FoundConfig{
		{Client: ClientCodex, Scope: "user", Path: filepath.Join(codex, "config.toml")},
		{Client: ClientClaudeCode, Scope: "project", Path: filepath.Join(proj, ".mcp.json"), WorkspaceFolder: proj},
		{Client: ClientVSCode, Scope: "project", Path: filepath.Join(proj, ".vscode", "mcp.json"), WorkspaceFolder: proj},
		{Client: ClientCursor, Scope: "project", Path: filepath.Join(proj, ".cursor", "mcp.json"), WorkspaceFolder: proj},
		{Client: ClientGemini, Scope: "project", Path: filepath.Join(proj, ".gemini", "settings.json"), WorkspaceFolder: proj},
		{Client: ClientZed, Scope: "project", Path: filepath.Join(proj, ".zed", "settings.json"), WorkspaceFolder: proj},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDiscoverEdges: %APPDATA% outside the home folder is where Windows
// clients write; without a home folder, project configs are still found.
// (The mutants discover.go:68 `appSupport == ""` -> `!=` and :121
// `scope == "user"` -> `!=` lived through the whole suite.)
func TestDiscoverEdges(t *testing.T) {
	home, appData, proj := t.TempDir(), t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(appData, "Claude", "claude_desktop_config.json"), filepath.Join(proj, ".mcp.json")} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}"), 0o644)
	}
	got := Discover(DiscoverEnv{GOOS: "windows", Home: home, AppData: appData})
	want := []FoundConfig{{Client: ClientClaudeDesktop, Scope: "user", Path: filepath.Join(appData, "Claude", "claude_desktop_config.json")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("windows, APPDATA outside home (-want +got):\n%s", diff)
	}
	got = Discover(DiscoverEnv{GOOS: "linux", Dir: proj})
	want = []FoundConfig{{Client: ClientClaudeCode, Scope: "project", Path: filepath.Join(proj, ".mcp.json"), WorkspaceFolder: proj}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("no home, a project (-want +got):\n%s", diff)
	}
}

// TestSourceEdges: an excerpt of exactly its limit is not marked as cut;
// a broken value after a snapshot's array is named as value 2. (Issue
// 26: the mutants entry.go:267 `len(b) > n` -> `>=` and snapshot.go:54
// `value++` -> `--` lived through the whole suite.)
func TestSourceEdges(t *testing.T) {
	if got := excerpt([]byte("abcd"), 4); got != "abcd" {
		t.Errorf("excerpt of exactly 4 bytes = %q, want abcd", got)
	}
	_, err := ReadSnapshot(strings.NewReader("[]\n{\"name\": 1,"))
	if err == nil || !strings.Contains(err.Error(), "value 2") {
		t.Errorf("ReadSnapshot: %v, want an error naming value 2", err)
	}
}

// TestKeyLineEdges: a key at the very start of the document is found,
// and a quoted name that ends the document is no key (and no crash).
// (Issue 26: the mutants configset.go:238 `i < 0` -> `<=` and :243
// `len(rest) > 0` -> `>= 0` lived through the whole suite.)
func TestKeyLineEdges(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		want int
	}{
		{`"mem": {"command": "npx"}`, 1},
		{"{\n\"a\": [\"mem\"", 0},
		{"{\n\"a\": \"mem\",\n\"mem\": {}}", 3},
	} {
		if got := KeyLine([]byte(tt.doc), "mem"); got != tt.want {
			t.Errorf("KeyLine(%q) = %d, want %d", tt.doc, got, tt.want)
		}
	}
}

// TestStripJSONCAtTheEnd: comments and commas that end the text are
// handled without reading past it. (Issue 26: the mutants jsonc.go:21,
// :26, :32, :47, :50, whose bounds read one byte past the end, lived
// through the whole suite.)
func TestStripJSONCAtTheEnd(t *testing.T) {
	for in, want := range map[string]string{
		"{}/":         "{}/",
		"{} // c":     "{}     ",
		"{} /* c *":   "{}       ",
		"{} /* c */":  "{}        ",
		"[1,":         "[1,",
		"[1,  ":       "[1,  ",
		"[1, /*x*/ ]": "[1        ]",
	} {
		if got := string(stripJSONC([]byte(in))); got != want {
			t.Errorf("stripJSONC(%q) = %q, want %q", in, got, want)
		}
	}
}
