package results

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/scan/vocab"
)

// triageStart is the fixed start time of the fixture scans.
var triageStart = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

const triageSource = "config:testdata/claude_desktop_config.json"

//go:fix inline
func triageFloat(f float64) *float64 { return new(f) }

// triageRules builds a verdict trace the way scoring.Decide does: the
// seven rules in order, with fired ones given their findings and detail;
// the first fired decides, keep_otherwise fires when nothing else did.
func triageRules(fired map[string]probe.Rule) *probe.Verdict {
	order := []struct{ name, decision string }{
		{"no_handshake", "drop"},
		{"crash_or_hang_on_invalid_input", "drop"},
		{"leaks_secret", "drop"},
		{"fatal_finding", "drop"},
		{"findings_to_fix", "fix"},
		{"low_actionability_score", "fix"},
	}
	v := &probe.Verdict{}
	for _, o := range order {
		r := probe.Rule{Name: o.name, Decision: o.decision}
		if f, ok := fired[o.name]; ok {
			r.Fired, r.Findings, r.Detail = true, f.Findings, f.Detail
			if v.Decision == "" {
				v.Decision = o.decision
			}
		}
		v.Rules = append(v.Rules, r)
	}
	keep := v.Decision == ""
	if keep {
		v.Decision = "keep"
	}
	v.Rules = append(v.Rules, probe.Rule{Name: "keep_otherwise", Decision: "keep", Fired: keep})
	return v
}

func triageTarget(name string) probe.Target {
	return probe.Target{Name: name, Source: triageSource, Transport: vocab.TransportStdio,
		Command: []string{"/opt/fixtures/" + name}, Sandbox: "none"}
}

func triageTool(name, schema, annotations string) probe.Tool {
	raw := `{"name":"` + name + `","inputSchema":` + schema
	if annotations != "" {
		raw += `,"annotations":` + annotations
	}
	raw += "}"
	t := probe.Tool{Name: name, Description: "The " + name + " tool.", InputSchema: json.RawMessage(schema), Raw: json.RawMessage(raw)}
	if annotations != "" {
		t.Annotations = json.RawMessage(annotations)
	}
	return t
}

func triageAlive(version string, totalMs float64) probe.Liveness {
	return probe.Liveness{
		Status: vocab.StatusOK, HandshakeCompleted: true, ProtocolVersion: "2025-11-25",
		ServerInfo: &probe.ServerInfo{Name: "fixture", Version: version}, Handshake: "initialize",
		Timings: probe.Timings{HandshakeMs: 40, TotalMs: totalMs},
	}
}

func triageResult(target probe.Target, l probe.Liveness) *probe.Result {
	return &probe.Result{Target: target, Liveness: l, Tools: []probe.Tool{}, Prompts: []probe.Prompt{},
		Resources: []probe.Resource{}, ResourceTemplates: []probe.ResourceTemplate{}, Findings: []probe.Finding{},
		Calls: []probe.Call{}, Probes: []probe.ProbeCall{}}
}

func triageWeakSandbox() probe.Finding {
	return probe.Finding{Code: probe.CodeSandboxWarning, Severity: probe.SeverityInfo, Subject: "server",
		Pointer: "sandbox", Value: "ran without isolation (--sandbox none)", Message: "ran without isolation (--sandbox none)"}
}

// triageKeyed is one target of a fixture scan; a nil Result leaves it
// pending.
type triageKeyed struct {
	Key    string
	Name   string
	Result *probe.Result
}

// triageFixtures is a triage of one config with a server of every kind:
// keep, fix (with hostile text in a finding), drop by crash, drop by a
// missing credential, ungraded, and pending.
func triageFixtures() []triageKeyed {
	key := func(name string) string { return triageSource + "#" + name }

	good := triageResult(triageTarget("wellbehaved"), triageAlive("1.4.0", 812.5))
	good.Tools = []probe.Tool{
		triageTool("list_projects", `{"type":"object","properties":{"limit":{"type":"integer","maximum":100}},"additionalProperties":false}`,
			`{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`),
		triageTool("create_project", `{"type":"object","properties":{"name":{"type":"string","maxLength":100}},"required":["name"]}`,
			`{"readOnlyHint":false,"destructiveHint":false}`),
	}
	good.Findings = []probe.Finding{triageWeakSandbox()}
	good.Score = new(96.4)
	good.RubricVersion = "errors-v1"
	good.Verdict = triageRules(nil)

	hostile := "del\x1b[2J\x1b]0;pwned\x07ete_all\u202e"
	tracker := triageResult(triageTarget("tracker"), triageAlive("0.9.1", 4210))
	tracker.Tools = []probe.Tool{triageTool("create_issue", `{"type":"object","properties":{"title":{"type":"string"}}}`, "")}
	tracker.Findings = []probe.Finding{
		triageWeakSandbox(),
		{Code: probe.CodeMissingDestructiveHint, Severity: probe.SeverityInfo, Subject: "tool:create_issue", Pointer: "/annotations",
			Message: "the tool does not say whether it is destructive"},
		{Code: probe.CodePropertyNoDescription, Severity: probe.SeverityWarn, Subject: "tool:create_issue", Pointer: "/inputSchema/properties/title",
			Value: "title", Message: `parameter "title" has no description; say what it means, its format and an example`},
		{Code: probe.CodeAcceptedInvalidInput, Severity: probe.SeverityError, Subject: "tool:create_issue", Value: "wrong_type",
			Message: "the tool returned success for a wrong_type probe; validate arguments against the input schema and return isError: true"},
		{Code: probe.CodeAcceptedInvalidInput, Severity: probe.SeverityError, Subject: "tool:" + hostile, Value: "missing_required",
			Message: "the tool " + hostile + " returned success for a missing_required probe"},
	}
	tracker.Score = new(52.5)
	tracker.RubricVersion = "errors-v1"
	tracker.Verdict = triageRules(map[string]probe.Rule{
		"findings_to_fix": {Findings: []string{probe.CodePropertyNoDescription, probe.CodeAcceptedInvalidInput},
			Detail: "schema/property_missing_description (warn, tool:create_issue); errors/accepted_invalid_input (error, tool:create_issue); errors/accepted_invalid_input (error, tool:" + hostile + ")"},
		"low_actionability_score": {Findings: []string{"element:next_action", "element:code"},
			Detail: "actionability score 52.5 is below minScore 70"},
	})

	crash := triageResult(triageTarget("crash"), probe.Liveness{
		Status: vocab.StatusExitedEarly, Detail: "the process exited with code 2 before the handshake",
		StderrTail: "panic: runtime error: invalid memory address or nil pointer dereference\n", ExitCode: new(2),
		Timings: probe.Timings{TotalMs: 35.25},
	})
	crash.Findings = []probe.Finding{
		{Code: probe.CodeNotAlive, Severity: probe.SeverityFatal, Subject: "server",
			Message: "the server exited with code 2 before completing the handshake"},
		triageWeakSandbox(),
	}
	crash.Verdict = triageRules(map[string]probe.Rule{
		"no_handshake": {Findings: []string{probe.CodeNotAlive},
			Detail: "liveness status exited_early: the process exited with code 2 before the handshake"},
	})

	needsenv := triageResult(triageTarget("needsenv"), probe.Liveness{
		Status: vocab.StatusMissingCredentials, Detail: "the process exited with code 1 before the handshake",
		Evidence: "Error: FIXTURE_API_KEY environment variable is required. Get one at https://example.com/keys",
		ExitCode: new(1), Timings: probe.Timings{TotalMs: 20},
	})
	needsenv.Findings = []probe.Finding{{Code: probe.CodeNotAlive, Severity: probe.SeverityFatal, Subject: "server",
		Message: "the server exited naming a missing credential: FIXTURE_API_KEY"}}
	needsenv.Verdict = triageRules(map[string]probe.Rule{
		"no_handshake": {Findings: []string{probe.CodeNotAlive},
			Detail: "liveness status missing_credentials: the process exited with code 1 before the handshake"},
	})

	legacy := triageResult(triageTarget("legacy"), triageAlive("0.1.0", 1500))
	legacy.Tools = []probe.Tool{triageTool("do", `{"type":"object"}`, "")}
	legacy.Findings = []probe.Finding{{Code: probe.CodeToolDescriptionMissing, Severity: probe.SeverityWarn, Subject: "tool:do",
		Pointer: "/description", Message: "the tool has no description; say what it does, when to use it and what it returns"}}

	return []triageKeyed{
		{key("wellbehaved"), "wellbehaved", good},
		{key("tracker"), "tracker", tracker},
		{key("crash"), "crash", crash},
		{key("needsenv"), "needsenv", needsenv},
		{key("legacy"), "legacy", legacy},
		{key("later"), "later", nil},
	}
}

// triageStore stores targets as one scan of a new or existing database
// and returns the store and the scan id.
func triageStore(t *testing.T, path string, info ScanInfo, targets []triageKeyed) (*Store, int64) {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	id, err := st.NewScan(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	plans := make([]vocab.Plan, len(targets))
	for i, k := range targets {
		plans[i] = vocab.Plan{Key: k.Key, Name: k.Name, Source: info.Source, Transport: vocab.TransportStdio,
			Command: "/opt/fixtures/" + k.Name}
	}
	if _, err := st.AddTargets(ctx, id, plans); err != nil {
		t.Fatal(err)
	}
	// Save in reverse so the report's order must come from the targets.
	pending := false
	for i := len(targets) - 1; i >= 0; i-- {
		if targets[i].Result == nil {
			pending = true
			continue
		}
		if _, err := st.SaveRun(ctx, id, targets[i].Key, targets[i].Result); err != nil {
			t.Fatal(err)
		}
	}
	status := ScanDone
	if pending {
		status = ScanInterrupted
	}
	if err := st.FinishScan(ctx, id, status); err != nil {
		t.Fatal(err)
	}
	return st, id
}

// triageLoadFixture loads the triage of the fixture scan.
func triageLoadFixture(t *testing.T) (*Triage, string) {
	t.Helper()
	dir := t.TempDir()
	st, id := triageStore(t, filepath.Join(dir, "triage.db"),
		ScanInfo{Kind: KindTriage, Source: triageSource, StartedAt: triageStart}, triageFixtures())
	tr, err := LoadTriage(context.Background(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	return tr, dir
}
