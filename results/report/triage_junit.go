package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/vocab"
)

// The JUnit XML schema as CI systems read it (the Jenkins / Ant dialect
// that GitLab, GitHub test reporters, Buildkite and CircleCI accept).
type triageJUnitSuites struct {
	XMLName  xml.Name           `xml:"testsuites"`
	Name     string             `xml:"name,attr"`
	Tests    int                `xml:"tests,attr"`
	Failures int                `xml:"failures,attr"`
	Errors   int                `xml:"errors,attr"`
	Skipped  int                `xml:"skipped,attr"`
	Time     string             `xml:"time,attr"`
	Suites   []triageJUnitSuite `xml:"testsuite"`
}

type triageJUnitSuite struct {
	Name       string                `xml:"name,attr"`
	Tests      int                   `xml:"tests,attr"`
	Failures   int                   `xml:"failures,attr"`
	Errors     int                   `xml:"errors,attr"`
	Skipped    int                   `xml:"skipped,attr"`
	Time       string                `xml:"time,attr"`
	Timestamp  string                `xml:"timestamp,attr"`
	Properties []triageJUnitProperty `xml:"properties>property"`
	Cases      []triageJUnitCase     `xml:"testcase"`
}

type triageJUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type triageJUnitCase struct {
	Name      string              `xml:"name,attr"`
	Classname string              `xml:"classname,attr"`
	Time      string              `xml:"time,attr"`
	Failure   *triageJUnitMessage `xml:"failure"`
	Skipped   *triageJUnitMessage `xml:"skipped"`
	SystemOut *triageJUnitText    `xml:"system-out"`
}

type triageJUnitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// triageJUnitText is element text written as CDATA, so its lines stay
// lines in the file.
type triageJUnitText struct {
	Text string `xml:",cdata"`
}

// writeTriageJUnit writes one test suite for the config with one test case
// per server: verdicts at or below failOn (default drop, as the exit code
// of --fail-on) are failures carrying the reasons and next step, the
// others pass (a fix with its reasons in system-out), pending and
// ungraded servers are skipped.
func writeTriageJUnit(w io.Writer, t *results.Triage, failOn string) error {
	if failOn == "" {
		failOn = vocab.DecisionDrop
	}
	suite := triageJUnitSuite{
		Name:      t.Source,
		Timestamp: t.StartedAt.UTC().Format("2006-01-02T15:04:05"),
		Properties: []triageJUnitProperty{
			{Name: "mcpvet.scan", Value: fmt.Sprint(t.ScanID)},
			{Name: "mcpvet.config", Value: t.Config},
			{Name: "mcpvet.status", Value: t.Status},
		},
	}
	var total float64
	for _, s := range t.Servers {
		c := triageJUnitCase{
			Name:      safe.Line(s.Name),
			Classname: "mcpvet.triage",
			Time:      fmt.Sprintf("%.3f", s.DurationMs/1000),
		}
		total += s.DurationMs / 1000
		summary := s.Decision
		if s.Score != nil {
			summary += fmt.Sprintf(", score %.1f", *s.Score)
		}
		if s.Status != "" {
			summary += ", liveness " + string(s.Status)
		}
		switch {
		case s.Pending:
			c.Skipped = &triageJUnitMessage{Message: "not probed: the scan stopped before this server ran"}
			suite.Skipped++
		case s.Decision == "":
			c.Skipped = &triageJUnitMessage{Message: "not graded: the run carries no verdict"}
			suite.Skipped++
		case s.Decision == vocab.DecisionNeedsSetup || s.Decision == vocab.DecisionNotAssessed:
			// Not assessed: nothing to pass or fail until the user (or
			// the machine) supplies what is missing.
			c.Skipped = &triageJUnitMessage{Message: safe.Line(s.Words)}
			suite.Skipped++
		case results.TriageAtOrBelow(s.Decision, failOn):
			msg := s.Decision
			if len(s.Reasons) > 0 {
				msg += ": " + s.Reasons[0]
			}
			var body strings.Builder
			fmt.Fprintf(&body, "verdict: %s\n", summary)
			if s.Rule != "" {
				fmt.Fprintf(&body, "rule: %s\n", s.Rule)
			}
			for _, r := range s.Reasons {
				fmt.Fprintf(&body, "reason: %s\n", safe.Line(r))
			}
			if s.NextStep != "" {
				fmt.Fprintf(&body, "next step: %s\n", safe.Line(s.NextStep))
			}
			c.Failure = &triageJUnitMessage{Message: safe.Line(msg), Type: s.Decision, Text: body.String()}
			suite.Failures++
		default:
			var text strings.Builder
			text.WriteString("verdict: " + summary + "\n")
			for _, r := range s.Reasons {
				text.WriteString("reason: " + safe.Line(r) + "\n")
			}
			if s.NextStep != "" {
				text.WriteString("next step: " + safe.Line(s.NextStep) + "\n")
			}
			c.SystemOut = &triageJUnitText{Text: text.String()}
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Tests = len(suite.Cases)
	suite.Time = fmt.Sprintf("%.3f", total)
	doc := triageJUnitSuites{
		Name:     "mcpvet triage",
		Tests:    suite.Tests,
		Failures: suite.Failures,
		Skipped:  suite.Skipped,
		Time:     suite.Time,
		Suites:   []triageJUnitSuite{suite},
	}
	if ps, ok := triagePortfolioJUnit(t); ok {
		doc.Suites = append(doc.Suites, ps)
		doc.Tests += ps.Tests
		doc.Failures += ps.Failures
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("report: writing JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
