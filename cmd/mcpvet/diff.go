package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
)

type diffFlags struct {
	db        string
	format    string
	output    string
	scoreDrop float64
}

// newDiffCmd builds `mcpvet diff`: what changed between two scans, either
// two scan ids in one database or the latest scans of two databases.
func newDiffCmd(stdout, stderr io.Writer, g *globalFlags) *cobra.Command {
	var f diffFlags
	cmd := &cobra.Command{
		Use:   "diff [--db FILE] OLD_SCAN NEW_SCAN | diff OLD.db NEW.db",
		Short: "Show what changed between two scans",
		Long: `diff compares two scans server by server: servers that died or came back,
verdict and version changes, tools added or removed, input schema, output
schema and annotation drift, finding codes that appeared or disappeared, and
actionability scores that fell by more than --score-drop points, each with
its evidence (old value → new value).

Give two scan ids of one database (--db, default mcpvet.db), or two database
files to compare the latest scan of each. Servers are matched by target key,
then by name and source, then by a name unique on both sides.`,
		Example: `  mcpvet diff 3 4
  mcpvet diff --db census.db 1 2 --format json
  mcpvet diff last-week.db today.db --score-drop 10`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("diff takes two arguments, OLD_SCAN NEW_SCAN (scan ids in --db) or OLD.db NEW.db (got %d)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd.Context(), cmd, args[0], args[1], &f, stdout)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "mcpvet.db", "database holding both scans, when the arguments are scan ids")
	fl.StringVar(&f.format, "format", "text", "report format: "+strings.Join(report.Formats(report.KindDiff), ", "))
	registerEnumCompletion(cmd, "format", report.Formats(report.KindDiff)...)
	fl.StringVarP(&f.output, "output", "o", "-", "write the report here (- is stdout)")
	fl.Float64Var(&f.scoreDrop, "score-drop", results.DefaultDiffScoreDrop, "report a score that fell by more than this many points")
	return cmd
}

func runDiff(ctx context.Context, cmd *cobra.Command, oldArg, newArg string, f *diffFlags, stdout io.Writer) error {
	format, err := formatFlag(report.KindDiff, f.format)
	if err != nil {
		return err
	}
	if f.scoreDrop < 0 || f.scoreDrop > 100 {
		return usagef("--score-drop %g: out of range; use 0 to 100 points (0 reports any drop)", f.scoreDrop)
	}
	oldID, oldIsID := diffScanID(oldArg)
	newID, newIsID := diffScanID(newArg)
	var before, after results.DiffInput
	switch {
	case oldIsID && newIsID:
		st, err := openDiffDB(ctx, f.db, "--db")
		if err != nil {
			return err
		}
		defer st.Close()
		if before, err = loadDiffScan(ctx, st, oldID); err != nil {
			return err
		}
		if after, err = loadDiffScan(ctx, st, newID); err != nil {
			return err
		}
	case oldIsID || newIsID:
		return usagef("diff %s %s: give two scan ids (diff 3 4) or two database files (diff old.db new.db), not one of each", oldArg, newArg)
	default:
		if cmd.Flags().Changed("db") {
			return usagef("--db names the database of two scan ids; with two database files (%s %s) leave it out", oldArg, newArg)
		}
		var err error
		if before, err = loadLatestScan(ctx, oldArg); err != nil {
			return err
		}
		if after, err = loadLatestScan(ctx, newArg); err != nil {
			return err
		}
	}
	d := results.DiffScans(before, after, &results.DiffOptions{ScoreDrop: f.scoreDrop})
	return writeOutput(f.output, stdout, func(w io.Writer) error { return report.WriteDiff(w, d, format) })
}

// diffScanID parses a positive scan id.
func diffScanID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0
}

// openDiffDB opens an existing database read-only: diff never creates or
// migrates one.
func openDiffDB(ctx context.Context, path, what string) (*results.Store, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, usagef("%s %q: %v; give an mcpvet results database", what, path, errors.Unwrap(err))
	}
	if fi.IsDir() {
		return nil, usagef("%s %q is a directory; give an mcpvet results database", what, path)
	}
	return results.Open(ctx, path, &results.Options{ReadOnly: true})
}

func loadDiffScan(ctx context.Context, st *results.Store, id int64) (results.DiffInput, error) {
	in, err := results.LoadDiffInput(ctx, st, id)
	if errors.Is(err, results.ErrNotFound) {
		return in, usagef("scan %d is not in %s; it has %s", id, st.Path(), diffScanList(ctx, st))
	}
	return in, err
}

func loadLatestScan(ctx context.Context, path string) (results.DiffInput, error) {
	st, err := openDiffDB(ctx, path, "database")
	if err != nil {
		return results.DiffInput{}, err
	}
	defer st.Close()
	sc, err := st.LatestScan(ctx)
	if errors.Is(err, results.ErrNotFound) {
		return results.DiffInput{}, usagef("%s holds no scan yet; run mcpvet scan or triage with --db %s first", path, path)
	}
	if err != nil {
		return results.DiffInput{}, err
	}
	return results.LoadDiffInput(ctx, st, sc.ID)
}

// diffScanList names the scans of a database for an error message.
func diffScanList(ctx context.Context, st *results.Store) string {
	scans, err := st.Scans(ctx)
	if err != nil || len(scans) == 0 {
		return "no scans"
	}
	ids := make([]string, 0, len(scans))
	for _, s := range scans {
		ids = append(ids, strconv.FormatInt(s.ID, 10))
	}
	if len(ids) > 20 {
		ids = append(ids[:10], fmt.Sprintf("... (%d in all) ...", len(scans)), ids[len(ids)-1])
	}
	return "scans " + strings.Join(ids, ", ")
}
