package source

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvet/mcpvet/vocab"
)

// ignoreServerJSON leaves the (long) raw server.json out of plan diffs; it
// is checked separately.
var ignoreServerJSON = cmpopts.IgnoreFields(vocab.Plan{}, "ServerJSON")

func TestEntryPlansRealEntries(t *testing.T) {
	_, entries := loadServers(t)
	tests := []struct {
		name, server, version string
		want                  []vocab.Plan
	}{
		{
			name:   "npm with env vars and a positional argument",
			server: "io.github.GLips/Figma-Context-MCP", version: "0.6.0",
			want: []vocab.Plan{{
				Key:  "registry:io.github.GLips/Figma-Context-MCP@0.6.0#package:0",
				Name: "io.github.GLips/Figma-Context-MCP", Version: "0.6.0", Source: "registry",
				Transport: vocab.TransportStdio,
				Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
					Identifier: "figma-developer-mcp", Version: "0.6.0"},
				Args:    []string{"--stdio"},
				Env:     map[string]string{"NODE_ENV": "cli"},
				Secrets: []string{"FIGMA_API_KEY"},
			}},
		},
		{
			name:   "pypi with a required secret only: the canary stands in",
			server: "io.github.surendranb/google-analytics-mcp", version: "1.0.0",
			want: []vocab.Plan{{
				Key:  "registry:io.github.surendranb/google-analytics-mcp@1.0.0#package:0",
				Name: "io.github.surendranb/google-analytics-mcp", Version: "1.0.0", Source: "registry",
				Transport: vocab.TransportStdio,
				Package: &vocab.Package{RegistryType: "pypi", RegistryBaseURL: "https://pypi.org",
					Identifier: "google-analytics-mcp", Version: "1.2.0"},
				Secrets: []string{"YOUR_API_KEY"},
			}},
		},
		{
			name:   "pypi with a required non-secret input",
			server: "io.github.stefanoamorelli/sec-edgar-mcp", version: "1.0.5",
			want: []vocab.Plan{{
				Key:  "registry:io.github.stefanoamorelli/sec-edgar-mcp@1.0.5#package:0",
				Name: "io.github.stefanoamorelli/sec-edgar-mcp", Version: "1.0.5", Source: "registry",
				Transport: vocab.TransportStdio,
				Package: &vocab.Package{RegistryType: "pypi", RegistryBaseURL: "https://pypi.org",
					Identifier: "sec-edgar-mcp", Version: "1.0.5"},
				Status:       vocab.StatusNeedsConfiguration,
				StatusDetail: "required inputs without a value: env SEC_EDGAR_USER_AGENT",
			}},
		},
		{
			name:   "oci with docker runtime arguments and bare flags",
			server: "io.github.buildkite/buildkite-mcp-server", version: "0.7.0",
			want: []vocab.Plan{{
				Key:  "registry:io.github.buildkite/buildkite-mcp-server@0.7.0#package:0",
				Name: "io.github.buildkite/buildkite-mcp-server", Version: "0.7.0", Source: "registry",
				Transport: vocab.TransportStdio,
				Package: &vocab.Package{RegistryType: "oci", Identifier: "ghcr.io/buildkite/buildkite-mcp-server:0.7.0",
					RuntimeHint: "docker",
					RuntimeArgs: []string{"run", "-i", "--rm", "-e", "BUILDKITE_API_TOKEN", "ghcr.io/buildkite/buildkite-mcp-server:0.7.0"}},
				Secrets: []string{"BUILDKITE_API_TOKEN"},
			}},
		},
		{
			name:   "npm, oci and mcpb packages of one server",
			server: "io.github.domdomegg/airtable-mcp-server", version: "1.9.6",
			want: []vocab.Plan{
				{
					Key:  "registry:io.github.domdomegg/airtable-mcp-server@1.9.6#package:0",
					Name: "io.github.domdomegg/airtable-mcp-server", Version: "1.9.6", Source: "registry",
					Transport: vocab.TransportStdio,
					Package:   &vocab.Package{RegistryType: "npm", Identifier: "airtable-mcp-server", Version: "1.9.6", RuntimeHint: "npx"},
					Secrets:   []string{"AIRTABLE_API_KEY"},
				},
				{
					Key:  "registry:io.github.domdomegg/airtable-mcp-server@1.9.6#package:1",
					Name: "io.github.domdomegg/airtable-mcp-server", Version: "1.9.6", Source: "registry",
					Transport: vocab.TransportStdio,
					Package:   &vocab.Package{RegistryType: "oci", Identifier: "docker.io/domdomegg/airtable-mcp-server:1.9.6"},
					Secrets:   []string{"AIRTABLE_API_KEY"},
				},
				{
					Key:  "registry:io.github.domdomegg/airtable-mcp-server@1.9.6#package:2",
					Name: "io.github.domdomegg/airtable-mcp-server", Version: "1.9.6", Source: "registry",
					Transport: vocab.TransportStdio,
					Package: &vocab.Package{RegistryType: "mcpb",
						Identifier: "https://github.com/domdomegg/airtable-mcp-server/releases/download/v1.9.6/airtable-mcp-server.mcpb",
						Version:    "1.9.6", FileSHA256: "69f2e031257028a2d5ce07078f3320e0c06faf9b7e5de026b32df025a524e722"},
				},
			},
		},
		{
			name:   "two remotes",
			server: "app.getdialer/dialer", version: "1.0.0",
			want: []vocab.Plan{
				{
					Key:  "registry:app.getdialer/dialer@1.0.0#remote:0",
					Name: "app.getdialer/dialer", Version: "1.0.0", Source: "registry",
					Transport: vocab.TransportStreamable, URL: "https://getdialer.app/mcp",
				},
				{
					Key:  "registry:app.getdialer/dialer@1.0.0#remote:1",
					Name: "app.getdialer/dialer", Version: "1.0.0", Source: "registry",
					Transport: vocab.TransportSSE, URL: "https://getdialer.app/sse",
				},
			},
		},
		{
			name:   "remote with a secret header whose template names no variable",
			server: "ai.smithery/JMoak-chrono-mcp", version: "0.2.0",
			want: []vocab.Plan{{
				Key:  "registry:ai.smithery/JMoak-chrono-mcp@0.2.0#remote:0",
				Name: "ai.smithery/JMoak-chrono-mcp", Version: "0.2.0", Source: "registry",
				Transport: vocab.TransportStreamable, URL: "https://server.smithery.ai/@JMoak/chrono-mcp/mcp",
				// The schema says an undeclared {name} stays as it is.
				Headers: map[string]string{"Authorization": "Bearer {smithery_api_key}"},
				Secrets: []string{"header:Authorization"},
			}},
		},
		{
			name:   "required inputs on two packages, one with an HTTP transport",
			server: "io.github.kontent-ai/mcp-server", version: "0.23.0",
			want: []vocab.Plan{
				{
					Key:  "registry:io.github.kontent-ai/mcp-server@0.23.0#package:0",
					Name: "io.github.kontent-ai/mcp-server", Version: "0.23.0", Source: "registry",
					Transport: vocab.TransportStdio,
					Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
						Identifier: "@kontent-ai/mcp-server", Version: "0.23.0"},
					Args:         []string{"stdio"},
					Secrets:      []string{"KONTENT_API_KEY"},
					Status:       vocab.StatusNeedsConfiguration,
					StatusDetail: "required inputs without a value: env KONTENT_ENVIRONMENT_ID",
				},
				{
					Key:  "registry:io.github.kontent-ai/mcp-server@0.23.0#package:1",
					Name: "io.github.kontent-ai/mcp-server", Version: "0.23.0", Source: "registry",
					Transport: vocab.TransportStreamable, URL: "http://localhost:3001/mcp",
					Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
						Identifier: "@kontent-ai/mcp-server", Version: "0.23.0"},
					Args:         []string{"shttp"},
					Secrets:      []string{"KONTENT_API_KEY"},
					Status:       vocab.StatusNeedsConfiguration,
					StatusDetail: "required inputs without a value: env KONTENT_ENVIRONMENT_ID",
				},
			},
		},
		{
			name:   "URL template filled from a named argument's default",
			server: "io.github.ycjcl868/mcp-server-fear-greed", version: "1.0.2",
			want: []vocab.Plan{
				{
					Key:  "registry:io.github.ycjcl868/mcp-server-fear-greed@1.0.2#package:0",
					Name: "io.github.ycjcl868/mcp-server-fear-greed", Version: "1.0.2", Source: "registry",
					Transport: vocab.TransportStdio,
					Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
						Identifier: "mcp-server-fear-greed", Version: "latest"},
				},
				{
					Key:  "registry:io.github.ycjcl868/mcp-server-fear-greed@1.0.2#package:1",
					Name: "io.github.ycjcl868/mcp-server-fear-greed", Version: "1.0.2", Source: "registry",
					Transport: vocab.TransportSSE, URL: "http://127.0.0.1:8089/sse",
					Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
						Identifier: "mcp-server-fear-greed", Version: "latest", RuntimeHint: "npx"},
					Args: []string{"port", "8089"},
				},
				{
					Key:  "registry:io.github.ycjcl868/mcp-server-fear-greed@1.0.2#package:2",
					Name: "io.github.ycjcl868/mcp-server-fear-greed", Version: "1.0.2", Source: "registry",
					Transport: vocab.TransportStreamable, URL: "http://127.0.0.1:8089/mcp",
					Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: "https://registry.npmjs.org",
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
	var generic []rawEntry
	if err := json.Unmarshal(bytes.TrimPrefix(raw, utf8BOM), &generic); err != nil {
		t.Fatal(err)
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
			want := countRawEntries(generic, tc.opts == nil)
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
			needs, invalid := checkCensusPlans(t, plans)
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

// rawEntry is a registry entry decoded as generic JSON.
type rawEntry struct {
	Server map[string]any `json:"server"`
	Meta   map[string]any `json:"_meta"`
}

// rawCounts are counts made from generic JSON, independently of Plans.
type rawCounts struct {
	byType, byTransport map[string]int
	latest              int
}

// countRawEntries counts the packages and remotes of entries by registry
// type and transport, of the latest versions only when latestOnly.
func countRawEntries(entries []rawEntry, latestOnly bool) rawCounts {
	c := rawCounts{byType: map[string]int{}, byTransport: map[string]int{}}
	for _, g := range entries {
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

// checkCensusPlans checks each plan of the census (status detail, unique
// key, a package or URL, no empty secrets) and counts the plans needing
// configuration and the invalid ones.
func checkCensusPlans(t *testing.T, plans []vocab.Plan) (needs, invalid int) {
	t.Helper()
	keys := map[string]bool{}
	for _, p := range plans {
		switch p.Status {
		case vocab.StatusNeedsConfiguration:
			needs++
			if !strings.HasPrefix(p.StatusDetail, "required inputs without a value: ") {
				t.Errorf("%s: StatusDetail %q does not name the inputs", p.Key, p.StatusDetail)
			}
		case vocab.StatusInvalidPlan:
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
		if p.Transport != vocab.TransportStdio && p.Status == "" && p.URL == "" {
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
	return needs, invalid
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range maps.All(m) {
		n += v
	}
	return n
}

// entryFrom decodes a registry server response written in a test.
func entryFrom(t testing.TB, js string) Entry {
	t.Helper()
	e, err := decodeEntry([]byte(js))
	if err != nil {
		t.Fatalf("decodeEntry: %v\n%s", err, js)
	}
	return e
}

func TestEntryPlansInputs(t *testing.T) {
	tests := []struct {
		name string
		// pkg is one package of a server "io.example/s" at version "1".
		pkg    string
		values map[string]string
		want   vocab.Plan
	}{
		{
			name: "variables in values, named and positional arguments",
			pkg: `{"registryType": "oci", "identifier": "ghcr.io/x/y:1", "runtimeHint": "docker", "transport": {"type": "stdio"},
				"runtimeArguments": [
					{"type": "positional", "value": "run"},
					{"type": "named", "name": "-v", "value": "{src}:/data", "variables": {"src": {"isRequired": true, "default": "/tmp/in"}}},
					{"type": "named", "name": "-e", "value": "MODE={mode}", "variables": {"mode": {"choices": ["a", "b"], "isRequired": true}}}
				],
				"packageArguments": [
					{"type": "positional", "valueHint": "target", "default": "."},
					{"type": "named", "name": "--port", "format": "number", "default": "8080"},
					{"type": "named", "name": "--stdio"},
					{"type": "named", "name": "--read-only", "format": "boolean"},
					{"type": "named", "name": "--project-ref", "format": "string"}
				]}`,
			want: vocab.Plan{
				Transport: vocab.TransportStdio,
				Package: &vocab.Package{RegistryType: "oci", Identifier: "ghcr.io/x/y:1", RuntimeHint: "docker",
					RuntimeArgs: []string{"run", "-v", "/tmp/in:/data", "-e", "MODE=a"}},
				Args: []string{".", "--port", "8080", "--stdio"},
			},
		},
		{
			name: "user values fill inputs and override defaults, not fixed values",
			pkg: `{"registryType": "npm", "identifier": "x", "transport": {"type": "stdio"},
				"packageArguments": [
					{"type": "positional", "valueHint": "dir", "isRequired": true},
					{"type": "named", "name": "--port", "default": "8080", "format": "number"},
					{"type": "named", "name": "--fixed", "value": "yes"}
				],
				"environmentVariables": [
					{"name": "REGION", "isRequired": true},
					{"name": "LEVEL", "default": "info"},
					{"name": "FIXED", "value": "f"},
					{"name": "TOKEN", "isSecret": true, "isRequired": true}
				]}`,
			values: map[string]string{"dir": "/srv", "port": "9", "--fixed": "no", "REGION": "eu", "LEVEL": "debug", "FIXED": "g", "TOKEN": "user-token"},
			want: vocab.Plan{
				Transport: vocab.TransportStdio,
				Package:   &vocab.Package{RegistryType: "npm", Identifier: "x"},
				Args:      []string{"/srv", "--port", "9", "--fixed", "yes"},
				Env:       map[string]string{"REGION": "eu", "LEVEL": "debug", "FIXED": "f", "TOKEN": "user-token"},
				Secrets:   []string{"TOKEN"},
			},
		},
		{
			name: "secrets: env gets a canary, a required secret argument cannot",
			pkg: `{"registryType": "pypi", "identifier": "x", "transport": {"type": "stdio"},
				"packageArguments": [
					{"type": "named", "name": "--api-key", "isRequired": true, "isSecret": true},
					{"type": "named", "name": "--optional-token", "isSecret": true}
				],
				"environmentVariables": [
					{"name": "API_KEY", "isRequired": true, "isSecret": true, "default": "your-key-here"},
					{"name": "OPTIONAL_KEY", "isSecret": true},
					{"name": "URL", "value": "https://x/?key={key}", "variables": {"key": {"isSecret": true, "isRequired": true}}},
					{"name": "PUBLIC_TOKEN", "isSecret": true, "value": "fixed"}
				]}`,
			want: vocab.Plan{
				Transport:    vocab.TransportStdio,
				Package:      &vocab.Package{RegistryType: "pypi", Identifier: "x"},
				Env:          map[string]string{"PUBLIC_TOKEN": "fixed"},
				Secrets:      []string{"API_KEY", "OPTIONAL_KEY", "URL", "PUBLIC_TOKEN"},
				Status:       vocab.StatusNeedsConfiguration,
				StatusDetail: "required inputs without a value: secret argument --api-key (an argument cannot carry a canary)",
			},
		},
		{
			name: "missing inputs are listed",
			pkg: `{"registryType": "nuget", "identifier": "X.Y", "version": "1.0.0", "runtimeHint": "dnx", "transport": {"type": "stdio"},
				"packageArguments": [
					{"type": "positional", "valueHint": "config_path", "isRequired": true, "format": "filepath"},
					{"type": "named", "name": "--mode", "value": "{m}", "isRequired": true, "variables": {"m": {}}},
					{"type": "named", "name": "--opt", "value": "{o}", "variables": {"o": {}}}
				],
				"environmentVariables": [
					{"name": "HOST", "isRequired": true},
					{"name": "OPTIONAL"},
					{"name": "DB", "value": "{user}@{host}", "variables": {"user": {"isRequired": true}, "host": {"default": "localhost"}}},
					{"name": "", "description": "an empty declaration is ignored"}
				]}`,
			want: vocab.Plan{
				Transport: vocab.TransportStdio,
				Package:   &vocab.Package{RegistryType: "nuget", Identifier: "X.Y", Version: "1.0.0", RuntimeHint: "dnx"},
				Status:    vocab.StatusNeedsConfiguration,
				StatusDetail: "required inputs without a value: argument <config_path>, argument --mode, " +
					"env HOST, variable {user} of env DB",
			},
		},
		{
			name: "HTTP package: URL from an environment variable, headers",
			pkg: `{"registryType": "npm", "identifier": "x", "transport": {"type": "streamable-http", "url": "http://localhost:{PORT}/mcp",
					"headers": [{"name": "Authorization", "value": "Bearer {t}", "isSecret": true, "variables": {"t": {"isSecret": true}}},
					            {"name": "X-Org", "default": "acme"}]},
				"environmentVariables": [{"name": "PORT", "default": "3000"}]}`,
			want: vocab.Plan{
				Transport: vocab.TransportStreamable,
				URL:       "http://localhost:3000/mcp",
				Package:   &vocab.Package{RegistryType: "npm", Identifier: "x"},
				Env:       map[string]string{"PORT": "3000"},
				Headers:   map[string]string{"X-Org": "acme"},
				Secrets:   []string{"header:Authorization"},
			},
		},
		{
			name: "HTTP package: URL variable without a value",
			pkg: `{"registryType": "pypi", "identifier": "x", "transport": {"type": "sse", "url": "http://{host}:{port}/sse"},
				"packageArguments": [{"type": "named", "name": "--port", "format": "number"}]}`,
			want: vocab.Plan{
				Transport:    vocab.TransportSSE,
				URL:          "http://{host}:{port}/sse",
				Package:      &vocab.Package{RegistryType: "pypi", Identifier: "x"},
				Status:       vocab.StatusNeedsConfiguration,
				StatusDetail: "required inputs without a value: url variable {port}, url variable {host} (not declared)",
			},
		},
		{
			name: "argument with an empty type",
			pkg: `{"registryType": "pypi", "identifier": "x", "runtimeHint": "python", "transport": {"type": "stdio"},
				"runtimeArguments": [{"type": "", "value": "-m"}, {"type": "", "value": "x.server"}]}`,
			want: vocab.Plan{
				Transport: vocab.TransportStdio,
				Package:   &vocab.Package{RegistryType: "pypi", Identifier: "x", RuntimeHint: "python", RuntimeArgs: []string{"-m", "x.server"}},
			},
		},
		{
			name: "structural problems make the plan invalid",
			pkg: `{"registryType": "cargo", "identifier": " ", "transport": {"type": "grpc"},
				"packageArguments": [{"type": "flag", "value": "x"}, {"type": "named", "value": "x"}],
				"environmentVariables": [{"name": "", "value": "v"}]}`,
			want: vocab.Plan{
				Transport: "grpc",
				Package:   &vocab.Package{RegistryType: "cargo", Identifier: " "},
				Status:    vocab.StatusInvalidPlan,
				StatusDetail: `registryType "cargo" is not supported (want npm, pypi, oci, nuget or mcpb); package has no identifier; ` +
					`argument 0: type "flag" is not positional or named; argument 1 is named but has no name; ` +
					`environment variable has no name; transport type "grpc" is not supported (want stdio, streamable-http or sse)`,
			},
		},
		{
			name: "URL that is not http",
			pkg:  `{"registryType": "npm", "identifier": "x", "transport": {"type": "sse", "url": "file:///etc/passwd"}}`,
			want: vocab.Plan{
				Transport:    vocab.TransportSSE,
				URL:          "file:///etc/passwd",
				Package:      &vocab.Package{RegistryType: "npm", Identifier: "x"},
				Status:       vocab.StatusInvalidPlan,
				StatusDetail: `url "file:///etc/passwd": want an http or https URL`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entryFrom(t, `{"server": {"name": "io.example/s", "version": "1", "packages": [`+tt.pkg+`]}}`)
			got := EntryPlans(e, &PlanOptions{Values: tt.values})
			want := tt.want
			want.Key, want.Name, want.Version, want.Source = "registry:io.example/s@1#package:0", "io.example/s", "1", "registry"
			if diff := cmp.Diff([]vocab.Plan{want}, got, ignoreServerJSON); diff != "" {
				t.Errorf("plans (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEntryPlansRemotes(t *testing.T) {
	tests := []struct {
		name   string
		remote string
		want   vocab.Plan
	}{
		{
			name: "URL variables",
			remote: `{"type": "streamable-http", "url": "https://{tenant}.example.com/mcp?region={region}",
				"variables": {"tenant": {"default": "acme"}, "region": {"choices": ["eu", "us"], "isRequired": true}}}`,
			want: vocab.Plan{Transport: vocab.TransportStreamable, URL: "https://acme.example.com/mcp?region=eu"},
		},
		{
			name:   "URL variable without a value",
			remote: `{"type": "sse", "url": "https://{tenant}.example.com/sse", "variables": {"tenant": {"isRequired": true}}}`,
			want: vocab.Plan{Transport: vocab.TransportSSE, URL: "https://.example.com/sse",
				Status: vocab.StatusNeedsConfiguration, StatusDetail: "required inputs without a value: url variable {tenant}"},
		},
		{
			name:   "secret URL variable",
			remote: `{"type": "sse", "url": "https://example.com/sse?key={key}", "variables": {"key": {"isSecret": true}}}`,
			want: vocab.Plan{Transport: vocab.TransportSSE, URL: "https://example.com/sse?key=",
				Status: vocab.StatusNeedsConfiguration, StatusDetail: "required inputs without a value: secret url variable {key}"},
		},
		{
			name: "headers: secret, required, optional",
			remote: `{"type": "streamable-http", "url": "https://example.com/mcp", "headers": [
				{"name": "Authorization", "isRequired": true, "isSecret": true},
				{"name": "X-Workspace", "isRequired": true},
				{"name": "X-Debug"}]}`,
			want: vocab.Plan{Transport: vocab.TransportStreamable, URL: "https://example.com/mcp",
				Secrets: []string{"header:Authorization"},
				Status:  vocab.StatusNeedsConfiguration, StatusDetail: "required inputs without a value: header X-Workspace"},
		},
		{
			name:   "stdio is not a remote transport",
			remote: `{"type": "stdio", "url": "https://example.com"}`,
			want: vocab.Plan{Transport: "stdio", URL: "https://example.com",
				Status: vocab.StatusInvalidPlan, StatusDetail: `remote type "stdio" is not supported (want streamable-http or sse)`},
		},
		{
			name:   "no URL",
			remote: `{"type": "sse"}`,
			want: vocab.Plan{Transport: "sse",
				Status: vocab.StatusInvalidPlan, StatusDetail: "remote has no url"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entryFrom(t, `{"server": {"name": "io.example/r", "version": "2", "remotes": [`+tt.remote+`]}}`)
			got := EntryPlans(e, nil)
			want := tt.want
			want.Key, want.Name, want.Version, want.Source = "registry:io.example/r@2#remote:0", "io.example/r", "2", "registry"
			if diff := cmp.Diff([]vocab.Plan{want}, got, ignoreServerJSON); diff != "" {
				t.Errorf("plans (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlannerFilters(t *testing.T) {
	mk := func(name, status string, latest bool) Entry {
		return entryFrom(t, `{"server": {"name": "io.example/`+name+`", "version": "1",
			"remotes": [{"type": "sse", "url": "https://example.com/sse"}]},
			"_meta": {"`+OfficialMetaKey+`": {"status": "`+status+`", "isLatest": `+strconv.FormatBool(latest)+`}}}`)
	}
	entries := []Entry{
		mk("active-latest", StatusActive, true),
		mk("active-old", StatusActive, false),
		mk("deprecated-latest", StatusDeprecated, true),
		mk("deprecated-old", StatusDeprecated, false),
		mk("deleted-latest", StatusDeleted, true),
		entryFrom(t, `{"server": {"name": "io.example/no-meta", "version": "1", "remotes": [{"type": "sse", "url": "https://example.com/sse"}]}}`),
		entryFrom(t, `{"server": {"name": "io.example/no-targets", "version": "1"}}`),
	}
	tests := []struct {
		name      string
		opts      *PlanOptions
		wantNames []string
		wantStats Stats
	}{
		{
			name:      "defaults: latest, not deprecated",
			wantNames: []string{"io.example/active-latest", "io.example/no-meta"},
			wantStats: Stats{Total: 7, Kept: 3, SkippedNotLatest: 1, SkippedDeprecated: 2, SkippedDeleted: 1, NoTargets: 1,
				Plans: 2, PlansByRegistryType: map[string]int{"remote": 2}, PlansByTransport: map[string]int{"sse": 2}},
		},
		{
			name:      "all versions",
			opts:      &PlanOptions{AllVersions: true},
			wantNames: []string{"io.example/active-latest", "io.example/active-old", "io.example/no-meta"},
			wantStats: Stats{Total: 7, Kept: 4, SkippedDeprecated: 2, SkippedDeleted: 1, NoTargets: 1,
				Plans: 3, PlansByRegistryType: map[string]int{"remote": 3}, PlansByTransport: map[string]int{"sse": 3}},
		},
		{
			name:      "all versions with deprecated",
			opts:      &PlanOptions{AllVersions: true, IncludeDeprecated: true, Source: "snapshot"},
			wantNames: []string{"io.example/active-latest", "io.example/active-old", "io.example/deprecated-latest", "io.example/deprecated-old", "io.example/no-meta"},
			wantStats: Stats{Total: 7, Kept: 6, SkippedDeleted: 1, NoTargets: 1,
				Plans: 5, PlansByRegistryType: map[string]int{"remote": 5}, PlansByTransport: map[string]int{"sse": 5}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plans, st := Plans(entries, tt.opts)
			var names []string
			for _, p := range plans {
				names = append(names, p.Name)
				if tt.opts != nil && tt.opts.Source != "" && p.Source != tt.opts.Source {
					t.Errorf("%s: Source %q, want %q", p.Key, p.Source, tt.opts.Source)
				}
			}
			if diff := cmp.Diff(tt.wantNames, names); diff != "" {
				t.Errorf("planned servers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantStats, st); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplaceBraces(t *testing.T) {
	vals := map[string]string{"a": "1", "b c": "x", "": "empty"}
	fn := func(n string) (string, bool) { v, ok := vals[n]; return v, ok }
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"{a}", "1"},
		{"x{a}y{a}z", "x1y1z"},
		{"{unknown}", "{unknown}"},
		{"{b c}", "{b c}"},
		{"{}", "{}"},
		{"{{a}}", "{1}"},
		{"{a", "{a"},
		{"a}", "a}"},
		{"{a}{", "1{"},
	}
	for _, tt := range tests {
		if got := replaceBraces(tt.in, fn); got != tt.want {
			t.Errorf("replaceBraces(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkPlanServersJSON parses servers.json and builds the plans of every
// entry (all versions).
func BenchmarkPlanServersJSON(b *testing.B) {
	raw, _ := loadServers(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		entries, err := ReadSnapshot(bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		plans, _ := Plans(entries, &PlanOptions{AllVersions: true})
		if len(plans) == 0 {
			b.Fatal("no plans")
		}
	}
}

// BenchmarkPlanOnly builds the plans of already parsed entries.
func BenchmarkPlanOnly(b *testing.B) {
	_, entries := loadServers(b)
	b.ReportAllocs()
	for b.Loop() {
		Plans(entries, &PlanOptions{AllVersions: true})
	}
}
