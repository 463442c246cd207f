package results

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
)

// triagePortfolio runs the portfolio checks on the servers of a triage, in
// its order, from their stored results.
func triagePortfolio(servers []TriageServer, byKey map[string]*probe.Result) []probe.PairFinding {
	var ps []probe.PortfolioServer
	for _, s := range servers {
		if r := byKey[s.Key]; r != nil {
			ps = append(ps, probe.PortfolioServer{Name: s.Name, Result: r})
		}
	}
	out := probe.CheckPortfolio(ps)
	if out == nil {
		out = []probe.PairFinding{}
	}
	return out
}

// LoadPortfolio runs the portfolio checks on the runs of a stored scan
// (a triage or a `scan --config`), servers in the order of their targets.
//
// It decodes of each run only what the checks read (target, liveness,
// listings): a run's findings, probes and calls can be megabytes (35,000
// findings for a server listing 5,000 tools), and `scan --config` holds
// nothing else once the scan is done.
func LoadPortfolio(ctx context.Context, st *Store, scanID int64) ([]probe.PairFinding, error) {
	// Pairs need two servers that completed the handshake; with fewer
	// there is nothing to read.
	var alive int
	if err := st.r.QueryRowContext(ctx, "SELECT COUNT(*) FROM runs WHERE scan_id = ? AND handshake_completed = 1", scanID).Scan(&alive); err != nil {
		return nil, fmt.Errorf("results: loading portfolio of scan %d: %w", scanID, err)
	}
	if alive < 2 {
		return []probe.PairFinding{}, nil
	}
	rows, err := st.r.QueryContext(ctx, "SELECT target_key, result_json FROM runs WHERE scan_id = ? ORDER BY id", scanID)
	if err != nil {
		return nil, fmt.Errorf("results: loading portfolio of scan %d: %w", scanID, err)
	}
	byKey := map[string]*probe.Result{}
	for rows.Next() {
		var key, js string
		if err := rows.Scan(&key, &js); err != nil {
			rows.Close()
			return nil, fmt.Errorf("results: loading portfolio of scan %d: %w", scanID, err)
		}
		var lean struct {
			probe.Result
			Findings skipJSON `json:"findings"`
			Probes   skipJSON `json:"probes"`
			Calls    skipJSON `json:"calls"`
		}
		if err := json.Unmarshal([]byte(js), &lean); err != nil {
			rows.Close()
			return nil, fmt.Errorf("results: decoding run %q of scan %d: %w", key, scanID, err)
		}
		byKey[key] = &lean.Result
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("results: loading portfolio of scan %d: %w", scanID, err)
	}
	keys, err := st.triageTargetKeys(ctx, scanID)
	if err != nil {
		return nil, err
	}
	var servers []TriageServer
	seen := map[string]bool{}
	for _, k := range keys {
		if r := byKey[k]; r != nil && !seen[k] {
			seen[k] = true
			servers = append(servers, TriageServer{Key: k, Name: r.Target.Name})
		}
	}
	var rest []string
	for k := range byKey {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		servers = append(servers, TriageServer{Key: k, Name: byKey[k].Target.Name})
	}
	return triagePortfolio(servers, byKey), nil
}

// skipJSON is a JSON value that is read over and not kept.
type skipJSON struct{}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

// writeTriagePortfolioText writes the portfolio findings as a section of
// the table report, every server-sent string through safe.Line, wrapped to
// width columns (0: no limit).
func writeTriagePortfolioText(w io.Writer, pf []probe.PairFinding, width int) error {
	if len(pf) == 0 {
		return nil
	}
	var b bytes.Buffer
	line := func(indent, text string) {
		if width <= 0 {
			fmt.Fprintf(&b, "%s%s\n", indent, text)
			return
		}
		for i, l := range triageWrap(text, width-len(indent)-2, 1<<10) {
			if i > 0 {
				l = "  " + l
			}
			fmt.Fprintf(&b, "%s%s\n", indent, l)
		}
	}
	fmt.Fprintf(&b, "\nacross servers (%d)\n", len(pf))
	for _, f := range pf {
		line("  ", fmt.Sprintf("%s  %s %s + %s: %s", f.Severity, f.Code, safe.Line(f.Servers[0]), safe.Line(f.Servers[1]), safe.Line(f.Message)))
		if f.Code == probe.CodePortfolioCrossRef && f.Value != "" {
			line("      ", safe.Truncate(strings.Join(strings.Fields(safe.Line(f.Value)), " "), 160, safe.Ellipsis))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// triagePortfolioJUnit is the portfolio as a second test suite: one
// failing test case per pair finding.
func triagePortfolioJUnit(t *Triage) (triageJUnitSuite, bool) {
	if len(t.Portfolio) == 0 {
		return triageJUnitSuite{}, false
	}
	s := triageJUnitSuite{Name: t.Source + " (across servers)", Timestamp: t.StartedAt.UTC().Format("2006-01-02T15:04:05"), Time: "0.000"}
	for _, f := range t.Portfolio {
		name := safe.Line(f.Servers[0]) + " + " + safe.Line(f.Servers[1])
		s.Cases = append(s.Cases, triageJUnitCase{
			Name:      name + ": " + f.Code,
			Classname: "mcpvet.portfolio",
			Time:      "0.000",
			Failure: &triageJUnitMessage{Message: safe.Line(f.Message), Type: string(f.Severity),
				Text: "code: " + f.Code + "\nservers: " + name + "\nevidence: " + safe.Line(f.Value) + "\n"},
		})
		s.Failures++
	}
	s.Tests = len(s.Cases)
	return s, true
}

// triagePortfolioSARIF is one SARIF result per pair finding, located at
// the first server's entry in the config.
func triagePortfolioSARIF(t *Triage, uri string, index map[string]int) []triageSARIFResult {
	line := map[string]int{}
	for _, s := range t.Servers {
		line[s.Name] = s.Line
	}
	var out []triageSARIFResult
	for _, f := range t.Portfolio {
		a, b := safe.Line(f.Servers[0]), safe.Line(f.Servers[1])
		loc := triageSARIFLocation{
			PhysicalLocation: triageSARIFPhysical{ArtifactLocation: triageSARIFArtLoc{URI: uri}},
			LogicalLocations: []triageSARIFLogical{
				{Name: a, FullyQualifiedName: a, Kind: "module"},
				{Name: b, FullyQualifiedName: b, Kind: "module"},
			},
		}
		if l := line[f.Servers[0]]; l > 0 {
			loc.PhysicalLocation.Region = &triageSARIFRegion{StartLine: l}
		}
		out = append(out, triageSARIFResult{
			RuleID:    f.Code,
			RuleIndex: index[f.Code],
			Level:     TriageSARIFLevel(f.Severity),
			Message:   triageSARIFMessage{Text: a + " + " + b + ": " + safe.Line(f.Message)},
			Locations: []triageSARIFLocation{loc},
			PartialFingerprints: map[string]string{
				"mcpvetFinding/v1": triageFingerprint(f.Servers[0], f.Servers[1], f.Code),
			},
			Properties: map[string]any{"servers": []string{a, b}, "names": f.Names, "severity": string(f.Severity), "value": safe.Line(f.Value)},
		})
	}
	return out
}
