package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

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
