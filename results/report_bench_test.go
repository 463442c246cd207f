package results_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/scan/vocab"
)

// benchServers is the census size the report must handle: the registry
// holds about 24,000 servers.
const benchServers = 20000

// censusResult builds a deterministic, realistic result for server i of a
// registry census: about half never complete the handshake (as in the
// literature's random draw); the live ones list a skewed number of tools
// (median about 6, a long tail to 80) with schemas, annotations on some,
// the findings those produce, failure-injection probes with graded
// elements, and a verdict.
func censusResult(i int) (vocab.Plan, *probe.Result) {
	r := rand.New(rand.NewPCG(uint64(i), 2026))
	name := fmt.Sprintf("io.github.org%04d/server-%05d", i%1000, i)
	types := []string{"npm", "npm", "npm", "pypi", "pypi", "oci"}
	typ := types[r.IntN(len(types))]
	t := probe.Target{Name: name, Version: fmt.Sprintf("1.%d.%d", r.IntN(20), r.IntN(10)), Source: "registry",
		Transport: "stdio", Command: []string{typ + ":" + name + "@1.0.0"}, Sandbox: "builtin"}
	if r.IntN(12) == 0 {
		t = probe.Target{Name: name, Version: "1.0.0", Source: "registry", Transport: "streamable-http",
			URL: "https://" + strings.ReplaceAll(name, "/", ".") + ".example.com/mcp"}
	}
	plan := vocab.Plan{Key: fmt.Sprintf("registry:%s@%s#%d", name, t.Version, i), Name: name, Version: t.Version,
		Source: "registry", Transport: t.Transport, URL: t.URL}
	res := &probe.Result{Target: t, Tools: []probe.Tool{}, Prompts: []probe.Prompt{}, Resources: []probe.Resource{},
		ResourceTemplates: []probe.ResourceTemplate{}, Findings: []probe.Finding{}, Calls: []probe.Call{}, Probes: []probe.ProbeCall{},
		RubricVersion: "errors-v1"}
	l := &res.Liveness
	l.Timings = probe.Timings{StartMs: float64(50 + r.IntN(900)), TotalMs: float64(300 + r.IntN(20000))}

	dead := []vocab.Status{vocab.StatusExitedEarly, vocab.StatusExitedEarly, vocab.StatusSpawnFailed,
		vocab.StatusMissingCredentials, vocab.StatusHandshakeTimeout, vocab.StatusProtocolError,
		vocab.StatusPackageNotFound, vocab.StatusInstallFailed, vocab.StatusNeedsConfiguration, vocab.StatusUnreachable}
	if r.IntN(100) < 51 {
		l.Status = dead[r.IntN(len(dead))]
		code := 1
		l.ExitCode = &code
		l.Detail = "the process exited with code 1 before the handshake"
		l.StderrTail = strings.Repeat("npm warn deprecated inflight@1.0.6: This module is not supported\n", 4) +
			"Error: Cannot find module '/app/dist/index.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1145:15)\n"
		if l.Status == vocab.StatusMissingCredentials {
			l.Evidence = "Error: API_KEY environment variable is required"
		}
		res.Findings = append(res.Findings, probe.NewFinding(probe.CodeNotAlive, "server", "", "", "the server did not complete the handshake"))
		res.Verdict = &probe.Verdict{Decision: "drop", Rules: []probe.Rule{{Name: "no_handshake", Fired: true, Decision: "drop",
			Findings: []string{probe.CodeNotAlive}, Detail: "liveness status " + string(l.Status)}}}
		return plan, res
	}

	l.Status, l.HandshakeCompleted, l.Handshake = vocab.StatusOK, true, "initialize"
	l.ProtocolVersion = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-06-18", "2025-11-25"}[r.IntN(5)]
	l.ServerInfo = &probe.ServerInfo{Name: []string{name, "FastMCP", "mcp-server", "rmcp"}[r.IntN(4)], Version: "1.0.0"}
	l.Capabilities = json.RawMessage(`{"tools":{"listChanged":true}}`)
	l.Timings.HandshakeMs = float64(100 + r.IntN(2000))
	nTools := min(int(r.ExpFloat64()*7)+1, 80)
	for j := range nTools {
		tn := fmt.Sprintf("%s_item_%d", []string{"get", "list", "create", "delete", "search", "update"}[j%6], j)
		tool := probe.Tool{Name: tn, Description: "Does " + tn + " on the remote service and returns the result as JSON text.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"The item id"},"limit":{"type":"integer"}},"required":["id"]}`)}
		if r.IntN(10) < 4 {
			tool.Annotations = json.RawMessage(`{"readOnlyHint":true,"openWorldHint":true}`)
		} else {
			for _, c := range []string{probe.CodeMissingReadOnlyHint, probe.CodeMissingDestructiveHint, probe.CodeMissingIdempotentHint, probe.CodeMissingOpenWorldHint} {
				res.Findings = append(res.Findings, probe.NewFinding(c, "tool:"+tn, "/annotations", "", "the tool does not set the hint"))
			}
		}
		res.Findings = append(res.Findings, probe.NewFinding(probe.CodePropertyNoDescription, "tool:"+tn, "/inputSchema/properties/limit", "", "limit has no description"))
		if r.IntN(200) == 0 {
			res.Findings = append(res.Findings, probe.NewFinding(probe.CodeInputCompileFailed, "tool:"+tn, "/inputSchema", "", "does not compile"))
		}
		tool.Raw, _ = json.Marshal(tool)
		res.Tools = append(res.Tools, tool)
	}
	for j := range min(2*nTools, 30) {
		tn := res.Tools[j%nTools].Name
		text := fmt.Sprintf("Error: invalid_argument: id must be a string like \"abc-123\"; call list_item_1 to find ids (request %d)", j)
		score := float64(r.IntN(101))
		p := probe.ProbeCall{Kind: []string{"missing_required", "wrong_type", "unknown_tool"}[j%3], Method: "tools/call", Tool: tn, Param: "id",
			Sent:  json.RawMessage(fmt.Sprintf(`{"name":%q,"arguments":{"id":12345}}`, tn)),
			Class: []string{"tool_error", "tool_error", "protocol_error", "accepted"}[r.IntN(4)], LatencyMs: float64(r.IntN(500)),
			Response: json.RawMessage(`{"content":[{"type":"text","text":` + mustJSON(text) + `}],"isError":true}`),
			Text:     text, Score: &score}
		for _, e := range []string{"channel", "param", "value_or_form", "next_action", "code", "retryable", "no_leak", "bounded"} {
			p.Elements = append(p.Elements, probe.Element{Name: e, Pass: r.IntN(2) == 0, Evidence: "matched \"" + e + "\" in the text"})
		}
		res.Probes = append(res.Probes, p)
		res.Calls = append(res.Calls, probe.Call{Seq: j + 2, Method: "tools/call", Tool: tn, InputHash: "0123456789abcdef",
			LatencyMs: p.LatencyMs, OutputBytes: len(p.Response), Outcome: "result"})
	}
	if len(res.Probes) > 0 {
		score := float64(r.IntN(10001)) / 100
		res.Score = &score
	}
	decision := []string{"keep", "fix", "fix", "drop"}[r.IntN(4)]
	res.Verdict = &probe.Verdict{Decision: decision, Rules: []probe.Rule{{Name: "no_handshake", Decision: "drop"},
		{Name: "findings_to_fix", Decision: decision, Fired: true, Findings: []string{probe.CodePropertyNoDescription}}}}
	return plan, res
}

// benchStore writes n census results into a new database, one SaveRun
// (one transaction) per run as a scan does. With MCPVET_BENCH_DB set it
// keeps the database at that path and reuses it on later runs.
func benchStore(b *testing.B, n int) (*results.Store, int64) {
	b.Helper()
	ctx := context.Background()
	path := os.Getenv("MCPVET_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "census.db")
	} else if _, err := os.Stat(path); err == nil {
		st, err := results.Open(ctx, path, &results.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		sc, err := st.LatestScan(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if sc.Done != n {
			b.Fatalf("%s holds %d runs, want %d; remove it", path, sc.Done, n)
		}
		return st, sc.ID
	}
	start := time.Now()
	st, err := results.Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	id, err := st.NewScan(ctx, results.ScanInfo{Kind: results.KindScan, Source: "registry:bench"})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		plan, res := censusResult(i)
		if _, err := st.SaveRun(ctx, id, plan.Key, res); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.FinishScan(ctx, id, results.ScanDone); err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %d runs in %s", n, time.Since(start).Round(time.Millisecond))
	return st, id
}

// countingWriter counts the bytes of a report.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countingWriter)(nil)

// BenchmarkReport writes the report of a 20,000-server census in each
// format; the brief asks for under 10 s each. md and html detail the
// first 200 servers (the default of `mcpvet report --servers`); md-all
// and html-all detail every server. Run with
//
//	MCPVET_BENCH_DB=/tmp/census.db go test ./results -run '^$' -bench BenchmarkReport -benchtime 1x
func BenchmarkReport(b *testing.B) {
	st, id := benchStore(b, benchServers)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		format  string
		servers int
	}{
		{"md", "md", 200}, {"html", "html", 200}, {"json", "json", 0}, {"csv", "csv", 0},
		{"md-all", "md", 0}, {"html-all", "html", 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var w countingWriter
			cpu := processCPU()
			for b.Loop() {
				w.n = 0
				if err := results.WriteReport(ctx, &w, st, id, &results.ReportOptions{Format: tc.format, Servers: tc.servers}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.n)/(1<<20), "MiB")
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/report")
			b.ReportMetric((processCPU()-cpu)/float64(b.N), "cpu-s/report")
		})
	}
}
