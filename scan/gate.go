package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
)

// A Baseline is the committed file of accepted findings that a server's
// author gate (`mcpvet probe --baseline FILE`) compares a probe with. A
// finding is identified by code, subject and pointer: its message and
// value may be reworded by a later mcpvet without it becoming new.
type Baseline struct {
	// Version is the file format, 1.
	Version int `json:"version"`
	// Server names what was probed, for the reader.
	Server string `json:"server,omitempty"`
	// Score is the accepted actionability score; a probe whose score is
	// lower by more than the allowed drop fails the gate.
	Score *float64 `json:"score"`
	// Accepted are the accepted findings, each with the reason.
	Accepted []BaselineEntry `json:"accepted"`
	// Context is the accepted context cost: what a client loads from the
	// server, in tokens, with each tool's own; --max-context-growth
	// compares a probe with it.
	Context *BaselineContext `json:"context,omitempty"`
}

// BaselineContext is the context cost a [Baseline] accepts.
type BaselineContext struct {
	// Encoding names the tokenizer of the figures: "o200k_base".
	Encoding string         `json:"encoding"`
	Total    int            `json:"total"`
	Tools    map[string]int `json:"tools,omitempty"`
}

// A BaselineEntry is one accepted finding of a [Baseline].
type BaselineEntry struct {
	Code    string `json:"code"`
	Subject string `json:"subject"`
	Pointer string `json:"pointer,omitempty"`
	// Reason says why the finding is accepted; required.
	Reason string `json:"reason"`
	// Message is the finding's message when it was accepted, for the
	// reader; it does not take part in matching.
	Message string `json:"message,omitempty"`
}

func (e BaselineEntry) key() string { return e.Code + "\x00" + e.Subject + "\x00" + e.Pointer }

func findingKey(f probe.Finding) string { return f.Code + "\x00" + f.Subject + "\x00" + f.Pointer }

// ReasonTODO is the reason [Baseline.Update] writes for a finding it
// accepts; the author replaces it with the real reason.
const ReasonTODO = "accepted by --update-baseline; replace this with why the finding is acceptable"

// gateSeverity is the mildest severity the gate counts: info findings
// (such as the sandbox the CI machine offers) never fail it.
var gateSeverity = probe.SeverityWarn

// ErrNotBaseline is the cause of every [ReadBaseline] error about the
// file's content (not its reading).
var ErrNotBaseline = errors.New("not a baseline file")

// ReadBaseline reads and validates a baseline file. A missing file is an
// empty baseline only when create is set; any other reading error is
// returned as it is (an *fs.PathError).
func ReadBaseline(path string, create bool) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && create {
		return &Baseline{Version: 1}, nil
	}
	if err != nil {
		return nil, err
	}
	var b Baseline
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("%w (%v); it holds {\"version\": 1, \"score\": N, \"accepted\": [{\"code\", \"subject\", \"pointer\", \"reason\"}]}", ErrNotBaseline, err)
	}
	if b.Version != 1 {
		return nil, fmt.Errorf("%w: version %d: unknown; this mcpvet reads version 1", ErrNotBaseline, b.Version)
	}
	for i, e := range b.Accepted {
		switch {
		case e.Code == "":
			return nil, fmt.Errorf("%w: accepted[%d].code is empty; give the finding code, such as tool/title_missing", ErrNotBaseline, i)
		case strings.TrimSpace(e.Reason) == "":
			return nil, fmt.Errorf("%w: accepted[%d] (%s on %s) has no reason; say why the finding is accepted", ErrNotBaseline, i, e.Code, e.Subject)
		}
	}
	return &b, nil
}

// Reason returns the reason b accepts f for, or "" when it does not. A
// nil baseline accepts nothing.
func (b *Baseline) Reason(f probe.Finding) string {
	if b == nil {
		return ""
	}
	k, reason := findingKey(f), ""
	for _, e := range b.Accepted {
		if e.key() == k {
			reason = e.Reason // the last entry wins, as in a map
		}
	}
	return reason
}

// A GateResult is what the gate found.
type GateResult struct {
	// New are the findings the baseline does not accept.
	New []probe.Finding
	// Drop is the score drop beyond the threshold, 0 when none.
	Drop float64
	// OldScore is the baseline's score when Drop is set.
	OldScore *float64
}

// Failed reports whether the gate fails: a new finding or a score drop.
func (g GateResult) Failed() bool { return len(g.New) > 0 || g.Drop > 0 }

// Check compares a probe result with b: findings of severity warn or
// worse that b does not accept are new, and a score lower than b's by
// more than maxDrop points is a drop.
func (b *Baseline) Check(res *probe.Result, maxDrop float64) GateResult {
	accepted := map[string]bool{}
	for _, e := range b.Accepted {
		accepted[e.key()] = true
	}
	var g GateResult
	seen := map[string]bool{}
	for _, f := range res.Findings {
		k := findingKey(f)
		if f.Severity.Rank() < gateSeverity.Rank() || accepted[k] || seen[k] {
			continue
		}
		seen[k] = true
		g.New = append(g.New, f)
	}
	if b.Score != nil && res.Score != nil && *b.Score-*res.Score > maxDrop {
		g.Drop, g.OldScore = *b.Score-*res.Score, b.Score
	}
	return g
}

// Update writes to path the baseline of the probe's findings: reasons of
// findings b accepts and still present are kept, new ones get
// [ReasonTODO], findings gone are dropped; the score becomes the probe's.
// A failure to write is returned as it is (an *fs.PathError).
func (b *Baseline) Update(path string, res *probe.Result) (added, removed int, err error) {
	reason := map[string]string{}
	for _, e := range b.Accepted {
		reason[e.key()] = e.Reason
	}
	nb := Baseline{Version: 1, Server: res.Target.Name, Score: res.Score, Accepted: []BaselineEntry{}, Context: baselineContext(res.Context)}
	seen := map[string]bool{}
	for _, f := range res.Findings {
		k := findingKey(f)
		if f.Severity.Rank() < gateSeverity.Rank() || seen[k] {
			continue
		}
		seen[k] = true
		r, ok := reason[k]
		if !ok {
			r = ReasonTODO
			added++
		}
		nb.Accepted = append(nb.Accepted, BaselineEntry{Code: f.Code, Subject: f.Subject, Pointer: f.Pointer, Reason: r, Message: f.Message})
	}
	for k := range reason {
		if !seen[k] {
			removed++
		}
	}
	slices.SortFunc(nb.Accepted, func(a, b BaselineEntry) int { return strings.Compare(a.key(), b.key()) })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(nb); err != nil {
		return 0, 0, err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return 0, 0, err
	}
	return added, removed, nil
}

func baselineContext(c *probe.ContextCost) *BaselineContext {
	if c == nil {
		return nil
	}
	bc := &BaselineContext{Encoding: c.Encoding, Total: c.Total, Tools: map[string]int{}}
	for _, t := range c.PerTool {
		bc.Tools[t.Name] = t.Tokens
	}
	return bc
}

// ContextLimits are the context-cost limits of the author gate.
type ContextLimits struct {
	// MaxTokens fails a probe whose context cost exceeds it; 0 is no
	// limit.
	MaxTokens int
	// MaxGrowthPct fails a probe whose context cost grew by more than
	// this percentage over the baseline's; negative is no limit.
	MaxGrowthPct float64
}

// ContextGate is the outcome of [CheckContext].
type ContextGate struct {
	Encoding string
	// Tokens is the probe's context cost; Baseline the accepted one (0
	// when the baseline has none).
	Tokens, Baseline int
	// GrowthPct is the growth over the baseline, in percent.
	GrowthPct float64
	// OverMax and OverGrowth say which limit failed.
	OverMax, OverGrowth bool
	// NoBaseline is set when a growth limit was asked and the baseline
	// records no context cost (a file written before it did): the growth
	// is not checked.
	NoBaseline bool
	// Growth lists the tools whose definitions grew, were added or
	// removed, largest change first.
	Growth []ToolGrowth
}

// ToolGrowth is one tool's change of tokens against the baseline.
type ToolGrowth struct {
	Name     string
	Old, New int
	// Added and Removed mark a tool absent from the baseline or from the
	// probe.
	Added, Removed bool
}

// Failed reports whether a context limit failed.
func (g ContextGate) Failed() bool { return g.OverMax || g.OverGrowth }

// CheckContext compares a probe's context cost with the limits and, for
// growth, with b (which may be nil). A result without a context cost
// (no handshake) passes: there is nothing a client would load.
func CheckContext(res *probe.Result, b *Baseline, l ContextLimits) ContextGate {
	var g ContextGate
	c := res.Context
	if c == nil {
		return g
	}
	g.Encoding, g.Tokens = c.Encoding, c.Total
	g.OverMax = l.MaxTokens > 0 && c.Total > l.MaxTokens
	if l.MaxGrowthPct < 0 {
		return g
	}
	if b == nil || b.Context == nil || b.Context.Encoding != c.Encoding {
		g.NoBaseline = true
		return g
	}
	g.Baseline = b.Context.Total
	if g.Baseline > 0 {
		g.GrowthPct = 100 * float64(c.Total-g.Baseline) / float64(g.Baseline)
	} else if c.Total > 0 {
		g.GrowthPct = 100
	}
	g.OverGrowth = g.GrowthPct > l.MaxGrowthPct
	seen := map[string]bool{}
	for _, t := range c.PerTool {
		seen[t.Name] = true
		old, ok := b.Context.Tools[t.Name]
		if !ok || t.Tokens != old {
			g.Growth = append(g.Growth, ToolGrowth{Name: t.Name, Old: old, New: t.Tokens, Added: !ok})
		}
	}
	for name, old := range b.Context.Tools {
		if !seen[name] {
			g.Growth = append(g.Growth, ToolGrowth{Name: name, Old: old, Removed: true})
		}
	}
	sort.SliceStable(g.Growth, func(i, j int) bool {
		di, dj := g.Growth[i].New-g.Growth[i].Old, g.Growth[j].New-g.Growth[j].Old
		if di != dj {
			return di > dj
		}
		return g.Growth[i].Name < g.Growth[j].Name
	})
	return g
}
