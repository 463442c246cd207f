package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/internal/version"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
)

// reportFlags are the flags of `mcpvet report`.
type reportFlags struct {
	db      string
	scan    int64
	format  string
	output  string
	servers int
}

// newReportCmd builds `mcpvet report`: the ecosystem report of a stored
// scan.
func newReportCmd(stdout, stderr io.Writer, g *globalFlags) *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report [--db FILE] [--scan ID] --format md|html|json|csv [-o FILE]",
		Short: "Write the ecosystem report of a scan: census figures with 95% intervals, breakdowns, per-server pages",
		Long: `Report writes the census of a stored scan the way the literature states it: every
rate with its denominator and a 95% Wilson score interval (handshake completion,
why servers fail, tools per server, schema violations, annotation omissions,
actionability scores, error-response elements, keep/fix/drop), breakdowns by
package type, transport, protocol version and SDK, and a page per server with
its liveness evidence, findings, probes and verdict trace.

Formats: md (GitHub Markdown), html (one self-contained file, sortable server
table), json (docs/report-schema.md, every server's full result) and csv (one
row per server). The database is opened read-only.`,
		Example: `  mcpvet report --format html -o census.html
  mcpvet report --db shard.db --scan 3 --format md --servers 50 > REPORT.md
  mcpvet report -o servers.csv`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd.Context(), &f, g, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "mcpvet.db", "SQLite database the results are stored in")
	fl.Int64Var(&f.scan, "scan", 0, "scan to report (default: the latest scan)")
	fl.StringVarP(&f.format, "format", "f", "", "md, html, json or csv (default: from the extension of --output)")
	registerEnumCompletion(cmd, "format", report.Formats(report.KindCensus)...)
	fl.StringVarP(&f.output, "output", "o", "-", "write the report here (- is stdout)")
	fl.IntVar(&f.servers, "servers", 200, "per-server sections in md and html (0: every server); json and csv always hold every server")
	return cmd
}

// reportFormat resolves --format, or the extension of --output without it.
func reportFormat(format, output string) (string, error) {
	valid := strings.Join(report.Formats(report.KindCensus), ", ")
	if format == "" {
		ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(output)), ".")
		if output == "-" || output == "" || ext == "" {
			return "", usagef("--format: missing; use one of %s (or -o FILE ending in .md, .html, .json or .csv)", valid)
		}
		f, err := report.Format(report.KindCensus, ext)
		if err != nil {
			return "", usagef("--output %q: cannot tell the format from .%s; add --format with one of %s", output, ext, valid)
		}
		return f, nil
	}
	return formatFlag(report.KindCensus, format)
}

func runReport(ctx context.Context, f *reportFlags, g *globalFlags, stdout, stderr io.Writer) error {
	format, err := reportFormat(f.format, f.output)
	if err != nil {
		return err
	}
	if f.servers < 0 {
		return usagef("--servers %d: must be 0 (every server) or more", f.servers)
	}
	if f.scan < 0 {
		return usagef("--scan %d: scan ids are positive; omit --scan for the latest scan", f.scan)
	}
	if _, err := os.Stat(f.db); errors.Is(err, os.ErrNotExist) {
		return usagef("--db %q: no such database; run mcpvet scan first or give the path of a results database", f.db)
	}
	st, err := results.Open(ctx, f.db, &results.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	scanID, err := reportScan(ctx, st, f)
	if err != nil {
		return err
	}
	// Compute everything before creating the output file, so a failure
	// leaves no half-written report behind.
	rep, err := results.BuildReport(ctx, st, scanID, &results.ReportOptions{
		Servers:   f.servers,
		Database:  f.db,
		Generator: "mcpvet " + version.Version,
	})
	if err != nil {
		return err
	}
	if err := writeOutput(f.output, stdout, func(w io.Writer) error { return report.WriteCensus(ctx, w, rep, format) }); err != nil {
		return err
	}
	if !g.quiet && f.output != "-" && f.output != "" {
		fmt.Fprintf(stderr, "mcpvet: %s report of scan %d (%d plans) written to %s\n",
			format, scanID, len(rep.Rows), safe.Line(f.output))
	}
	return nil
}

// reportScan resolves --scan, defaulting to the latest scan.
func reportScan(ctx context.Context, st *results.Store, f *reportFlags) (int64, error) {
	if f.scan == 0 {
		sc, err := st.LatestScan(ctx)
		if errors.Is(err, results.ErrNotFound) {
			return 0, usagef("--db %q holds no scan yet; run mcpvet scan or mcpvet probe first", f.db)
		}
		if err != nil {
			return 0, err
		}
		return sc.ID, nil
	}
	if _, err := st.Scan(ctx, f.scan); errors.Is(err, results.ErrNotFound) {
		scans, lerr := st.Scans(ctx)
		if lerr != nil {
			return 0, lerr
		}
		var ids []string
		for _, s := range scans[max(len(scans)-10, 0):] {
			ids = append(ids, strconv.FormatInt(s.ID, 10))
		}
		have := "no scan"
		switch {
		case len(scans) > len(ids):
			have = "scans up to " + strings.Join(ids, ", ")
		case len(ids) > 0:
			have = "scans " + strings.Join(ids, ", ")
		}
		return 0, usagef("--scan %d: no such scan in %q (it has %s)", f.scan, f.db, have)
	} else if err != nil {
		return 0, err
	}
	return f.scan, nil
}
