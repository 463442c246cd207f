package results

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpvet/mcpvet/vocab"
)

// Values of TriageServer.Definitions.
const (
	DefinitionsChanged   = "changed"
	DefinitionsUnchanged = "unchanged"
	DefinitionsNew       = "new"
)

// CompareBaseline marks each server of t whose definitions (tools with
// their descriptions, schemas and annotations, prompts, resources,
// templates, instructions) differ from its run in the latest scan of
// baseline, the way a rug pull shows: servers are matched as
// [DiffScans] matches them. db names the baseline in the report.
func (t *Triage) CompareBaseline(ctx context.Context, baseline *Store, db string) error {
	// The latest scan other than this triage's own, so that --baseline
	// may name the same database as --db.
	scans, err := baseline.Scans(ctx)
	if err != nil {
		return fmt.Errorf("results: baseline %s: %w", db, err)
	}
	var id int64
	for _, sc := range scans {
		if sc.ID > id && !(baseline.Path() == t.db && sc.ID == t.ScanID) {
			id = sc.ID
		}
	}
	if id == 0 {
		return fmt.Errorf("results: baseline %s: %w: no scan in the database", db, ErrNotFound)
	}
	old, err := LoadDiffInput(ctx, baseline, id)
	if err != nil {
		return err
	}
	// Each server once: entries that reach the same server share a run.
	var cur []Record
	seen := map[string]bool{}
	for _, s := range t.Servers {
		k := s.RunKey()
		if r := t.results[k]; r != nil && !seen[k] {
			seen[k] = true
			cur = append(cur, Record{TargetKey: k, Result: r})
		}
	}
	// Servers are matched by what reaches them (the stored plans'
	// identity) before their names: the same command in a config read
	// from another path, or under another name, is the same server.
	oldIDs, err := baseline.targetIdentities(ctx, id)
	if err != nil {
		return err
	}
	curIDs := t.identities
	if curIDs == nil {
		curIDs = map[string]string{}
	}
	t.Baseline = db
	pairs, _, onlyNew := diffMatchBy(old.Runs, cur, func(r Record, old bool) string {
		if old {
			return oldIDs[r.TargetKey]
		}
		return curIDs[r.TargetKey]
	})
	marks := map[string]TriageServer{}
	for _, p := range pairs {
		a, b := p[0].Result, p[1].Result
		if !a.Liveness.HandshakeCompleted || !b.Liveness.HandshakeCompleted {
			continue
		}
		var changed []string
		for _, c := range append(diffTools(a.Tools, b.Tools), diffItems(a, b)...) {
			changed = append(changed, c.Kind+" "+definitionSubject(c))
		}
		m := TriageServer{Definitions: DefinitionsUnchanged}
		if len(changed) > 0 {
			m = TriageServer{Definitions: DefinitionsChanged, Changed: changed}
		}
		marks[p[1].TargetKey] = m
	}
	for _, r := range onlyNew {
		if r.Result.Liveness.HandshakeCompleted {
			marks[r.TargetKey] = TriageServer{Definitions: DefinitionsNew}
		}
	}
	for i := range t.Servers {
		if m, ok := marks[t.Servers[i].RunKey()]; ok {
			t.Servers[i].Definitions, t.Servers[i].Changed = m.Definitions, m.Changed
		}
	}
	return nil
}

// targetIdentities returns the [vocab.Plan.Identity] of each stored target
// plan of a scan, by target key.
func (s *Store) targetIdentities(ctx context.Context, scanID int64) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT key, plan FROM targets WHERE scan_id = ? AND plan IS NOT NULL", scanID)
	if err != nil {
		return nil, fmt.Errorf("results: reading target plans of scan %d: %w", scanID, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var key, js string
		if err := rows.Scan(&key, &js); err != nil {
			return nil, fmt.Errorf("results: reading target plans of scan %d: %w", scanID, err)
		}
		var pl vocab.Plan
		if json.Unmarshal([]byte(js), &pl) == nil {
			out[key] = pl.Identity()
		}
	}
	return out, rows.Err()
}

// definitionSubject names the item of a change as KIND:NAME.
func definitionSubject(c DiffChange) string {
	switch {
	case strings.HasPrefix(c.Kind, "prompt_"):
		return "prompt:" + c.Subject
	case strings.HasPrefix(c.Kind, "resource_"):
		return "resource:" + c.Subject
	case strings.HasPrefix(c.Kind, "template_"):
		return "template:" + c.Subject
	case c.Kind == DiffInstructionsChanged:
		return "server"
	}
	return "tool:" + c.Subject
}
