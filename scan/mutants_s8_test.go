package scan

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/scoring"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestProbeOptionsDefaults: a server timeout of 0 means the default, any
// other is kept (one.go:92:15 `<= 0` -> `<` probed with no time at all;
// -> `>` replaced every timeout by the default, so a timeout already
// past was ignored), and a policy given is the one that decides the
// verdict's rules (:102:12 `policy == nil` -> `!=` used the default instead).
func TestProbeOptionsDefaults(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved")
	plan := vocab.Plan{Key: "wb", Name: "wb", Source: "test", Transport: vocab.TransportStdio, Command: bins["wellbehaved"]}
	ctx := context.Background()
	probeWith := func(edit func(*ProbeOptions)) (vocab.Status, string, error) {
		o := fastOptions("none")
		edit(o)
		res, err := Probe(ctx, &plan, o)
		if err != nil || res == nil {
			return "", "", err
		}
		b, _ := json.Marshal(res.Verdict)
		return res.Liveness.Status, string(b), nil
	}
	st, _, err := probeWith(func(o *ProbeOptions) { o.Timeout = 0 })
	if err != nil || st != vocab.StatusOK {
		t.Fatalf("timeout 0 (the default): %q, %v; want ok", st, err)
	}
	if st, _, err := probeWith(func(o *ProbeOptions) { o.Timeout = time.Nanosecond }); err == nil && st == vocab.StatusOK {
		t.Errorf("timeout 1ns: the server was probed as if it had the default's time")
	}
	_, strict, err := probeWith(func(o *ProbeOptions) {
		o.Run.Inject = nil
		o.Policy = &scoring.Policy{MinScore: 101, FixSeverities: scoring.DefaultPolicy().FixSeverities}
	})
	if err != nil || !strings.Contains(strict, "minScore 101") {
		t.Errorf("policy minScore 101: verdict %s, %v; want its rules to apply minScore 101", strict, err)
	}
}

// TestInstalledVersionOnlyWhenItDiffers: a package whose installed
// version is the plan's own is not reported again as the installed one
// (one.go:144:58 `plan.Package == nil` -> `!=` and :144:70 `v !=
// plan.Package.Version` -> `==` reported it). The OCI image runs under a
// fake docker that starts the well-behaved fixture. (:144:35 `v != ""` ->
// `==` drops an installed version that differs from the plan's: only an
// npm install reads one, and the -short suite installs none.)
func TestInstalledVersionOnlyWhenItDiffers(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved")
	tools := t.TempDir()
	script := "#!/bin/sh\ncase \"$1\" in\ninfo) echo 27.0.0 ;;\nrun) exec " + bins["wellbehaved"] + " ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(tools, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	plan := vocab.Plan{Key: "oci", Name: "oci", Source: "test", Transport: vocab.TransportStdio,
		Package: &vocab.Package{RegistryType: "oci", Identifier: "ghcr.io/acme/server", Version: "1.2.3"}}
	res, err := Probe(context.Background(), &plan, fastOptions("none"))
	if err != nil || res.Liveness.Status != vocab.StatusOK {
		t.Fatalf("Probe = %v, %v; want ok", res, err)
	}
	if res.Target.Sandbox != "docker" || res.Target.InstalledVersion != "" {
		t.Errorf("target: sandbox %q, installed version %q; want docker and none (it is the plan's 1.2.3)", res.Target.Sandbox, res.Target.InstalledVersion)
	}
}

// TestRemoteHTTPChecksRun: a remote streamable-HTTP server gets the
// HTTP-level checks, through the sandbox's client with the plan's
// headers (one.go:153:32 `c != nil` -> `==` never handed the client to
// the probe, so no check ran). The server here answers a GET with 200
// and text, not an SSE stream or 405, and wants its header on every
// request.
func TestRemoteHTTPChecksRun(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk", Version: "1.0.0"}, nil)
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	var unauthorized atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k3y-for-the-test" {
			unauthorized.Add(1)
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodGet {
			w.Write([]byte("hello"))
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer hs.Close()
	plan := vocab.Plan{Key: "remote", Name: "remote", Source: "cli", Transport: vocab.TransportStreamable, URL: hs.URL + "/mcp",
		Headers: map[string]string{"X-Api-Key": "k3y-for-the-test"}}
	res, err := Probe(context.Background(), &plan, fastOptions("none"))
	if err != nil || !res.Liveness.HandshakeCompleted {
		t.Fatalf("Probe = %+v, %v; want a handshake", res, err)
	}
	found := false
	for _, f := range res.Findings {
		found = found || f.Code == probe.CodeHTTPGet
	}
	if !found || unauthorized.Load() != 0 {
		t.Errorf("HTTP checks: %s found %v, %d requests without the plan's header; want found and none", probe.CodeHTTPGet, found, unauthorized.Load())
	}
}

// TestDetailWithoutEmptyHints: a probe's liveness detail gets a hint
// only when there is one (one.go:300:46 and :305:81 `hint != ""` -> `==`
// appended "; " and nothing to every detail: a server that answered,
// and one that exited at once in an isolating sandbox).
func TestDetailWithoutEmptyHints(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved")
	for _, c := range []struct {
		name, backend, command string
	}{
		{"answers", "none", bins["wellbehaved"]},
		{"exits", "auto", "/bin/false"},
	} {
		plan := vocab.Plan{Key: c.name, Name: c.name, Source: "test", Transport: vocab.TransportStdio, Command: c.command}
		res, err := Probe(context.Background(), &plan, fastOptions(c.backend))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := res.Liveness.Detail; strings.HasSuffix(d, "; ") || strings.Contains(d, "; ;") {
			t.Errorf("%s (status %s): detail %q has an empty hint", c.name, res.Liveness.Status, d)
		}
	}
}

// TestVersionSuffix: a package's version is written as its registry
// spells it, and not at all when there is none (one.go:391:15 and
// :394:20 negated wrote "@" for an unpinned package, or "==" for npm).
func TestVersionSuffix(t *testing.T) {
	for _, c := range []struct {
		p    vocab.Package
		want string
	}{
		{vocab.Package{RegistryType: "npm"}, ""},
		{vocab.Package{RegistryType: "npm", Version: "1.2.3"}, "@1.2.3"},
		{vocab.Package{RegistryType: "pypi", Version: "0.4"}, "==0.4"},
		{vocab.Package{RegistryType: "oci", Version: "2"}, "@2"},
	} {
		if got := versionSuffix(&c.p); got != c.want {
			t.Errorf("versionSuffix(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}

// TestRunOneWithoutKeyOpensTheStoreFirst: for a plan without a key the
// store is opened before anything else, and the store then refuses the
// plan (scan.go:147:13, :147:35, :147:53 negated never opened it and
// reported ErrNoStore instead); the run's conditions are recorded with
// the scan's options (:168:18 `o.Conditions != nil` -> `==` left them
// out).
func TestRunOneWithoutKeyOpensTheStoreFirst(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var st *results.Store
	open := func(ctx context.Context) (*results.Store, error) {
		var err error
		st, err = results.Open(ctx, filepath.Join(dir, "scan.db"), nil)
		return st, err
	}
	keyless := vocab.Plan{Name: "keyless", Source: "test", Transport: vocab.TransportStdio, Command: "/bin/true"}
	_, err := RunOne(ctx, &keyless, &Options{OpenStore: open, Probe: *fastOptions("none"),
		Info: results.ScanInfo{Kind: results.KindProbe, Source: "test"}})
	if err == nil || errors.Is(err, ErrNoStore) || st == nil || !strings.Contains(err.Error(), "empty key") {
		t.Fatalf("RunOne of a keyless plan: %v (store opened: %v); want the store's refusal of the empty key", err, st != nil)
	}
	st.Close()
	st = nil
	plan := launchMarked(t, "keyed", filepath.Join(dir, "launched"))
	cond := &vocab.Conditions{DNS: vocab.DNSCondition{PublicNames: true}}
	res, err := RunOne(ctx, &plan, &Options{OpenStore: open, Probe: *fastOptions("none"), Conditions: cond,
		Info: results.ScanInfo{Kind: results.KindProbe, Source: "test"}})
	if err != nil || res == nil || res.Liveness.Status != vocab.StatusOK {
		t.Fatalf("RunOne = %v, %v; want a stored ok result", res, err)
	}
	defer st.Close()
	scans, err := st.Scans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(scans) != 2 || !strings.Contains(string(scans[len(scans)-1].Options), `"runConditions"`) {
		t.Errorf("scans = %+v, want the keyed probe's options to hold the run's conditions", scans)
	}
}
