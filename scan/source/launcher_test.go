package source

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestTranslate turns launcher commands as configs write them into
// package plans, and leaves alone what it cannot reproduce.
func TestTranslate(t *testing.T) {
	pkg := func(reg, id, ver string) *vocab.Package {
		hint := map[string]string{RegistryNPM: "npx", RegistryPyPI: "uvx", RegistryOCI: "docker"}[reg]
		return &vocab.Package{RegistryType: reg, Identifier: id, Version: ver, RuntimeHint: hint}
	}
	tests := []struct {
		name     string
		command  string
		args     []string
		env      map[string]string
		secrets  []string
		launcher string
		want     *vocab.Package
		wantArgs []string
		wantEnv  map[string]string
		wantNote string // part of a note or of the error
	}{
		{name: "npx -y pinned", command: "npx", args: []string{"-y", "@modelcontextprotocol/server-memory@2026.1.26"},
			launcher: "npx", want: pkg("npm", "@modelcontextprotocol/server-memory", "2026.1.26")},
		{name: "npx with args", command: "npx", args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop", "/Users/ada/Downloads"},
			launcher: "npx", want: pkg("npm", "@modelcontextprotocol/server-filesystem", ""), wantArgs: []string{"/Users/ada/Desktop", "/Users/ada/Downloads"}},
		{name: "npx latest", command: "npx", args: []string{"@playwright/mcp@latest"}, launcher: "npx", want: pkg("npm", "@playwright/mcp", "")},
		{name: "npx unscoped version", command: "npx", args: []string{"-y", "firecrawl-mcp@1.2.3", "--stdio"},
			launcher: "npx", want: pkg("npm", "firecrawl-mcp", "1.2.3"), wantArgs: []string{"--stdio"}},
		{name: "windows cmd /c npx", command: "cmd", args: []string{"/c", "npx", "-y", "@upstash/context7-mcp"},
			launcher: "npx", want: pkg("npm", "@upstash/context7-mcp", "")},
		{name: "npx.cmd", command: `C:\Program Files\nodejs\npx.cmd`, args: []string{"-y", "mcp-remote"}, launcher: "npx", want: pkg("npm", "mcp-remote", "")},
		{name: "npm exec", command: "npm", args: []string{"exec", "--yes", "--", "@modelcontextprotocol/server-everything", "stdio"},
			launcher: "npm exec", want: pkg("npm", "@modelcontextprotocol/server-everything", ""), wantArgs: []string{"stdio"}},
		{name: "pnpm dlx", command: "pnpm", args: []string{"dlx", "@modelcontextprotocol/server-sequential-thinking"},
			launcher: "pnpm dlx", want: pkg("npm", "@modelcontextprotocol/server-sequential-thinking", "")},
		{name: "yarn dlx", command: "yarn", args: []string{"dlx", "-q", "mcp-server-x@0.1.0"}, launcher: "yarn dlx", want: pkg("npm", "mcp-server-x", "0.1.0")},
		{name: "bunx", command: "bunx", args: []string{"-y", "@some/mcp"}, launcher: "bunx", want: pkg("npm", "@some/mcp", "")},
		{name: "uvx", command: "uvx", args: []string{"mcp-server-fetch"}, launcher: "uvx", want: pkg("pypi", "mcp-server-fetch", "")},
		{name: "uvx pinned with args", command: "uvx", args: []string{"mcp-server-git==0.6.2", "--repository", "/src/repo"},
			launcher: "uvx", want: pkg("pypi", "mcp-server-git", "0.6.2"), wantArgs: []string{"--repository", "/src/repo"}},
		{name: "uvx at latest", command: "uvx", args: []string{"ha-mcp@latest"}, launcher: "uvx", want: pkg("pypi", "ha-mcp", "")},
		{name: "uvx --from", command: "uvx", args: []string{"--from", "mcp-server-time==2025.1.0", "mcp-server-time", "--local-timezone=UTC"},
			launcher: "uvx", want: pkg("pypi", "mcp-server-time", "2025.1.0"), wantArgs: []string{"--local-timezone=UTC"}},
		{name: "uv tool run", command: "uv", args: []string{"tool", "run", "mcp-server-time"}, launcher: "uv tool run", want: pkg("pypi", "mcp-server-time", "")},
		{name: "pipx run", command: "pipx", args: []string{"run", "mcp-server-sqlite", "--db-path", "/tmp/x.db"},
			launcher: "pipx run", want: pkg("pypi", "mcp-server-sqlite", ""), wantArgs: []string{"--db-path", "/tmp/x.db"}},
		{name: "docker run -e", command: "docker",
			args:     []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "-e", "GITHUB_TOOLSETS=repos", "ghcr.io/github/github-mcp-server"},
			env:      map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "tok", "UNRELATED": "x"},
			wantEnv:  map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "tok", "GITHUB_TOOLSETS": "repos"},
			launcher: "docker run", want: pkg("oci", "ghcr.io/github/github-mcp-server", "")},
		{name: "docker volume refused", command: "docker",
			args:     []string{"run", "-i", "--rm", "--mount", "type=bind,src=/Users/ada/Desktop,dst=/projects/Desktop", "mcp/filesystem", "/projects"},
			launcher: "docker run", want: pkg("oci", "mcp/filesystem", ""), wantArgs: []string{"/projects"}, wantNote: "volume mount"},
		{name: "npx unknown option", command: "npx", args: []string{"--node-options=--inspect", "pkg"}, wantNote: "not one mcpvet can reproduce"},
		{name: "npx local path", command: "npx", args: []string{"-y", "./tools/server"}, wantNote: "not a registry package"},
		{name: "npx --package", command: "npx", args: []string{"-p", "typescript", "tsc"}, wantNote: "names a package other than the command"},
		{name: "not a launcher", command: "node", args: []string{"dist/index.js"}},
		{name: "docker detached", command: "docker", args: []string{"run", "-d", "img"}, wantNote: "detached"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := vocab.Plan{Transport: vocab.TransportStdio, Command: tc.command, Args: tc.args, Env: tc.env, Secrets: tc.secrets}
			ok, notes, err := Translate(&plan)
			if ok != (tc.want != nil) {
				t.Fatalf("Translate = %v, %v, want translated %v", ok, err, tc.want != nil)
			}
			msg := strings.Join(notes, "\n")
			if err != nil {
				msg += err.Error()
			}
			if tc.wantNote != "" && !strings.Contains(msg, tc.wantNote) {
				t.Errorf("notes/error %q lack %q", msg, tc.wantNote)
			}
			if !ok {
				if plan.Command != tc.command || plan.Package != nil {
					t.Errorf("plan changed: %+v", plan)
				}
				return
			}
			if diff := cmp.Diff(tc.want, plan.Package); diff != "" {
				t.Errorf("package (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantArgs, plan.Args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if plan.Launcher != tc.launcher || plan.Command != "" || !cmp.Equal(plan.Written, append([]string{tc.command}, tc.args...)) {
				t.Errorf("launcher %q command %q written %q", plan.Launcher, plan.Command, plan.Written)
			}
			if tc.wantEnv != nil {
				if diff := cmp.Diff(tc.wantEnv, plan.Env); diff != "" {
					t.Errorf("env (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestLauncherOf(t *testing.T) {
	tests := []struct {
		command  string
		args     []string
		want     string
		wantRest []string
	}{
		{"npx", []string{"-y", "pkg"}, "npx", []string{"-y", "pkg"}},
		{"/usr/local/bin/bunx", []string{"pkg"}, "bunx", []string{"pkg"}},
		{"uvx", nil, "uvx", nil},
		{`C:\Program Files\nodejs\npx.cmd`, []string{"pkg"}, "npx", []string{"pkg"}},
		{"uvx.exe", []string{"pkg"}, "uvx", []string{"pkg"}},
		{"npm", []string{"exec", "pkg"}, "npm exec", []string{"pkg"}},
		{"npm", []string{"install", "pkg"}, "", nil},
		{"pnpm", []string{"dlx", "pkg"}, "pnpm dlx", []string{"pkg"}},
		{"yarn", []string{"dlx", "pkg"}, "yarn dlx", []string{"pkg"}},
		{"bun", []string{"x", "pkg"}, "bunx", []string{"pkg"}},
		{"uv", []string{"tool", "run", "pkg"}, "uv tool run", []string{"pkg"}},
		{"uv", []string{"tool"}, "", nil},
		{"uv", []string{"x", "pkg"}, "uvx", []string{"pkg"}},
		{"pipx", []string{"run", "pkg"}, "pipx run", []string{"pkg"}},
		{"docker", []string{"run", "-i", "img"}, "docker run", []string{"-i", "img"}},
		{"podman", []string{"run", "img"}, "podman run", []string{"img"}},
		{"docker", []string{"exec", "c"}, "", nil},
		{"cmd", []string{"/c", "npx", "-y", "pkg"}, "npx", []string{"-y", "pkg"}},
		{"cmd.exe", []string{"/C", "uv", "x", "pkg"}, "uvx", []string{"pkg"}},
		{"cmd", []string{"/c"}, "", nil},
		{"cmd", []string{"/k", "npx", "pkg"}, "", nil},
		{"node", []string{"index.js"}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.command+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			got, rest := launcherOf(tt.command, tt.args)
			if got != tt.want {
				t.Errorf("launcher %q, want %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantRest, rest); diff != "" {
				t.Errorf("rest (-want +got):\n%s", diff)
			}
		})
	}
}
