package source

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

func TestReadConfigFiles(t *testing.T) {
	env := map[string]string{"BRAVE_API_KEY": "brave-from-env", "HOME": "/home/me", "WEATHER_KEY": "wk"}
	lookupEnv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

	tests := []struct {
		name string
		file string
		opts ConfigOptions
		want []vocab.Plan
	}{
		{
			name: "Claude Desktop, environment not consulted",
			file: "claude_desktop_config.json",
			want: []vocab.Plan{
				{Key: "config:claude_desktop_config.json#filesystem", Name: "filesystem", Source: "config:claude_desktop_config.json",
					Transport: vocab.TransportStdio, Command: "npx",
					Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/Users/me/Downloads"}},
				{Key: "config:claude_desktop_config.json#brave-search", Name: "brave-search", Source: "config:claude_desktop_config.json",
					Transport: vocab.TransportStdio, Command: "npx",
					Args:         []string{"-y", "@modelcontextprotocol/server-brave-search"},
					Env:          map[string]string{"BRAVE_API_KEY": "${BRAVE_API_KEY}"},
					Status:       vocab.StatusNeedsConfiguration,
					StatusDetail: "unresolved references: ${BRAVE_API_KEY} in env.BRAVE_API_KEY; give --pass-env BRAVE_API_KEY"},
				{Key: "config:claude_desktop_config.json#sqlite", Name: "sqlite", Source: "config:claude_desktop_config.json",
					Transport: vocab.TransportStdio, Command: "uvx",
					Args: []string{"mcp-server-sqlite", "--db-path", "/Users/me/test.db"},
					Env:  map[string]string{"LOG_LEVEL": "debug"}},
				{Key: "config:claude_desktop_config.json#weather", Name: "weather", Source: "config:claude_desktop_config.json",
					Transport: vocab.TransportStreamable, URL: "https://weather.example.com/mcp",
					Headers: map[string]string{"X-Api-Key": "demo"}},
			},
		},
		{
			name: "Claude Desktop, environment consulted",
			file: "claude_desktop_config.json",
			opts: ConfigOptions{LookupEnv: lookupEnv},
			want: []vocab.Plan{
				{Key: "config:claude_desktop_config.json#filesystem", Name: "filesystem", Source: "config:claude_desktop_config.json",
					Transport: vocab.TransportStdio, Command: "npx",
					Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/Users/me/Downloads"}},
				{Key: "config:claude_desktop_config.json#brave-search", Name: "brave-search", Source: "config:claude_desktop_config.json",
					Transport: vocab.TransportStdio, Command: "npx",
					Args: []string{"-y", "@modelcontextprotocol/server-brave-search"},
					Env:  map[string]string{"BRAVE_API_KEY": "brave-from-env"}},
				{Key: "config:claude_desktop_config.json#sqlite", Name: "sqlite", Source: "config:claude_desktop_config.json",
					Transport: vocab.TransportStdio, Command: "uvx",
					Args: []string{"mcp-server-sqlite", "--db-path", "/Users/me/test.db"},
					Env:  map[string]string{"LOG_LEVEL": "debug"}},
				{Key: "config:claude_desktop_config.json#weather", Name: "weather", Source: "config:claude_desktop_config.json",
					Transport: vocab.TransportStreamable, URL: "https://weather.example.com/mcp",
					Headers: map[string]string{"X-Api-Key": "wk"}},
			},
		},
		{
			name: "VS Code with inputs, comments and trailing commas",
			file: "vscode_mcp.json",
			want: []vocab.Plan{
				{Key: "config:vscode_mcp.json#github", Name: "github", Source: "config:vscode_mcp.json",
					Transport: vocab.TransportStreamable, URL: "https://api.githubcopilot.com/mcp/",
					Headers:      map[string]string{"Authorization": "Bearer ${input:github_token}"},
					Status:       vocab.StatusNeedsConfiguration,
					StatusDetail: "unresolved references: ${input:github_token} in headers.Authorization; give --input github_token=VALUE"},
				{Key: "config:vscode_mcp.json#perplexity", Name: "perplexity", Source: "config:vscode_mcp.json",
					Transport: vocab.TransportStdio, Command: "npx",
					Args: []string{"-y", "server-perplexity-ask"},
					// A password input that is the whole value: the canary stands in.
					Env:     map[string]string{"REGION": "eu"},
					Secrets: []string{"PERPLEXITY_API_KEY"}},
				{Key: "config:vscode_mcp.json#fetch", Name: "fetch", Source: "config:vscode_mcp.json",
					Transport: vocab.TransportStdio, Command: "uvx",
					Args:         []string{"mcp-server-fetch", "--root", "${workspaceFolder}/docs", "--project", "${input:project}"},
					Env:          map[string]string{"HOME_DIR": "${env:HOME}"},
					Status:       vocab.StatusNeedsConfiguration,
					StatusDetail: "unresolved references: ${workspaceFolder} in args[2], ${input:project} in args[4], ${env:HOME} in env.HOME_DIR; give --input project=VALUE --pass-env HOME"},
				{Key: "config:vscode_mcp.json#legacy-sse", Name: "legacy-sse", Source: "config:vscode_mcp.json",
					Transport: vocab.TransportSSE, URL: "http://localhost:8931/sse"},
			},
		},
		{
			name: "VS Code with values for inputs and variables",
			file: "vscode_mcp.json",
			opts: ConfigOptions{
				File:      "/home/me/proj/.vscode/mcp.json",
				Inputs:    map[string]string{"github_token": "gh-token", "project": "demo", "region": "us"},
				Variables: map[string]string{"workspaceFolder": "/home/me/proj"},
				LookupEnv: lookupEnv,
			},
			want: []vocab.Plan{
				{Key: "config:/home/me/proj/.vscode/mcp.json#github", Name: "github", Source: "config:/home/me/proj/.vscode/mcp.json",
					Transport: vocab.TransportStreamable, URL: "https://api.githubcopilot.com/mcp/",
					Headers: map[string]string{"Authorization": "Bearer gh-token"}},
				{Key: "config:/home/me/proj/.vscode/mcp.json#perplexity", Name: "perplexity", Source: "config:/home/me/proj/.vscode/mcp.json",
					Transport: vocab.TransportStdio, Command: "npx",
					Args:    []string{"-y", "server-perplexity-ask"},
					Env:     map[string]string{"REGION": "us"},
					Secrets: []string{"PERPLEXITY_API_KEY"}},
				{Key: "config:/home/me/proj/.vscode/mcp.json#fetch", Name: "fetch", Source: "config:/home/me/proj/.vscode/mcp.json",
					Transport: vocab.TransportStdio, Command: "uvx",
					Args: []string{"mcp-server-fetch", "--root", "/home/me/proj/docs", "--project", "demo"},
					Env:  map[string]string{"HOME_DIR": "/home/me"}},
				{Key: "config:/home/me/proj/.vscode/mcp.json#legacy-sse", Name: "legacy-sse", Source: "config:/home/me/proj/.vscode/mcp.json",
					Transport: vocab.TransportSSE, URL: "http://localhost:8931/sse"},
			},
		},
		{
			name: "Cursor",
			file: "cursor_mcp.json",
			want: []vocab.Plan{
				{Key: "config:cursor_mcp.json#context7", Name: "context7", Source: "config:cursor_mcp.json",
					Transport: vocab.TransportStreamable, URL: "https://mcp.context7.com/mcp",
					Headers: map[string]string{"CONTEXT7_API_KEY": "ctx7-demo"}},
				{Key: "config:cursor_mcp.json#old-remote", Name: "old-remote", Source: "config:cursor_mcp.json",
					Transport: vocab.TransportSSE, URL: "https://mcp.example.com/sse"},
				{Key: "config:cursor_mcp.json#postgres", Name: "postgres", Source: "config:cursor_mcp.json",
					Transport: vocab.TransportStdio, Command: "docker",
					Args: []string{"run", "-i", "--rm", "-e", "DATABASE_URI", "crystaldba/postgres-mcp", "--access-mode=restricted"},
					Env:  map[string]string{"DATABASE_URI": "postgresql://user:pass@localhost:5432/db"}},
			},
		},
		{
			name: "VS Code settings.json",
			file: "vscode_settings.json",
			want: []vocab.Plan{
				{Key: "config:vscode_settings.json#time", Name: "time", Source: "config:vscode_settings.json",
					Transport: vocab.TransportStdio, Command: "uvx", Args: []string{"mcp-server-time"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "config", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			opts := tt.opts
			if opts.File == "" {
				opts.File = tt.file
			}
			got, err := ReadConfig(bytes.NewReader(data), &opts)
			if err != nil {
				t.Fatalf("ReadConfig: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("plans (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadConfigErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
		opts           *ConfigOptions
	}{
		{"unknown transport", `{"servers": {"github": {"type": "grpc", "url": "https://x"}}}`,
			`config servers.github: "type": "grpc" is not a transport; use stdio, http or sse`, nil},
		{"type not a string", `{"servers": {"github": {"type": 1, "url": "https://x"}}}`,
			`config servers.github: "type": 1 is not a string; use stdio, http or sse`, nil},
		{"command not a string", `{"mcpServers": {"x": {"command": 5}}}`,
			`config mcpServers.x: "command": 5 is not a string; give the program to run, e.g. "npx"`, nil},
		{"number in args", `{"mcpServers": {"x": {"command": "node", "args": ["server.js", 8080]}}}`,
			`config mcpServers.x: "args[1]": 8080 is not a string; write it as "8080"`, nil},
		{"args as one string", `{"mcpServers": {"x": {"command": "npx", "args": "-y pkg"}}}`,
			`config mcpServers.x: "args": "-y pkg" is not a list; use a list of strings like ["-y", "some-package"]`, nil},
		{"boolean in env", `{"mcpServers": {"x": {"command": "npx", "env": {"DEBUG": true}}}}`,
			`config mcpServers.x: "env.DEBUG": true is not a string; write it as "true"`, nil},
		{"object in headers", `{"mcpServers": {"x": {"url": "https://x", "headers": {"A": {"b": 1}}}}}`,
			`config mcpServers.x: "headers.A": {"b": 1} is not a string; use a string`, nil},
		{"env as a list", `{"mcpServers": {"x": {"command": "npx", "env": ["A=1"]}}}`,
			`config mcpServers.x: "env": ["A=1"] is not an object; use {"NAME": "value"}`, nil},
		{"neither command nor url", `{"mcpServers": {"x": {"args": []}}}`,
			`config mcpServers.x: no "command" or "url"; set "command" to run a local server or "url" to reach a remote one`, nil},
		{"both command and url", `{"mcpServers": {"x": {"command": "npx", "url": "https://x"}}}`,
			`config mcpServers.x: has both "command" and "url"; keep "command" for a local server or "url" for a remote one, or set "type"`, nil},
		{"stdio without command", `{"servers": {"x": {"type": "stdio", "url": "https://x"}}}`,
			`config servers.x: "command" is missing or empty; a stdio server needs the program to run, e.g. "npx"`, nil},
		{"http without url", `{"servers": {"x": {"type": "http", "command": "npx"}}}`,
			`config servers.x: "url" is missing or empty; a streamable-http server needs its address, e.g. "https://example.com/mcp"`, nil},
		{"Gemini httpUrl not a string", `{"mcpServers": {"x": {"httpUrl": 1}}}`,
			`config mcpServers.x: "httpUrl": 1 is not a string; give the server's address, e.g. "https://example.com/mcp"`, nil},
		{"cwd not a string", `{"mcpServers": {"x": {"command": "npx", "cwd": 1}}}`,
			`config mcpServers.x: "cwd": 1 is not a string; give the folder the server starts in, e.g. "${workspaceFolder}"`, nil},
		{"envFile not a string", `{"servers": {"x": {"command": "npx", "envFile": 3}}}`,
			`config servers.x: "envFile": 3 is not a string; give the path of a file of KEY=VALUE lines, e.g. "${workspaceFolder}/.env"`, nil},
		{"Codex env_vars not a list", `{"mcp_servers": {"x": {"command": "npx", "env_vars": "TOKEN"}}}`,
			`config mcp_servers.x: "env_vars": "TOKEN" is not a list; use a list of strings like ["-y", "some-package"]`, nil},
		{"not an http URL", `{"mcpServers": {"x": {"url": "ftp://example.com"}}}`,
			`config mcpServers.x: "url": "ftp://example.com" is not an http or https URL; use e.g. "https://example.com/mcp"`, nil},
		{"Windsurf serverUrl", `{"mcpServers": {"x": {"serverUrl": "file:///etc/passwd"}}}`,
			`config mcpServers.x: "serverUrl": "file:///etc/passwd" is not an http or https URL; use e.g. "https://example.com/mcp"`, nil},
		{"no servers", `{"editor.fontSize": 14}`,
			`config: no "mcpServers" (Claude Desktop, Cursor, Claude Code, Gemini CLI, Windsurf), "servers" (VS Code), "context_servers" (Zed) or [mcp_servers] (Codex CLI); this does not look like an MCP client config`, nil},
		{"top-level array", `[{"command": "npx"}]`,
			`config: want a JSON object with "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code), got an array [{"command": "npx"}]`, nil},
		{"servers is an array", `{"servers": [1]}`,
			`config servers: want an object of named servers, got an array [1]`, nil},
		{"server is a string", `{"mcpServers": {"x": "npx server"}}`,
			`config mcpServers.x: want an object like {"command": "npx", "args": [...]} or {"url": "https://..."}, got a string "npx server"`, nil},
		{"syntax error", "{\n  \"mcpServers\": {\n    \"x\" {\"command\": \"npx\"}\n  }\n}",
			`config: invalid JSON at line 3, column 9: invalid character '{' after object key`, nil},
		{"ends early", `{"mcpServers": {"x": {"command": "npx"`,
			`config: invalid JSON: the text ends early (line 1, column 39); a closing bracket, brace or quote is missing`, nil},
		{"input without id", `{"inputs": [{"type": "promptString"}], "servers": {}}`,
			`config inputs[0]: "id" is missing; an input needs one to be referenced as ${input:ID}`, nil},
		{"inputs not a list", `{"inputs": {"id": "x"}, "servers": {}}`,
			`config inputs: want an array of inputs like {"type": "promptString", "id": "token", "password": true}, got an object {"id": "x"}`, nil},
		{"input password not a bool", `{"inputs": [{"id": "x", "password": "yes"}], "servers": {}}`,
			`config inputs[0]: "password" is string, not bool; "id" and "type" are strings, "password" is true or false`, nil},
		{"same name twice", `{"servers": {"x": {"command": "a"}}, "mcpServers": {"x": {"command": "b"}}}`,
			`config mcpServers.x: the name is used twice (also servers.x); rename one`, nil},
		{"empty name", `{"servers": {"": {"command": "a"}}}`,
			`config servers.: a server has an empty name; give it one`, nil},
		{"too large", `{"servers": {}}`, `config: larger than 8 bytes; an MCP client config is a small JSON file`, &ConfigOptions{MaxBytes: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadConfig(strings.NewReader(tt.in), tt.opts)
			if err == nil {
				t.Fatalf("ReadConfig succeeded with %d plans, want error %s", len(got), tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			if _, ok := err.(*ConfigError); !ok {
				t.Errorf("error is %T, want *ConfigError", err)
			}
		})
	}
}

func TestStripJSONC(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{"{\"a\": 1, // note\n}", "{\"a\": 1         \n}"},
		{`{"a": [1, 2,], }`, `{"a": [1, 2 ]  }`},
		{`{"url": "http://x//y", "c": "/* no */"}`, `{"url": "http://x//y", "c": "/* no */"}`},
		{`{"q": "a\"//b"}`, `{"q": "a\"//b"}`},
		{"/* a\nb */{}", "    \n    {}"},
		{`{"a": ",}"}`, `{"a": ",}"}`},
		{`{} /* unterminated`, `{}                `},
	}
	for _, tt := range tests {
		if got := string(stripJSONC([]byte(tt.in))); got != tt.want {
			t.Errorf("stripJSONC(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzReadConfig(f *testing.F) {
	for _, name := range []string{"claude_desktop_config.json", "vscode_mcp.json", "cursor_mcp.json", "vscode_settings.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "config", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"servers": {"a": {"type": "sse", "url": "https://${input:h}/x"}}, "inputs": [{"id": "h", "password": true}]}`))
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "env": {"K": "${Q:-d}${env:R}${}"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		plans, err := ReadConfig(bytes.NewReader(data), &ConfigOptions{File: "f.json"})
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "config") {
				t.Errorf("error is not one line starting with config: %q", msg)
			}
			return
		}
		seen := map[string]bool{}
		for _, p := range plans {
			if seen[p.Key] {
				t.Errorf("duplicate key %q", p.Key)
			}
			seen[p.Key] = true
			switch p.Transport {
			case vocab.TransportStdio:
				if p.Command == "" {
					t.Errorf("%s: stdio plan without a command", p.Key)
				}
			case vocab.TransportStreamable, vocab.TransportSSE:
				if p.URL == "" {
					t.Errorf("%s: remote plan without a URL", p.Key)
				}
			default:
				t.Errorf("%s: transport %q", p.Key, p.Transport)
			}
			if p.Status != "" && p.Status != vocab.StatusNeedsConfiguration {
				t.Errorf("%s: status %q", p.Key, p.Status)
			}
		}
	})
}
