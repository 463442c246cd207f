package results

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// shape sizes a fake result.
type shape struct{ tools, prompts, resources, templates, calls, probes, findings int }

// census is the size the brief's benchmark asks for: a typical registry
// server as a census stores it.
var census = shape{tools: 20, prompts: 3, resources: 4, templates: 2, calls: 50, probes: 30, findings: 20}

var severities = []probe.Severity{probe.SeverityFatal, probe.SeverityError, probe.SeverityWarn, probe.SeverityInfo}

// fakeResult builds a deterministic, realistic result for server number i.
// Servers i and i+100 share a name so identities repeat across targets.
func fakeResult(i int, sh shape) *probe.Result {
	r := rand.New(rand.NewPCG(uint64(i), 7))
	name := fmt.Sprintf("io.github.example/server-%03d", i%100)
	exit := r.IntN(3)
	score := float64(r.IntN(10001)) / 100
	res := &probe.Result{
		Target: probe.Target{
			Name:      name,
			Version:   fmt.Sprintf("1.%d.0", i%7),
			Source:    "registry",
			Transport: vocab.TransportStdio,
			Command:   []string{"npx", "-y", fmt.Sprintf("@example/server-%d@1.0.0", i)},
			Sandbox:   "bubblewrap",
		},
		Liveness: probe.Liveness{
			Status:             vocab.StatusOK,
			HandshakeCompleted: true,
			Detail:             "handshake completed",
			ProtocolVersion:    "2025-06-18",
			ServerInfo:         &probe.ServerInfo{Name: fmt.Sprintf("server-%d", i), Title: "Example <Server> & co", Version: "1.0.0"},
			Capabilities:       json.RawMessage(`{"tools":{"listChanged":true},"prompts":{},"resources":{"subscribe":false}}`),
			InstructionsBytes:  r.IntN(2000),
			Handshake:          "initialize",
			Timings:            probe.Timings{StartMs: 120.5, HandshakeMs: 340.25, ListMs: 18.125, ProbeMs: 950, TotalMs: float64(1500 + r.IntN(5000))},
			StderrTail:         "npm warn deprecated inflight@1.0.6\nServer running on stdio\n",
			ExitCode:           &exit,
		},
		Score:         &score,
		RubricVersion: "2025.1",
	}
	if i%5 == 3 {
		res.Liveness.Status = vocab.StatusMissingCredentials
		res.Liveness.HandshakeCompleted = false
		res.Liveness.Evidence = "Error: GITHUB_TOKEN environment variable is required"
		res.Score = nil
	}
	for j := range sh.tools {
		tn := fmt.Sprintf("tool_%02d", j)
		schema := fmt.Sprintf(`{"type":"object","properties":{"query":{"type":"string","description":"Search text for %s"},"limit":{"type":"integer","minimum":1,"maximum":100},"path":{"type":"string"}},"required":["query"],"additionalProperties":false}`, tn)
		desc := strings.Repeat(fmt.Sprintf("Does %s things. ", tn), 1+r.IntN(8))
		raw := fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":%s,"annotations":{"readOnlyHint":true}}`, tn, desc, schema)
		res.Tools = append(res.Tools, probe.Tool{
			Name: tn, Description: desc, InputSchema: json.RawMessage(schema),
			Annotations: json.RawMessage(`{"readOnlyHint":true}`), Raw: json.RawMessage(raw),
		})
	}
	for j := range sh.prompts {
		pn := fmt.Sprintf("prompt_%d", j)
		res.Prompts = append(res.Prompts, probe.Prompt{
			Name: pn, Description: "Summarise a document",
			Arguments: json.RawMessage(`[{"name":"doc","required":true}]`),
			Raw:       json.RawMessage(fmt.Sprintf(`{"name":%q,"arguments":[{"name":"doc","required":true}]}`, pn)),
		})
	}
	for j := range sh.resources {
		uri := fmt.Sprintf("file:///data/%d.txt", j)
		res.Resources = append(res.Resources, probe.Resource{
			URI: uri, Name: fmt.Sprintf("data %d", j), MIMEType: "text/plain",
			Raw: json.RawMessage(fmt.Sprintf(`{"uri":%q,"name":"data %d","mimeType":"text/plain"}`, uri, j)),
		})
	}
	for j := range sh.templates {
		ut := fmt.Sprintf("repo://{owner}/{repo}/%d", j)
		res.ResourceTemplates = append(res.ResourceTemplates, probe.ResourceTemplate{
			URITemplate: ut, Name: "repo",
			Raw: json.RawMessage(fmt.Sprintf(`{"uriTemplate":%q,"name":"repo"}`, ut)),
		})
	}
	for j := range sh.findings {
		res.Findings = append(res.Findings, probe.Finding{
			Code:     fmt.Sprintf("schema/code_%d", j%6),
			Severity: severities[r.IntN(len(severities))],
			Subject:  fmt.Sprintf("tool:tool_%02d", j%max(sh.tools, 1)),
			Pointer:  "/properties/limit",
			Value:    `{"type":"integer"}`,
			Message:  "limit has no description; say what it bounds",
		})
	}
	for j := range sh.calls {
		c := probe.Call{
			Seq: j + 1, Method: "tools/call", Tool: fmt.Sprintf("tool_%02d", j%max(sh.tools, 1)),
			InputHash: fmt.Sprintf("%016x", r.Uint64()), LatencyMs: float64(r.IntN(100000)) / 100,
			OutputBytes: r.IntN(50000), Outcome: "result",
		}
		switch j % 7 {
		case 0:
			code := int64(-32602)
			c.ErrorCode, c.Outcome = &code, "error"
		case 1:
			c.IsError = true
		case 2:
			c.Method, c.Tool = "tools/list", ""
		}
		res.Calls = append(res.Calls, c)
	}
	for j := range sh.probes {
		s := float64(r.IntN(5)) / 4
		p := probe.ProbeCall{
			Kind:   []string{"missing_required", "wrong_type", "unknown_tool", "extra_property"}[j%4],
			Method: "tools/call", Tool: fmt.Sprintf("tool_%02d", j%max(sh.tools, 1)), Param: "query",
			Sent:      json.RawMessage(fmt.Sprintf(`{"name":"tool_%02d","arguments":{"query":42}}`, j%max(sh.tools, 1))),
			Class:     []string{"tool_error", "protocol_error", "accepted"}[j%3],
			LatencyMs: float64(r.IntN(5000)) / 10,
			Response:  json.RawMessage(`{"content":[{"type":"text","text":"query must be a string, got number"}],"isError":true}`),
			Text:      "query must be a string, got number",
			Elements: []probe.Element{
				{Name: "names_param", Pass: true, Evidence: "query"},
				{Name: "expected_type", Pass: j%2 == 0, Evidence: "string"},
				{Name: "suggests_fix", Pass: false},
			},
			Score:       &s,
			Destructive: j%9 == 0,
		}
		res.Probes = append(res.Probes, p)
	}
	decision := []string{"keep", "fix", "drop"}[i%3]
	res.Verdict = &probe.Verdict{Decision: decision, Rules: []probe.Rule{
		{Name: "dead", Fired: false},
		{Name: "fatal_findings", Fired: decision == "drop", Decision: "drop", Findings: []string{"schema/code_1"}},
		{Name: "score_below_fix", Fired: decision == "fix", Decision: "fix", Detail: "score 41 < 60"},
	}}
	return res
}

// fakePlan is the launch plan of target i.
func fakePlan(i int) vocab.Plan {
	return vocab.Plan{
		Key:       fmt.Sprintf("io.github.example/server-%03d@1.%d.0#pkg%d", i%100, i%7, i),
		Name:      fmt.Sprintf("io.github.example/server-%03d", i%100),
		Version:   fmt.Sprintf("1.%d.0", i%7),
		Source:    "registry",
		Transport: vocab.TransportStdio,
		Package:   &vocab.Package{RegistryType: "npm", Identifier: fmt.Sprintf("@example/server-%d", i), Version: "1.0.0", RuntimeHint: "npx"},
		Env:       map[string]string{"LOG_LEVEL": "debug"},
		Secrets:   []string{"API_KEY"},
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
