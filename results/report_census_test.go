package results_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
	"github.com/mcpvet/mcpvet/vocab"
)

// censusView is the part of the census TestCensusFigures checks.
type censusView struct {
	Servers, Handshake              [2]int
	Groups                          map[string]int
	Tools                           int
	ToolsMean, ToolsMedian, ToolP90 float64
	SchemaFatal, SchemaSoft         [2]int
	FatalServers                    [2]int
	Hints                           map[string][2]int
	AnyOmitted, NoAnn               [2]int
	Checked, Legacy                 int
	Scored                          [2]int
	ScoreMedian                     float64
	Deciles                         []int
	Probes, Graded, GradedServers   int
	Classes                         map[string]int
	Elements                        map[string][2]int
	Keep, Fix, Drop                 [2]int
	NoVerdict                       int
	Rules                           map[string]int
	Findings                        map[string][2]int
	Packages, SDKs                  map[string]int
	Protocols                       map[string][2]int
}

func pair(p results.Proportion) [2]int { return [2]int{p.Count, p.Total} }

func viewCensus(c *results.Census) censusView {
	v := censusView{
		Servers: [2]int{c.Servers, c.Servers}, Handshake: pair(c.Handshake), Groups: map[string]int{},
		Tools: c.Tools.Total, ToolsMean: c.Tools.PerServer.Mean, ToolsMedian: c.Tools.PerServer.Median, ToolP90: c.Tools.PerServer.P90,
		SchemaFatal: pair(c.Schema.FatalTools), SchemaSoft: pair(c.Schema.SoftTools), FatalServers: pair(c.Schema.FatalServers),
		Hints: map[string][2]int{}, AnyOmitted: pair(c.Annotations.AnyOmitted), NoAnn: pair(c.Annotations.NoAnnotations),
		Checked: c.Annotations.ToolsChecked, Legacy: c.Annotations.LegacyTools,
		Scored: pair(c.Score.Scored), ScoreMedian: c.Score.Distribution.Median,
		Probes: c.Errors.Probes, Graded: c.Errors.Graded, GradedServers: c.Errors.Servers,
		Classes: map[string]int{}, Elements: map[string][2]int{},
		Keep: pair(c.Verdicts.Keep), Fix: pair(c.Verdicts.Fix), Drop: pair(c.Verdicts.Drop), NoVerdict: c.Verdicts.Without,
		Rules: map[string]int{}, Findings: map[string][2]int{},
		Packages: map[string]int{}, SDKs: map[string]int{}, Protocols: map[string][2]int{},
	}
	for _, g := range c.Liveness {
		if g.Share.Count > 0 {
			v.Groups[g.Group] = g.Share.Count
		}
	}
	for _, h := range c.Annotations.Hints {
		v.Hints[h.Hint] = pair(h.Omitted)
	}
	for _, d := range c.Score.Deciles {
		v.Deciles = append(v.Deciles, d.Count)
	}
	for _, cl := range c.Errors.Classes {
		v.Classes[cl.Class] = cl.Share.Count
	}
	for _, e := range c.Errors.Elements {
		v.Elements[e.Element] = pair(e.Pass)
	}
	for _, r := range c.Verdicts.Rules {
		v.Rules[r.Rule+"→"+r.Decision] = r.Servers
	}
	for _, f := range c.Findings {
		v.Findings[f.Code] = [2]int{f.Servers.Count, f.Occurrences}
	}
	for _, b := range c.Breakdowns.PackageType {
		v.Packages[b.Key] = b.Servers
	}
	for _, b := range c.Breakdowns.SDK {
		v.SDKs[b.Key] = b.Servers
	}
	for _, b := range c.Breakdowns.ProtocolVersion {
		v.Protocols[b.Key] = pair(b.Handshake)
	}
	return v
}

// TestCensusFigures checks every census figure of the fixture against
// counts worked out by hand from fixtureTargets.
func TestCensusFigures(t *testing.T) {
	st, _, id := fixture.Store(t)
	r, err := results.BuildReport(context.Background(), st, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := censusView{
		Servers: [2]int{8, 8}, Handshake: [2]int{4, 8},
		Groups: map[string]int{results.GroupHandshake: 4, results.GroupNeverStarted: 1, results.GroupMissingCredentials: 1,
			results.GroupNeedsConfiguration: 1, results.GroupUnreachable: 1},
		// Tools of the four live servers: 3, 2, 2, 1.
		Tools: 8, ToolsMean: 2, ToolsMedian: 2, ToolP90: 2.7,
		SchemaFatal: [2]int{1, 8}, SchemaSoft: [2]int{2, 8}, FatalServers: [2]int{1, 4},
		// Seven tools checked (the 2024-11-05 server's one is not); four
		// of them are not marked read-only.
		Hints:      map[string][2]int{"readOnlyHint": {3, 7}, "destructiveHint": {2, 4}, "idempotentHint": {2, 4}, "openWorldHint": {3, 7}},
		AnyOmitted: [2]int{3, 7}, NoAnn: [2]int{3, 7}, Checked: 7, Legacy: 1,
		Scored: [2]int{3, 4}, ScoreMedian: 20, Deciles: []int{1, 0, 1, 0, 0, 0, 0, 0, 1, 0},
		Probes: 4, Graded: 4, GradedServers: 3,
		Classes: map[string]int{"tool_error": 3, "crash": 1},
		Elements: map[string][2]int{"channel": {3, 4}, "param": {2, 3}, "value_or_form": {1, 3}, "next_action": {1, 3},
			"code": {1, 3}, "retryable": {0, 3}, "no_leak": {3, 4}, "bounded": {2, 3}},
		Keep: [2]int{2, 7}, Fix: [2]int{1, 7}, Drop: [2]int{4, 7}, NoVerdict: 1,
		Rules: map[string]int{"no_handshake→drop": 3, "keep_otherwise→keep": 2, "crash_or_hang_on_invalid_input→drop": 1,
			"findings_to_fix→fix": 1},
		Findings: map[string][2]int{
			probe.CodeMissingReadOnlyHint: {3, 3}, probe.CodeMissingOpenWorldHint: {3, 3},
			probe.CodeMissingDestructiveHint: {2, 2}, probe.CodeMissingIdempotentHint: {2, 2},
			probe.CodeNotAlive: {2, 2}, probe.CodeAnnotationsNotInVersion: {1, 1}, probe.CodeInputMissing: {1, 1},
			probe.CodeInputRootTypeMissing: {1, 1}, probe.CodePropertyNoDescription: {1, 1},
		},
		Packages: map[string]int{"npm": 5, "pypi": 1, "oci": 1, "remote": 1},
		SDKs: map[string]int{results.SDKNoHandshake: 4, results.SDKUnknown: 1, "python: FastMCP": 1,
			"typescript: reference servers": 1, "rust: rmcp": 1},
		Protocols: map[string][2]int{"none (no handshake)": {0, 4}, "2025-06-18": {2, 2}, "2025-11-25": {1, 1}, "2024-11-05": {1, 1}},
	}
	if diff := cmp.Diff(want, viewCensus(r.Census)); diff != "" {
		t.Errorf("census (-want +got):\n%s", diff)
	}
	if got := r.Pending(); got != 1 {
		t.Errorf("Pending() = %d, want 1", got)
	}
	var names []string
	for _, row := range r.Rows {
		names = append(names, row.Name)
	}
	wantNames := []string{"com.example/remote", "io.github.acme/db-admin", "io.github.acme/weather", "io.github.cfg/needs-config",
		"io.github.dead/broken", fixture.HostileName, "io.github.octo/github-mcp", "io.github.rusty/files"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("row order (-want +got):\n%s", diff)
	}
}

func TestClassify(t *testing.T) {
	pkg := []struct {
		name string
		t    probe.Target
		want string
	}{
		{"npm plan", probe.Target{Command: []string{"npm:@a/b@1.0.0"}}, "npm"},
		{"pypi plan", probe.Target{Command: []string{"pypi:x==1"}}, "pypi"},
		{"oci plan", probe.Target{Command: []string{"oci:ghcr.io/a/b:1"}}, "oci"},
		{"mcpb plan", probe.Target{Command: []string{"mcpb:https://x/b.mcpb"}}, "mcpb"},
		{"npx command", probe.Target{Command: []string{"/usr/bin/npx", "-y", "pkg"}}, "npm"},
		{"npx.cmd", probe.Target{Command: []string{"npx.cmd", "pkg"}}, "npm"},
		{"uvx command", probe.Target{Command: []string{"uvx", "pkg"}}, "pypi"},
		{"docker command", probe.Target{Command: []string{"docker", "run", "-i", "img"}}, "oci"},
		{"local command", probe.Target{Command: []string{"node", "server.js"}}, "command"},
		{"unknown prefix", probe.Target{Command: []string{"c:\\tools\\server.exe"}}, "command"},
		{"url", probe.Target{Transport: "streamable-http", URL: "https://x/mcp"}, "remote"},
		{"sse", probe.Target{Transport: "sse"}, "remote"},
		{"nothing", probe.Target{}, "command"},
	}
	for _, tt := range pkg {
		if got := results.PackageType(tt.t); got != tt.want {
			t.Errorf("PackageType(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
	live := func(name string) probe.Liveness {
		return probe.Liveness{HandshakeCompleted: true, ServerInfo: &probe.ServerInfo{Name: name}}
	}
	sdk := []struct {
		name string
		l    probe.Liveness
		want string
	}{
		{"fastmcp default", live("FastMCP"), "python: FastMCP"},
		{"fastmcp suffixed", live("fastmcp-1234"), "python: FastMCP"},
		{"named fastmcp server", live("weather"), results.SDKUnknown},
		{"rmcp", live("rmcp"), "rust: rmcp"},
		{"reference", live("mcp-servers/everything"), "typescript: reference servers"},
		{"old reference", live("example-servers/everything"), "typescript: reference servers"},
		{"no serverInfo", probe.Liveness{HandshakeCompleted: true}, results.SDKUnknown},
		{"dead", probe.Liveness{ServerInfo: &probe.ServerInfo{Name: "FastMCP"}}, results.SDKNoHandshake},
	}
	for _, tt := range sdk {
		if got, _ := results.SDKOf(tt.l); got != tt.want {
			t.Errorf("SDKOf(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
	groups := []struct {
		l    probe.Liveness
		want string
	}{
		{probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true}, results.GroupHandshake},
		{probe.Liveness{Status: vocab.StatusStdoutPollution, HandshakeCompleted: true}, results.GroupHandshake},
		{probe.Liveness{Status: vocab.StatusUnreachable}, results.GroupUnreachable},
		{probe.Liveness{Status: vocab.StatusSpawnFailed}, results.GroupNeverStarted},
		{probe.Liveness{Status: vocab.StatusExitedEarly}, results.GroupNeverStarted},
		{probe.Liveness{Status: vocab.StatusInstallFailed}, results.GroupNotInstallable},
		{probe.Liveness{Status: vocab.StatusRuntimeUnavailable}, results.GroupNotInstallable},
		{probe.Liveness{Status: vocab.StatusInvalidPlan}, results.GroupNotInstallable},
		{probe.Liveness{Status: vocab.StatusHandshakeTimeout}, results.GroupTimeout},
		{probe.Liveness{Status: vocab.StatusLimitExceeded}, results.GroupOther},
		{probe.Liveness{Status: "from_the_future"}, results.GroupOther},
	}
	for _, tt := range groups {
		if got := results.GroupOf(tt.l); got != tt.want {
			t.Errorf("GroupOf(%s, handshake %v) = %q, want %q", tt.l.Status, tt.l.HandshakeCompleted, got, tt.want)
		}
	}
	// Every status of this build belongs to a named group.
	for _, s := range vocab.Statuses {
		if s.Status == vocab.StatusStdoutPollution {
			continue
		}
		if got := results.GroupOf(probe.Liveness{Status: s.Status, HandshakeCompleted: s.Status == vocab.StatusOK}); got == results.GroupOther && s.Status != vocab.StatusLimitExceeded {
			t.Errorf("status %s falls in the other group", s.Status)
		}
	}
}

// TestLeanCensusMatchesFull checks that the report's lean, parallel pass
// computes the same census and rows as a Tally fed the fully decoded
// results of Store.Runs.
func TestLeanCensusMatchesFull(t *testing.T) {
	ctx := context.Background()
	st, _, _ := fixture.Store(t)
	id, err := st.NewScan(ctx, results.ScanInfo{Kind: results.KindScan, Source: "generated"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		plan, res := fixture.CensusResult(i)
		if _, err := st.SaveRun(ctx, id, plan.Key, res); err != nil {
			t.Fatal(err)
		}
	}
	for _, scan := range []int64{1, id} {
		full := results.NewTally()
		var rows []results.ServerRow
		for rec, err := range st.Runs(ctx, scan) {
			if err != nil {
				t.Fatal(err)
			}
			full.Add(rec.Result)
			rows = append(rows, results.RowOf(rec))
		}
		r, err := results.BuildReport(ctx, st, scan, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(full.CensusOf(r.Scan))
		got, _ := json.Marshal(r.Census)
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("scan %d: lean census differs from the full one (-want +got):\n%s", scan, diff)
		}
		sortRows := func(rs []results.ServerRow) map[int64]results.ServerRow {
			m := map[int64]results.ServerRow{}
			for _, r := range rs {
				m[r.RunID] = r
			}
			return m
		}
		if diff := cmp.Diff(sortRows(rows), sortRows(r.Rows)); diff != "" {
			t.Errorf("scan %d: lean rows differ (-want +got):\n%s", scan, diff)
		}
	}
}

// TestCensusRemotesOAuth: the census counts the remote plans and, of those
// that answered 401, the OAuth readiness (ready / not / broken metadata /
// not checked), through the stored run summaries.
func TestCensusRemotesOAuth(t *testing.T) {
	ctx := context.Background()
	st, _, _ := fixture.Store(t)
	id, err := st.NewScan(ctx, results.ScanInfo{Kind: results.KindScan, Source: "generated"})
	if err != nil {
		t.Fatal(err)
	}
	readiness := []string{probe.OAuthReady, probe.OAuthNotReady, probe.OAuthNotReady, probe.OAuthBroken, probe.OAuthNotChecked, "", ""}
	for i, r := range readiness {
		plan, res := fixture.CensusResult(i)
		res.Target.URL = fmt.Sprintf("https://remote%d.example/mcp", i)
		res.Target.Transport = "streamable-http"
		if r != "" {
			res.Liveness.Status = vocab.StatusMissingCredentials
			res.Liveness.HandshakeCompleted = false
			res.OAuth = &probe.OAuthReadiness{Readiness: r}
		}
		if _, err := st.SaveRun(ctx, id, plan.Key, res); err != nil {
			t.Fatal(err)
		}
	}
	plan, res := fixture.CensusResult(99) // a local server: not a remote
	res.Target.URL = ""
	if _, err := st.SaveRun(ctx, id, plan.Key, res); err != nil {
		t.Fatal(err)
	}
	r, err := results.BuildReport(ctx, st, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := r.Census.Remotes
	exact := func(k, n int) results.Proportion { p := results.Prop(k, n); p.Exact = true; return p }
	want := results.RemoteFigures{Plans: 7, Unauthorized: 5,
		OAuthReady: exact(1, 5), OAuthNotReady: exact(2, 5), OAuthBroken: exact(1, 5), NotChecked: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("remotes (-want +got):\n%s", diff)
	}
}
