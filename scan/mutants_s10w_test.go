package scan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/internal/testenv"
	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestS10WNoGrowthFromZero: a server that had no context cost and still
// has none did not grow (gate.go:271:20 `c.Total > 0` -> `>= 0` counted
// 0 -> 0 tokens as 100 % growth and failed the gate).
func TestS10WNoGrowthFromZero(t *testing.T) {
	res := &probe.Result{Context: &probe.ContextCost{Encoding: "o200k_base", Total: 0}}
	b := &Baseline{Context: &BaselineContext{Encoding: "o200k_base", Total: 0}}
	if g := CheckContext(res, b, ContextLimits{MaxGrowthPct: 10}); g.GrowthPct != 0 || g.OverGrowth {
		t.Errorf("0 -> 0 tokens: growth %v%%, over %v; want 0%%, not over", g.GrowthPct, g.OverGrowth)
	}
}

// TestS10WConditionsWithFakes checks this machine's conditions with a
// resolver, indexes, an engine and runtimes that answer at once: each
// check gets its time (conditions.go:23:28 `5 * time.Second` -> `5 /
// time.Second` gave every check a deadline already past, so a resolver
// that honours its context, as the real one does, resolved nothing and
// the machine looked offline).
func TestS10WConditionsWithFakes(t *testing.T) {
	index := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	defer index.Close()
	down := closedURL(t, "/simple")
	live := func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			return errors.New("no deadline")
		}
		return ctx.Err()
	}
	got := CheckConditions(context.Background(), &ConditionOptions{
		Resolve: func(ctx context.Context, host string) error {
			if host == "unresolvable.example" {
				return &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
			}
			return live(ctx)
		},
		DNSNames: []string{"github.com", "unresolvable.example", "pypi.org"},
		Indexes:  []vocab.IndexCondition{{Name: "npm registry", URL: index.URL}, {Name: "PyPI index", URL: down}},
		Engine: func(ctx context.Context) (string, string) {
			if err := live(ctx); err != nil {
				return "", err.Error()
			}
			return "/usr/bin/docker", ""
		},
		Runtimes: func() []vocab.RuntimeCondition { return []vocab.RuntimeCondition{{Name: "node", Found: true}} },
		Sandbox:  "bwrap",
		Now:      func() time.Time { return time.Date(2026, 12, 2, 12, 0, 0, 0, time.FixedZone("CET", 3600)) },
	})
	for i, ix := range got.Indexes {
		if ix.Name == "PyPI index" && !ix.Answered && ix.Detail != "" {
			got.Indexes[i].Detail = "(refused)"
		}
	}
	want := vocab.Conditions{
		CheckedAt: "2026-12-02T11:00:00Z",
		Sandbox:   "bwrap",
		DNS:       vocab.DNSCondition{PublicNames: true, Resolved: []string{"github.com", "pypi.org"}, Failed: []string{"unresolvable.example"}},
		Indexes: []vocab.IndexCondition{
			{Name: "npm registry", URL: index.URL, Answered: true, Detail: "HTTP 200 OK"},
			{Name: "PyPI index", URL: down, Answered: false, Detail: "(refused)"},
		},
		ContainerEngine: "/usr/bin/docker",
		Runtimes:        []vocab.RuntimeCondition{{Name: "node", Found: true}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckConditions (-want +got):\n%s", diff)
	}
}

// TestS10WDeclaredVersionChecked: a plan with a server.json gets the
// declared-versus-observed checks (one.go:297:26 `len(plan.ServerJSON) >
// 0` -> `<= 0` skipped them: a server reporting 1.2.3 where its registry
// entry says 9.9.9 went without declared/version_mismatch). The boundary
// mutant (`>= 0`) is equivalent: CheckDeclared returns nil for an empty
// server.json.
func TestS10WDeclaredVersionChecked(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved")
	plan := vocab.Plan{Key: "declared", Name: "io.example/wellbehaved", Source: "registry", Transport: vocab.TransportStdio,
		Command: bins["wellbehaved"], ServerJSON: json.RawMessage(`{"name":"io.example/wellbehaved","version":"9.9.9"}`)}
	res, err := Probe(context.Background(), &plan, fastOptions("none"))
	if err != nil || !res.Liveness.HandshakeCompleted {
		t.Fatalf("Probe = %+v, %v; want a handshake", res, err)
	}
	var got []string
	for _, f := range res.Findings {
		if f.Code == probe.CodeDeclaredVersion {
			got = append(got, f.Value)
		}
	}
	if !slices.Equal(got, []string{"1.2.3"}) {
		t.Errorf("%s findings with values %q; want one, for serverInfo.version 1.2.3", probe.CodeDeclaredVersion, got)
	}
}

// TestS10WUnexposedHintOnlyInASandbox: a server that stops on a missing
// file gets the hint to expose it only when a sandbox hid that file.
// Without one (--sandbox none) the server saw the host's files: the file
// it names exists, and "not exposed to the sandbox; pass --expose" would
// send the user after the wrong cause; in a sandbox (auto) the hint names
// the file (one.go:304:58 `!= BackendNone` -> `==` gave the hint without a
// sandbox, and only there).
func TestS10WUnexposedHintOnlyInASandbox(t *testing.T) {
	data := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(data, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := vocab.Plan{Key: "reader", Name: "reader", Source: "test", Transport: vocab.TransportStdio,
		Command: "/bin/sh", Args: []string{"-c", `echo "Error: ENOENT: no such file or directory, open '` + data + `'" >&2; exit 1`}}
	for _, c := range []struct {
		backend string
		hint    bool
	}{
		{"none", false},
		{"auto", true},
	} {
		res, err := Probe(context.Background(), &plan, fastOptions(c.backend))
		if err != nil {
			t.Fatal(err)
		}
		l := res.Liveness
		if hint := strings.Contains(l.Detail, "exists on the host but is not exposed to the sandbox"); l.HandshakeCompleted || hint != c.hint {
			t.Errorf("sandbox %s (%s): %s: detail %q; want a hint to expose %s: %v", c.backend, res.Target.Sandbox, l.Status, l.Detail, data, c.hint)
		}
	}
}

// TestS10WUnpinnedNPMRecordsWhatRan: an unpinned npm package ("latest")
// records the version that ran, in the target and in the command the
// result shows (one.go:144:35 `v != ""` -> `==` dropped the installed
// version; :309:35, :309:57 and :309:69 negated kept the plan's empty
// version and the bare "npm:NAME" command). The registry is a local
// fake whose latest is 1.4.0 and npm a script on PATH that installs the
// echo server of the sandbox tests under that version: the -short suite
// runs no real npm.
func TestS10WUnpinnedNPMRecordsWhatRan(t *testing.T) {
	const name = "mcpvet-s10w-echo"
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Need(t, "node is not installed")
	}
	echo, err := filepath.Abs(filepath.Join("..", "sandbox", "testdata", "echo-server.js"))
	if err != nil {
		t.Fatal(err)
	}
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/"+name {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"name": name, "dist-tags": map[string]string{"latest": "1.4.0"},
			"versions": map[string]any{"1.3.0": map[string]any{"name": name, "version": "1.3.0"},
				"1.4.0": map[string]any{"name": name, "version": "1.4.0"}}})
	}))
	defer reg.Close()
	tools := t.TempDir()
	// npm install --prefix DIR ... -- NAME@VERSION
	script := `#!/bin/sh
prefix= spec=
while [ $# -gt 0 ]; do
  case "$1" in
  --prefix) prefix=$2; shift ;;
  --) spec=$2; shift ;;
  esac
  shift
done
pkg="$prefix/node_modules/${spec%@*}"
mkdir -p "$pkg" || exit 1
printf '{"name":"%s","version":"%s","bin":"server.js"}\n' "${spec%@*}" "${spec##*@}" >"$pkg/package.json"
cp '` + echo + `' "$pkg/server.js"
`
	if err := os.WriteFile(filepath.Join(tools, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	plan := vocab.Plan{Key: "npm:" + name, Name: name, Source: "config", Transport: vocab.TransportStdio, Launcher: "npx",
		Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: reg.URL, Identifier: name}}
	opts := fastOptions("none")
	opts.Sandbox.CacheDir = t.TempDir()
	res, err := Probe(context.Background(), &plan, opts)
	if err != nil || !res.Liveness.HandshakeCompleted {
		t.Fatalf("Probe = %+v, %v; want a handshake", res.Liveness, err)
	}
	got := []string{res.Target.Version, res.Target.InstalledVersion, strings.Join(res.Target.Command, " ")}
	want := []string{"1.4.0", "1.4.0", "npm:" + name + "@1.4.0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("target version, installed version, command (-want +got):\n%s", diff)
	}
}

// TestS10WRunAttributesUnresolvedRemote: in a run on a machine where DNS
// resolves no public name, a remote whose host did not resolve is put on
// the machine, not the server: not assessed, with that cause (scan.go
// :263:10 `res != nil` -> `==` never attributed it inside a run: the
// server was graded as broken).
func TestS10WRunAttributesUnresolvedRemote(t *testing.T) {
	ctx := context.Background()
	dns := startNXDomainDNS(t)
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", dns)
	}}
	conds := vocab.Conditions{CheckedAt: "2026-12-02T12:00:00Z", Sandbox: "none",
		DNS: vocab.DNSCondition{Failed: []string{"github.com", "pypi.org"}, Detail: "no such host"}}
	st, err := results.Open(ctx, filepath.Join(t.TempDir(), "scan.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := fastOptions("none")
	opts.Sandbox.Resolver = resolver
	plans := []vocab.Plan{{Key: "remote", Name: "io.example/remote", Source: "cli", Transport: vocab.TransportStreamable, URL: "https://mcp.example.com/mcp"}}
	sum, err := Run(ctx, &Options{Store: st, Plans: plans, Concurrency: 1, Probe: *opts, Conditions: &conds,
		Info: results.ScanInfo{Kind: results.KindScan, Source: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := results.BuildReport(ctx, st, sum.ScanID, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := r.Census.Verdicts
	var causes []string
	for _, c := range v.NotAssessedCauses {
		causes = append(causes, c.Cause)
	}
	if v.NotAssessed != 1 || v.Assessed != 0 || !strings.Contains(strings.Join(causes, "; "), "DNS resolves no public name here") {
		t.Errorf("assessed %d, not assessed %d, causes %q; want the remote not assessed, for DNS", v.Assessed, v.NotAssessed, causes)
	}
}

// TestS10WStoredWhileTheLaunchIsStillThere: RunOne stores the result
// before the launch is torn down, not after (issue 25, probe cost: the
// teardown overlaps the grading and the store). The launch's run folder,
// which the teardown removes, is still there when the result is stored,
// and gone when RunOne returns. (one.go:126:11 `torn == nil` -> `!=`
// tore the launch down on the way out of the probe, before the store: an
// earlier session took it for equivalent, as only the time differs, but
// the order shows without a clock.) The teardown here waits until the
// result is stored.
func TestS10WStoredWhileTheLaunchIsStillThere(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := results.Open(ctx, filepath.Join(dir, "scan.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bins := testfixture.Build(t, "wellbehaved")
	// The run folders are made in TMPDIR.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	runDirs := func() []string {
		names, err := filepath.Glob(filepath.Join(tmp, "*"))
		if err != nil {
			t.Error(err)
		}
		return names
	}
	plan := vocab.Plan{Key: "rundir", Name: "rundir", Source: "test", Transport: vocab.TransportStdio, Command: bins["wellbehaved"]}
	stored := make(chan struct{})
	beforeTeardown = func() {
		select {
		case <-stored:
		case <-time.After(30 * time.Second): // bounds the failing case only
		}
	}
	defer func() { beforeTeardown = nil }()
	var atStore []string
	res, err := RunOne(ctx, &plan, &Options{Store: st, Probe: *fastOptions("none"),
		Info: results.ScanInfo{Kind: results.KindProbe, Source: "test"},
		Progress: func(Progress) {
			atStore = runDirs()
			close(stored)
		}})
	if err != nil || res == nil || res.Liveness.Status != vocab.StatusOK {
		t.Fatalf("RunOne = %v, %v; want a stored ok result", res, err)
	}
	if len(atStore) != 1 {
		t.Errorf("run folders when the result was stored: %q; want the launch's, not yet torn down", atStore)
	}
	if after := runDirs(); len(after) != 0 {
		t.Errorf("run folders after RunOne: %q; want none", after)
	}
}

// TestS10WMaskSameValueOneName: one token configured under two names (a
// GITHUB_TOKEN and a GH_TOKEN holding the same value, as users set both
// for the tools that read either) is masked under one name, the same in
// every run: the first in alphabetical order. (secrets.go:83:19
// `names[i] < names[j]` -> `>=` masked it as the other name: an earlier
// session took the order among values of one length for unobservable,
// but two names may hold one value, and the replacer takes the first
// pair that matches.)
func TestS10WMaskSameValueOneName(t *testing.T) {
	const token = "ghp_0123456789abcdef"
	mask := map[string]string{"GITHUB_TOKEN": token, "GH_TOKEN": token, "header Authorization": "Bearer " + token}
	for range 5 { // the map's order differs between runs
		res := &probe.Result{Liveness: probe.Liveness{Detail: "echoed " + token + " and Bearer " + token}}
		out := maskResult(res, mask)
		if want := "echoed [secret GH_TOKEN] and [secret header Authorization]"; out.Liveness.Detail != want {
			t.Fatalf("masked %q, want %q", out.Liveness.Detail, want)
		}
	}
}

// TestS10WRecheckOnlyAfterAFailedStart: a sandbox pass saved by an earlier
// process is dropped, and checked again, when a server fails to start
// under it, and only then (issue 25: the saved pass spares every later
// process a sandboxed rehearsal; see [sandbox.Recheck]). Each probe runs
// in a process of its own (this test binary, running
// TestS10WRecheckChild), as a pass read from a record is a process's
// state. The test rewrites the saved record indented, which the sandbox
// reads like the compact one it writes: an indented record afterwards is
// the one the test left, a compact one was dropped and saved again.
// (one.go:170:41 `SpawnError != ""` -> `==` launched every server that
// started twice, after a check, and kept the pass of a sandbox whose
// servers no longer start.)
func TestS10WRecheckOnlyAfterAFailedStart(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	probeIn := func(command string) string {
		t.Helper()
		cmd := exec.Command(exe, "-test.run", "^TestS10WRecheckChild$", "-test.short")
		cmd.Env = append(os.Environ(), "MCPVET_S10W_CACHE="+cache, "MCPVET_S10W_COMMAND="+command)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("probe of %s in a process of its own: %v\n%s", command, err, out)
		}
		_, status, _ := strings.Cut(string(out), "status=")
		status, _, _ = strings.Cut(status, "\n")
		return status
	}
	record := func() string {
		t.Helper()
		names, _ := filepath.Glob(filepath.Join(cache, "sandbox", "available-*.json"))
		if len(names) != 1 {
			t.Fatalf("sandbox records %q; want one", names)
		}
		return names[0]
	}
	indent := func(file string) {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var state map[string]string
		if err := json.Unmarshal(b, &state); err != nil {
			t.Fatal(err)
		}
		b, _ = json.MarshalIndent(state, "", "  ")
		if err := os.WriteFile(file, b, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	indented := func(file string) bool {
		b, err := os.ReadFile(file)
		return err == nil && strings.Contains(string(b), "\n  ")
	}

	if status := probeIn(bins["wellbehaved"]); status != string(vocab.StatusOK) {
		t.Skipf("the first probe, which saves the pass: status %q; no isolating sandbox here", status)
	}
	file := record()
	indent(file)
	if status := probeIn(bins["wellbehaved"]); status != string(vocab.StatusOK) || !indented(file) {
		t.Errorf("a server that started under the saved pass: status %q, the pass kept as it was: %v; want ok, kept", status, indented(file))
	}
	indent(file)
	if status := probeIn("/nonexistent/mcp-server"); status != string(vocab.StatusSpawnFailed) || indented(file) || record() != file {
		t.Errorf("a server that failed to start under the saved pass: status %q, the pass kept as it was: %v; want %s, checked and saved again",
			status, indented(file), vocab.StatusSpawnFailed)
	}
}

// TestS10WRecheckChild is TestS10WRecheckOnlyAfterAFailedStart's probe in
// a process of its own; it prints the liveness status.
func TestS10WRecheckChild(t *testing.T) {
	cache, command := os.Getenv("MCPVET_S10W_CACHE"), os.Getenv("MCPVET_S10W_COMMAND")
	if cache == "" {
		t.Skip("run by TestS10WRecheckOnlyAfterAFailedStart")
	}
	plan := vocab.Plan{Key: "recheck", Name: "recheck", Source: "test", Transport: vocab.TransportStdio, Command: command}
	opts := fastOptions("auto")
	opts.Sandbox.CacheDir = cache
	res, err := Probe(context.Background(), &plan, opts)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("status=%s\n", res.Liveness.Status)
}
