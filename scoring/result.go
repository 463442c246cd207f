package scoring

import (
	"encoding/json"
	"maps"
	"slices"

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
	// StderrSecrets names the secrets the sandbox found in the server's
	// whole stderr, which the result keeps only the tail of; a launch
	// after the first is named in the entry ("TOKEN (launch 2)"). When set,
	// they make the stderr finding instead of a search of the tail.
	StderrSecrets []string
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
// an input schema. The properties of an object nested under a property
// (CircleCI's tools take one argument, `params`, holding `projectSlug`,
// `branch` ...), or under an array's items, are argument names too: an
// error that asks for "projectSlug with branch" names arguments the agent
// can set (errors-v9). Nesting is followed [maxSchemaDepth] levels deep;
// required names are the top level's.
func schemaParams(schema json.RawMessage) (params, required []string) {
	var s schemaNode
	if json.Unmarshal(schema, &s) != nil {
		return nil, nil
	}
	seen := map[string]bool{}
	s.collect(seen, 0)
	return slices.Sorted(maps.Keys(seen)), s.Required
}

// maxSchemaDepth bounds how deep [schemaParams] follows nested objects.
const maxSchemaDepth = 4

// schemaNode is the part of a JSON Schema that names arguments.
type schemaNode struct {
	Properties map[string]*schemaNode `json:"properties"`
	Items      *schemaNode            `json:"items"`
	Required   []string               `json:"required"`
}

// UnmarshalJSON reads a schema node, leaving a boolean schema, or an
// "items" array (draft-04 tuples), empty rather than failing the whole
// schema.
func (n *schemaNode) UnmarshalJSON(b []byte) error {
	var v struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	n.Required = v.Required
	if v.Properties != nil {
		n.Properties = make(map[string]*schemaNode, len(v.Properties))
		for k, raw := range v.Properties {
			c := &schemaNode{}
			_ = json.Unmarshal(raw, c)
			n.Properties[k] = c
		}
	}
	if len(v.Items) > 0 {
		c := &schemaNode{}
		_ = json.Unmarshal(v.Items, c)
		n.Items = c
	}
	return nil
}

func (n *schemaNode) collect(seen map[string]bool, depth int) {
	if n == nil || depth > maxSchemaDepth {
		return
	}
	for k, c := range n.Properties {
		seen[k] = true
		c.collect(seen, depth+1)
	}
	n.Items.collect(seen, depth+1)
}

// ScoreResult grades every probe call of res in place: it sets each
// ProbeCall's Elements and Score, res.Score, res.RubricVersion, and appends
// the findings the grader owns: the leaks of the responses, their wrong
// channels, and a secret-leak finding for any canary seen in what the
// server sent or in its stderr. The findings failure injection raises from
// an answer's class alone (accepted, crash, hang, bad cursor) are
// probe's. It returns the grades in probe order. Call [Decide] after it.
func ScoreResult(res *probe.Result, opts *Options) []Graded {
	return ScoreGraded(res, opts, GradeProbes(res, opts))
}

// GradeProbes is the first part of [ScoreResult]: it grades every probe
// call of res in place (each ProbeCall's Elements and Score) and returns
// the grades in probe order. It reads only res.Probes, the listings
// (Tools, Prompts, Resources), the protocol version and capabilities of
// res.Liveness, and opts's Canaries and PublicPaths: none of it changes
// once the last probe is answered, so a caller may run it while the
// server shuts down (scan does: issue 25, probe cost), then finish with
// [ScoreGraded].
func GradeProbes(res *probe.Result, opts *Options) []Graded {
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
	return graded
}

// ScoreGraded is the rest of [ScoreResult], given the grades GradeProbes
// returned for res with the same Canaries and PublicPaths (res's probes
// and listings unchanged since): the server's score, the rubric version
// and the grader's findings, among them the secret leaks, which read
// everything the server sent and its stderr. It returns graded.
func ScoreGraded(res *probe.Result, opts *Options, graded []Graded) []Graded {
	if opts == nil {
		opts = &Options{}
	}
	pv := res.Liveness.ProtocolVersion
	res.Score = ServerScore(graded)
	res.RubricVersion = RubricVersion
	// A canary in a graded response is reported with that response's
	// evidence; the search of every message adds the subjects it missed.
	found := gradedFindings(res.Probes, graded, pv)
	found = append(found, secretLeaks(res, opts.Canaries, opts.StderrSecrets)...)
	res.Findings = append(res.Findings, firstPerSubject(found)...)
	maskCanaries(res.Findings, opts.Canaries)
	return graded
}
