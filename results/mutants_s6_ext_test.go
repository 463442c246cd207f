package results_test

import (
	"context"
	"testing"

	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

// TestS6LoadPortfolioTwoServers: two servers that completed the handshake
// are a pair to check (session 6 survivor of results/triage_portfolio.go:
// `alive < 2` -> `<= 2` found nothing for two).
func TestS6LoadPortfolioTwoServers(t *testing.T) {
	st, id, tr := fixture.StoreTriage(t, t.TempDir(), fixture.PortfolioServers()[:2])
	pf, err := results.LoadPortfolio(context.Background(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(pf) == 0 || len(pf) != len(tr.Portfolio) {
		t.Errorf("LoadPortfolio of mail and helper (send_email twice): %d pairs, triage %d; want the same, at least 1", len(pf), len(tr.Portfolio))
	}
}
