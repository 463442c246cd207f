package scan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
)

func TestReadBaseline(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	missing := filepath.Join(dir, "none.json")
	if b, err := ReadBaseline(missing, true); err != nil || b.Version != 1 || len(b.Accepted) != 0 {
		t.Errorf("missing file with create = %+v, %v; want an empty version 1 baseline", b, err)
	}
	var pe *fs.PathError
	if _, err := ReadBaseline(missing, false); !errors.As(err, &pe) {
		t.Errorf("missing file without create = %v, want an *fs.PathError", err)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"unknown field", `{"version":1,"score":null,"accepted":[],"extra":1}`, "unknown field"},
		{"version", `{"version":2,"score":null,"accepted":[]}`, "version 2: unknown"},
		{"empty code", `{"version":1,"score":null,"accepted":[{"code":"","subject":"s","reason":"r"}]}`, "accepted[0].code is empty"},
		{"no reason", `{"version":1,"score":null,"accepted":[{"code":"c","subject":"s","reason":"  "}]}`, "accepted[0] (c on s) has no reason"},
	} {
		_, err := ReadBaseline(write(tc.name+".json", tc.text), false)
		if !errors.Is(err, ErrNotBaseline) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrNotBaseline saying %q", tc.name, err, tc.want)
		}
	}
}

func TestBaselineCheckAndUpdate(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	f := func(code, subject string, sev probe.Severity) probe.Finding {
		return probe.Finding{Code: code, Subject: subject, Severity: sev, Message: code + " message"}
	}
	b := &Baseline{Version: 1, Score: score(80), Accepted: []BaselineEntry{
		{Code: "tool/a", Subject: "tool:x", Reason: "first"},
		{Code: "tool/a", Subject: "tool:x", Reason: "kept"},
		{Code: "tool/gone", Subject: "tool:y", Reason: "old"},
	}}
	res := &probe.Result{Score: score(75), Findings: []probe.Finding{
		f("tool/a", "tool:x", probe.SeverityError),
		f("tool/new", "tool:x", probe.SeverityWarn),
		f("tool/new", "tool:x", probe.SeverityWarn),
		f("tool/info", "tool:x", probe.SeverityInfo),
	}}
	if got := b.Reason(res.Findings[0]); got != "kept" {
		t.Errorf("Reason = %q, want the last entry's %q", got, "kept")
	}
	if got := (*Baseline)(nil).Reason(res.Findings[0]); got != "" {
		t.Errorf("nil baseline Reason = %q, want none", got)
	}
	for _, tc := range []struct {
		maxDrop  float64
		wantDrop float64
	}{{5, 0}, {4.9, 5}} {
		g := b.Check(res, tc.maxDrop)
		if len(g.New) != 1 || g.New[0].Code != "tool/new" || g.Drop != tc.wantDrop || !g.Failed() {
			t.Errorf("Check(maxDrop %g) = %+v, want one new tool/new and a drop of %g", tc.maxDrop, g, tc.wantDrop)
		}
	}
	if g := b.Check(&probe.Result{Score: score(80)}, 0); g.Failed() {
		t.Errorf("a clean probe failed the gate: %+v", g)
	}

	path := filepath.Join(t.TempDir(), "b.json")
	added, removed, err := b.Update(path, res)
	if err != nil || added != 1 || removed != 1 {
		t.Fatalf("Update = %d added, %d removed, %v; want 1, 1", added, removed, err)
	}
	nb, err := ReadBaseline(path, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []BaselineEntry{
		{Code: "tool/a", Subject: "tool:x", Reason: "kept", Message: "tool/a message"},
		{Code: "tool/new", Subject: "tool:x", Reason: ReasonTODO, Message: "tool/new message"},
	}
	if diff := cmp.Diff(want, nb.Accepted); diff != "" || *nb.Score != 75 {
		t.Errorf("updated baseline (-want +got):\n%s score %v", diff, *nb.Score)
	}
}

// TestCheckContext: the context limits against a baseline: growth past
// the allowed percentage fails and lists the tools that changed, largest
// growth first (ties by name); a baseline without context cost leaves growth unchecked.
func TestCheckContext(t *testing.T) {
	res := &probe.Result{Context: &probe.ContextCost{Encoding: "o200k_base", Total: 1200,
		PerTool: []probe.ToolTokens{{Name: "search", Tokens: 700}, {Name: "fetch", Tokens: 300}, {Name: "new_tool", Tokens: 200}}}}
	base := &Baseline{Version: 1, Context: &BaselineContext{Encoding: "o200k_base", Total: 1000,
		Tools: map[string]int{"search": 500, "fetch": 300, "old_tool": 200}}}
	g := CheckContext(res, base, ContextLimits{MaxGrowthPct: 10})
	want := ContextGate{Encoding: "o200k_base", Tokens: 1200, Baseline: 1000, GrowthPct: 20, OverGrowth: true,
		Growth: []ToolGrowth{{Name: "new_tool", New: 200, Added: true}, {Name: "search", Old: 500, New: 700}, {Name: "old_tool", Old: 200, Removed: true}}}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("CheckContext (-want +got):\n%s", diff)
	}
	if !g.Failed() {
		t.Error("20% growth passes a 10% limit")
	}
	if g := CheckContext(res, base, ContextLimits{MaxGrowthPct: 20}); g.Failed() {
		t.Errorf("20%% growth fails a 20%% limit: %+v", g)
	}
	if g := CheckContext(res, &Baseline{Version: 1}, ContextLimits{MaxGrowthPct: 10}); g.Failed() || !g.NoBaseline {
		t.Errorf("baseline without context: %+v, want unchecked", g)
	}
	if g := CheckContext(res, nil, ContextLimits{MaxTokens: 1199, MaxGrowthPct: -1}); !g.OverMax || !g.Failed() {
		t.Errorf("1200 tokens against a 1199 limit: %+v", g)
	}
	if g := CheckContext(res, nil, ContextLimits{MaxTokens: 1200, MaxGrowthPct: -1}); g.Failed() {
		t.Errorf("1200 tokens against a 1200 limit fails: %+v", g)
	}
}
