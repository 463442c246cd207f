package source

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvet/mcpvet/sandbox"
)

// ignoreServerJSON leaves the (long) raw server.json out of plan diffs; it
// is checked separately.
var ignoreServerJSON = cmpopts.IgnoreFields(sandbox.Plan{}, "ServerJSON")

func TestEntryPlansRealEntries(t *testing.T) {
	_, entries := loadServers(t)
	tests := []struct {
		name, server, version string
		want                  []sandbox.Plan
	}{
		{
			name:   "npm with env vars and a positional argument",
			server: "io.github.GLips/Figma-Context-MCP", version: "0.6.0",
			want: []sandbox.Plan{{
				Key:  "registry:io.github.GLips/Figma-Context-MCP@0.6.0#package:0",
				Name: "io.github.GLips/Figma-Context-MCP", Version: "0.6.0", Source: "registry",
				Transport: sandbox.TransportStdio,
				Package: &sandbox.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
					Identifier: "figma-developer-mcp", Version: "0.6.0"},
				Args:    []string{"--stdio"},
				Env:     map[string]string{"NODE_ENV": "cli"},
				Secrets: []string{"FIGMA_API_KEY"},
			}},
		},
		{
			name:   "pypi with a required secret only: the canary stands in",
			server: "io.github.surendranb/google-analytics-mcp", version: "1.0.0",
			want: []sandbox.Plan{{
				Key:  "registry:io.github.surendranb/google-analytics-mcp@1.0.0#package:0",
				Name: "io.github.surendranb/google-analytics-mcp", Version: "1.0.0", Source: "registry",
				Transport: sandbox.TransportStdio,
				Package: &sandbox.Package{RegistryType: "pypi", RegistryBaseURL: "https://pypi.org",
					Identifier: "google-analytics-mcp", Version: "1.2.0"},
				Secrets: []string{"YOUR_API_KEY"},
			}},
		},
		{
			name:   "pypi with a required non-secret input",
			server: "io.github.stefanoamorelli/sec-edgar-mcp", version: "1.0.5",
			want: []sandbox.Plan{{
				Key:  "registry:io.github.stefanoamorelli/sec-edgar-mcp@1.0.5#package:0",
				Name: "io.github.stefanoamorelli/sec-edgar-mcp", Version: "1.0.5", Source: "registry",
				Transport: sandbox.TransportStdio,
				Package: &sandbox.Package{RegistryType: "pypi", RegistryBaseURL: "https://pypi.org",
					Identifier: "sec-edgar-mcp", Version: "1.0.5"},
				Status:       StatusNeedsConfiguration,
				StatusDetail: "required inputs without a value: env SEC_EDGAR_USER_AGENT",
			}},
		},
		{
			name:   "oci with docker runtime arguments and bare flags",
			server: "io.github.buildkite/buildkite-mcp-server", version: "0.7.0",
			want: []sandbox.Plan{{
				Key:  "registry:io.github.buildkite/buildkite-mcp-server@0.7.0#package:0",
				Name: "io.github.buildkite/buildkite-mcp-server", Version: "0.7.0", Source: "registry",
				Transport: sandbox.TransportStdio,
				Package: &sandbox.Package{RegistryType: "oci", Identifier: "ghcr.io/buildkite/buildkite-mcp-server:0.7.0",
					RuntimeHint: "docker",
					RuntimeArgs: []string{"run", "-i", "--rm", "-e", "BUILDKITE_API_TOKEN", "ghcr.io/buildkite/buildkite-mcp-server:0.7.0"}},
				Secrets: []string{"BUILDKITE_API_TOKEN"},
			}},
		},
		{
			name:   "npm, oci and mcpb packages of one server",
			server: "io.github.domdomegg/airtable-mcp-server", version: "1.9.6",
			want: []sandbox.Plan{
				{
					Key:  "registry:io.github.domdomegg/airtable-mcp-server@1.9.6#package:0",
					Name: "io.github.domdomegg/airtable-mcp-server", Version: "1.9.6", Source: "registry",
					Transport: sandbox.TransportStdio,
					Package:   &sandbox.Package{RegistryType: "npm", Identifier: "airtable-mcp-server", Version: "1.9.6", RuntimeHint: "npx"},
					Secrets:   []string{"AIRTABLE_API_KEY"},
				},
				{
					Key:  "registry:io.github.domdomegg/airtable-mcp-server@1.9.6#package:1",
					Name: "io.github.domdomegg/airtable-mcp-server", Version: "1.9.6", Source: "registry",
					Transport: sandbox.TransportStdio,
					Package:   &sandbox.Package{RegistryType: "oci", Identifier: "docker.io/domdomegg/airtable-mcp-server:1.9.6"},
					Secrets:   []string{"AIRTABLE_API_KEY"},
				},
				{
					Key:  "registry:io.github.domdomegg/airtable-mcp-server@1.9.6#package:2",
					Name: "io.github.domdomegg/airtable-mcp-server", Version: "1.9.6", Source: "registry",
					Transport: sandbox.TransportStdio,
					Package: &sandbox.Package{RegistryType: "mcpb",
						Identifier: "https://github.com/domdomegg/airtable-mcp-server/releases/download/v1.9.6/airtable-mcp-server.mcpb",
						Version:    "1.9.6", FileSHA256: "69f2e031257028a2d5ce07078f3320e0c06faf9b7e5de026b32df025a524e722"},
				},
			},
		},
		{
			name:   "two remotes",
			server: "app.getdialer/dialer", version: "1.0.0",
			want: []sandbox.Plan{
				{
					Key:  "registry:app.getdialer/dialer@1.0.0#remote:0",
					Name: "app.getdialer/dialer", Version: "1.0.0", Source: "registry",
					Transport: sandbox.TransportStreamable, URL: "https://getdialer.app/mcp",
				},
				{
					Key:  "registry:app.getdialer/dialer@1.0.0#remote:1",
					Name: "app.getdialer/dialer", Version: "1.0.0", Source: "registry",
					Transport: sandbox.TransportSSE, URL: "https://getdialer.app/sse",
				},
			},
		},
		{
			name:   "remote with a secret header whose template names no variable",
			server: "ai.smithery/JMoak-chrono-mcp", version: "0.2.0",
			want: []sandbox.Plan{{
				Key:  "registry:ai.smithery/JMoak-chrono-mcp@0.2.0#remote:0",
				Name: "ai.smithery/JMoak-chrono-mcp", Version: "0.2.0", Source: "registry",
				Transport: sandbox.TransportStreamable, URL: "https://server.smithery.ai/@JMoak/chrono-mcp/mcp",
				// The schema says an undeclared {name} stays as it is.
				Headers: map[string]string{"Authorization": "Bearer {smithery_api_key}"},
				Secrets: []string{"header:Authorization"},
			}},
		},
		{
			name:   "required inputs on two packages, one with an HTTP transport",
			server: "io.github.kontent-ai/mcp-server", version: "0.23.0",
			want: []sandbox.Plan{
				{
					Key:  "registry:io.github.kontent-ai/mcp-server@0.23.0#package:0",
					Name: "io.github.kontent-ai/mcp-server", Version: "0.23.0", Source: "registry",
					Transport: sandbox.TransportStdio,
					Package: &sandbox.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
						Identifier: "@kontent-ai/mcp-server", Version: "0.23.0"},
					Args:         []string{"stdio"},
					Secrets:      []string{"KONTENT_API_KEY"},
					Status:       StatusNeedsConfiguration,
					StatusDetail: "required inputs without a value: env KONTENT_ENVIRONMENT_ID",
				},
				{
					Key:  "registry:io.github.kontent-ai/mcp-server@0.23.0#package:1",
					Name: "io.github.kontent-ai/mcp-server", Version: "0.23.0", Source: "registry",
					Transport: sandbox.TransportStreamable, URL: "http://localhost:3001/mcp",
					Package: &sandbox.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
						Identifier: "@kontent-ai/mcp-server", Version: "0.23.0"},
					Args:         []string{"shttp"},
					Secrets:      []string{"KONTENT_API_KEY"},
					Status:       StatusNeedsConfiguration,
					StatusDetail: "required inputs without a value: env KONTENT_ENVIRONMENT_ID",
				},
			},
		},
		{
			name:   "URL template filled from a named argument's default",
			server: "io.github.ycjcl868/mcp-server-fear-greed", version: "1.0.2",
			want: []sandbox.Plan{
				{
					Key:  "registry:io.github.ycjcl868/mcp-server-fear-greed@1.0.2#package:0",
					Name: "io.github.ycjcl868/mcp-server-fear-greed", Version: "1.0.2", Source: "registry",
					Transport: sandbox.TransportStdio,
					Package: &sandbox.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
						Identifier: "mcp-server-fear-greed", Version: "latest"},
				},
				{
					Key:  "registry:io.github.ycjcl868/mcp-server-fear-greed@1.0.2#package:1",
					Name: "io.github.ycjcl868/mcp-server-fear-greed", Version: "1.0.2", Source: "registry",
					Transport: sandbox.TransportSSE, URL: "http://127.0.0.1:8089/sse",
					Package: &sandbox.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
						Identifier: "mcp-server-fear-greed", Version: "latest", RuntimeHint: "npx"},
					Args: []string{"port", "8089"},
				},
				{
					Key:  "registry:io.github.ycjcl868/mcp-server-fear-greed@1.0.2#package:2",
					Name: "io.github.ycjcl868/mcp-server-fear-greed", Version: "1.0.2", Source: "registry",
					Transport: sandbox.TransportStreamable, URL: "http://127.0.0.1:8089/mcp",
					Package: &sandbox.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
						Identifier: "mcp-server-fear-greed", Version: "latest", RuntimeHint: "npx"},
					Args: []string{"port", "8089"},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := findEntry(t, entries, tt.server, tt.version)
			got := EntryPlans(e, nil)
			if diff := cmp.Diff(tt.want, got, ignoreServerJSON); diff != "" {
				t.Errorf("EntryPlans(%s) mismatch (-want +got):\n%s", e.ID(), diff)
			}
			for _, p := range got {
				if !bytes.Equal(p.ServerJSON, e.Raw) {
					t.Errorf("plan %s: ServerJSON is not the entry's server.json", p.Key)
				}
			}
		})
	}
}
