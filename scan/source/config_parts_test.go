package source

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestServerGroups covers the shapes that hold servers: top-level objects,
// Claude Code's projects and VS Code's settings.json "mcp".
func TestServerGroups(t *testing.T) {
	type group struct{ Path, Scope, Dir, Names string }
	tests := []struct {
		name    string
		in      string
		want    []group
		wantErr string
	}{
		{name: "mcpServers and servers in file order",
			in:   `{"servers": {"a": {}}, "mcpServers": {"b": {}, "c": {}}}`,
			want: []group{{Path: "servers", Names: "a"}, {Path: "mcpServers", Names: "b c"}}},
		{name: "null servers count as found", in: `{"mcpServers": null}`},
		{name: "projects with and without servers",
			in:   `{"projects": {"/p/a": {"mcpServers": {"x": {}}}, "/p/b": {"mcpServers": {}}, "/p/c": {"mcpServers": null}, "/p/d": 1, "/p/e": {"other": 1}}}`,
			want: []group{{Path: "projects./p/a.mcpServers", Scope: "/p/a", Dir: "/p/a", Names: "x"}}},
		{name: "projects only, none with servers", in: `{"projects": {"/p/b": {"mcpServers": {}}}}`,
			wantErr: `no "mcpServers"`},
		{name: "Codex trust tables under projects", in: `{"projects": 1, "mcp_servers": {"x": {}}}`,
			want: []group{{Path: "mcp_servers", Names: "x"}}},
		{name: "project servers not an object", in: `{"projects": {"/p": {"mcpServers": [1]}}}`,
			wantErr: `config projects./p.mcpServers: want an object of named servers, got an array [1]`},
		{name: "VS Code settings", in: `{"mcp": {"inputs": [{"id": "t"}], "servers": {"x": {}}}}`,
			want: []group{{Path: "mcp.servers", Names: "x"}}},
		{name: "VS Code settings, null servers count as found", in: `{"mcp": {"servers": null}}`},
		{name: "mcp not an object", in: `{"mcp": 1}`, wantErr: `no "mcpServers"`},
		{name: "mcp without servers", in: `{"mcp": {"inputs": []}}`, wantErr: `no "mcpServers"`},
		{name: "mcp servers not an object", in: `{"mcp": {"servers": [1]}}`,
			wantErr: `config mcp.servers: want an object of named servers, got an array [1]`},
		{name: "mcp inputs not a list", in: `{"mcp": {"inputs": 3, "servers": {}}}`,
			wantErr: `config mcp.inputs: want an array of inputs like {"type": "promptString", "id": "token", "password": true}, got a number 3`},
		{name: "input not an object", in: `{"inputs": [1], "servers": {}}`,
			wantErr: `config inputs[0]: want an object like {"type": "promptString", "id": "token"}, got a number 1`},
		{name: "null inputs", in: `{"inputs": null, "servers": {"x": {}}}`,
			want: []group{{Path: "servers", Names: "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top, err := configTop([]byte(tt.in), "mcp.json")
			if err != nil {
				t.Fatal(err)
			}
			cr := &configReader{opts: &ConfigOptions{}, inputs: map[string]configInput{}}
			groups, err := cr.serverGroups(top)
			if got := errText(err); tt.wantErr == "" && got != "" || !strings.Contains(got, tt.wantErr) {
				t.Fatalf("error %q, want %q", got, tt.wantErr)
			}
			var got []group
			for _, g := range groups {
				var names []string
				for _, m := range g.members {
					names = append(names, m.Key)
				}
				if len(names) > 0 {
					got = append(got, group{g.path, g.scope, g.dir, strings.Join(names, " ")})
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnfoldZedCommand checks that Zed's command object becomes fields
// after the server's own, which win over it.
func TestUnfoldZedCommand(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // key=value
	}{
		{"plain command", `{"command": "npx", "args": ["-y"]}`, []string{`command="npx"`, `args=["-y"]`}},
		{"Zed object", `{"command": {"path": "node", "args": ["s.js"], "env": {"A": "1"}}, "type": "stdio"}`,
			[]string{`type="stdio"`, `command="node"`, `args=["s.js"]`, `env={"A": "1"}`}},
		{"server's args first", `{"args": ["outer"], "command": {"path": "node", "args": ["inner"]}}`,
			[]string{`args=["outer"]`, `command="node"`, `args=["inner"]`}},
		{"null command", `{"command": null}`, []string{`command=null`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := objectMembers([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range unfoldZedCommand(serverFields(ms)) {
				got = append(got, m.Key+"="+string(m.Value))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// A "type" inside the command object is not the server's.
	plans, err := ReadConfig(strings.NewReader(`{"context_servers": {"z": {"command": {"path": "node", "type": "http"}}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if plans[0].Transport != vocab.TransportStdio || plans[0].Command != "node" {
		t.Errorf("plan: %+v", plans[0])
	}
}

func TestInferTransport(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name         string
		command, url *string
		want         string
		wantErr      string
	}{
		{name: "command", command: s("npx"), want: vocab.TransportStdio},
		{name: "URL", url: s("https://x.example/mcp"), want: vocab.TransportStreamable},
		{name: "URL naming SSE", url: s("https://x.example/sse"), want: vocab.TransportSSE},
		{name: "URL naming SSE with a slash", url: s("https://x.example/sse//"), want: vocab.TransportSSE},
		{name: "sse only as part of a word", url: s("https://x.example/mysse"), want: vocab.TransportStreamable},
		{name: "both", command: s("npx"), url: s("https://x"), wantErr: `config p: has both "command" and "url"`},
		{name: "neither", wantErr: `config p: no "command" or "url"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := inferTransport("p", tt.command, tt.url)
			if e := errText(err); tt.wantErr == "" && e != "" || !strings.HasPrefix(e, tt.wantErr) {
				t.Fatalf("error %q, want %q", e, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("transport %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://x.example/mcp", ""},
		{"http://localhost:3000", ""},
		{"${input:base}/mcp", ""},
		{"ftp://x.example", `config p: "url": "RAW" is not an http or https URL; use e.g. "https://example.com/mcp"`},
		{"https://", `config p: "url": "RAW" is not an http or https URL; use e.g. "https://example.com/mcp"`},
		{"http://[::1", `config p: "url": "RAW" is not an http or https URL; use e.g. "https://example.com/mcp"`},
		{"x.example/mcp", `config p: "url": "RAW" is not an http or https URL; use e.g. "https://example.com/mcp"`},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			if got := errText(checkURL("p", "url", tt.url, json.RawMessage(`"RAW"`))); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWorkDir(t *testing.T) {
	tests := []struct {
		name, raw, dir string
		want           string
		wantMissing    []string
		wantErr        string
	}{
		{name: "relative, config folder known", raw: `"sub/dir"`, dir: "/ws", want: "/ws/sub/dir"},
		{name: "relative, config folder unknown", raw: `"sub"`, want: "sub"},
		{name: "absolute", raw: `"/srv/x"`, dir: "/ws", want: "/srv/x"},
		{name: "variable", raw: `"${workspaceFolder}/x"`, dir: "/ws", want: "/ws/x"},
		{name: "empty", raw: `""`, dir: "/ws", want: ""},
		{name: "unresolved", raw: `"${input:dir}"`, dir: "/ws", want: "/ws/${input:dir}", wantMissing: []string{"${input:dir} in cwd"}},
		{name: "not a string", raw: `1`, wantErr: `config p: "cwd": 1 is not a string; give the folder the server starts in, e.g. "${workspaceFolder}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := &configReader{opts: &ConfigOptions{Dir: tt.dir, Variables: map[string]string{"workspaceFolder": tt.dir}}, inputs: map[string]configInput{}}
			var st planState
			got, err := cr.workDir("p", json.RawMessage(tt.raw), &st)
			if e := errText(err); e != tt.wantErr {
				t.Fatalf("error %q, want %q", e, tt.wantErr)
			}
			if got != filepath.FromSlash(tt.want) {
				t.Errorf("dir %q, want %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantMissing, st.missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRemoteHeaders covers "headers", Codex's "http_headers" and
// "bearer_token_env_var", and password inputs as header secrets.
func TestRemoteHeaders(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k"}
	tests := []struct {
		name        string
		fields      string
		want        map[string]string
		wantSecrets []string
		wantErr     string
	}{
		{name: "none", fields: `{}`},
		{name: "headers then http_headers", fields: `{"headers": {"A": "1"}, "http_headers": {"B": "2"}}`,
			want: map[string]string{"A": "1", "B": "2"}},
		{name: "bearer from a passed variable", fields: `{"bearer_token_env_var": "TOKEN"}`,
			want: map[string]string{"Authorization": "Bearer t0k"}},
		{name: "bearer from a variable not passed", fields: `{"bearer_token_env_var": "OTHER", "headers": {"A": "1"}}`,
			want: map[string]string{"A": "1"}, wantSecrets: []string{vocab.SecretHeaderPrefix + "Authorization"}},
		{name: "password input", fields: `{"headers": {"Authorization": "${input:pw}", "X": "v"}}`,
			want: map[string]string{"X": "v"}, wantSecrets: []string{vocab.SecretHeaderPrefix + "Authorization"}},
		{name: "password input inside a value stays unresolved", fields: `{"headers": {"Authorization": "Bearer ${input:pw}"}}`,
			want: map[string]string{"Authorization": "Bearer ${input:pw}"}},
		{name: "bearer not a string", fields: `{"bearer_token_env_var": 1}`,
			wantErr: `config p: "bearer_token_env_var": 1 is not a string; give an environment variable name`},
		{name: "http_headers not an object", fields: `{"http_headers": []}`,
			wantErr: `config p: "http_headers": [] is not an object; use {"NAME": "value"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := objectMembers([]byte(tt.fields))
			if err != nil {
				t.Fatal(err)
			}
			cr := &configReader{
				opts:   &ConfigOptions{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }},
				inputs: map[string]configInput{"pw": {ID: "pw", Password: true}},
			}
			var st planState
			kvs, err := cr.headers("p", serverFields(ms), &st)
			if e := errText(err); e != tt.wantErr {
				t.Fatalf("error %q, want %q", e, tt.wantErr)
			}
			got := cr.resolveValues(kvs, "headers.", vocab.SecretHeaderPrefix, &st)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSecrets, st.secrets); diff != "" {
				t.Errorf("secrets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTranslateInPlace(t *testing.T) {
	tests := []struct {
		name      string
		command   string
		args      []string
		wantPkg   bool
		wantNotes []string
	}{
		{name: "translated", command: "npx", args: []string{"-y", "pkg@1.0.0"}, wantPkg: true},
		{name: "not a launcher", command: "node", args: []string{"s.js"}},
		{name: "launcher it cannot reproduce", command: "npx", args: []string{"-y", "./local"},
			wantNotes: []string{`npx: "./local" is not a registry package (a path, URL or git spec); the command runs as written`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := vocab.Plan{Transport: vocab.TransportStdio, Command: tt.command, Args: tt.args}
			translateInPlace(&pl)
			if (pl.Package != nil) != tt.wantPkg {
				t.Errorf("package %+v, want one: %v", pl.Package, tt.wantPkg)
			}
			if diff := cmp.Diff(tt.wantNotes, pl.Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnvFile covers VS Code's envFile: its syntax, relative paths, and a
// missing or unnamed file leaving the plan needing configuration.
func TestEnvFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("# comment\nexport A=1\nB = 'two'\r\nC=\"3\"\nno equals sign\n\nD=\"x'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		raw         string
		want        []keyValue
		wantMissing []string
		wantErr     string
	}{
		{name: "relative to the config", raw: `".env"`,
			want: []keyValue{{"A", "1"}, {"B", "two"}, {"C", "3"}, {"D", `"x'`}}},
		{name: "variable", raw: `"${workspaceFolder}/.env"`,
			want: []keyValue{{"A", "1"}, {"B", "two"}, {"C", "3"}, {"D", `"x'`}}},
		{name: "unresolved name", raw: `"${input:f}"`, wantMissing: []string{"${input:f} in envFile"}},
		{name: "missing file", raw: `"none.env"`,
			wantMissing: []string{"envFile " + filepath.Join(dir, "none.env") + " (no such file or directory)"}},
		{name: "not a string", raw: `1`,
			wantErr: `config p: "envFile": 1 is not a string; give the path of a file of KEY=VALUE lines, e.g. "${workspaceFolder}/.env"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := &configReader{opts: &ConfigOptions{Dir: dir, Variables: map[string]string{"workspaceFolder": dir}}, inputs: map[string]configInput{}}
			var st planState
			got, err := cr.envFile("p", json.RawMessage(tt.raw), &st)
			if e := errText(err); e != tt.wantErr {
				t.Fatalf("error %q, want %q", e, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(keyValue{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMissing, st.missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSkipServer(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"command": "npx"}`, false},
		{`{"disabled": true}`, true},
		{`{"disabled": false}`, false},
		{`{"enabled": false}`, true},
		{`{"enabled": true}`, false},
		{`{"source": "extension"}`, true},
		{`{"source": "custom"}`, false},
		{`"npx"`, false},
		// The form mcp-server-github's Zed extension README asks for.
		{`{"settings": {"github_personal_access_token": "ghp_x"}}`, true},
		{`{"command": {"path": "node", "args": []}, "settings": {}}`, false},
		{`{"url": "http://127.0.0.1:1/mcp", "settings": {}}`, false},
	}
	for _, tt := range tests {
		if got := skipServer(json.RawMessage(tt.in)) != ""; got != tt.want {
			t.Errorf("skipServer(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name, in    string
		want        string
		wantMissing []string
		wantHints   []string
	}{
		{name: "no reference", in: "plain", want: "plain"},
		{name: "default used", in: "${NOPE:-x}/${HOME:-y}", want: "x//h"},
		{name: "unterminated", in: "a ${HOME", want: "a ${HOME"},
		{name: "client-only variable", in: "${config:editor.x}", want: "${config:editor.x}",
			wantMissing: []string{"${config:editor.x} in f"}},
		{name: "lower-case name is no environment variable", in: "${userHome}", want: "${userHome}",
			wantMissing: []string{"${userHome} in f"}},
		{name: "each reference once", in: "${input:a}${input:a}${env:B}", want: "${input:a}${input:a}${env:B}",
			wantMissing: []string{"${input:a} in f", "${env:B} in f"}, wantHints: []string{"--input a=VALUE", "--pass-env B"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := &configReader{opts: &ConfigOptions{LookupEnv: func(k string) (string, bool) { return "/h", k == "HOME" }}, inputs: map[string]configInput{}}
			var st planState
			got, secret := cr.expand(tt.in, "f", &st, true)
			if got != tt.want || secret {
				t.Errorf("expand(%q) = %q, %v, want %q", tt.in, got, secret, tt.want)
			}
			if diff := cmp.Diff(tt.wantMissing, st.missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantHints, st.hints); diff != "" {
				t.Errorf("hints (-want +got):\n%s", diff)
			}
		})
	}
}
