package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/probe"
)

// writeArgsConfig writes a Claude Desktop config whose servers are
// (name, command, args...) entries, in order.
func writeArgsConfig(t *testing.T, path string, servers ...[]string) string {
	t.Helper()
	type entry struct {
		Command string   `json:"command"`
		Args    []string `json:"args,omitempty"`
	}
	var b strings.Builder
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i, s := range servers {
		e, _ := json.Marshal(entry{Command: s[1], Args: s[2:]})
		b.WriteString("    \"" + s[0] + "\": " + string(e))
		if i < len(servers)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  }\n}\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProbePoisonedFixture: the poisoned fixture server exercises every
// poisoned-metadata technique through a real process, and each poison code
// of the catalog is reported on the item that carries it.
func TestProbePoisonedFixture(t *testing.T) {
	bin := testfixture.Path(t, "poisoned")
	code, stdout, stderr := runCLI("probe", "--json", "--no-inject", "--exercise", "--sandbox", "none", "--db", filepath.Join(t.TempDir(), "r.db"), "--", bin)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var res probe.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Code, "poison/") {
			got[f.Code] = append(got[f.Code], f.Subject+f.Pointer)
			if f.Value == "" || !strings.Contains(f.Message, "(bytes ") {
				t.Errorf("%s on %s: no deciding span (value %q, message %q)", f.Code, f.Subject, f.Value, f.Message)
			}
		}
	}
	want := map[string]string{
		probe.CodePoisonOverride:      "tool:override_rules/description",
		probe.CodePoisonConceal:       "prompt:brief/description",
		probe.CodePoisonSensitiveData: "tool:add/description",
		probe.CodePoisonOtherTool:     "server/instructions",
		probe.CodePoisonPseudoTag:     "tool:schema_poison/inputSchema/properties/word/description",
		probe.CodePoisonUnicodeTag:    "tool:tagged_note/description",
		probe.CodePoisonZeroWidth:     "resource:notes://memo/description",
		probe.CodePoisonBidi:          "tool:bidi_file/description",
		probe.CodePoisonHomoglyph:     "tool:r\u0435ad_file/name",
		probe.CodePoisonHiddenTail:    "tool:padded_format/description",
		probe.CodePoisonHTMLComment:   "tool:schema_poison/inputSchema/properties/lang/default",
		probe.CodePoisonBase64:        "tool:encoded_help/description",
		probe.CodePoisonExfilURL:      "tool:trigger_webhook/description",
		probe.CodePoisonActionRewrite: "tool:run_command/description",
		probe.CodePoisonSchemaProse:   "tool:typed_note/inputSchema/properties/body/type",
		probe.CodePoisonRugPull:       "tool:fact_feed/description",
	}
	for _, e := range probe.Catalog() {
		if !strings.HasPrefix(e.Code, "poison/") {
			continue
		}
		w, ok := want[e.Code]
		if !ok {
			t.Errorf("%s: the fixture exercises no item for this code", e.Code)
			continue
		}
		if !slices.Contains(got[e.Code], w) {
			t.Errorf("%s not reported on %s; got it on %v", e.Code, w, got[e.Code])
		}
	}
	// Instructions that take control or move data away are fatal: the
	// poisoned server is dropped by the fatal-finding rule, not left at fix.
	if res.Verdict.Decision != "drop" {
		t.Errorf("verdict %q, want drop", res.Verdict.Decision)
	}
	for _, r := range res.Verdict.Rules {
		if r.Fired && r.Name != "fatal_finding" {
			t.Errorf("rule %s fired first, want fatal_finding", r.Name)
		}
		if r.Fired {
			break
		}
	}
	// Items of the fixture without a technique stay clean.
	for code, on := range got {
		for _, s := range on {
			if strings.HasPrefix(s, "tool:list_projects") || strings.HasPrefix(s, "tool:sync_projects") {
				t.Errorf("%s on the clean item %s", code, s)
			}
		}
	}
}

// TestRugPullDiffAndTriageBaseline: the fixture's list_projects description
// changes between two triages of the same config; diff reports the
// description change and triage --baseline marks the server changed,
// while the unchanged server stays unchanged.
func TestRugPullDiffAndTriageBaseline(t *testing.T) {
	bins := testfixture.Build(t, "poisoned", "wellbehaved")
	dir := t.TempDir()
	oldDB, newDB := filepath.Join(dir, "old.db"), filepath.Join(dir, "new.db")
	cfg1 := writeArgsConfig(t, filepath.Join(dir, "v1.json"), []string{"poisoned", bins["poisoned"]}, []string{"wellbehaved", bins["wellbehaved"]})
	if code, _, stderr := runCLI("triage", cfg1, "--no-inject", "--sandbox", "none", "--db", oldDB, "-q", "--format", "json"); code != 0 {
		t.Fatalf("first triage: exit %d: %s", code, stderr)
	}
	cfg2 := writeArgsConfig(t, filepath.Join(dir, "v2.json"), []string{"poisoned", bins["poisoned"], "v2"}, []string{"wellbehaved", bins["wellbehaved"]})
	code, stdout, stderr := runCLI("triage", cfg2, "--no-inject", "--sandbox", "none", "--db", newDB, "-q", "--format", "json", "--baseline", oldDB)
	if code != 0 {
		t.Fatalf("triage --baseline: exit %d: %s", code, stderr)
	}
	var tr struct {
		Baseline string `json:"baseline"`
		Servers  []struct {
			Name        string   `json:"name"`
			Definitions string   `json:"definitions"`
			Changed     []string `json:"changed"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
		t.Fatal(err)
	}
	defs := map[string]string{}
	for _, s := range tr.Servers {
		defs[s.Name] = s.Definitions + " " + strings.Join(s.Changed, ",")
	}
	if defs["poisoned"] != "changed description_changed tool:list_projects" || defs["wellbehaved"] != "unchanged " || tr.Baseline != oldDB {
		t.Errorf("triage --baseline: baseline %q, definitions %q", tr.Baseline, defs)
	}
	code, table, _ := runCLI("triage", cfg2, "--no-inject", "--sandbox", "none", "--db", newDB, "-q", "--baseline", oldDB)
	if code != 0 || !strings.Contains(table, "CHANGED  poisoned") || !strings.Contains(table, "description_changed tool:list_projects") {
		t.Errorf("table with --baseline: exit %d\n%s", code, table)
	}

	code, stdout, stderr = runCLI("diff", oldDB, newDB, "--format", "json")
	if code != 0 {
		t.Fatalf("diff: exit %d: %s", code, stderr)
	}
	var d struct {
		Changed []struct {
			Name    string `json:"name"`
			Changes []struct {
				Kind, Subject, Old, New string
			} `json:"changes"`
		} `json:"changed"`
	}
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range d.Changed {
		for _, c := range s.Changes {
			if s.Name == "poisoned" && c.Kind == "description_changed" && c.Subject == "list_projects" &&
				c.Old == "Lists the projects you can see, newest first." && c.New == "Lists the projects you can see, newest first, with their owners." {
				found = true
			}
			if s.Name == "wellbehaved" {
				t.Errorf("wellbehaved did not change, diff says %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("diff does not report the description change:\n%s", stdout)
	}
	_, text, _ := runCLI("diff", oldDB, newDB)
	if !strings.Contains(text, "description_changed") || !strings.Contains(text, "newest first, with their owners.") {
		t.Errorf("text diff:\n%s", text)
	}
}

// TestPortfolioFixtures: the poisoned fixture shares list_projects with
// wellbehaved and names wellbehaved's create_task; triage and scan
// --config each report one finding per pair and code.
func TestPortfolioFixtures(t *testing.T) {
	bins := testfixture.Build(t, "poisoned", "wellbehaved")
	dir := t.TempDir()
	cfg := writeArgsConfig(t, filepath.Join(dir, "mcp.json"), []string{"wellbehaved", bins["wellbehaved"]}, []string{"poisoned", bins["poisoned"]})
	code, stdout, stderr := runCLI("triage", cfg, "--no-inject", "--sandbox", "none", "--db", filepath.Join(dir, "t.db"), "-q", "--format", "json")
	if code != 0 {
		t.Fatalf("triage: exit %d: %s", code, stderr)
	}
	var tr struct {
		Portfolio []probe.PortfolioFinding `json:"portfolio"`
	}
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range tr.Portfolio {
		got = append(got, f.Code+" "+strings.Join(f.Servers, "+")+" "+strings.Join(f.Names, ","))
	}
	want := []string{
		"portfolio/tool_shadowed wellbehaved+poisoned list_projects",
		"portfolio/cross_server_reference wellbehaved+poisoned poisoned names wellbehaved's create_task",
	}
	if !slices.Equal(got, want) {
		t.Errorf("triage portfolio = %q, want %q", got, want)
	}
	code, stdout, stderr = runCLI("scan", "--config", cfg, "--no-inject", "--sandbox", "none", "--db", filepath.Join(dir, "s.db"), "-q")
	if code != 0 {
		t.Fatalf("scan --config: exit %d: %s", code, stderr)
	}
	if strings.Count(stdout, "portfolio/tool_shadowed wellbehaved + poisoned") != 1 ||
		strings.Count(stdout, "portfolio/cross_server_reference wellbehaved + poisoned") != 1 {
		t.Errorf("scan --config output:\n%s", stdout)
	}
}
