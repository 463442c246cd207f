package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// pickRefResult is the reference for the summary: the fields of a stored
// result the census reads, read from the whole result by encoding/json.
type pickRefResult struct {
	Target   probe.Target `json:"target"`
	Liveness struct {
		Status             vocab.Status      `json:"status"`
		HandshakeCompleted bool              `json:"handshakeCompleted"`
		ProtocolVersion    string            `json:"protocolVersion"`
		ServerInfo         *probe.ServerInfo `json:"serverInfo"`
		ExitCode           *int              `json:"exitCode"`
		Timings            struct {
			TotalMs float64 `json:"totalMs"`
		} `json:"timings"`
	} `json:"liveness"`
	Tools []struct {
		Name        string          `json:"name"`
		Annotations json.RawMessage `json:"annotations"`
	} `json:"tools"`
	Prompts           []struct{} `json:"prompts"`
	Resources         []struct{} `json:"resources"`
	ResourceTemplates []struct{} `json:"resourceTemplates"`
	Findings          []struct {
		Code     string         `json:"code"`
		Severity probe.Severity `json:"severity"`
		Subject  string         `json:"subject"`
	} `json:"findings"`
	Probes []struct {
		Class    string `json:"class"`
		Elements []struct {
			Name string `json:"name"`
			Pass bool   `json:"pass"`
		} `json:"elements"`
	} `json:"probes"`
	Score   *float64 `json:"score"`
	Verdict *struct {
		Decision string `json:"decision"`
		Rules    []struct {
			Name     string `json:"name"`
			Fired    bool   `json:"fired"`
			Decision string `json:"decision"`
		} `json:"rules"`
	} `json:"verdict"`
}

func pickRefDecode(js []byte) (*probe.Result, error) {
	var l pickRefResult
	if err := json.Unmarshal(js, &l); err != nil {
		return nil, err
	}
	res := &probe.Result{Target: l.Target, Score: l.Score,
		Prompts: make([]probe.Prompt, len(l.Prompts)), Resources: make([]probe.Resource, len(l.Resources)),
		ResourceTemplates: make([]probe.ResourceTemplate, len(l.ResourceTemplates))}
	lv := &res.Liveness
	lv.Status, lv.HandshakeCompleted, lv.ProtocolVersion = l.Liveness.Status, l.Liveness.HandshakeCompleted, l.Liveness.ProtocolVersion
	lv.ServerInfo, lv.ExitCode, lv.Timings.TotalMs = l.Liveness.ServerInfo, l.Liveness.ExitCode, l.Liveness.Timings.TotalMs
	for _, t := range l.Tools {
		res.Tools = append(res.Tools, probe.Tool{Name: t.Name, Annotations: t.Annotations})
	}
	for _, f := range l.Findings {
		res.Findings = append(res.Findings, probe.Finding{Code: f.Code, Severity: f.Severity, Subject: f.Subject})
	}
	for _, p := range l.Probes {
		pc := probe.ProbeCall{Class: p.Class}
		for _, e := range p.Elements {
			pc.Elements = append(pc.Elements, probe.Element{Name: e.Name, Pass: e.Pass})
		}
		res.Probes = append(res.Probes, pc)
	}
	if v := l.Verdict; v != nil {
		res.Verdict = &probe.Verdict{Decision: v.Decision}
		for _, r := range v.Rules {
			res.Verdict.Rules = append(res.Verdict.Rules, probe.Rule{Name: r.Name, Fired: r.Fired, Decision: r.Decision})
		}
	}
	return res, nil
}

// pickAwkward are strings that stress a byte scanner: quotes, escaped
// backslashes before quotes, brackets and braces inside strings, escapes
// of every kind, non-ASCII and invalid UTF-8.
var pickAwkward = []string{
	"", "plain", `quote " inside`, `backslash \ end\`, `\"`, `\\"`, `{"not":"an object"}`, "[1, 2, ]]]", "}}}{",
	"tab\tnew\nline\r", "\x1b[31mred\x1b[0m", "\u2028\u2029", "héllo ✓ 日本", "\xff\xfe", "<script>alert(1)</script>",
	`\u0041`, strings.Repeat("x", 5000),
}

// pickRandomResult builds a random result full of awkward strings.
func pickRandomResult(r *rand.Rand) *probe.Result {
	s := func() string { return pickAwkward[r.IntN(len(pickAwkward))] }
	raw := func() json.RawMessage {
		b, _ := json.Marshal(map[string]any{s(): []any{s(), 1.5, nil, true, map[string]any{s(): s()}}})
		return b
	}
	res := &probe.Result{
		Target: probe.Target{Name: s(), Version: s(), Source: s(), Transport: s(), Command: []string{s(), s()}, URL: s()},
		Liveness: probe.Liveness{Status: vocab.Status(s()), HandshakeCompleted: r.IntN(2) == 0, Detail: s(),
			ProtocolVersion: s(), Capabilities: raw(), StderrTail: s(), Evidence: s(),
			Timings: probe.Timings{TotalMs: r.Float64() * 1e4, StartMs: 3}},
	}
	if r.IntN(2) == 0 {
		res.Liveness.ServerInfo = &probe.ServerInfo{Name: s(), Version: s(), Title: s()}
		code := r.IntN(300) - 150
		res.Liveness.ExitCode = &code
	}
	for range r.IntN(5) {
		t := probe.Tool{Name: s(), Description: s(), InputSchema: raw(), Raw: raw()}
		if r.IntN(2) == 0 {
			t.Annotations = json.RawMessage(`{"readOnlyHint":true,"title":` + mustPickJSON(s()) + `}`)
		}
		res.Tools = append(res.Tools, t)
	}
	for range r.IntN(3) {
		res.Prompts = append(res.Prompts, probe.Prompt{Name: s(), Arguments: raw(), Raw: raw()})
		res.Resources = append(res.Resources, probe.Resource{URI: s(), Raw: raw()})
	}
	for range r.IntN(6) {
		res.Findings = append(res.Findings, probe.Finding{Code: s(), Severity: probe.Severity(s()), Subject: s(), Value: s(), Message: s()})
	}
	for range r.IntN(4) {
		p := probe.ProbeCall{Kind: s(), Class: s(), Sent: raw(), Response: raw(), Text: s()}
		for range r.IntN(4) {
			p.Elements = append(p.Elements, probe.Element{Name: s(), Pass: r.IntN(2) == 0, Evidence: s()})
		}
		res.Probes = append(res.Probes, p)
		res.Calls = append(res.Calls, probe.Call{Method: s(), Tool: s()})
	}
	if r.IntN(2) == 0 {
		x := r.Float64() * 100
		res.Score = &x
	}
	if r.IntN(2) == 0 {
		res.Verdict = &probe.Verdict{Decision: s(), Rules: []probe.Rule{{Name: s(), Fired: true, Decision: s(), Findings: []string{s()}, Detail: s()}}}
	}
	return res
}

func mustPickJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

var pickCmpOpts = cmpopts.EquateEmpty()

func indentPick(js string) string {
	b, _ := json.MarshalIndent(json.RawMessage(js), " ", "\t")
	return string(b)
}

// TestSummaryMatchesResult: the summary SaveRun writes, and the whole
// stored result read by the same decoder (the path of a database older
// than run_summaries), give the census what the reference reads.
func TestSummaryMatchesResult(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		res := pickRandomResult(r)
		js, err := encodeJSON(res) // the store's encoding
		if err != nil {
			t.Fatal(err)
		}
		want, err := pickRefDecode([]byte(js))
		if err != nil {
			t.Fatalf("case %d: reference: %v", i, err)
		}
		sum, err := encodeJSON(summarize(res))
		if err != nil {
			t.Fatal(err)
		}
		for name, in := range map[string]string{"summary": sum, "result_json": js, "indented result_json": indentPick(js)} {
			want := want
			if name != "summary" {
				// Annotations are kept as stored, spacing included.
				if want, err = pickRefDecode([]byte(in)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := decodeSummary([]byte(in))
			if err != nil {
				t.Fatalf("case %d: decoding the %s: %v\n%s", i, name, err, in)
			}
			if diff := cmp.Diff(want, got, pickCmpOpts); diff != "" {
				t.Fatalf("case %d: the %s differs from the reference (-want +got):\n%s", i, name, diff)
			}
		}
		if len(sum) > len(js) {
			t.Errorf("case %d: summary of %d bytes is longer than the result (%d)", i, len(sum), len(js))
		}
	}
}

func TestSummaryRejects(t *testing.T) {
	for _, in := range []string{
		``, `[]`, `{`, `{"tools": [`, `{"tools": 5}`, `{"target": 5}`, `{"score": "x"}`, `{"liveness": {"handshakeCompleted": "yes"}}`,
		`{"probes": [{"elements": [{"pass": 1}]}]}`, `{"findings": [{"code": 5}]}`, `{"a" 1}`, `{"a": 1,}`, `{"a": "unterminated}`,
		`{"verdict": {"rules": [{"fired": "no"}]}}`, `{"liveness": {"exitCode": 1.5}}`,
	} {
		if _, err := decodeSummary([]byte(in)); err == nil {
			t.Errorf("decodeSummary(%q) succeeded, want an error", in)
		}
	}
}

// TestSummaryBackfill: migration 0004 fills run_summaries for the runs of
// an older database with what SaveRun would have written, and a report
// of the old database opened read-only (not migrated, read from
// result_json) equals the report after the upgrade.
func TestSummaryBackfill(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "old.db")
	abs, _ := filepath.Abs(p)
	v := migrationVersion("run_summary")
	if err := checkFile(p, abs, false); err != nil {
		t.Fatal(err)
	}
	old, err := open(ctx, p, abs, (*Options)(nil).withDefaults(), migrations[:v-1])
	if err != nil {
		t.Fatal(err)
	}
	scan := newScan(t, old, ScanInfo{Kind: KindScan})
	r := rand.New(rand.NewPCG(7, 8))
	var want []*probe.Result
	for i := range 120 {
		res := pickRandomResult(r)
		if i%3 == 0 {
			res = fakeResult(i, census)
		}
		if i%7 == 0 {
			res.Verdict = nil
		}
		res.Findings = slicesFilterKnownSeverity(res.Findings)
		if _, err := old.SaveRun(ctx, scan, fmt.Sprintf("k%d", i), res); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		// What SaveRun stores reads back as its JSON encoding.
		js, _ := encodeJSON(res)
		var stored probe.Result
		if err := json.Unmarshal([]byte(js), &stored); err != nil {
			t.Fatal(err)
		}
		want = append(want, &stored)
	}
	if err := old.FinishScan(ctx, scan, ScanDone); err != nil {
		t.Fatal(err)
	}
	old.Close()

	ro, err := Open(ctx, p, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	before, err := BuildReport(ctx, ro, scan, nil)
	ro.Close()
	if err != nil {
		t.Fatalf("report of the old database, read-only: %v", err)
	}

	st, err := Open(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := userVersion(t, st); got < v {
		t.Fatalf("upgraded database at version %d, want %d or later", got, v)
	}
	rows, err := st.r.QueryContext(ctx, "SELECT s.summary FROM runs AS r LEFT JOIN run_summaries AS s ON s.run_id = r.id WHERE r.scan_id = ? ORDER BY r.id", scan)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var sum sql.NullString
		if err := rows.Scan(&sum); err != nil {
			t.Fatal(err)
		}
		if !sum.Valid {
			t.Fatalf("run %d: no summary after the migration", i)
		}
		got, err := decodeSummary([]byte(sum.String))
		if err != nil {
			t.Fatalf("run %d: decoding the migration's summary: %v\n%s", i, err, sum.String)
		}
		goSum, _ := encodeJSON(summarize(want[i]))
		wantLean, err := decodeSummary([]byte(goSum))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantLean, got, pickCmpOpts); diff != "" {
			t.Fatalf("run %d: the migration's summary differs from SaveRun's (-want +got):\n%s\nsql: %.2000s\ngo:  %.2000s", i, diff, sum.String, goSum)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(want) {
		t.Fatalf("%d runs, want %d", i, len(want))
	}
	after, err := BuildReport(ctx, st, scan, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantJS, _ := json.Marshal(before.Census)
	gotJS, _ := json.Marshal(after.Census)
	if diff := cmp.Diff(string(wantJS), string(gotJS)); diff != "" {
		t.Errorf("census after the upgrade differs (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(before.Rows, after.Rows); diff != "" {
		t.Errorf("rows after the upgrade differ (-before +after):\n%s", diff)
	}
}

// slicesFilterKnownSeverity drops the findings SaveRun would reject.
func slicesFilterKnownSeverity(fs []probe.Finding) []probe.Finding {
	var out []probe.Finding
	for _, f := range fs {
		if f.Severity.Rank() > 0 {
			out = append(out, f)
		}
	}
	return out
}

// BenchmarkDecodeSummary decodes what the census reads of one run: the
// summary SaveRun writes, or the whole stored result of a database older
// than it.
func BenchmarkDecodeSummary(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	inputs := map[string][][]byte{}
	for i := range 64 {
		_, res := fakePlan(i), fakeResult(i, census)
		if i%2 == 0 {
			res = pickRandomResult(r)
		}
		js, _ := encodeJSON(res)
		sum, _ := encodeJSON(summarize(res))
		inputs["result_json"] = append(inputs["result_json"], []byte(js))
		inputs["summary"] = append(inputs["summary"], []byte(sum))
	}
	for _, name := range []string{"summary", "result_json"} {
		in := inputs[name]
		b.Run(name, func(b *testing.B) {
			size := 0
			for _, x := range in {
				size += len(x)
			}
			b.SetBytes(int64(size / len(in)))
			i := 0
			for b.Loop() {
				if _, err := decodeSummary(in[i%len(in)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// TestLeanRunsInOrder: the census pass hands the runs over in id order,
// whatever the decoding goroutines do, and the first run that does not
// decode stops it: no later run is handed over.
func TestLeanRunsInOrder(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	scan := newScan(t, st, ScanInfo{Kind: KindScan})
	for i := range 200 {
		if _, err := st.SaveRun(ctx, scan, fmt.Sprintf("k%03d", i), fakeResult(i, shape{tools: 1 + i%5, findings: i % 3})); err != nil {
			t.Fatal(err)
		}
	}
	var ids []int64
	if err := st.leanRuns(ctx, scan, func(r Record) { ids = append(ids, r.ID) }); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 200 || !slices.IsSorted(ids) {
		t.Fatalf("leanRuns handed over %d runs, in id order: %v", len(ids), slices.IsSorted(ids))
	}
	if _, err := st.w.ExecContext(ctx, "UPDATE run_summaries SET summary = '{\"tools\": 5}' WHERE run_id = ?", ids[50]); err != nil {
		t.Fatal(err)
	}
	var got []int64
	err := st.leanRuns(ctx, scan, func(r Record) { got = append(got, r.ID) })
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("decoding run %d", ids[50])) {
		t.Errorf("leanRuns over a bad summary = %v, want an error naming run %d", err, ids[50])
	}
	if !slices.Equal(got, ids[:50]) {
		t.Errorf("leanRuns handed over %d runs before the bad one, want the 50 before it", len(got))
	}
}
