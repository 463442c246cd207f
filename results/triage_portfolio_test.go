package results_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

// TestLoadPortfolioMatchesTriage: the lean loader of `scan --config`
// finds the same pairs, in the same order, as the triage of the scan.
func TestLoadPortfolioMatchesTriage(t *testing.T) {
	st, id, tr := fixture.StoreTriage(t, t.TempDir(), fixture.PortfolioServers())
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
