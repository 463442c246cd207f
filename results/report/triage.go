package report

import (
	"io"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// A TriageReporter writes a triage ([results.Triage]) in one format.
type TriageReporter interface {
	Write(w io.Writer, t *results.Triage, o *TriageOptions) error
}

// The triage reporters, one per format of [KindTriage].
var (
	_ TriageReporter = (*TableReporter)(nil)
	_ TriageReporter = (*TriageJSONReporter)(nil)
	_ TriageReporter = (*JUnitReporter)(nil)
	_ TriageReporter = (*SARIFReporter)(nil)
)

// TriageOptions adjust a [TriageReporter]; nil is the zero value.
type TriageOptions struct {
	// Width is the terminal width the table must fit (0: no limit).
	Width int
	// Summary makes the table the one-screen view: one line per distinct
	// server with the verdict in the user's words (`mcpvet triage`'s
	// default); without it the table details every entry's reasons and
	// next step (`--verbose`, `--server NAME`).
	Summary bool
	// FailOn is the --fail-on threshold: JUnit marks the verdicts at or
	// below it as failures (default drop).
	FailOn string
	// Accepted returns the reason a finding was accepted by a baseline,
	// or "" when it was not; SARIF gives accepted findings a suppression.
	Accepted func(probe.Finding) string
}

// WriteTriage writes t in a triage format (see [Formats]): an aligned
// table for terminals (every server-sent string through safe.Line), the
// JSON of [results.Triage], JUnit XML (one test case per server; fix and
// drop fail) or SARIF 2.1.0 (one result per finding, located in the
// config file). o may be nil.
func WriteTriage(w io.Writer, t *results.Triage, format string, o *TriageOptions) error {
	rw, err := Triage(format)
	if err != nil {
		return err
	}
	return rw.Write(w, t, o)
}

// TableReporter writes the triage as a table for terminals, fitted to
// the width of [TriageOptions].
type TableReporter struct{}

// Write writes the table, fitted into o.Width columns (0: no limit).
// Where the columns do not fit, or the servers come from several configs,
// each server gets a block: its name, verdict and score on one line, then
// its reasons and next step wrapped to the width, never cut.
func (TableReporter) Write(w io.Writer, t *results.Triage, o *TriageOptions) error {
	var width int
	if o != nil {
		width = o.Width
		if o.Summary {
			return writeTriageSummary(w, t, width)
		}
	}
	return writeTriageWidth(w, t, width)
}

// TriageJSONReporter writes the JSON of [results.Triage].
type TriageJSONReporter struct{}

func (TriageJSONReporter) Write(w io.Writer, t *results.Triage, _ *TriageOptions) error {
	return writeTriageJSON(w, t)
}

// JUnitReporter writes JUnit XML: one test case per server, the verdicts
// at or below [TriageOptions] FailOn failing.
type JUnitReporter struct{}

func (JUnitReporter) Write(w io.Writer, t *results.Triage, o *TriageOptions) error {
	var failOn string
	if o != nil {
		failOn = o.FailOn
	}
	return writeTriageJUnit(w, t, failOn)
}

// SARIFReporter writes SARIF 2.1.0: one rule per finding code, one
// result per finding, located in the config file.
type SARIFReporter struct{}

func (SARIFReporter) Write(w io.Writer, t *results.Triage, o *TriageOptions) error {
	var accepted func(probe.Finding) string
	if o != nil {
		accepted = o.Accepted
	}
	return writeTriageSARIF(w, t, accepted)
}
