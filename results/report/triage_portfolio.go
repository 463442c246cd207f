package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// writeTriagePortfolioText writes the portfolio findings as a section of
// the table report, every server-sent string through safe.Line, wrapped to
// width columns (0: no limit).
func writeTriagePortfolioText(w io.Writer, pf []probe.PortfolioFinding, width int) error {
	if len(pf) == 0 {
		return nil
	}
	var b bytes.Buffer
	line := func(indent, text string) {
		if width <= 0 {
			fmt.Fprintf(&b, "%s%s\n", indent, text)
			return
		}
		for i, l := range triageWrap(text, width-len(indent)-2, 1<<10) {
			if i > 0 {
				l = "  " + l
			}
			fmt.Fprintf(&b, "%s%s\n", indent, l)
		}
	}
	fmt.Fprintf(&b, "\nacross servers (%d)\n", len(pf))
	for _, f := range pf {
		line("  ", fmt.Sprintf("%s  %s %s: %s%s", f.Severity, f.Code, portfolioServers(f), safe.Line(f.Message), portfolioConfigs(f)))
		if f.Code == probe.CodePortfolioCrossRef && f.Value != "" {
			line("      ", safe.Truncate(strings.Join(strings.Fields(safe.Line(f.Value)), " "), 160, safe.Ellipsis))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// portfolioServers joins the servers of a portfolio finding with " + ",
// each through safe.Line.
func portfolioServers(f probe.PortfolioFinding) string {
	names := make([]string, len(f.Servers))
	for i, n := range f.Servers {
		names[i] = safe.Line(n)
	}
	return strings.Join(names, " + ")
}

// portfolioConfigs says which configs load the servers together, "" when
// unknown.
func portfolioConfigs(f probe.PortfolioFinding) string {
	if len(f.Configs) == 0 {
		return ""
	}
	return " (in " + safe.Line(strings.Join(f.Configs, "; ")) + ")"
}

// triagePortfolioJUnit is the portfolio as a second test suite: one
// failing test case per pair finding.
func triagePortfolioJUnit(t *results.Triage) (triageJUnitSuite, bool) {
	if len(t.Portfolio) == 0 {
		return triageJUnitSuite{}, false
	}
	s := triageJUnitSuite{Name: t.Source + " (across servers)", Timestamp: t.StartedAt.UTC().Format("2006-01-02T15:04:05"), Time: "0.000"}
	for _, f := range t.Portfolio {
		name := portfolioServers(f)
		s.Cases = append(s.Cases, triageJUnitCase{
			Name:      name + ": " + f.Code,
			Classname: "mcpvet.portfolio",
			Time:      "0.000",
			Failure: &triageJUnitMessage{Message: safe.Line(f.Message), Type: string(f.Severity),
				Text: "code: " + f.Code + "\nservers: " + name + "\nconfigs: " + safe.Line(strings.Join(f.Configs, "; ")) + "\nevidence: " + safe.Line(f.Value) + "\n"},
		})
		s.Failures++
	}
	s.Tests = len(s.Cases)
	return s, true
}

// triagePortfolioSARIF is one SARIF result per pair finding, located at
// the first server's entry in the config.
func triagePortfolioSARIF(t *results.Triage, uri string, index map[string]int) []triageSARIFResult {
	line := map[string]int{}
	for _, s := range t.Servers {
		line[s.Name] = s.Line
	}
	var out []triageSARIFResult
	for _, f := range t.Portfolio {
		var logical []triageSARIFLogical
		var names []string
		for _, n := range f.Servers {
			n = safe.Line(n)
			names = append(names, n)
			logical = append(logical, triageSARIFLogical{Name: n, FullyQualifiedName: n, Kind: "module"})
		}
		loc := triageSARIFLocation{
			PhysicalLocation: triageSARIFPhysical{ArtifactLocation: triageSARIFArtLoc{URI: uri}},
			LogicalLocations: logical,
		}
		if l := line[f.Servers[0]]; l > 0 {
			loc.PhysicalLocation.Region = &triageSARIFRegion{StartLine: l}
		}
		out = append(out, triageSARIFResult{
			RuleID:    f.Code,
			RuleIndex: index[f.Code],
			Level:     TriageSARIFLevel(f.Severity),
			Message:   triageSARIFMessage{Text: strings.Join(names, " + ") + ": " + safe.Line(f.Message) + portfolioConfigs(f)},
			Locations: []triageSARIFLocation{loc},
			PartialFingerprints: map[string]string{
				"mcpvetFinding/v1": triageFingerprint(strings.Join(f.Servers, "\x00"), strings.Join(f.Names, "\x00"), f.Code),
			},
			Properties: map[string]any{"servers": names, "configs": f.Configs, "names": f.Names, "severity": string(f.Severity), "value": safe.Line(f.Value)},
		})
	}
	return out
}

// WritePortfolioSummary writes the portfolio findings of a config scan
// for `mcpvet scan --config`'s summary: a count, then one line per finding
// (a group of servers sharing tool names, or a cross-server reference), every server-sent string through safe.Line. Nothing
// is written when there are none.
func WritePortfolioSummary(w io.Writer, pf []probe.PortfolioFinding) {
	if len(pf) == 0 {
		return
	}
	fmt.Fprintf(w, "  across servers: %d findings\n", len(pf))
	for _, f := range pf {
		fmt.Fprintf(w, "    %s %s %s: %s%s\n", f.Severity, f.Code, portfolioServers(f), safe.Line(f.Message), portfolioConfigs(f))
	}
}
