package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
)

// triagePortfolio runs the portfolio checks on the servers of a triage, in
// its order, from their stored results.
func triagePortfolio(servers []TriageServer, byKey map[string]*probe.Result) []probe.PortfolioFinding {
	var ps []probe.PortfolioServer
	seen := map[string]bool{}
	for _, s := range servers {
		if r := byKey[s.RunKey()]; r != nil && !seen[s.RunKey()] {
			seen[s.RunKey()] = true
			ps = append(ps, probe.PortfolioServer{Name: s.Name, Result: r})
		}
	}
	out := probe.CheckPortfolio(ps)
	if out == nil {
		out = []probe.PortfolioFinding{}
	}
	return out
}

// CheckPortfolio sets t.Portfolio from the servers one client loads
// together: the entries of one config file, where Claude Code's
// per-project entries are loaded with the file's top-level ones (one set
// per project). Servers of different clients never share a tool list, so
// they are not compared. A server that is in several configs is one
// server (its run); a finding found in several configs is reported once,
// naming them all in Configs ("Cursor", "Claude Code project /p", or the
// config's path when its client is unknown).
func (t *Triage) CheckPortfolio() {
	sets := t.clientSets()
	out := []probe.PortfolioFinding{}
	byID := map[string]int{}
	for _, st := range sets {
		for _, f := range triagePortfolio(st.servers, t.results) {
			id := f.Code + "\x00" + strings.Join(f.Servers, "\x00") + "\x00" + strings.Join(f.Names, "\x00")
			if i, ok := byID[id]; ok {
				if !slices.Contains(out[i].Configs, st.label) {
					out[i].Configs = append(out[i].Configs, st.label)
				}
				continue
			}
			f.Configs = []string{st.label}
			byID[id] = len(out)
			out = append(out, f)
		}
	}
	t.Portfolio = out
	t.MeasureContext()
}

// clientSet is the servers one client loads together, with its label
// ("Cursor (FILE)", "... project /p", or the config's path).
type clientSet struct {
	label   string
	servers []TriageServer
}

// clientSets groups t's servers by what one client loads together: the
// entries of one config file, where Claude Code's per-project entries are
// loaded with the file's top-level ones (one set per project).
func (t *Triage) clientSets() []*clientSet {
	var sets []*clientSet
	type file struct {
		top      []TriageServer
		projects map[string][]TriageServer
		order    []string
		label    string
	}
	files := map[string]*file{}
	var fileOrder []string
	for _, s := range t.Servers {
		f := files[s.Config]
		if f == nil {
			label := s.Client
			switch {
			case label != "" && s.Config != "":
				label += " (" + s.Config + ")"
			case label == "" && s.Config != "":
				label = s.Config
			case label == "":
				label = t.Config
			}
			f = &file{projects: map[string][]TriageServer{}, label: label}
			files[s.Config] = f
			fileOrder = append(fileOrder, s.Config)
		}
		if s.Project == "" {
			f.top = append(f.top, s)
			continue
		}
		if _, ok := f.projects[s.Project]; !ok {
			f.order = append(f.order, s.Project)
		}
		f.projects[s.Project] = append(f.projects[s.Project], s)
	}
	for _, name := range fileOrder {
		f := files[name]
		if len(f.order) == 0 {
			sets = append(sets, &clientSet{label: f.label, servers: f.top})
		}
		for _, p := range f.order {
			sets = append(sets, &clientSet{label: f.label + " project " + p, servers: append(append([]TriageServer{}, f.top...), f.projects[p]...)})
		}
	}
	return sets
}

// LoadPortfolio runs the portfolio checks on the runs of a stored scan
// (a triage or a `scan --config`), servers in the order of their targets.
//
// It decodes of each run only what the checks read (target, liveness,
// listings): a run's findings, probes and calls can be megabytes (35,000
// findings for a server listing 5,000 tools), and `scan --config` holds
// nothing else once the scan is done.
func LoadPortfolio(ctx context.Context, st *Store, scanID int64) ([]probe.PortfolioFinding, error) {
	// Pairs need two servers that completed the handshake; with fewer
	// there is nothing to read.
	var alive int
	if err := st.r.QueryRowContext(ctx, "SELECT COUNT(*) FROM runs WHERE scan_id = ? AND handshake_completed = 1", scanID).Scan(&alive); err != nil {
		return nil, fmt.Errorf("results: loading portfolio of scan %d: %w", scanID, err)
	}
	if alive < 2 {
		return []probe.PortfolioFinding{}, nil
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
