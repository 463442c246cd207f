package source

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
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

// TestCensusServersJSON plans the whole registry dump and checks the counts
// against each other and against a count made from the raw JSON without
// this package's types.
func TestCensusServersJSON(t *testing.T) {
	raw, entries := loadServers(t)
	if len(entries) != 2794 {
		t.Errorf("servers.json: read %d entries, want 2794", len(entries))
	}

	// An independent count, from generic JSON.
	var generic []struct {
		Server map[string]any `json:"server"`
		Meta   map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(bytes.TrimPrefix(raw, utf8BOM), &generic); err != nil {
		t.Fatal(err)
	}
	type counts struct {
		byType, byTransport map[string]int
		latest              int
	}
	count := func(latestOnly bool) counts {
		c := counts{byType: map[string]int{}, byTransport: map[string]int{}}
		for _, g := range generic {
			official, _ := g.Meta[OfficialMetaKey].(map[string]any)
			if official["isLatest"] == true {
				c.latest++
			} else if latestOnly {
				continue
			}
			pkgs, _ := g.Server["packages"].([]any)
			for _, p := range pkgs {
				pm := p.(map[string]any)
				c.byType[pm["registryType"].(string)]++
				tr := pm["transport"].(map[string]any)
				c.byTransport[tr["type"].(string)]++
			}
			rems, _ := g.Server["remotes"].([]any)
			for _, r := range rems {
				c.byType[RegistryRemote]++
				c.byTransport[r.(map[string]any)["type"].(string)]++
			}
		}
		return c
	}

	for _, tc := range []struct {
		name string
		opts *PlanOptions
	}{
		{"latest only (default)", nil},
		{"all versions", &PlanOptions{AllVersions: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plans, st := Plans(entries, tc.opts)
			want := count(tc.opts == nil)
			t.Logf("entries: total %d, kept %d, skipped: not latest %d, deprecated %d, deleted %d; kept without packages or remotes %d",
				st.Total, st.Kept, st.SkippedNotLatest, st.SkippedDeprecated, st.SkippedDeleted, st.NoTargets)
			t.Logf("plans: %d; by registry type %v; by transport %v", st.Plans, st.PlansByRegistryType, st.PlansByTransport)
			t.Logf("plans needing configuration: %d (%.1f%%); invalid: %d", st.NeedsConfiguration,
				100*float64(st.NeedsConfiguration)/float64(max(st.Plans, 1)), st.Invalid)

			if st.Total != len(entries) {
				t.Errorf("Total = %d, want %d", st.Total, len(entries))
			}
			if sum := st.Kept + st.SkippedNotLatest + st.SkippedDeprecated + st.SkippedDeleted; sum != st.Total {
				t.Errorf("kept + skipped = %d, want Total %d", sum, st.Total)
			}
			if tc.opts == nil && st.Kept != want.latest {
				t.Errorf("Kept = %d, want the %d entries marked isLatest", st.Kept, want.latest)
			}
			if st.Plans != len(plans) {
				t.Errorf("Stats.Plans = %d, but %d plans returned", st.Plans, len(plans))
			}
			if diff := cmp.Diff(want.byType, st.PlansByRegistryType); diff != "" {
				t.Errorf("plans by registry type (-raw JSON count +Stats):\n%s", diff)
			}
			if diff := cmp.Diff(want.byTransport, st.PlansByTransport); diff != "" {
				t.Errorf("plans by transport (-raw JSON count +Stats):\n%s", diff)
			}
			needs, invalid := 0, 0
			keys := map[string]bool{}
			for _, p := range plans {
				switch p.Status {
				case StatusNeedsConfiguration:
					needs++
					if !strings.HasPrefix(p.StatusDetail, "required inputs without a value: ") {
						t.Errorf("%s: StatusDetail %q does not name the inputs", p.Key, p.StatusDetail)
					}
				case StatusInvalidPlan:
					invalid++
					t.Logf("invalid plan %s: %s", p.Key, p.StatusDetail)
				case "":
				default:
					t.Errorf("%s: unexpected status %q", p.Key, p.Status)
				}
				if keys[p.Key] {
					t.Errorf("duplicate plan key %s", p.Key)
				}
				keys[p.Key] = true
				if p.Transport != sandbox.TransportStdio && p.Status == "" && p.URL == "" {
					t.Errorf("%s: %s plan without a URL", p.Key, p.Transport)
				}
				if p.Package == nil && p.URL == "" && p.Status == "" {
					t.Errorf("%s: neither a package nor a URL", p.Key)
				}
				for k := range p.Env {
					if slices.Contains(p.Secrets, k) && p.Env[k] == "" {
						t.Errorf("%s: secret %s has an empty value in Env", p.Key, k)
					}
				}
			}
			if needs != st.NeedsConfiguration || invalid != st.Invalid {
				t.Errorf("Stats say %d needs_configuration and %d invalid, plans say %d and %d",
					st.NeedsConfiguration, st.Invalid, needs, invalid)
			}
			if sum := sumValues(st.PlansByRegistryType); sum != st.Plans {
				t.Errorf("sum of PlansByRegistryType = %d, want %d", sum, st.Plans)
			}
			if sum := sumValues(st.PlansByTransport); sum != st.Plans {
				t.Errorf("sum of PlansByTransport = %d, want %d", sum, st.Plans)
			}
		})
	}
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range maps.All(m) {
		n += v
	}
	return n
}
