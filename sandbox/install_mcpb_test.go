package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestMCPBEntryPoint pins how a bundle's manifest.json becomes argv and
// env: the config derived from the server type, the linux override, the
// variables and the refusals.
func TestMCPBEntryPoint(t *testing.T) {
	tests := []struct {
		name       string
		manifest   string // "" for no manifest.json
		wantArgv   []string
		wantEnv    map[string]string
		wantStatus vocab.Status // of the *LaunchError, "" for none
		wantDetail string
	}{
		{name: "node without mcp_config", manifest: `{"server":{"type":"node","entry_point":"server/index.js"}}`,
			wantArgv: []string{"node", "B/server/index.js"}, wantEnv: map[string]string{}},
		{name: "python without mcp_config", manifest: `{"server":{"type":"python","entry_point":"main.py"}}`,
			wantArgv: []string{"python3", "B/main.py"}, wantEnv: map[string]string{}},
		{name: "binary without mcp_config", manifest: `{"server":{"type":"binary","entry_point":"bin/s"}}`,
			wantArgv: []string{"B/bin/s"}, wantEnv: map[string]string{}},
		{name: "unknown type without mcp_config", manifest: `{"server":{"type":"wasm","entry_point":"s.wasm"}}`,
			wantStatus: vocab.StatusInstallFailed, wantDetail: `manifest.json: unknown server type "wasm" and no mcp_config`},
		{name: "variables", manifest: `{"server":{"mcp_config":{"command":"${__dirname}/bin/s","args":["--home=${HOME}","a${/}b${pathSeparator}c","--s=${user_config.s}","--l=${user_config.l}","--n=${user_config.n}","--b=${user_config.b}"],"env":{"DIR":"${__dirname}"}}},
			"user_config":{"s":{"default":"str"},"l":{"default":["x",2,true]},"n":{"default":3},"b":{"default":false}}}`,
			wantArgv: []string{"B/bin/s", "--home=" + sandboxHome, "a/b/c", "--s=str", "--l=x,2,true", "--n=3", "--b=false"},
			wantEnv:  map[string]string{"DIR": "B"}},
		{name: "linux override", manifest: `{"server":{"mcp_config":{"command":"${__dirname}/win.exe","args":["--a"],"env":{"A":"1","B":"2"},
			"platform_overrides":{"linux":{"command":"${__dirname}/linux","env":{"B":"3","C":"4"}},"darwin":{"command":"mac"}}}}}`,
			wantArgv: []string{"B/linux", "--a"}, wantEnv: map[string]string{"A": "1", "B": "3", "C": "4"}},
		{name: "linux override of args, env from nothing", manifest: `{"server":{"mcp_config":{"command":"${__dirname}/s","args":["--a"],
			"platform_overrides":{"linux":{"args":[],"env":{"C":"4"}}}}}}`,
			wantArgv: []string{"B/s"}, wantEnv: map[string]string{"C": "4"}},
		{name: "needs configuration", manifest: `{"server":{"mcp_config":{"command":"${__dirname}/s","args":["--k=${user_config.key}","${user_config.nodefault}","${UNKNOWN}"]}},
			"user_config":{"nodefault":{"required":true}}}`,
			wantStatus: vocab.StatusNeedsConfiguration, wantDetail: "mcpb bundle needs configuration: user_config.key, user_config.nodefault, UNKNOWN"},
		{name: "no command", manifest: `{"server":{"mcp_config":{"args":["x"]}}}`,
			wantStatus: vocab.StatusInstallFailed, wantDetail: "manifest.json: mcp_config has no command"},
		{name: "command outside the bundle", manifest: `{"server":{"mcp_config":{"command":"/bin/sh"}}}`,
			wantStatus: vocab.StatusInstallFailed, wantDetail: `manifest.json: command "/bin/sh" is outside the bundle`},
		{name: "runtime not on PATH", manifest: `{"server":{"mcp_config":{"command":"mcpvet-no-such-runtime"}}}`,
			wantStatus: vocab.StatusRuntimeUnavailable, wantDetail: "mcpvet-no-such-runtime is not installed (looked for mcpvet-no-such-runtime on PATH)"},
		{name: "bad JSON", manifest: `{"server":`,
			wantStatus: vocab.StatusInstallFailed, wantDetail: "decoding manifest.json: unexpected end of JSON input"},
		{name: "no manifest",
			wantStatus: vocab.StatusInstallFailed, wantDetail: "mcpb bundle has no manifest.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.wantArgv) > 0 && !strings.HasPrefix(tc.wantArgv[0], "B/") {
				if _, err := exec.LookPath(tc.wantArgv[0]); err != nil {
					t.Skipf("%s is not on PATH", tc.wantArgv[0])
				}
			}
			bundle := t.TempDir()
			if tc.manifest != "" {
				if err := os.WriteFile(filepath.Join(bundle, "manifest.json"), []byte(tc.manifest), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ep, err := mcpbEntryPoint(bundle)
			if tc.wantStatus != "" {
				var le *LaunchError
				if !errors.As(err, &le) || le.Status != tc.wantStatus || le.Detail != tc.wantDetail {
					t.Fatalf("mcpbEntryPoint = %v, %v; want %s: %s", ep, err, tc.wantStatus, tc.wantDetail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range tc.wantArgv {
				tc.wantArgv[i] = expandBundle(a, bundle)
			}
			for k, v := range tc.wantEnv {
				tc.wantEnv[k] = expandBundle(v, bundle)
			}
			if diff := cmp.Diff(tc.wantArgv, ep.argv); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantEnv, ep.env); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}

// expandBundle replaces a leading "B" (the bundle in a want) with bundle.
func expandBundle(s, bundle string) string {
	if s == "B" || strings.HasPrefix(s, "B/") {
		return bundle + s[1:]
	}
	return s
}
