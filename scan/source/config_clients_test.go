package source

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// runs is what a plan runs, independent of how the config wrote it: the
// launcher, the package, the command and its arguments with relative
// paths made absolute against the working directory, and the env.
type runs struct {
	Launcher string
	Package  string
	Command  string
	Args     []string
	Env      map[string]string
}

func runsOf(pl vocab.Plan) runs {
	r := runs{Launcher: pl.Launcher, Command: pl.Command, Env: pl.Env}
	if pl.Package != nil {
		r.Package = pl.Package.RegistryType + ":" + pl.Package.Identifier + "@" + pl.Package.Version
	}
	for _, a := range pl.Args {
		if pl.Dir != "" && !strings.HasPrefix(a, "-") && !filepath.IsAbs(a) {
			a = filepath.Join(pl.Dir, a)
		}
		r.Args = append(r.Args, a)
	}
	return r
}

// TestClientConfigsAgree reads the same five servers as each client
// writes them (shapes taken from public configs: Claude Desktop, Cursor,
// VS Code mcp.json and settings.json, Claude Code's ~/.claude.json with
// per-project servers, Codex CLI's config.toml, Zed's context_servers,
// Gemini CLI) and checks that every form runs the same thing.
func TestClientConfigsAgree(t *testing.T) {
	workspace := t.TempDir()
	if err := os.WriteFile(filepath.Join(workspace, ".env"), []byte("# local settings\nexport LOG_LEVEL=\"debug\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]runs{
		"memory":     {Launcher: "npx", Package: "npm:@modelcontextprotocol/server-memory@2026.1.26"},
		"filesystem": {Launcher: "npx", Package: "npm:@modelcontextprotocol/server-filesystem@2026.1.14", Args: []string{"/home/ada/Documents/notes"}},
		"notes":      {Command: "node", Args: []string{"/home/ada/projects/notes/index.js"}},
		"wordcount":  {Command: "python3", Args: []string{"/home/ada/projects/wordcount/server.py"}, Env: map[string]string{"LOG_LEVEL": "debug"}},
		"localmcp":   {Command: "/home/ada/venvs/mcp/bin/localmcp"},
	}
	files := []struct {
		file string
		vars map[string]string
		dir  string
	}{
		{file: "claude_desktop_config.json"},
		{file: "cursor-mcp.json"},
		{file: "vscode-mcp.json", vars: map[string]string{"workspaceFolder": "/home/ada/projects/notes", "userHome": "/home/ada"}},
		{file: "vscode-settings.json", vars: map[string]string{"workspaceFolder": workspace}, dir: workspace},
		{file: "claude.json"},
		{file: "codex-config.toml"},
		{file: "zed-settings.json"},
		{file: "gemini-settings.json"},
	}
	for _, f := range files {
		t.Run(f.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "clients", f.file))
			if err != nil {
				t.Fatal(err)
			}
			plans, err := ReadConfig(strings.NewReader(string(data)), &ConfigOptions{File: f.file, Translate: true, Variables: f.vars, Dir: f.dir})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]runs{}
			var keys []string
			for _, pl := range plans {
				if pl.Status != "" {
					t.Errorf("%s: %s %s", pl.Name, pl.Status, pl.StatusDetail)
				}
				got[pl.Name] = runsOf(pl)
				keys = append(keys, pl.Key)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("plans (-want +got):\n%s", diff)
			}
			slices.Sort(keys)
			if len(slices.Compact(keys)) != len(plans) {
				t.Errorf("plan keys are not unique: %v", keys)
			}
		})
	}
}

// TestClaudeCodeProjects checks that per-project servers of ~/.claude.json
// start in their project's folder and have keys of their own.
func TestClaudeCodeProjects(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "clients", "claude.json"))
	if err != nil {
		t.Fatal(err)
	}
	plans, err := ReadConfig(strings.NewReader(string(data)), &ConfigOptions{File: "claude.json"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]string{}
	for _, pl := range plans {
		got[pl.Name] = [2]string{pl.Key, pl.Dir}
	}
	want := map[string][2]string{
		"memory":     {"config:claude.json#memory", ""},
		"filesystem": {"config:claude.json#filesystem", ""},
		"notes":      {"config:claude.json#/home/ada/projects/notes#notes", "/home/ada/projects/notes"},
		"wordcount":  {"config:claude.json#/home/ada/projects/wordcount#wordcount", "/home/ada/projects/wordcount"},
		"localmcp":   {"config:claude.json#/home/ada/projects/wordcount#localmcp", "/home/ada/projects/wordcount"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestConfigInputsAndEnv covers --input, password inputs, ${env:NAME}
// only for passed names, Codex env_vars and bearer_token_env_var.
func TestConfigInputsAndEnv(t *testing.T) {
	vscode := `{
  "inputs": [
    {"type": "promptString", "id": "github_token", "description": "GitHub Personal Access Token", "password": true},
    {"type": "promptString", "id": "org", "description": "Organisation"}
  ],
  "servers": {
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${input:github_token}"}
    },
    "org": {"command": "node", "args": ["server.js", "--org", "${input:org}"], "env": {"HOME_DIR": "${env:HOME}", "SHELL_NAME": "${env:SHELL}"}}
  }
}`
	lookup := func(allowed ...string) func(string) (string, bool) {
		return func(name string) (string, bool) {
			if slices.Contains(allowed, name) {
				return "value-of-" + name, true
			}
			return "", false
		}
	}
	plans, err := ReadConfig(strings.NewReader(vscode), &ConfigOptions{Translate: true, LookupEnv: lookup("HOME")})
	if err != nil {
		t.Fatal(err)
	}
	gh, org := plans[0], plans[1]
	if gh.Status != "" || !slices.Equal(gh.Secrets, []string{"GITHUB_PERSONAL_ACCESS_TOKEN"}) || gh.Package == nil || gh.Package.RegistryType != "oci" {
		t.Errorf("github plan: %+v", gh)
	}
	if org.Status != vocab.StatusNeedsConfiguration || !strings.Contains(org.StatusDetail, "--input org=VALUE") || !strings.Contains(org.StatusDetail, "--pass-env SHELL") {
		t.Errorf("org plan: %s %q", org.Status, org.StatusDetail)
	}
	if org.Env["HOME_DIR"] != "value-of-HOME" {
		t.Errorf("org env: %v", org.Env)
	}
	plans, err = ReadConfig(strings.NewReader(vscode), &ConfigOptions{Inputs: map[string]string{"org": "acme"}, LookupEnv: lookup("HOME", "SHELL")})
	if err != nil {
		t.Fatal(err)
	}
	if plans[1].Status != "" || plans[1].Args[2] != "acme" {
		t.Errorf("with --input: %+v", plans[1])
	}

	codex := `
[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_OAUTH_TOKEN"
http_headers = { "X-Figma-Region" = "us-east-1" }

[mcp_servers.linear]
command = "npx"
args = ["-y", "mcp-remote", "https://mcp.linear.app/sse"]
env_vars = ["LINEAR_API_KEY", "HOME"]
`
	plans, err = ReadConfig(strings.NewReader(codex), &ConfigOptions{File: "config.toml", LookupEnv: lookup("HOME")})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]vocab.Plan{}
	for _, pl := range plans {
		byName[pl.Name] = pl
	}
	if f := byName["figma"]; !slices.Equal(f.Secrets, []string{"header:Authorization"}) || f.Headers["X-Figma-Region"] != "us-east-1" {
		t.Errorf("figma: %+v", f)
	}
	if l := byName["linear"]; !slices.Equal(l.Secrets, []string{"LINEAR_API_KEY"}) || l.Env["HOME"] != "value-of-HOME" {
		t.Errorf("linear: %+v", l)
	}
	if _, err := ReadConfig(strings.NewReader("[mcp_servers.x\ncommand = 1"), &ConfigOptions{File: "config.toml"}); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad TOML: %v", err)
	}
}
