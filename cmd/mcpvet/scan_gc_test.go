package main

import (
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testfixture"
)

// TestScanGCPercent: a scan runs with the garbage collector's target at
// scanGCPercent and restores the previous one after; GOGC set by the user
// wins (issue 22: the heap of a scan is mostly short-lived copies of server
// output, and at the default it peaks at twice the live set).
func TestScanGCPercent(t *testing.T) {
	if testing.Short() {
		t.Skip("launches a fixture server")
	}
	bins := testfixture.Build(t, "wellbehaved")
	config := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), `{"mcpServers": {"wb": {"command": `+jsonString(bins["wellbehaved"])+`}}}`)
	var calls []int
	setGCPercent = func(p int) int { calls = append(calls, p); return debug.SetGCPercent(p) }
	defer func() { setGCPercent = debug.SetGCPercent }()
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)

	t.Setenv("GOGC", "")
	if code, _, stderr := runCLI("scan", "--config", config, "--db", filepath.Join(t.TempDir(), "a.db"), "--sandbox", "none", "--no-inject", "-q"); code != exitOK {
		t.Fatalf("scan: exit %d: %s", code, stderr)
	}
	if len(calls) != 2 || calls[0] != scanGCPercent || calls[1] != 100 {
		t.Errorf("SetGCPercent calls = %v, want [%d 100] (set for the scan, then restored)", calls, scanGCPercent)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent after the scan = %d, want 100 restored", got)
	}

	calls = nil
	t.Setenv("GOGC", "200")
	if code, _, stderr := runCLI("scan", "--config", config, "--db", filepath.Join(t.TempDir(), "b.db"), "--sandbox", "none", "--no-inject", "-q"); code != exitOK {
		t.Fatalf("scan with GOGC: exit %d: %s", code, stderr)
	}
	if len(calls) != 0 {
		t.Errorf("SetGCPercent calls with GOGC=200 = %v, want none", calls)
	}
}
