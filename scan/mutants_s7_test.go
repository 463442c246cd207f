package scan

import (
	"context"
	"errors"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/scan/source"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestUnreachableRemoteTransports: the precheck runs for both remote
// transports, an SSE one included, and for no other (remote_precheck.go
// :35:66 `plan.Transport != vocab.TransportSSE` -> `==` lived in issue
// 26's session 7 shard).
func TestUnreachableRemoteTransports(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	for tr, want := range map[string]bool{vocab.TransportSSE: true, vocab.TransportStreamable: true, vocab.TransportStdio: false} {
		plan := &vocab.Plan{Key: closed, Name: "io.example/gone", Source: "config:mcp.json", Transport: tr, URL: closed}
		if err := unreachableRemote(context.Background(), plan, nil); (err != nil) != want {
			t.Errorf("%s: unreachableRemote = %v, want an error %v", tr, err, want)
		}
	}
}

// TestConfigRestorer: a resumed scan gets each removed secret again from
// where it came from: the config file (env and headers), the --env and
// --header flags, the environment; a config that cannot be read again and
// a value nowhere to be found are RestoreErrors naming what to supply.
// (configs.go had no test in scan: its 21 mutants were not covered by
// the package's suite in issue 26's session 7 shard.)
func TestConfigRestorer(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	doc := `{"mcpServers": {
  "local": {"command": "node", "args": ["server.js"], "env": {"TOKEN": "t-from-config"}},
  "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer b-from-config"}}
}}`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := source.LoadConfigSet(file, source.DiscoverEnv{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, c := range set.Configs {
		for _, p := range c.Plans {
			keys[p.Name] = p.Key
		}
	}
	t.Setenv("MCPVET_S7_SECRET", "from-env")
	restore := ConfigRestorer(nil, []string{"A=1", "B=2", "junk"}, []string{"X-Key=k1"})
	plan := func(name string, from map[string]string) *vocab.Plan {
		return &vocab.Plan{Key: keys[name], Name: name, Env: map[string]string{}, Headers: map[string]string{}, SecretFrom: from}
	}
	p := plan("local", map[string]string{"env:TOKEN": "config:" + file, "env:B": "flag:--env", "env:E": "env:MCPVET_S7_SECRET", "header:X-Key": "flag:--header"})
	if err := restore(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"TOKEN": "t-from-config", "B": "2", "E": "from-env"}; !maps.Equal(p.Env, want) || p.Headers["X-Key"] != "k1" {
		t.Errorf("env %v headers %v, want %v and X-Key k1", p.Env, p.Headers, want)
	}
	r := plan("remote", map[string]string{"header:Authorization": "config:" + file})
	if err := restore(context.Background(), r); err != nil || r.Headers["Authorization"] != "Bearer b-from-config" {
		t.Errorf("remote: %v, headers %v", err, r.Headers)
	}
	// An env value asked for under a header's name is not taken.
	w := plan("remote", map[string]string{"env:Authorization": "config:" + file})
	var re *RestoreError
	if err := restore(context.Background(), w); !errors.As(err, &re) || !strings.HasPrefix(re.Msg, "--resume: ") {
		t.Errorf("env from a header: %v", err)
	}
	gone := plan("local", map[string]string{"env:TOKEN": "config:" + filepath.Join(dir, "gone.json")})
	for range 2 { // the second time from the remembered error
		if err := restore(context.Background(), gone); !errors.As(err, &re) || !strings.Contains(re.Msg, "cannot be read again") || !strings.Contains(re.Msg, `target "local" needs the value of TOKEN`) {
			t.Errorf("unreadable config: %v", err)
		}
	}
	if err := restore(context.Background(), plan("local", map[string]string{"env:C": "flag:--env"})); !errors.As(err, &re) {
		t.Errorf("a flag not given: %v", err)
	}
}

// TestProjectOf: the project of a per-project entry's key.
func TestProjectOf(t *testing.T) {
	for _, tt := range []struct{ key, file, want string }{
		{"config:/h/.claude.json#/w/app#srv", "/h/.claude.json", "/w/app"},
		{"config:/h/.claude.json#srv", "/h/.claude.json", ""},
		{"config:/h/other.json#/w/app#srv", "/h/.claude.json", ""},
	} {
		if got := projectOf(tt.key, tt.file); got != tt.want {
			t.Errorf("projectOf(%q, %q) = %q, want %q", tt.key, tt.file, got, tt.want)
		}
	}
}

// TestExpandTriageConfigs: every config entry gets the run of the server
// probed for it; the config is named only when more than one config has
// entries (an empty config does not count), and an entry probed under
// another key says which.
func TestExpandTriageConfigs(t *testing.T) {
	ca := &source.SetConfig{Found: source.FoundConfig{Client: "Cursor", Path: "/a.json"},
		Plans: []vocab.Plan{{Key: "config:/a.json#one", Name: "one"}, {Key: "config:/a.json#two", Name: "two"}}}
	cb := &source.SetConfig{Found: source.FoundConfig{Client: "Claude Code", Path: "/b.json"},
		Plans: []vocab.Plan{{Key: "config:/b.json#three", Name: "three"}}, Skipped: []source.SkippedEntry{{Name: "bad", Reason: "no command"}}}
	empty := &source.SetConfig{Found: source.FoundConfig{Client: "Zed", Path: "/c.json"}}
	probed := map[string]string{"config:/a.json#one": "config:/a.json#one", "config:/a.json#two": "config:/a.json#one", "config:/b.json#three": "config:/b.json#three"}
	triage := func() *results.Triage {
		return &results.Triage{Servers: []results.TriageServer{{Key: "config:/a.json#one", Name: "one"}, {Key: "config:/b.json#three", Name: "three"}}}
	}
	tr := triage()
	ExpandTriage(tr, &source.ConfigSet{Configs: []*source.SetConfig{ca, cb, empty}, Probed: probed})
	var got []string
	for _, s := range tr.Servers {
		got = append(got, s.Key+"|"+s.Probed+"|"+s.Config+"|"+s.Client)
	}
	want := []string{"config:/a.json#one||/a.json|Cursor", "config:/a.json#two|config:/a.json#one|/a.json|Cursor", "config:/b.json#three||/b.json|Claude Code"}
	if !slices.Equal(got, want) {
		t.Errorf("servers %q, want %q", got, want)
	}
	if len(tr.Skipped) != 1 || tr.Skipped[0].Config != "/b.json" || tr.Skipped[0].Name != "bad" {
		t.Errorf("skipped %+v", tr.Skipped)
	}
	tr = triage()
	ExpandTriage(tr, &source.ConfigSet{Configs: []*source.SetConfig{ca, empty}, Probed: probed})
	for _, s := range tr.Servers {
		if s.Config != "" {
			t.Errorf("one config with entries: %s names its config %q", s.Key, s.Config)
		}
	}
}

// TestConfiguredSecretsEdges: a credential of exactly minMasked bytes is
// masked, one byte less is not (secrets.go:34 `<` -> `<=`); a bearer
// token of exactly minMasked bytes is masked alone; --env overrides are
// masked (:53 `so != nil` -> `==`); a registry entry's values are not.
func TestConfiguredSecretsEdges(t *testing.T) {
	plan := &vocab.Plan{Source: "config:mcp.json",
		Env:     map[string]string{"API_KEY": "12345678", "SHORT_TOKEN": "1234567", "MODE": "production-mode"},
		Headers: map[string]string{"Authorization": "Bearer abcdefgh"}}
	mask, detect := configuredSecrets(plan, &sandbox.Options{Env: map[string]string{"GITHUB_TOKEN": "ghp_0123456789"}})
	want := map[string]string{"API_KEY": "12345678", "header Authorization": "Bearer abcdefgh", "header Authorization token": "abcdefgh", "GITHUB_TOKEN": "ghp_0123456789"}
	if !maps.Equal(mask, want) {
		t.Errorf("mask %v, want %v", mask, want)
	}
	if detect["header Authorization (configured)"] != "abcdefgh" || detect["API_KEY (configured)"] != "12345678" {
		t.Errorf("detect %v", detect)
	}
	plan.Source = "registry"
	if mask, _ := configuredSecrets(plan, nil); len(mask) != 0 {
		t.Errorf("a registry entry's values masked: %v", mask)
	}
}

// TestMaskResultLongestFirst: every configured value in a stored result
// is replaced by its name, a longer value before one it contains
// (secrets.go:67, :71, :80, :81 lived: the masking was skipped, or the
// shorter value replaced first, leaving "[secret A]ijkl"); a result with
// no value in it is returned as it is. The three values have three
// lengths: with two of one length, :80:26's mutant (names in alphabetical
// order) is not a strict order, the map's order decides and the test
// killed it only sometimes (a shard of session 8 saw it live).
func TestMaskResultLongestFirst(t *testing.T) {
	mask := map[string]string{"A": "abcdefgh", "B": "abcdefghijkl", "Q": `quo"te\xy`}
	res := &probe.Result{Liveness: probe.Liveness{Detail: `got abcdefghijkl, abcdefgh and quo"te\xy`}}
	out := maskResult(res, mask)
	if want := "got [secret B], [secret A] and [secret Q]"; out.Liveness.Detail != want {
		t.Errorf("masked %q, want %q", out.Liveness.Detail, want)
	}
	if res.Liveness.Detail != `got abcdefghijkl, abcdefgh and quo"te\xy` {
		t.Errorf("the result itself was changed: %q", res.Liveness.Detail)
	}
	clean := &probe.Result{Liveness: probe.Liveness{Detail: "nothing secret"}}
	if maskResult(clean, mask) != clean || maskResult(res, nil) != res {
		t.Errorf("a result without a value, or an empty mask, not returned as it is")
	}
}

// TestAttributeEnvironment: an unresolved remote is marked as this
// machine's DNS once, and a result already attributed keeps its reason
// (conditions.go:180:55 `l.Environment != ""` -> `==` lived).
func TestAttributeEnvironment(t *testing.T) {
	c := &vocab.Conditions{DNS: vocab.DNSCondition{PublicNames: false, Failed: []string{"example.com"}}}
	res := &probe.Result{Liveness: probe.Liveness{Status: vocab.StatusUnreachable, Detail: "dial tcp: lookup mcp.example.com: no such host"}}
	if !attributeEnvironment(res, c) || !strings.Contains(res.Liveness.Environment, "example.com did not resolve") {
		t.Errorf("not marked: %q", res.Liveness.Environment)
	}
	res.Liveness.Environment = "earlier reason"
	if attributeEnvironment(res, c) || res.Liveness.Environment != "earlier reason" {
		t.Errorf("marked again: %q", res.Liveness.Environment)
	}
	res.Liveness.Environment = ""
	if attributeEnvironment(res, &vocab.Conditions{DNS: vocab.DNSCondition{PublicNames: true}}) || attributeEnvironment(res, nil) {
		t.Errorf("marked where public names resolve, or without conditions")
	}
}

// TestCheckContextZeroEdges: a growth limit of 0 % is a limit (gate.go
// :261:20 `< 0` -> `<=`), and growth from a baseline of 0 tokens is 100 %,
// not a division by zero (:269:16 `> 0` -> `>=`).
func TestCheckContextZeroEdges(t *testing.T) {
	res := &probe.Result{Context: &probe.ContextCost{Encoding: "o200k_base", Total: 120}}
	b := &Baseline{Context: &BaselineContext{Encoding: "o200k_base", Total: 100}}
	if g := CheckContext(res, b, ContextLimits{MaxGrowthPct: 0}); !g.OverGrowth || g.GrowthPct != 20 {
		t.Errorf("0%% limit: over %v, growth %v%%", g.OverGrowth, g.GrowthPct)
	}
	b.Context.Total = 0
	if g := CheckContext(res, b, ContextLimits{MaxGrowthPct: 50}); g.GrowthPct != 100 || !g.OverGrowth {
		t.Errorf("from 0 tokens: growth %v%%, over %v; want 100%%, over", g.GrowthPct, g.OverGrowth)
	}
}
