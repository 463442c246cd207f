package results

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestActorStored pins runs.actor (migration 0005): a new run stores its
// verdict's actor, and a run stored before the column existed gets the
// actor its decision implies when the database is upgraded.
func TestActorStored(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "old.db")
	abs, _ := filepath.Abs(p)
	if err := checkFile(p, abs, false); err != nil {
		t.Fatal(err)
	}
	old, err := open(ctx, p, abs, (*Options)(nil).withDefaults(), migrations[:4])
	if err != nil {
		t.Fatal(err)
	}
	scan := newScan(t, old, ScanInfo{})
	drop := fakeResult(1, census)
	drop.Verdict = &probe.Verdict{Decision: vocab.DecisionDrop}
	if _, err := old.SaveRun(ctx, scan, "old-drop", drop); err != nil {
		t.Fatal(err)
	}
	old.Close()

	st, err := Open(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	setup := fakeResult(2, census)
	setup.Verdict = &probe.Verdict{Decision: vocab.DecisionNeedsSetup, Actor: vocab.ActorUser, Supply: []string{"env TOKEN"}}
	if _, err := st.SaveRun(ctx, scan, "new-setup", setup); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"old-drop": "author", "new-setup": "user"} {
		var got string
		if err := st.r.QueryRow("SELECT actor FROM run_summary WHERE target_key = ?", key).Scan(&got); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if got != want {
			t.Errorf("actor of %s = %q, want %q", key, got, want)
		}
	}
}
