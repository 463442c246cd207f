package scoring

import (
	"encoding/json"
	"sort"

	"github.com/mcpvet/mcpvet/probe"
)

// Options carries what the scanner knows that the result does not. A nil
// *Options is valid.
type Options struct {
	// Canaries maps each secret environment variable the sandbox set to
	// its unique canary value.
	Canaries map[string]string
	// PublicPaths are host paths the scanner passed to the server (allowed
	// directories); mentioning them is not a leak.
	PublicPaths []string
}

// ContextFor builds the grading context of a tool (empty for no tool) from
// a probe result.
func ContextFor(res *probe.Result, tool string, opts *Options) Context {
	if opts == nil {
		opts = &Options{}
	}
	c := Context{Canaries: opts.Canaries, PublicPaths: opts.PublicPaths, Capabilities: res.Liveness.Capabilities}
	for _, t := range res.Tools {
		c.ToolNames = append(c.ToolNames, t.Name)
		if t.Name == tool && tool != "" {
			c.ParamNames, c.Required = schemaParams(t.InputSchema)
		}
	}
	for _, p := range res.Prompts {
		c.PromptNames = append(c.PromptNames, p.Name)
	}
	for _, r := range res.Resources {
		c.ResourceURIs = append(c.ResourceURIs, r.URI)
	}
	return c
}

// schemaParams returns the sorted property names and the required names of
// an input schema.
func schemaParams(schema json.RawMessage) (params, required []string) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, nil
	}
	for k := range s.Properties {
		params = append(params, k)
	}
	sort.Strings(params)
	return params, s.Required
}

// ScoreResult grades every probe call of res in place: it sets each
// ProbeCall's Elements and Score, res.Score, res.RubricVersion, and appends
// the findings the responses raise (leaks, accepted invalid input,
// crashes, hangs, wrong channels) plus a secret-leak finding for any
// canary seen in the tool, prompt and resource listings or the server's
// stderr. Findings already present (same code and subject) are not
// repeated. It returns the grades in probe order. Call [Decide] after it.
func ScoreResult(res *probe.Result, opts *Options) []Graded {
	if opts == nil {
		opts = &Options{}
	}
	pv := res.Liveness.ProtocolVersion
	graded := make([]Graded, 0, len(res.Probes))
	for i := range res.Probes {
		pc := &res.Probes[i]
		g := Grade(FromProbeCall(*pc, pv), ContextFor(res, pc.Tool, opts))
		g.Apply(pc)
		graded = append(graded, g)
	}
	res.Score = ServerScore(graded)
	res.RubricVersion = RubricVersion
	found := FindingsFor(graded)
	found = append(found, secretLeaks(res, opts.Canaries)...)
	type key struct{ code, subject string }
	have := map[key]bool{}
	for _, f := range res.Findings {
		have[key{f.Code, f.Subject}] = true
	}
	for _, f := range found {
		k := key{f.Code, f.Subject}
		if !have[k] {
			have[k] = true
			res.Findings = append(res.Findings, f)
		}
	}
	maskCanaries(res.Findings, opts.Canaries)
	return graded
}
