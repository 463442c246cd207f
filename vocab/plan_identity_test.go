package vocab

import "testing"

// TestIdentity: what reaches the server decides; the working directory
// counts only where a relative path makes it matter.
func TestIdentity(t *testing.T) {
	remote := Plan{Transport: TransportStreamable, URL: "http://127.0.0.1:9/mcp"}
	local := Plan{Transport: TransportStdio, Command: "node", Args: []string{"/abs/index.js"}}
	pkg := Plan{Transport: TransportStdio, Command: "mcp-server-memory", Package: &Package{RegistryType: "npm", Identifier: "@modelcontextprotocol/server-memory", Version: "2026.1.26"}}
	with := func(p Plan, f func(*Plan)) Plan { f(&p); return p }
	tests := []struct {
		name string
		a, b Plan
		same bool
	}{
		{"a URL whatever the cwd and name", remote, with(remote, func(p *Plan) { p.Dir, p.Name, p.Key = "/p1", "other", "k" }), true},
		{"another URL", remote, with(remote, func(p *Plan) { p.URL += "2" }), false},
		{"another header", remote, with(remote, func(p *Plan) { p.Headers = map[string]string{"Authorization": "x"} }), false},
		{"an absolute script whatever the cwd", local, with(local, func(p *Plan) { p.Dir = "/p" }), true},
		{"a relative script in another cwd", with(local, func(p *Plan) { p.Args = []string{"index.js"}; p.Dir = "/a" }), with(local, func(p *Plan) { p.Args = []string{"index.js"}; p.Dir = "/b" }), false},
		{"a ./script in another cwd", with(local, func(p *Plan) { p.Args = []string{"./srv"}; p.Dir = "/a" }), with(local, func(p *Plan) { p.Args = []string{"./srv"}; p.Dir = "/b" }), false},
		{"--root=. in another cwd", with(local, func(p *Plan) { p.Args = []string{"--root=."}; p.Dir = "/a" }), with(local, func(p *Plan) { p.Args = []string{"--root=."}; p.Dir = "/b" }), false},
		{"a package whatever the cwd", pkg, with(pkg, func(p *Plan) { p.Dir = "/p" }), true},
		{"a package with a relative folder", with(pkg, func(p *Plan) { p.Args = []string{"."}; p.Dir = "/a" }), with(pkg, func(p *Plan) { p.Args = []string{"."}; p.Dir = "/b" }), false},
		{"another env value", with(local, func(p *Plan) { p.Env = map[string]string{"A": "1"} }), with(local, func(p *Plan) { p.Env = map[string]string{"A": "2"} }), false},
		{"npx spec with a version is no path", with(local, func(p *Plan) { p.Command, p.Args, p.Dir = "npx", []string{"-y", "server-x@1.2.3"}, "/a" }), with(local, func(p *Plan) { p.Command, p.Args, p.Dir = "npx", []string{"-y", "server-x@1.2.3"}, "/b" }), true},
	}
	for _, tt := range tests {
		if got := tt.a.Identity() == tt.b.Identity(); got != tt.same {
			t.Errorf("%s: same = %v, want %v\n%s\n%s", tt.name, got, tt.same, tt.a.Identity(), tt.b.Identity())
		}
	}
}
