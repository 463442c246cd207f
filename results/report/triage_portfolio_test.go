package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/internal/sariftest"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

// TestTriagePortfolioEveryFormat: a shared tool name and a description
// naming another server's tool are reported once per pair of servers,
// in each of the four formats.
func TestTriagePortfolioEveryFormat(t *testing.T) {
	_, _, tr := fixture.StoreTriage(t, t.TempDir(), fixture.PortfolioServers())
	var got []string
	for _, f := range tr.Portfolio {
		got = append(got, f.Code+" "+strings.Join(f.Servers, "+")+" "+strings.Join(f.Names, ","))
	}
	want := []string{
		"portfolio/tool_shadowed mail+helper send_email",
		"portfolio/cross_server_reference mail+helper helper names mail's archive_thread",
		// notes orders a call of send_email, which mail and helper both offer
		// (its bare list item naming send_email alone would not count).
		"portfolio/cross_server_reference mail+notes notes names mail's send_email",
		"portfolio/cross_server_reference helper+notes notes names helper's send_email",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("portfolio:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	table := string(triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, "table", nil) }))
	if strings.Count(table, "portfolio/tool_shadowed") != 1 || strings.Count(table, "portfolio/cross_server_reference") != 3 {
		t.Errorf("table:\n%s", table)
	}
	var js struct {
		Portfolio []probe.PortfolioFinding `json:"portfolio"`
	}
	if err := json.Unmarshal(triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, "json", nil) }), &js); err != nil || len(js.Portfolio) != 4 {
		t.Errorf("json portfolio: %v, %+v", err, js.Portfolio)
	}
	var ju triageJUnitSuites
	if err := xml.Unmarshal(triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, "junit", nil) }), &ju); err != nil {
		t.Fatal(err)
	}
	if len(ju.Suites) != 2 || len(ju.Suites[1].Cases) != 4 || ju.Suites[1].Failures != 4 || ju.Tests != len(ju.Suites[0].Cases)+4 {
		t.Errorf("junit suites: %+v", ju.Suites)
	}
	var sarif sariftest.Log
	if err := json.Unmarshal(triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, "sarif", nil) }), &sarif); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range sarif.Runs[0].Results {
		if strings.HasPrefix(r.RuleID, "portfolio/") {
			n++
			if sarif.Runs[0].Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
				t.Errorf("result %s points at rule %d", r.RuleID, r.RuleIndex)
			}
		}
	}
	if n != 4 {
		t.Errorf("sarif has %d portfolio results, want 4", n)
	}
}

// TestWritePortfolioSummary: the scan summary's portfolio lines count the
// findings, name both servers, and never pass a control sequence a
// server sent through to the terminal.
func TestWritePortfolioSummary(t *testing.T) {
	var b bytes.Buffer
	WritePortfolioSummary(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no findings wrote %q", b.String())
	}
	WritePortfolioSummary(&b, []probe.PortfolioFinding{{
		Code: probe.CodePortfolioCrossRef, Severity: probe.SeverityWarn,
		Servers: []string{"mail\x1b[2J", "helper"}, Message: "helper names mail's send_email\x07",
	}})
	want := "  across servers: 1 findings\n    warn portfolio/cross_server_reference mail + helper: helper names mail's send_email\n"
	if got := b.String(); got != want {
		t.Errorf("WritePortfolioSummary =\n%q\nwant\n%q", got, want)
	}
}

// TestPortfolioPerClient: portfolio findings are computed within what one
// client loads together (one config file; Claude Code's per-project
// entries with the file's top-level ones) and name that config; servers
// of different clients are never compared.
func TestPortfolioPerClient(t *testing.T) {
	findings := func(tr *results.Triage) []string {
		tr.CheckPortfolio()
		var got []string
		for _, f := range tr.Portfolio {
			got = append(got, f.Code+" "+strings.Join(f.Servers, "+")+" in "+strings.Join(f.Configs, "; "))
		}
		return got
	}
	t.Run("clients apart", func(t *testing.T) {
		_, _, tr := fixture.StoreTriage(t, t.TempDir(), fixture.PortfolioServers())
		// mail in Claude Code; helper and notes in Cursor.
		tr.Servers[0].Client, tr.Servers[0].Config = "Claude Code", "/h/.claude.json"
		for i := 1; i < 3; i++ {
			tr.Servers[i].Client, tr.Servers[i].Config = "Cursor", "/h/.cursor/mcp.json"
		}
		want := []string{"portfolio/cross_server_reference helper+notes in Cursor (/h/.cursor/mcp.json)"}
		if diff := cmp.Diff(want, findings(tr)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("Claude Code projects", func(t *testing.T) {
		_, _, tr := fixture.StoreTriage(t, t.TempDir(), fixture.PortfolioServers())
		// mail at the top level, helper in project /p1, notes in /p2: mail
		// meets each, helper and notes never meet.
		for i := range tr.Servers {
			tr.Servers[i].Client, tr.Servers[i].Config = "Claude Code", "/h/.claude.json"
		}
		tr.Servers[1].Project, tr.Servers[2].Project = "/p1", "/p2"
		want := []string{
			"portfolio/tool_shadowed mail+helper in Claude Code (/h/.claude.json) project /p1",
			"portfolio/cross_server_reference mail+helper in Claude Code (/h/.claude.json) project /p1",
			"portfolio/cross_server_reference mail+notes in Claude Code (/h/.claude.json) project /p2",
		}
		if diff := cmp.Diff(want, findings(tr)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("one server in two configs", func(t *testing.T) {
		_, _, tr := fixture.StoreTriage(t, t.TempDir(), fixture.PortfolioServers()[:2])
		// mail and helper both in Cursor and in Windsurf: one finding per
		// code naming both configs.
		servers := append([]results.TriageServer{}, tr.Servers...)
		for i := range servers {
			servers[i].Client, servers[i].Config = "Cursor", "/h/.cursor/mcp.json"
		}
		for _, s := range tr.Servers {
			s.Probed, s.Key = s.Key, s.Key+"-windsurf"
			s.Client, s.Config = "Windsurf", "/h/.codeium/windsurf/mcp_config.json"
			servers = append(servers, s)
		}
		tr.Servers = servers
		want := []string{
			"portfolio/tool_shadowed mail+helper in Cursor (/h/.cursor/mcp.json); Windsurf (/h/.codeium/windsurf/mcp_config.json)",
			"portfolio/cross_server_reference mail+helper in Cursor (/h/.cursor/mcp.json); Windsurf (/h/.codeium/windsurf/mcp_config.json)",
		}
		if diff := cmp.Diff(want, findings(tr)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}
