package results

import (
	"cmp"
	"slices"

	"github.com/mcpvet/mcpvet/probe"
)

// censusHeaviest is how many of the heaviest servers the census lists.
const censusHeaviest = 5

// ContextFigures are what the servers that completed the handshake cost a
// client's context ([probe.ContextCost]: tools, prompts and resources
// lists and instructions), in tokens of Encoding, per plan.
type ContextFigures struct {
	Encoding string `json:"encoding"`
	// Servers counts the plans measured (every plan that completed the
	// handshake, from the version that measures).
	Servers int `json:"servers"`
	// Tokens is the distribution of a plan's total: median, p90, max.
	Tokens Distribution `json:"tokens"`
	// Heaviest are the heaviest plans, heaviest first.
	Heaviest []ServerTokens `json:"heaviest"`
}

// ServerTokens is one plan's context cost.
type ServerTokens struct {
	Server string `json:"server"`
	Tokens int    `json:"tokens"`
}

// RetryFigures are the first-retry resolution rates of the error
// responses mcpvet could correct (probe.Retry), in all, per probe kind and
// per error code, each with its 95% Wilson interval: a rate of the
// servers' behaviour, stated with its interval whether or not the census
// is complete.
type RetryFigures struct {
	// Servers counts the plans with at least one retried error.
	Servers int             `json:"servers"`
	All     probe.RetryRate `json:"all"`
	ByKind  []RetryRow      `json:"byKind"`
	ByCode  []RetryRow      `json:"byCode"`
}

// RetryRow is the rate of one probe kind or error code.
type RetryRow struct {
	Key string `json:"key"`
	probe.RetryRate
}

// costTally accumulates the context and retry figures.
type costTally struct {
	encoding       string
	tokens         []float64
	heaviest       []ServerTokens
	retryServers   int
	all            probe.RetryRate
	byKind, byCode map[string]*probe.RetryRate
}

func (c *costTally) add(res *probe.Result) {
	if cc := res.Context; cc != nil && res.Liveness.HandshakeCompleted {
		c.encoding = cc.Encoding
		c.tokens = append(c.tokens, float64(cc.Total))
		c.heaviest = append(c.heaviest, ServerTokens{Server: res.Target.Name, Tokens: cc.Total})
		slices.SortStableFunc(c.heaviest, func(a, b ServerTokens) int { return cmp.Compare(b.Tokens, a.Tokens) })
		c.heaviest = c.heaviest[:min(len(c.heaviest), censusHeaviest)]
	}
	rr := probe.Rates(res)
	if rr.All.Tried == 0 {
		return
	}
	c.retryServers++
	if c.byKind == nil {
		c.byKind, c.byCode = map[string]*probe.RetryRate{}, map[string]*probe.RetryRate{}
	}
	sum := func(dst *probe.RetryRate, r probe.RetryRate) {
		dst.Resolved += r.Resolved
		dst.Tried += r.Tried
		dst.Structured += r.Structured
		dst.Prose += r.Prose
	}
	sum(&c.all, rr.All)
	for k, r := range rr.ByKind {
		if c.byKind[k] == nil {
			c.byKind[k] = &probe.RetryRate{}
		}
		sum(c.byKind[k], r)
	}
	for k, r := range rr.ByCode {
		if c.byCode[k] == nil {
			c.byCode[k] = &probe.RetryRate{}
		}
		sum(c.byCode[k], r)
	}
}

// figures returns the context and retry figures.
func (c *costTally) figures() (ContextFigures, RetryFigures) {
	enc := c.encoding
	if enc == "" {
		enc = "o200k_base"
	}
	cf := ContextFigures{Encoding: enc, Servers: len(c.tokens), Tokens: Describe(c.tokens), Heaviest: append([]ServerTokens{}, c.heaviest...)}
	rows := func(m map[string]*probe.RetryRate) []RetryRow {
		out := []RetryRow{}
		for k, r := range m {
			rr := *r
			rr.Low, rr.High = probe.Wilson(rr.Resolved, rr.Tried)
			out = append(out, RetryRow{Key: k, RetryRate: rr})
		}
		slices.SortFunc(out, func(a, b RetryRow) int {
			return cmp.Or(cmp.Compare(b.Tried, a.Tried), cmp.Compare(a.Key, b.Key))
		})
		return out
	}
	all := c.all
	all.Low, all.High = probe.Wilson(all.Resolved, all.Tried)
	return cf, RetryFigures{Servers: c.retryServers, All: all, ByKind: rows(c.byKind), ByCode: rows(c.byCode)}
}
