package results

import (
	"context"
	"fmt"
	"strings"
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
	var cur []Record
	for _, s := range t.Servers {
		if r := t.results[s.Key]; r != nil {
			cur = append(cur, Record{TargetKey: s.Key, Result: r})
		}
	}
	t.Baseline = db
	pairs, _, onlyNew := diffMatch(old.Runs, cur)
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
		if m, ok := marks[t.Servers[i].Key]; ok {
			t.Servers[i].Definitions, t.Servers[i].Changed = m.Definitions, m.Changed
		}
	}
	return nil
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
