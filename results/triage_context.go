package results

import (
	"cmp"
	"slices"

	"github.com/mcpvet/mcpvet/probe"
)

// triageHeaviest is how many servers and tools a client's context lists.
const triageHeaviest = 3

// TriageContext is what one client loads into a model's context from the
// servers of its config (the sum of each server's tools, prompts and
// resources lists and instructions, [probe.ContextCost]), in tokens of
// Encoding, with the heaviest servers and tools. A server that is in the
// set twice (two entries reaching one run) counts once.
type TriageContext struct {
	// Client is the set's label: "Cursor (FILE)", "Claude Code (FILE)
	// project /p", or the config's path when its client is unknown.
	Client   string `json:"client"`
	Encoding string `json:"encoding"`
	// Tokens is the sum over the measured servers.
	Tokens int `json:"tokens"`
	// Servers counts the measured servers; Unmeasured those without a
	// measurement (no handshake, or a run stored before the measurement).
	Servers    int `json:"servers"`
	Unmeasured int `json:"unmeasured,omitempty"`
	// Estimated is true when a server's count was partly estimated.
	Estimated bool `json:"estimated,omitempty"`
	// HeaviestServers and HeaviestTools are the largest, heaviest first.
	HeaviestServers []TriageWeight `json:"heaviestServers"`
	HeaviestTools   []TriageWeight `json:"heaviestTools"`
}

// TriageWeight is the tokens of one server, or of one tool of a server.
type TriageWeight struct {
	Server string `json:"server"`
	Tool   string `json:"tool,omitempty"`
	Tokens int    `json:"tokens"`
}

// MeasureContext sets t.Context from the stored measurements, one entry per
// set of servers one client loads together (see CheckPortfolio), and
// t.Retry from the first-retry outcomes of the distinct runs.
func (t *Triage) MeasureContext() {
	t.Context = []TriageContext{}
	for _, set := range t.clientSets() {
		c := TriageContext{Client: set.label, Encoding: "o200k_base", HeaviestServers: []TriageWeight{}, HeaviestTools: []TriageWeight{}}
		seen := map[string]bool{}
		var tools []TriageWeight
		for _, s := range set.servers {
			if seen[s.RunKey()] || s.Pending {
				continue
			}
			seen[s.RunKey()] = true
			r := t.results[s.RunKey()]
			if r == nil || r.Context == nil {
				c.Unmeasured++
				continue
			}
			c.Servers++
			c.Tokens += r.Context.Total
			c.Encoding = r.Context.Encoding
			c.Estimated = c.Estimated || r.Context.Estimated
			c.HeaviestServers = append(c.HeaviestServers, TriageWeight{Server: s.Name, Tokens: r.Context.Total})
			for _, tt := range r.Context.PerTool {
				tools = append(tools, TriageWeight{Server: s.Name, Tool: tt.Name, Tokens: tt.Tokens})
			}
		}
		heavy := func(ws []TriageWeight) []TriageWeight {
			slices.SortStableFunc(ws, func(a, b TriageWeight) int { return cmp.Compare(b.Tokens, a.Tokens) })
			return ws[:min(len(ws), triageHeaviest)]
		}
		c.HeaviestServers = heavy(c.HeaviestServers)
		c.HeaviestTools = append([]TriageWeight{}, heavy(tools)...)
		if c.Servers+c.Unmeasured > 0 {
			t.Context = append(t.Context, c)
		}
	}
	t.Retry = probe.RetryRate{}
	seen := map[string]bool{}
	for _, s := range t.Servers {
		if seen[s.RunKey()] || s.Retry == nil {
			continue
		}
		seen[s.RunKey()] = true
		t.Retry.Resolved += s.Retry.Resolved
		t.Retry.Tried += s.Retry.Tried
		t.Retry.Structured += s.Retry.Structured
		t.Retry.Prose += s.Retry.Prose
	}
	t.Retry.Low, t.Retry.High = probe.Wilson(t.Retry.Resolved, t.Retry.Tried)
}

// triageServerCost sets a server's context tokens and first-retry rate
// from its result.
func triageServerCost(s *TriageServer, res *probe.Result) {
	if res.Context != nil {
		n := res.Context.Total
		s.ContextTokens = &n
	}
	if rr := probe.Rates(res); rr.All.Tried > 0 {
		all := rr.All
		s.Retry = &all
	}
}
