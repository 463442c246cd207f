package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
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
	nb := Baseline{Version: 1, Server: res.Target.Name, Score: res.Score, Accepted: []BaselineEntry{}}
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
