package report

import (
	"io"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// ProbeSARIFOptions configures [WriteProbeSARIF].
type ProbeSARIFOptions struct {
	// Artifact is the file the results are located in, relative to the
	// repository root with forward slashes (the server's entry point or
	// manifest); code-scanning services resolve it against the checkout.
	Artifact string
	// Accepted returns the reason a finding was accepted by a baseline,
	// or "" when it was not; accepted findings carry a SARIF suppression.
	Accepted func(probe.Finding) string
}

// WriteProbeSARIF writes the findings of one probe as SARIF 2.1.0, in the
// same shape as the triage report: one rule per code, one result per
// finding, located in opts.Artifact.
func WriteProbeSARIF(w io.Writer, key string, res *probe.Result, opts ProbeSARIFOptions) error {
	t := &results.Triage{
		Source:  "probe:" + res.Target.Name,
		Config:  strings.TrimPrefix(opts.Artifact, "./"),
		Status:  results.ScanDone,
		Servers: []results.TriageServer{results.NewTriageServer(key, res)},
	}
	return writeTriageSARIF(w, t, opts.Accepted)
}

// suppress returns the SARIF suppression of a finding accepted by a
// baseline.
func suppress(accepted func(probe.Finding) string, f probe.Finding) []SARIFSuppression {
	if accepted == nil {
		return nil
	}
	if why := accepted(f); why != "" {
		return []SARIFSuppression{{Kind: "external", Justification: why}}
	}
	return nil
}
