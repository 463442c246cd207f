package scan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    *vocab.Plan
		wantErr string
	}{
		{"command", []string{"node", "server.js", "--flag"}, &vocab.Plan{Key: "cli:node server.js --flag", Name: "node server.js --flag", Source: "cli", Transport: "stdio", Command: "node", Args: []string{"server.js", "--flag"}}, ""},
		{"url", []string{"https://example.com/mcp"}, &vocab.Plan{Key: "cli:https://example.com/mcp", Name: "https://example.com/mcp", Source: "cli", Transport: "streamable-http", URL: "https://example.com/mcp"}, ""},
		{"sse url", []string{"sse+http://127.0.0.1:9/sse"}, &vocab.Plan{Key: "cli:sse+http://127.0.0.1:9/sse", Name: "http://127.0.0.1:9/sse", Source: "cli", Transport: "sse", URL: "http://127.0.0.1:9/sse"}, ""},
		{"scoped npm", []string{"npm:@modelcontextprotocol/server-memory@2026.1.26"}, &vocab.Plan{Key: "cli:npm:@modelcontextprotocol/server-memory@2026.1.26", Name: "@modelcontextprotocol/server-memory", Version: "2026.1.26", Source: "cli", Transport: "stdio", Package: &vocab.Package{RegistryType: "npm", Identifier: "@modelcontextprotocol/server-memory", Version: "2026.1.26"}}, ""},
		{"scoped npm without a version", []string{"npm:@modelcontextprotocol/server-memory"}, &vocab.Plan{Key: "cli:npm:@modelcontextprotocol/server-memory", Name: "@modelcontextprotocol/server-memory", Source: "cli", Transport: "stdio", Package: &vocab.Package{RegistryType: "npm", Identifier: "@modelcontextprotocol/server-memory"}}, ""},
		{"npm no version", []string{"npm:left-pad"}, &vocab.Plan{Key: "cli:npm:left-pad", Name: "left-pad", Source: "cli", Transport: "stdio", Package: &vocab.Package{RegistryType: "npm", Identifier: "left-pad"}}, ""},
		{"pypi", []string{"pypi:mcp-server-time==1.0", "--tz", "UTC"}, &vocab.Plan{Key: "cli:pypi:mcp-server-time==1.0 --tz UTC", Name: "mcp-server-time", Version: "1.0", Source: "cli", Transport: "stdio", Args: []string{"--tz", "UTC"}, Package: &vocab.Package{RegistryType: "pypi", Identifier: "mcp-server-time", Version: "1.0"}}, ""},
		{"empty", nil, nil, "target: missing; give a command after --, a URL, or npm:NAME@VERSION"},
		{"url with args", []string{"https://x/mcp", "extra"}, nil, `target "https://x/mcp": a URL takes no arguments, got "extra"`},
		{"bad url", []string{"https://"}, nil, `target "https://": not a valid URL; use https://host/path`},
		{"npm without name", []string{"npm:"}, nil, `target "npm:": missing package name; use npm:NAME@VERSION`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTarget(tt.args)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFetcherHint(t *testing.T) {
	failed := &probe.Result{}
	ok := &probe.Result{Liveness: probe.Liveness{HandshakeCompleted: true}}
	npx := &vocab.Plan{Command: "/usr/bin/npx", Args: []string{"-y", "pkg"}}
	tests := []struct {
		name string
		plan *vocab.Plan
		res  *probe.Result
		opts *sandbox.Options
		want string
	}{
		{"npx without network", npx, failed, nil, "npx fetches its package at run time and the sandbox has no network: probe npm:NAME@VERSION (installed before launch) or pass --allow-network"},
		{"npx with network", npx, failed, &sandbox.Options{AllowNetwork: true}, ""},
		{"npx that started", npx, ok, nil, ""},
		{"uvx", &vocab.Plan{Command: "uvx"}, failed, nil, "uvx fetches its package at run time and the sandbox has no network: probe pypi:NAME==VERSION (installed before launch) or pass --allow-network"},
		{"node", &vocab.Plan{Command: "node"}, failed, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fetcherHint(tt.plan, tt.res, tt.opts); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
