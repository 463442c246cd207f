package results_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

// TestLoadPortfolioMatchesTriage: the lean loader of `scan --config`
// finds the same pairs, in the same order, as the triage of the scan.
func TestLoadPortfolioMatchesTriage(t *testing.T) {
	st, id := fixture.StoreKeyed(t, filepath.Join(t.TempDir(), "p.db"),
		results.ScanInfo{Kind: results.KindTriage, Source: fixture.TriageSource, StartedAt: fixture.TriageStart}, fixture.PortfolioServers())
	tr, err := results.LoadTriage(context.Background(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := results.LoadPortfolio(context.Background(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(pf) != 4 {
		t.Fatalf("LoadPortfolio found %d pairs, want 4", len(pf))
	}
	a, _ := json.Marshal(tr.Portfolio)
	b, _ := json.Marshal(pf)
	if !bytes.Equal(a, b) {
		t.Errorf("LoadPortfolio:\n%s\nLoadTriage:\n%s", b, a)
	}
}
