package results

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/scan/vocab"
)

// pickRefResult is the reference for decodeLean: the same fields, read by
// encoding/json.
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

func TestPickLeanMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		res := pickRandomResult(r)
		js, err := encodeJSON(res) // the store's encoding
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []string{js, indentPick(js)} {
			want, err := pickRefDecode([]byte(in))
			if err != nil {
				t.Fatalf("case %d: reference: %v", i, err)
			}
			got, err := decodeLean([]byte(in))
			if err != nil {
				t.Fatalf("case %d: decodeLean: %v\n%s", i, err, in)
			}
			if diff := cmp.Diff(want, got, pickCmpOpts); diff != "" {
				t.Fatalf("case %d: decodeLean differs from encoding/json (-want +got):\n%s", i, diff)
			}
		}
	}
}

func indentPick(js string) string {
	b, _ := json.MarshalIndent(json.RawMessage(js), " ", "\t")
	return string(b)
}

func TestPickLeanRejects(t *testing.T) {
	for _, in := range []string{
		``, `[]`, `{`, `{"tools": [`, `{"tools": 5}`, `{"target": 5}`, `{"score": "x"}`, `{"liveness": {"handshakeCompleted": "yes"}}`,
		`{"probes": [{"elements": [{"pass": 1}]}]}`, `{"findings": [{"code": 5}]}`, `{"a" 1}`, `{"a": 1,}`, `{"a": "unterminated}`,
		`{"verdict": {"rules": [{"fired": "no"}]}}`, `{"liveness": {"exitCode": 1.5}}`,
	} {
		if _, err := decodeLean([]byte(in)); err == nil {
			t.Errorf("decodeLean(%q) succeeded, want an error", in)
		}
		if _, err := pickRefDecode([]byte(in)); err == nil {
			t.Errorf("reference accepted %q; the case is not malformed", in)
		}
	}
}

// FuzzPickLean: decodeLean never panics or loops on any input, and on a
// result that encoding/json reads it agrees with encoding/json.
func FuzzPickLean(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		js, _ := encodeJSON(pickRandomResult(r))
		f.Add([]byte(js))
	}
	f.Add([]byte(`{"tools":[{"name":"a\"]}","annotations":null}],"score":null,"verdict":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = decodeLean(data) // must return, whatever the input
		// Compare on the canonical encoding of whatever encoding/json makes
		// of the input (duplicate keys and odd cases folded away).
		var res probe.Result
		if json.Unmarshal(data, &res) != nil {
			return
		}
		js, err := encodeJSON(&res)
		if err != nil {
			return
		}
		want, werr := pickRefDecode([]byte(js))
		got, gerr := decodeLean([]byte(js))
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("reference error %v, decodeLean error %v on %s", werr, gerr, js)
		}
		if diff := cmp.Diff(want, got, pickCmpOpts); werr == nil && diff != "" {
			t.Fatalf("decodeLean differs on %s (-want +got):\n%s", js, diff)
		}
	})
}

func BenchmarkDecodeLean(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	var inputs [][]byte
	size := 0
	for range 64 {
		js, _ := encodeJSON(pickRandomResult(r))
		inputs = append(inputs, []byte(js))
		size += len(js)
	}
	for _, d := range []struct {
		name string
		fn   func([]byte) (*probe.Result, error)
	}{{"pick", decodeLean}, {"encoding-json", pickRefDecode}} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(size / len(inputs)))
			i := 0
			for b.Loop() {
				if _, err := d.fn(inputs[i%len(inputs)]); err != nil {
					b.Fatal(fmt.Sprint(err))
				}
				i++
			}
		})
	}
}
