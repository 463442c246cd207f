package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/sariftest"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

// TestTriagePortfolioEveryFormat: a shared tool name and a description
// naming another server's tool are reported once per pair of servers,
// in each of the four formats.
func TestTriagePortfolioEveryFormat(t *testing.T) {
	_, _, tr := fixture.StoreTriage(t, t.TempDir(), fixture.PortfolioServers())
	var got []string
	for _, f := range tr.Portfolio {
		got = append(got, f.Code+" "+f.Servers[0]+"+"+f.Servers[1]+" "+strings.Join(f.Names, ","))
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
		Portfolio []probe.PairFinding `json:"portfolio"`
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
	WritePortfolioSummary(&b, []probe.PairFinding{{
		Code: probe.CodePortfolioCrossRef, Severity: probe.SeverityWarn,
		Servers: [2]string{"mail\x1b[2J", "helper"}, Message: "helper names mail's send_email\x07",
	}})
	want := "  across servers: 1 findings\n    warn portfolio/cross_server_reference mail + helper: helper names mail's send_email\n"
	if got := b.String(); got != want {
		t.Errorf("WritePortfolioSummary =\n%q\nwant\n%q", got, want)
	}
}
