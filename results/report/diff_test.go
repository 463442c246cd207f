package report

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

func TestDiffGolden(t *testing.T) {
	dir := t.TempDir()
	old, cur := fixture.DiffServers()
	oldSt, oldID := fixture.StoreKeyed(t, filepath.Join(dir, "old.db"),
		results.ScanInfo{Kind: results.KindTriage, Source: fixture.TriageSource, StartedAt: fixture.TriageStart}, old)
	newSt, newID := fixture.StoreKeyed(t, filepath.Join(dir, "new.db"),
		results.ScanInfo{Kind: results.KindTriage, Source: fixture.TriageSource, StartedAt: fixture.TriageStart.Add(24 * time.Hour)}, cur)
	d := results.DiffScans(fixture.LoadDiffInput(t, oldSt, oldID), fixture.LoadDiffInput(t, newSt, newID), nil)
	for _, tc := range []struct{ format, file string }{
		{"text", "diff/text.golden"},
		{"json", "diff/json.golden"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			got := triageWrite(t, func(b *bytes.Buffer) error { return WriteDiff(b, d, tc.format) })
			triageGolden(t, tc.file, triageNormalise(got, dir))
		})
	}
}

func TestDiffTextIsSafe(t *testing.T) {
	hostile := "evil\x1b]8;;http://x\x07link\u202e"
	r := func(tool string) results.Record {
		res := fixture.TriageResult(fixture.TriageTarget(hostile), fixture.TriageAlive("1", 1))
		res.Tools = []probe.Tool{fixture.TriageTool(tool, `{"type":"object","description":"`+"\\u001b[31m"+`"}`, "")}
		return results.Record{TargetKey: "k", Result: res}
	}
	d := results.DiffScans(results.DiffInput{DB: "old\x1b[2J.db", Runs: []results.Record{r("t" + hostile)}}, results.DiffInput{Runs: []results.Record{r("u\x1b[1m")}}, nil)
	out := triageWrite(t, func(b *bytes.Buffer) error { return WriteDiff(b, d, "text") })
	for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
		if bytes.Contains(out, []byte(bad)) {
			t.Errorf("text diff contains %q:\n%s", bad, out)
		}
	}
	if err := WriteDiff(&bytes.Buffer{}, d, "yaml"); !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "use one of text, json") {
		t.Errorf("unknown format error = %v", err)
	}
}

// TestDiffTextNoChanges: a scan compared with itself says so.
func TestDiffTextNoChanges(t *testing.T) {
	_, cur := fixture.DiffServers()
	dir := t.TempDir()
	st, id := fixture.StoreKeyed(t, filepath.Join(dir, "new.db"), results.ScanInfo{Kind: results.KindTriage, Source: "config:new.json", StartedAt: fixture.TriageStart}, cur)
	after := fixture.LoadDiffInput(t, st, id)
	out := triageWrite(t, func(b *bytes.Buffer) error { return WriteDiff(b, results.DiffScans(after, after, nil), "text") })
	if !strings.Contains(string(out), "\nno changes\n") {
		t.Errorf("self diff text lacks 'no changes':\n%s", out)
	}
}
