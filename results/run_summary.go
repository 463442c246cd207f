package results

import (
	"encoding/json"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// A runSummary is the summary of a run in run_summaries (migration 0004):
// the fields of a result that [Tally.Add] and [RowOf] read, under the keys
// of result_json, so that the same type decodes a summary or, for a
// database older than the table, the whole stored result. SaveRun writes
// one with each run; the migration writes them for older runs with
// SQLite's JSON functions (TestSummaryBackfill checks that both agree).
type runSummary struct {
	Target   probe.Target    `json:"target"`
	Liveness summaryLiveness `json:"liveness"`
	Tools    []summaryTool   `json:"tools"`
	// One empty object per prompt, resource and template: the census
	// counts them.
	Prompts           []struct{}       `json:"prompts"`
	Resources         []struct{}       `json:"resources"`
	ResourceTemplates []struct{}       `json:"resourceTemplates"`
	Findings          []summaryFinding `json:"findings"`
	Probes            []summaryProbe   `json:"probes"`
	Score             *float64         `json:"score"`
	Verdict           *summaryVerdict  `json:"verdict"`
	// OAuth is the OAuth readiness of a remote that answered 401 (absent
	// otherwise, and in runs stored before the check existed).
	OAuth *summaryOAuth `json:"oauth,omitempty"`
	// Context is the server's context cost (absent when not measured; a
	// run saved before summaries held it counts as not measured in the
	// census, though its result_json has it).
	Context *summaryContext `json:"context,omitempty"`
}

type summaryContext struct {
	Encoding string `json:"encoding"`
	Total    int    `json:"total"`
}

type summaryOAuth struct {
	Readiness string `json:"readiness"`
}

type summaryLiveness struct {
	Status             vocab.Status      `json:"status"`
	HandshakeCompleted bool              `json:"handshakeCompleted"`
	ProtocolVersion    string            `json:"protocolVersion"`
	ServerInfo         *probe.ServerInfo `json:"serverInfo"`
	ExitCode           *int              `json:"exitCode"`
	Timings            struct {
		TotalMs float64 `json:"totalMs"`
	} `json:"timings"`
}

type summaryTool struct {
	Name        string          `json:"name"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

type summaryFinding struct {
	Code     string         `json:"code"`
	Severity probe.Severity `json:"severity"`
	Subject  string         `json:"subject"`
}

type summaryProbe struct {
	Kind     string           `json:"kind,omitempty"`
	Class    string           `json:"class"`
	Elements []summaryElement `json:"elements"`
	Retry    *summaryRetry    `json:"retry,omitempty"`
}

type summaryRetry struct {
	Outcome string `json:"outcome"`
	Source  string `json:"source,omitempty"`
	Code    string `json:"code"`
}

type summaryElement struct {
	Name string `json:"name"`
	Pass bool   `json:"pass"`
}

type summaryVerdict struct {
	Decision string        `json:"decision"`
	Actor    vocab.Actor   `json:"actor,omitempty"`
	Cause    string        `json:"cause,omitempty"`
	Rules    []summaryRule `json:"rules"`
}

type summaryRule struct {
	Name     string `json:"name"`
	Fired    bool   `json:"fired"`
	Decision string `json:"decision"`
}

// summarize returns the summary of a result, as SaveRun stores it.
func summarize(res *probe.Result) *runSummary {
	s := &runSummary{Target: res.Target, Score: res.Score,
		Prompts: make([]struct{}, len(res.Prompts)), Resources: make([]struct{}, len(res.Resources)),
		ResourceTemplates: make([]struct{}, len(res.ResourceTemplates))}
	l := &res.Liveness
	s.Liveness = summaryLiveness{Status: l.Status, HandshakeCompleted: l.HandshakeCompleted,
		ProtocolVersion: l.ProtocolVersion, ServerInfo: l.ServerInfo, ExitCode: l.ExitCode}
	s.Liveness.Timings.TotalMs = l.Timings.TotalMs
	s.Tools = make([]summaryTool, len(res.Tools))
	for i, t := range res.Tools {
		s.Tools[i] = summaryTool{Name: t.Name, Annotations: t.Annotations}
	}
	s.Findings = make([]summaryFinding, len(res.Findings))
	for i, f := range res.Findings {
		s.Findings[i] = summaryFinding{Code: f.Code, Severity: f.Severity, Subject: f.Subject}
	}
	s.Probes = make([]summaryProbe, len(res.Probes))
	for i, p := range res.Probes {
		s.Probes[i].Class = p.Class
		for _, e := range p.Elements {
			s.Probes[i].Elements = append(s.Probes[i].Elements, summaryElement{Name: e.Name, Pass: e.Pass})
		}
		if p.Retry != nil {
			s.Probes[i].Kind = p.Kind
			s.Probes[i].Retry = &summaryRetry{Outcome: p.Retry.Outcome, Source: p.Retry.Source, Code: p.Retry.Code}
		}
	}
	if res.OAuth != nil {
		s.OAuth = &summaryOAuth{Readiness: res.OAuth.Readiness}
	}
	if c := res.Context; c != nil {
		s.Context = &summaryContext{Encoding: c.Encoding, Total: c.Total}
	}
	if v := res.Verdict; v != nil {
		s.Verdict = &summaryVerdict{Decision: v.Decision, Actor: v.Actor, Cause: v.Cause}
		for _, r := range v.Rules {
			s.Verdict.Rules = append(s.Verdict.Rules, summaryRule{Name: r.Name, Fired: r.Fired, Decision: r.Decision})
		}
	}
	return s
}

// result returns a [probe.Result] holding only the summary's fields.
func (s *runSummary) result() *probe.Result {
	res := &probe.Result{Target: s.Target, Score: s.Score,
		Prompts: make([]probe.Prompt, len(s.Prompts)), Resources: make([]probe.Resource, len(s.Resources)),
		ResourceTemplates: make([]probe.ResourceTemplate, len(s.ResourceTemplates))}
	l, sl := &res.Liveness, &s.Liveness
	l.Status, l.HandshakeCompleted, l.ProtocolVersion = sl.Status, sl.HandshakeCompleted, sl.ProtocolVersion
	l.ServerInfo, l.ExitCode, l.Timings.TotalMs = sl.ServerInfo, sl.ExitCode, sl.Timings.TotalMs
	res.Tools = make([]probe.Tool, len(s.Tools))
	for i, t := range s.Tools {
		res.Tools[i] = probe.Tool{Name: t.Name, Annotations: t.Annotations}
		if string(t.Annotations) == "null" { // the migration's spelling of none
			res.Tools[i].Annotations = nil
		}
	}
	res.Findings = make([]probe.Finding, len(s.Findings))
	for i, f := range s.Findings {
		res.Findings[i] = probe.Finding{Code: f.Code, Severity: f.Severity, Subject: f.Subject}
	}
	res.Probes = make([]probe.ProbeCall, len(s.Probes))
	for i, p := range s.Probes {
		res.Probes[i].Class = p.Class
		for _, e := range p.Elements {
			res.Probes[i].Elements = append(res.Probes[i].Elements, probe.Element{Name: e.Name, Pass: e.Pass})
		}
		if p.Retry != nil {
			res.Probes[i].Kind = p.Kind
			res.Probes[i].Retry = &probe.Retry{Outcome: p.Retry.Outcome, Source: p.Retry.Source, Code: p.Retry.Code}
		}
	}
	if s.OAuth != nil {
		res.OAuth = &probe.OAuthReadiness{Readiness: s.OAuth.Readiness}
	}
	if c := s.Context; c != nil {
		res.Context = &probe.ContextCost{Encoding: c.Encoding, Total: c.Total}
	}
	if v := s.Verdict; v != nil {
		res.Verdict = &probe.Verdict{Decision: v.Decision, Actor: v.Actor, Cause: v.Cause}
		for _, r := range v.Rules {
			res.Verdict.Rules = append(res.Verdict.Rules, probe.Rule{Name: r.Name, Fired: r.Fired, Decision: r.Decision})
		}
	}
	return res
}

// decodeSummary decodes a summary, or, for a run without one, the
// whole result_json, into a result holding only the summary's fields.
func decodeSummary(js []byte) (*probe.Result, error) {
	var s runSummary
	if err := json.Unmarshal(js, &s); err != nil {
		return nil, err
	}
	return s.result(), nil
}
