package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// TestPoisonCensusDB re-runs the poisoned-metadata and portfolio checks of
// this build on every run of a stored census that completed the handshake
// and logs each hit with its span, and the count per code:
//
//	MCPVET_CENSUS_DB=census.db go test ./cmd/mcpvet -run TestPoisonCensusDB -v
//
// It reads the stored results (tools as sent, the instructions), so a
// census taken by an older build is judged by the current checks. Without
// the variable it is skipped.
func TestPoisonCensusDB(t *testing.T) {
	path := os.Getenv("MCPVET_CENSUS_DB")
	if path == "" {
		t.Skip("set MCPVET_CENSUS_DB to a results database")
	}
	ctx := context.Background()
	st, err := results.Open(ctx, path, &results.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc, err := st.LatestScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	servers, tools := 0, 0
	var ps []probe.PortfolioServer
	c := probe.NewChecker()
	for rec, err := range st.Runs(ctx, sc.ID) {
		if err != nil {
			t.Fatal(err)
		}
		res := rec.Result
		if !res.Liveness.HandshakeCompleted {
			continue
		}
		servers++
		tools += len(res.Tools)
		ps = append(ps, probe.PortfolioServer{Name: res.Target.Name, Result: res})
		init, _ := json.Marshal(map[string]any{"protocolVersion": res.Liveness.ProtocolVersion, "instructions": res.Liveness.Instructions})
		pages := []probe.Page{{Method: "initialize", Result: init}}
		for _, f := range c.Check(res, pages) {
			if !strings.HasPrefix(f.Code, "poison/") {
				continue
			}
			counts[f.Code]++
			t.Logf("HIT %s %s %s %s: %q | %s", f.Code, res.Target.Name, f.Subject, f.Pointer, f.Value, f.Message)
		}
	}
	for _, f := range probe.CheckPortfolio(ps) {
		counts[f.Code]++
		t.Logf("PAIR %s %s + %s: %s | %q", f.Code, f.Servers, "", f.Message, f.Value)
	}
	var codes []string
	for _, e := range probe.Catalog() {
		if strings.HasPrefix(e.Code, "poison/") || strings.HasPrefix(e.Code, "portfolio/") {
			codes = append(codes, fmt.Sprintf("%s=%d", e.Code, counts[e.Code]))
		}
	}
	sort.Strings(codes)
	t.Logf("scan %d of %s: %d servers completed the handshake, %d tools; %s", sc.ID, path, servers, tools, strings.Join(codes, " "))
}
