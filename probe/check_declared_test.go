package probe

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

func TestCheckDeclared(t *testing.T) {
	// The registry entry of a real server (servers.json, trimmed).
	pulse := `{"server":{"name":"com.pulsemcp.servers/pulse-fetch","version":"0.2.14","packages":[{"registryType":"npm","identifier":"@pulsemcp/pulse-fetch","version":"0.2.14","transport":{"type":"stdio"},"environmentVariables":[{"name":"FIRECRAWL_API_KEY","isSecret":true},{"name":"BRIGHTDATA_API_KEY","isSecret":true,"isRequired":true}]}]},"_meta":{}}`
	remote := `{"name":"app.getdialer/dialer","version":"1.0.1","remotes":[{"type":"streamable-http","url":"https://getdialer.app/mcp"},{"type":"sse","url":"https://getdialer.app/sse"}]}`
	alive := func(version, transport, url string) *Result {
		return &Result{Target: Target{Name: "@pulsemcp/pulse-fetch", Transport: transport, URL: url, Command: []string{"npx", "-y", "@pulsemcp/pulse-fetch@0.2.14"}},
			Liveness: Liveness{Status: vocab.StatusOK, HandshakeCompleted: true, ServerInfo: &ServerInfo{Name: "pulse", Version: version}}}
	}
	// Two packages: the target runs the first (its identifier is in the
	// target's name), which declares another version and transport.
	two := `{"name":"x","version":"1.0.0","packages":[{"identifier":"@pulsemcp/pulse-fetch","version":"1.0.0","transport":{"type":"stdio"}},{"identifier":"pulse-fetch-py","version":"2.0.0","transport":{"type":"streamable-http"}}]}`
	// A real entry whose package version is the dist-tag "latest".
	fearGreed := `{"name":"io.github.ycjcl868/mcp-server-fear-greed","version":"1.0.2","packages":[{"registryType":"npm","registryBaseUrl":"https://registry.npmjs.org","identifier":"mcp-server-fear-greed","version":"latest","transport":{"type":"stdio"}}]}`
	installed := func(r *Result, v string) *Result {
		r.Target.Name, r.Target.Command, r.Target.InstalledVersion = "mcp-server-fear-greed", []string{"npm:mcp-server-fear-greed@latest"}, v
		return r
	}
	died := func(evidence, stderr string) *Result {
		return &Result{Target: Target{Name: "@pulsemcp/pulse-fetch", Transport: "stdio"},
			Liveness: Liveness{Status: vocab.StatusMissingCredentials, Evidence: evidence, StderrTail: stderr}}
	}
	tests := []struct {
		name   string
		res    *Result
		server string
		want   []string // "code value"
	}{
		{"agrees", alive("0.2.14", "stdio", ""), pulse, []string{}},
		{"v prefix agrees", alive("v0.2.14", "stdio", ""), pulse, []string{}},
		{"bare server.json with BOM", alive("0.2.14", "stdio", ""), "\ufeff" + pulse, []string{}},
		{"no server.json", alive("9", "stdio", ""), "", nil},
		{"version differs", alive("1.0.0", "stdio", ""), pulse, []string{"declared/version_mismatch 1.0.0"}},
		{"latest is the installed version", installed(alive("1.0.5", "stdio", ""), "1.0.5"), fearGreed, []string{}},
		{"latest, installed version unknown", alive("1.0.5", "stdio", ""), fearGreed, []string{"declared/version_mismatch 1.0.5"}},
		{"latest, server reports another", installed(alive("0.9.0", "stdio", ""), "1.0.5"), fearGreed, []string{"declared/version_mismatch 0.9.0"}},
		{"transport differs", alive("0.2.14", "sse", "http://localhost:1/sse"), pulse, []string{"declared/transport_mismatch sse"}},
		{"remote agrees", alive("1.0.1", "sse", "https://getdialer.app/sse"), remote, []string{}},
		{"remote URL declared with another type", alive("1.0.1", "streamable-http", "https://getdialer.app/sse"), remote, []string{"declared/transport_mismatch streamable-http"}},
		{"remote on another URL", alive("1.0.1", "streamable-http", "https://other.example/mcp"), remote, []string{}},
		{"stdio against a remote-only entry", alive("1.0.1", "stdio", ""), remote, []string{}},
		{"declared optional", died("Error: FIRECRAWL_API_KEY environment variable is required", ""), pulse, []string{"declared/env_var_not_required FIRECRAWL_API_KEY"}},
		{"declared required", died("BRIGHTDATA_API_KEY is not set", ""), pulse, []string{}},
		{"undeclared", died("", "starting\nError: OPENAI_API_KEY environment variable is missing\n    at main (index.js:3)"), pulse, []string{"declared/env_var_undeclared OPENAI_API_KEY"}},
		{"several, in order", died("Missing required env: ZED_TOKEN, ALPHA_KEY", "ALPHA_KEY must be set"), pulse,
			[]string{"declared/env_var_undeclared ALPHA_KEY", "declared/env_var_undeclared ZED_TOKEN"}},
		{"error codes are not variables", died("", "Error [ERR_MODULE_NOT_FOUND]: Cannot find package; MODULE_NOT_FOUND required"), pulse, []string{}},
		{"names without asking words", died("", "connected to REDIS_URL fine"), pulse, []string{}},
		{"alive servers asked for nothing", func() *Result {
			r := alive("0.2.14", "stdio", "")
			r.Liveness.StderrTail = "warning: OPENAI_API_KEY not set, using defaults"
			return r
		}(), pulse, []string{}},
		{"invalid", alive("1", "stdio", ""), `{"version":`, []string{"declared/server_json_invalid"}},
		{"exactly 1 MiB", alive("0.2.14", "stdio", ""), pulse + strings.Repeat(" ", maxServerJSONBytes-len(pulse)), []string{}},
		{"no version declared", alive("1.0.0", "stdio", ""), `{"name":"x","packages":[{"identifier":"@pulsemcp/pulse-fetch","transport":{"type":"stdio"}}]}`, []string{}},
		{"a version starting with 9", installed(alive("9.1.0", "stdio", ""), "1.0.0"), `{"name":"x","version":"9.1.0"}`, []string{}},
		{"only the package the target runs", alive("2.0.0", "stdio", ""), two, []string{"declared/version_mismatch 2.0.0"}},
		{"no package matches: all of them count", func() *Result {
			r := alive("2.0.0", "stdio", "")
			r.Target.Name, r.Target.Command = "other", []string{"other"}
			return r
		}(), two, []string{}},
		{"two names on one line", died("Error: ZED_TOKEN and ALPHA_KEY environment variables are required", ""), pulse,
			[]string{"declared/env_var_undeclared ALPHA_KEY", "declared/env_var_undeclared ZED_TOKEN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckDeclared(tt.res, json.RawMessage(tt.server))
			if tt.want == nil {
				if got != nil {
					t.Errorf("got %v, want nil", got)
				}
				return
			}
			lines := []string{}
			for _, f := range got {
				l := f.Code
				if f.Code != CodeServerJSONInvalid {
					l += " " + f.Value
				}
				lines = append(lines, l)
			}
			if diff := cmp.Diff(tt.want, lines); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, got)
			}
		})
	}
}
