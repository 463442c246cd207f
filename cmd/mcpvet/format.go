package main

import (
	"fmt"

	"github.com/mcpvet/mcpvet/results/report"
)

// formatFlag resolves --format for a kind of report through the one
// registry of formats ([report.Format]): a name no reporter of that kind
// writes is a usage error that lists the valid formats.
func formatFlag(k report.Kind, name string) (string, error) {
	f, err := report.Format(k, name)
	if err != nil {
		return "", usageError{fmt.Errorf("--format: %w", err)}
	}
	return f, nil
}
