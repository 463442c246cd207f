package report

import (
	"context"
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
)

// CSVReporter writes one row per server for spreadsheets.
type CSVReporter struct{}

// csvColumns are the CSV header, in order (docs/report-schema.md).
var csvColumns = []string{
	"scan_id", "run_id", "key", "name", "version", "source", "package_type", "transport", "launch",
	"status", "liveness_group", "handshake_completed", "protocol_version", "server_name", "server_version",
	"sdk", "tools", "prompts", "resources", "resource_templates", "findings", "fatal", "errors", "warnings",
	"probes", "graded", "score", "verdict", "verdict_rule", "exit_code", "total_ms",
}

func (CSVReporter) Write(ctx context.Context, w io.Writer, r *results.Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvColumns); err != nil {
		return err
	}
	rec := make([]string, len(csvColumns))
	for i := range r.Rows {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		row := &r.Rows[i]
		score, exit := "", ""
		if row.Score != nil {
			score = strconv.FormatFloat(*row.Score, 'f', -1, 64)
		}
		if row.ExitCode != nil {
			exit = strconv.Itoa(*row.ExitCode)
		}
		rec = append(rec[:0],
			itoa64(r.Scan.ID), itoa64(row.RunID), CSVCell(row.Key), CSVCell(row.Name), CSVCell(row.Version),
			CSVCell(row.Source), CSVCell(row.PackageType), CSVCell(row.Transport), CSVCell(row.Launch),
			CSVCell(string(row.Status)), row.Group, strconv.FormatBool(row.HandshakeCompleted),
			CSVCell(row.ProtocolVersion), CSVCell(row.ServerName), CSVCell(row.ServerVersion), CSVCell(row.SDK),
			strconv.Itoa(row.Tools), strconv.Itoa(row.Prompts), strconv.Itoa(row.Resources),
			strconv.Itoa(row.ResourceTemplates), strconv.Itoa(row.Findings), strconv.Itoa(row.Fatal),
			strconv.Itoa(row.Errors), strconv.Itoa(row.Warnings), strconv.Itoa(row.Probes), strconv.Itoa(row.Graded),
			score, CSVCell(row.Verdict), CSVCell(row.Rule), exit, strconv.FormatFloat(row.TotalMs, 'f', -1, 64),
		)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// CSVCell makes untrusted text safe for a spreadsheet cell: control
// characters and escape sequences are removed, line breaks and tabs
// become spaces, and a cell a spreadsheet would read as a formula
// (starting with =, +, -, @, or such a character after leading blanks)
// is prefixed with an apostrophe (OWASP "CSV injection").
func CSVCell(s string) string {
	s = safe.Line(s)
	t := strings.TrimLeft(s, " ")
	if t != "" && strings.ContainsRune("=+-@", rune(t[0])) {
		return "'" + s
	}
	return s
}
