package results_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/scan/vocab"
)

// Hostile strings of the fixture: markup in a tool description, terminal
// escapes in an error text and in stderr, Markdown and a spreadsheet
// formula in the server's name and version.
const (
	hostileScript  = "<script>alert(1)</script>"
	hostileName    = "io.github.evil/<img src=x onerror=alert(2)>|*pwn*|[x](javascript:alert(3))"
	hostileVersion = "=HYPERLINK(\"http://evil\")"
	hostileEscape  = "\x1b[31m"
)

func f64(x float64) *float64 { return &x }
func intp(x int) *int        { return &x }

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }

// graded returns a graded probe with the given element results.
func graded(kind, tool, param, class, text string, score float64, pass map[string]bool, order ...string) probe.ProbeCall {
	p := probe.ProbeCall{Kind: kind, Method: "tools/call", Tool: tool, Param: param,
		Sent:  rawJSON(`{"name":"` + tool + `","arguments":{"` + param + `":12345}}`),
		Class: class, LatencyMs: 12.5, Text: text, Score: f64(score),
		Response: rawJSON(`{"content":[{"type":"text","text":` + mustJSON(text) + `}],"isError":true}`)}
	for _, name := range order {
		ev := "no " + name + " in the text"
		if pass[name] {
			ev = "found " + name
		}
		p.Elements = append(p.Elements, probe.Element{Name: name, Pass: pass[name], Evidence: ev})
	}
	return p
}

func mustJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

var elementOrder = []string{"channel", "param", "value_or_form", "next_action", "code", "retryable", "no_leak", "bounded"}

func tool(name, desc, ann string) probe.Tool {
	t := probe.Tool{Name: name, Description: desc,
		InputSchema: rawJSON(`{"type":"object","properties":{"q":{"type":"string"}}}`)}
	if ann != "" {
		t.Annotations = rawJSON(ann)
	}
	raw, _ := json.Marshal(t)
	t.Raw = raw
	return t
}

func verdict(decision, fired string, findings ...string) *probe.Verdict {
	v := &probe.Verdict{Decision: decision}
	for _, r := range []struct{ name, decision string }{
		{"no_handshake", "drop"}, {"crash_or_hang_on_invalid_input", "drop"}, {"leaks_secret", "drop"},
		{"fatal_finding", "drop"}, {"findings_to_fix", "fix"}, {"low_actionability_score", "fix"}, {"keep_otherwise", "keep"},
	} {
		rule := probe.Rule{Name: r.name, Decision: r.decision, Fired: r.name == fired}
		if rule.Fired {
			rule.Findings = findings
			rule.Detail = "decided by " + r.name
		}
		v.Rules = append(v.Rules, rule)
		if rule.Fired {
			break
		}
	}
	return v
}

// fixtureTarget pairs a launch plan with the result of probing it.
type fixtureTarget struct {
	plan vocab.Plan
	res  *probe.Result
}

func fixtureTargets() []fixtureTarget {
	alive := func(t probe.Target, proto, name, version string) *probe.Result {
		return &probe.Result{
			Target: t,
			Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true, ProtocolVersion: proto,
				ServerInfo: &probe.ServerInfo{Name: name, Version: version}, Handshake: "initialize",
				Capabilities: rawJSON(`{"tools":{}}`),
				Timings:      probe.Timings{StartMs: 80, HandshakeMs: 210.5, ListMs: 12, ProbeMs: 400, TotalMs: 900}},
			RubricVersion: "errors-v1",
		}
	}
	npm := func(name, version string) probe.Target {
		return probe.Target{Name: name, Version: version, Source: "registry", Transport: "stdio",
			Command: []string{"npm:" + name + "@" + version}, Sandbox: "builtin"}
	}

	// 1. A healthy npm server: keep.
	healthy := alive(npm("io.github.acme/weather", "1.2.0"), "2025-06-18", "weather-server", "1.2.0")
	healthy.Tools = []probe.Tool{
		tool("get_forecast", "Forecast for a city.", `{"readOnlyHint":true,"openWorldHint":true}`),
		tool("list_cities", "Known cities.", `{"readOnlyHint":true,"openWorldHint":false}`),
		tool("set_units", "Set metric or imperial units.", ""),
	}
	healthy.Prompts = []probe.Prompt{{Name: "daily", Raw: rawJSON(`{"name":"daily"}`)}}
	healthy.Findings = []probe.Finding{
		probe.NewFinding(probe.CodeMissingReadOnlyHint, "tool:set_units", "/annotations/readOnlyHint", "", "the tool does not set annotations.readOnlyHint"),
		probe.NewFinding(probe.CodeMissingDestructiveHint, "tool:set_units", "/annotations/destructiveHint", "", "the tool does not set annotations.destructiveHint"),
		probe.NewFinding(probe.CodeMissingIdempotentHint, "tool:set_units", "/annotations/idempotentHint", "", "the tool does not set annotations.idempotentHint"),
		probe.NewFinding(probe.CodeMissingOpenWorldHint, "tool:set_units", "/annotations/openWorldHint", "", "the tool does not set annotations.openWorldHint"),
		probe.NewFinding(probe.CodePropertyNoDescription, "tool:get_forecast", "/inputSchema/properties/q", "", "property q has no description"),
	}
	healthy.Probes = []probe.ProbeCall{
		graded("wrong_type", "get_forecast", "q", "tool_error", "invalid_argument: q must be a string such as \"Paris\"; call list_cities for names", 85,
			map[string]bool{"channel": true, "param": true, "value_or_form": true, "next_action": true, "code": true, "no_leak": true, "bounded": true}, elementOrder...),
		graded("missing_required", "get_forecast", "q", "tool_error", "missing q", 55,
			map[string]bool{"channel": true, "param": true, "no_leak": true, "bounded": true}, elementOrder...),
	}
	healthy.Calls = []probe.Call{{Seq: 1, Method: "initialize", InputHash: "0123456789abcdef", LatencyMs: 210, OutputBytes: 300, Outcome: "result"}}
	healthy.Score = f64(82.5)
	healthy.Verdict = verdict("keep", "keep_otherwise")

	// 2. A server that never started: drop.
	dead := &probe.Result{Target: npm("io.github.dead/broken", "0.0.1"),
		Liveness: probe.Liveness{Status: vocab.StatusExitedEarly, Detail: "the process exited with code 1 before the handshake",
			StderrTail: "node:internal/modules/cjs/loader:1228\n  throw err;\nError: Cannot find module './dist/index.js'\n",
			ExitCode:   intp(1), Timings: probe.Timings{StartMs: 40, TotalMs: 350}}}
	dead.Findings = []probe.Finding{probe.NewFinding(probe.CodeNotAlive, "server", "", "", "the server exited before the handshake")}
	dead.Verdict = verdict("drop", "no_handshake", probe.CodeNotAlive)

	// 3. Missing credentials (pypi): drop.
	creds := &probe.Result{Target: probe.Target{Name: "io.github.octo/github-mcp", Version: "2.0.0", Source: "registry",
		Transport: "stdio", Command: []string{"pypi:github-mcp==2.0.0"}},
		Liveness: probe.Liveness{Status: vocab.StatusMissingCredentials, Detail: "the server asked for a credential",
			Evidence: "Error: GITHUB_TOKEN environment variable is required", ExitCode: intp(2),
			StderrTail: "Error: GITHUB_TOKEN environment variable is required\n", Timings: probe.Timings{TotalMs: 700}}}
	creds.Findings = []probe.Finding{probe.NewFinding(probe.CodeNotAlive, "server", "", "", "the server exited before the handshake")}
	creds.Verdict = verdict("drop", "no_handshake", probe.CodeNotAlive)

	// 4. A hostile server: fix.
	hostile := alive(probe.Target{Name: hostileName, Version: hostileVersion, Source: "registry", Transport: "stdio",
		Command: []string{"oci:ghcr.io/evil/mcp:1"}}, "2025-11-25", "FastMCP", "2.3.0")
	hostile.Tools = []probe.Tool{
		tool("run_query", hostileScript, `{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}`),
		tool("delete_row", "Deletes | a *row* `now`", ""),
	}
	hostile.Liveness.StderrTail = "starting\x1b]0;pwned\x07 server " + hostileEscape + "red\x1b[0m\n"
	hostile.Findings = []probe.Finding{
		probe.NewFinding(probe.CodeMissingReadOnlyHint, "tool:delete_row", "/annotations/readOnlyHint", "", "the tool does not set annotations.readOnlyHint"),
		probe.NewFinding(probe.CodeMissingDestructiveHint, "tool:delete_row", "/annotations/destructiveHint", "", "the tool does not set annotations.destructiveHint"),
		probe.NewFinding(probe.CodeMissingIdempotentHint, "tool:delete_row", "/annotations/idempotentHint", "", "the tool does not set annotations.idempotentHint"),
		probe.NewFinding(probe.CodeMissingOpenWorldHint, "tool:delete_row", "/annotations/openWorldHint", "", "the tool does not set annotations.openWorldHint"),
		probe.NewFinding(probe.CodeInputRootTypeMissing, "tool:run_query", "/inputSchema", hostileScript, "no root type; saw "+hostileEscape+"this"),
	}
	hostile.Probes = []probe.ProbeCall{
		graded("wrong_type", "run_query", "sql", "tool_error", "Error: "+hostileEscape+"syntax error\x1b[0m near "+hostileScript+" at /srv/app/db.py:12", 20,
			map[string]bool{"channel": true}, elementOrder...),
	}
	hostile.Score = f64(20)
	hostile.Verdict = verdict("fix", "findings_to_fix", probe.CodeInputRootTypeMissing)

	// 5. A fatal schema violation and a crash: drop.
	fatal := alive(npm("io.github.acme/db-admin", "3.1.0"), "2025-06-18", "mcp-servers/db-admin", "3.1.0")
	fatal.Tools = []probe.Tool{
		{Name: "drop_table", Description: "Drop a table.", Raw: rawJSON(`{"name":"drop_table"}`)},
		tool("list_tables", "List tables.", `{"readOnlyHint":true,"openWorldHint":false}`),
	}
	fatal.Findings = []probe.Finding{
		probe.NewFinding(probe.CodeInputMissing, "tool:drop_table", "/inputSchema", "", "the tool has no inputSchema"),
		probe.NewFinding(probe.CodeMissingReadOnlyHint, "tool:drop_table", "/annotations/readOnlyHint", "", "the tool does not set annotations.readOnlyHint"),
		probe.NewFinding(probe.CodeMissingOpenWorldHint, "tool:drop_table", "/annotations/openWorldHint", "", "the tool does not set annotations.openWorldHint"),
	}
	fatal.Probes = []probe.ProbeCall{{Kind: "wrong_type", Method: "tools/call", Tool: "list_tables",
		Sent: rawJSON(`{"name":"list_tables","arguments":{"schema":42}}`), Class: "crash", LatencyMs: 5,
		Text: "the server exited", Score: f64(0),
		Elements: []probe.Element{{Name: "channel", Pass: false, Evidence: "the server crashed"}, {Name: "no_leak", Pass: true}}}}
	fatal.Score = f64(0)
	fatal.Verdict = verdict("drop", "crash_or_hang_on_invalid_input")

	// 6. A remote server that could not be reached: drop.
	remote := &probe.Result{Target: probe.Target{Name: "com.example/remote", Version: "1.0.0", Source: "registry",
		Transport: "streamable-http", URL: "https://mcp.example.com/mcp"},
		Liveness: probe.Liveness{Status: vocab.StatusUnreachable, Detail: "dial tcp: connection refused", Timings: probe.Timings{TotalMs: 30}}}
	remote.Verdict = verdict("drop", "no_handshake")

	// 7. A legacy (2024-11-05) Rust server with no probes: keep.
	legacy := alive(probe.Target{Name: "io.github.rusty/files", Version: "0.4.0", Source: "registry", Transport: "stdio",
		Command: []string{"npx", "-y", "@rusty/files@0.4.0"}}, "2024-11-05", "rmcp", "0.8.0")
	legacy.Tools = []probe.Tool{tool("read_file", "Read a file.", "")}
	legacy.Findings = []probe.Finding{probe.NewFinding(probe.CodeAnnotationsNotInVersion, "server", "", "", "protocol 2024-11-05 has no annotations")}
	legacy.Verdict = verdict("keep", "keep_otherwise")

	// 8. A plan that needs configuration: no verdict.
	config := &probe.Result{Target: probe.Target{Name: "io.github.cfg/needs-config", Version: "1.0.0", Source: "registry",
		Transport: "stdio", Command: []string{"npm:needs-config@1.0.0"}},
		Liveness: probe.Liveness{Status: vocab.StatusNeedsConfiguration, Detail: "required input API_URL has no value"}}

	var out []fixtureTarget
	for _, r := range []*probe.Result{healthy, dead, creds, hostile, fatal, remote, legacy, config} {
		plan := vocab.Plan{Key: "key:" + r.Target.Name + "@" + r.Target.Version, Name: r.Target.Name,
			Version: r.Target.Version, Source: r.Target.Source, Transport: r.Target.Transport, URL: r.Target.URL}
		out = append(out, fixtureTarget{plan, r})
	}
	return out
}

// fixtureStore writes the fixture results into a new database and returns
// the store, the database path and the scan id.
func fixtureStore(t testing.TB) (*results.Store, string, int64) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fixture.db")
	st, err := results.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	seed := int64(7)
	id, err := st.NewScan(ctx, results.ScanInfo{Kind: results.KindScan, Source: "registry:https://registry.example",
		Seed: &seed, RubricVersion: "errors-v1", StartedAt: time.Date(2026, 9, 30, 12, 0, 0, 0, time.UTC),
		Options: rawJSON(`{"sample":8}`)})
	if err != nil {
		t.Fatal(err)
	}
	targets := fixtureTargets()
	plans := make([]vocab.Plan, len(targets))
	for i, ft := range targets {
		plans[i] = ft.plan
	}
	// One more target that never ran: the report counts it as pending.
	plans = append(plans, vocab.Plan{Key: "key:pending", Name: "io.github.late/pending", Source: "registry", Transport: "stdio"})
	if _, err := st.AddTargets(ctx, id, plans); err != nil {
		t.Fatal(err)
	}
	for _, ft := range targets {
		if _, err := st.SaveRun(ctx, id, ft.plan.Key, ft.res); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.FinishScan(ctx, id, results.ScanInterrupted); err != nil {
		t.Fatal(err)
	}
	return st, path, id
}
