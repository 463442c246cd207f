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
func writeTriagePortfolioText(w io.Writer, pf []probe.PairFinding, width int) error {
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
		line("  ", fmt.Sprintf("%s  %s %s + %s: %s", f.Severity, f.Code, safe.Line(f.Servers[0]), safe.Line(f.Servers[1]), safe.Line(f.Message)))
		if f.Code == probe.CodePortfolioCrossRef && f.Value != "" {
			line("      ", safe.Truncate(strings.Join(strings.Fields(safe.Line(f.Value)), " "), 160, safe.Ellipsis))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// triagePortfolioJUnit is the portfolio as a second test suite: one
// failing test case per pair finding.
func triagePortfolioJUnit(t *results.Triage) (triageJUnitSuite, bool) {
	if len(t.Portfolio) == 0 {
		return triageJUnitSuite{}, false
	}
	s := triageJUnitSuite{Name: t.Source + " (across servers)", Timestamp: t.StartedAt.UTC().Format("2006-01-02T15:04:05"), Time: "0.000"}
	for _, f := range t.Portfolio {
		name := safe.Line(f.Servers[0]) + " + " + safe.Line(f.Servers[1])
		s.Cases = append(s.Cases, triageJUnitCase{
			Name:      name + ": " + f.Code,
			Classname: "mcpvet.portfolio",
			Time:      "0.000",
			Failure: &triageJUnitMessage{Message: safe.Line(f.Message), Type: string(f.Severity),
				Text: "code: " + f.Code + "\nservers: " + name + "\nevidence: " + safe.Line(f.Value) + "\n"},
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
		a, b := safe.Line(f.Servers[0]), safe.Line(f.Servers[1])
		loc := triageSARIFLocation{
			PhysicalLocation: triageSARIFPhysical{ArtifactLocation: triageSARIFArtLoc{URI: uri}},
			LogicalLocations: []triageSARIFLogical{
				{Name: a, FullyQualifiedName: a, Kind: "module"},
				{Name: b, FullyQualifiedName: b, Kind: "module"},
			},
		}
		if l := line[f.Servers[0]]; l > 0 {
			loc.PhysicalLocation.Region = &triageSARIFRegion{StartLine: l}
		}
		out = append(out, triageSARIFResult{
			RuleID:    f.Code,
			RuleIndex: index[f.Code],
			Level:     TriageSARIFLevel(f.Severity),
			Message:   triageSARIFMessage{Text: a + " + " + b + ": " + safe.Line(f.Message)},
			Locations: []triageSARIFLocation{loc},
			PartialFingerprints: map[string]string{
				"mcpvetFinding/v1": triageFingerprint(f.Servers[0], f.Servers[1], f.Code),
			},
			Properties: map[string]any{"servers": []string{a, b}, "names": f.Names, "severity": string(f.Severity), "value": safe.Line(f.Value)},
		})
	}
	return out
}

// WritePortfolioSummary writes the portfolio findings of a config scan
// for `mcpvet scan --config`'s summary: a count, then one line per pair of
// servers and code, every server-sent string through safe.Line. Nothing
// is written when there are none.
func WritePortfolioSummary(w io.Writer, pf []probe.PairFinding) {
	if len(pf) == 0 {
		return
	}
	fmt.Fprintf(w, "  across servers: %d findings\n", len(pf))
	for _, f := range pf {
		fmt.Fprintf(w, "    %s %s %s + %s: %s\n", f.Severity, f.Code, safe.Line(f.Servers[0]), safe.Line(f.Servers[1]), safe.Line(f.Message))
	}
}
