package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
	"github.com/mcpvet/mcpvet/scan"
	"github.com/mcpvet/mcpvet/scan/source"
	"github.com/mcpvet/mcpvet/vocab"
)

type scanFlags struct {
	runFlags
	registry    string
	from        string
	config      string
	limit       int
	concurrency int
	installConc int
	resume      bool
	shard       string
	sample      int
	seed        int64
	allVersions bool
	registryTyp string
	transport   string
	retries     int
	budget      crawlBudget
	// flags is the command's flag set: what was given, for --resume.
	flags *pflag.FlagSet
	// set is the config set of a --config scan.
	set *source.ConfigSet
}

func newScanCmd(stdout, stderr io.Writer, g *globalFlags) *cobra.Command {
	var f scanFlags
	cmd := &cobra.Command{
		Use:   "scan (--registry URL | --from FILE | --config FILE | --resume) [flags]",
		Short: "Scan many servers from a registry, a snapshot or a client config",
		Example: `  mcpvet scan --from servers.json --registry-type npm --transport stdio --concurrency 4
  mcpvet scan --registry https://registry.modelcontextprotocol.io --sample 400 --seed 1
  mcpvet scan --resume
  mcpvet scan --from servers.json --shard 2/8 --db shard-2.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.flags = cmd.Flags()
			return runScan(cmd.Context(), &f, g, stdout, stderr)
		},
	}
	f.register(cmd)
	f.registerConfigFlags(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.registry, "registry", "", "crawl an MCP registry API at this URL (e.g. "+source.DefaultBaseURL+")")
	fl.StringVar(&f.from, "from", "", "read targets from a registry snapshot file (JSON array, API page or NDJSON)")
	fl.StringVar(&f.config, "config", "", "read targets from an MCP client config (Claude Desktop, Claude Code, VS Code, Cursor, Windsurf, Gemini CLI, Codex CLI, Zed), as triage reads it")
	fl.IntVar(&f.limit, "limit", 0, "scan at most N targets (after filtering, sampling and sharding)")
	fl.IntVar(&f.concurrency, "concurrency", 0, "servers probed at once (default: number of CPUs)")
	fl.IntVar(&f.installConc, "install-concurrency", 0, "packages installed at once, in their own pool (default: --concurrency)")
	fl.BoolVar(&f.resume, "resume", false, "finish the most recent unfinished scan in --db")
	fl.StringVar(&f.shard, "shard", "", "scan only shard i of n (i/n, 0 <= i < n), a stable hash partition of the targets")
	fl.IntVar(&f.sample, "sample", 0, "scan a random sample of N targets (with --seed)")
	fl.Int64Var(&f.seed, "seed", 1, "seed of --sample")
	fl.BoolVar(&f.allVersions, "all-versions", false, "keep every version of each server, not only the latest (--latest-only is the default)")
	fl.StringVar(&f.registryTyp, "registry-type", "", "keep only plans of this package type: npm, pypi, oci, nuget, mcpb or remote")
	fl.StringVar(&f.transport, "transport", "", "keep only plans of this transport: stdio, streamable-http or sse")
	fl.IntVar(&f.retries, "registry-retries", source.DefaultMaxRetries, "retries of one registry page after a transient failure (0: fail at once)")
	f.budget.register(fl)
	return cmd
}

// parseShard parses "i/n" with 0 <= i < n. Shards count from 0 like a
// Kubernetes Indexed Job's completion index, so a pod can pass its index
// as it is.
func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usagef("--shard %q: not i/n with 0 <= i < n; write it as 2/8 (shards count from 0)", s)
	}
	return i, n, nil
}

// scanGCPercent is the garbage collector's target during a scan, unless
// GOGC says otherwise. A scan's heap is mostly short-lived copies of what
// servers send (lines up to the 16 MiB message limit, read while several
// servers run at once) and of results being encoded for the database, over
// a small live set: at Go's default of 100 the heap peaks at twice the
// live set. At 50, four servers of 300,000 tools peaked at 285-338 MB of
// RSS instead of 373-413 MB, for the same CPU time (bench/listing.sh,
// issue 22).
const scanGCPercent = 50

// setGCPercent is debug.SetGCPercent; tests watch it.
var setGCPercent = debug.SetGCPercent

func runScan(ctx context.Context, f *scanFlags, g *globalFlags, stdout, stderr io.Writer) error {
	if err := f.check(); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		defer setGCPercent(setGCPercent(scanGCPercent))
	}
	st, err := results.Open(ctx, f.db, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	var resumeID int64
	configScan := f.config
	if f.resume {
		// The resumed scan keeps every option it started with.
		id, err := latestUnfinished(ctx, st)
		if err != nil {
			return err
		}
		resumeID = id
		if err := restoreScanFlags(ctx, st, id, f); err != nil {
			return err
		}
		if sc, err := st.Scan(ctx, id); err == nil {
			configScan, _ = strings.CutPrefix(sc.Source, "config:")
			if configScan == sc.Source {
				configScan = ""
			}
		}
	}
	shardI, shardN := 0, 0 // shardN 0: not sharded
	if f.shard != "" {
		var err error
		if shardI, shardN, err = parseShard(f.shard); err != nil {
			return err
		}
	}
	if configScan == "" {
		// Registry servers are no one's local servers: they start in their
		// private HOME, not in the folder mcpvet runs in. A config's
		// servers are the user's and run as triage runs them.
		f.s.WorkDir = scan.WorkDirNone
	}
	popts, err := f.options()
	if err != nil {
		return err
	}
	copts, err := f.configOptions()
	if err != nil {
		return err
	}

	o := &scan.Options{Store: st, Concurrency: f.concurrency, InstallConcurrency: f.installConc, Probe: *popts}
	if f.resume {
		o.Resume = resumeID
		o.Restore = scan.ConfigRestorer(copts, f.env, f.headers)
		if configScan != "" {
			// For the portfolio at the end; a config gone since is
			// reported by the restorer if a secret needs it.
			f.set, _ = source.LoadConfigSet(configScan, source.DiscoverEnv{}, copts)
		}
	} else if err := f.newScan(ctx, o, copts, shardI, shardN, stderr, g.quiet); err != nil {
		return err
	}
	if !g.quiet {
		o.Progress = newProgress(stderr)
	}
	sum, err := scan.Run(ctx, o)
	var re *scan.RestoreError
	if errors.As(err, &re) {
		// A resume that cannot obtain a secret again stopped before
		// running anything: its one line is all there is to say.
		return usageError{err}
	}
	if !g.quiet {
		fmt.Fprintln(stderr)
	}
	writeScanSummary(stdout, sum)
	if configScan != "" && sum.ScanID != 0 {
		// A config is a portfolio: report tools its servers share and
		// descriptions naming another server's tools, within what one
		// client loads together, as triage does.
		if perr := writeConfigPortfolio(context.WithoutCancel(ctx), stdout, st, sum.ScanID, f.set); perr != nil {
			return perr
		}
	}
	if errors.Is(err, scan.ErrInterrupted) {
		return errPartial
	}
	return err
}

// check validates the flags of a scan before anything is opened.
func (f *scanFlags) check() error {
	sources := 0
	for _, s := range []string{f.registry, f.from, f.config} {
		if s != "" {
			sources++
		}
	}
	switch {
	case f.resume && sources > 0:
		return usagef("--resume takes its targets from --db; drop --registry, --from and --config")
	case !f.resume && sources != 1:
		return usagef("give exactly one of --registry URL, --from FILE or --config FILE (or --resume)")
	case f.concurrency < 1 && f.flags != nil && f.flags.Changed("concurrency"), f.concurrency < 0:
		return usagef("--concurrency %d: must be at least 1 (leave the flag out for the number of CPUs)", f.concurrency)
	case f.installConc < 0:
		return usagef("--install-concurrency %d: must not be negative (0: as many as --concurrency)", f.installConc)
	case f.retries < 0:
		return usagef("--registry-retries %d: must not be negative; 0 fails at the first error", f.retries)
	case f.budget.check() != nil:
		return f.budget.check()
	case f.sample < 0 || f.limit < 0:
		return usagef("--sample and --limit must not be negative")
	}
	return nil
}

// newScan loads the targets of a new scan from its source, selects them
// and describes the scan in o.
func (f *scanFlags) newScan(ctx context.Context, o *scan.Options, copts *source.ConfigOptions, shardI, shardN int, stderr io.Writer, quiet bool) error {
	plans, src, stats, err := loadPlans(ctx, f, copts, stderr, quiet)
	if err != nil {
		return err
	}
	sel, err := scan.Select(plans, &scan.Selection{RegistryType: f.registryTyp, Transport: f.transport,
		Sample: f.sample, Seed: f.seed, ShardIndex: shardI, ShardCount: shardN, Limit: f.limit})
	if err != nil {
		return usageError{err}
	}
	plans = sel.Plans
	var seed *int64
	if f.sample > 0 {
		seed = &f.seed
	}
	optsJSON, _ := json.Marshal(map[string]any{
		"registry": f.registry, "from": f.from, "config": f.config, "limit": f.limit,
		"sample": f.sample, "registryType": f.registryTyp, "transport": f.transport,
		"sandbox": f.s.Backend, "allowNetwork": f.s.AllowNetwork, "allowPrivateNetwork": f.s.AllowPrivateNetwork, "allVersions": f.allVersions,
		"sourceStats": stats, "policy": o.Probe.Policy,
		"planSetDigest": sel.PlanSet, "planSetSize": sel.PlanSetSize,
		"flags": recordFlags(f.flags),
	})
	// The run conditions: what this machine can reach and run, recorded
	// with the scan and printed first by its reports.
	conds := scan.CheckConditions(ctx, &scan.ConditionOptions{Sandbox: f.s.Backend, Network: f.s.AllowNetwork})
	if u, ok := strings.CutPrefix(src, "registry:"); ok {
		conds.Indexes = append([]vocab.IndexCondition{{Name: scan.IndexMCPRegistry, URL: u, Answered: true,
			Detail: fmt.Sprintf("crawled: %d plans", len(plans))}}, conds.Indexes...)
	}
	o.Conditions = &conds
	o.Plans = plans
	o.Info = results.ScanInfo{Kind: results.KindScan, Source: src, Options: optsJSON, Seed: seed,
		ShardIndex: shardI, ShardCount: shardN}
	if !quiet {
		fmt.Fprintf(stderr, "mcpvet: %d targets from %s\n", len(plans), safe.Line(src))
	}
	return nil
}

// writeConfigPortfolio writes the portfolio findings of a config scan:
// per client when the config can still be read (set), else over all its
// servers.
func writeConfigPortfolio(ctx context.Context, w io.Writer, st *results.Store, scanID int64, set *source.ConfigSet) error {
	if set == nil {
		pf, err := results.LoadPortfolio(ctx, st, scanID)
		if err != nil {
			return err
		}
		report.WritePortfolioSummary(w, pf)
		return nil
	}
	t, err := results.LoadTriage(ctx, st, scanID)
	if err != nil {
		return err
	}
	scan.ExpandTriage(t, set)
	report.WritePortfolioSummary(w, t.Portfolio)
	return nil
}

func latestUnfinished(ctx context.Context, st *results.Store) (int64, error) {
	scans, err := st.Scans(ctx)
	if err != nil {
		return 0, err
	}
	for i := len(scans) - 1; i >= 0; i-- {
		s := scans[i]
		if s.Kind == results.KindScan && s.Status != results.ScanDone {
			return s.ID, nil
		}
	}
	return 0, usagef("--resume: %s has no unfinished scan; start one with --registry, --from or --config", st.Path())
}

func loadPlans(ctx context.Context, f *scanFlags, copts *source.ConfigOptions, stderr io.Writer, quiet bool) ([]vocab.Plan, string, any, error) {
	popts := &source.PlanOptions{AllVersions: f.allVersions}
	switch {
	case f.config != "":
		// The one reading of configs triage and probe --config use:
		// launchers translated, workspace variables, entries skipped one
		// by one, the same server named twice probed once.
		set, err := loadConfigSet(f.config, copts, stderr, quiet)
		if err != nil {
			return nil, "", nil, err
		}
		f.set = set
		return set.Unique, "config:" + f.config, nil, nil
	case f.from != "":
		data, err := os.ReadFile(f.from)
		if err != nil {
			return nil, "", nil, usagef("--from %q: %v; give the path of a registry snapshot", f.from, err)
		}
		entries, err := source.ReadSnapshot(bytes.NewReader(data))
		if err != nil {
			return nil, "", nil, usagef("--from %q: %v", f.from, err)
		}
		// A report names the snapshot by what a reader can look up (its
		// file name, entry count and digest), never by a local path.
		name := snapshotName(f.from, len(entries), data)
		popts.Source = "snapshot:" + filepath.Base(f.from)
		plans, stats := source.Plans(entries, popts)
		return plans, name, stats, nil
	default:
		copts := &source.CrawlOptions{BaseURL: f.registry}
		if !f.allVersions {
			copts.Version = "latest"
		}
		copts.MaxRetries = f.retries
		f.budget.apply(copts)
		if f.retries == 0 {
			copts.MaxRetries = -1 // CrawlOptions: negative is never
		}
		if !quiet {
			copts.OnRetry = func(r source.RetryInfo) {
				fmt.Fprintf(stderr, "mcpvet: registry: %s\n", safe.Line(r.String()))
			}
		}
		entries, err := source.Fetch(ctx, copts)
		if err != nil {
			// The registry is infrastructure: a failed crawl stops the scan
			// before anything is launched, and nothing is lost.
			return nil, "", nil, fmt.Errorf("crawling %s (after %d entries): %w", f.registry, len(entries), err)
		}
		popts.Source = "registry:" + f.registry
		plans, stats := source.Plans(entries, popts)
		return plans, "registry:" + f.registry, stats, nil
	}
}

// newProgress returns a progress printer: a redrawn status line on a
// terminal, a plain line per server otherwise.
func newProgress(w io.Writer) func(scan.Progress) {
	tty := isTerminal(w)
	return func(p scan.Progress) {
		rate := float64(p.Done) / p.Elapsed.Seconds()
		if tty {
			eta := "?"
			if rate > 0 {
				eta = (time.Duration(float64(p.Total-p.Done)/rate) * time.Second).Round(time.Second).String()
			}
			fmt.Fprintf(w, "\r\x1b[K%d/%d  %.1f/s  eta %s  %s", p.Done, p.Total, rate, eta, statusCounts(p.Counts))
			return
		}
		fmt.Fprintf(w, "%d/%d %s %s %s\n", p.Done, p.Total, p.Status, p.Verdict, safe.Line(p.Name))
	}
}

func statusCounts(m map[vocab.Status]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[vocab.Status(k)])
	}
	return strings.Join(parts, ", ")
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func writeScanSummary(w io.Writer, s scan.Summary) {
	fmt.Fprintf(w, "scan %d: %d of %d targets done (%d before this run) in %s", s.ScanID, s.Done+s.Skipped, s.Total, s.Skipped, s.Elapsed.Round(time.Millisecond))
	if s.Done > 0 && s.Elapsed > 0 {
		fmt.Fprintf(w, ", %.1f servers/s", float64(s.Done)/s.Elapsed.Seconds())
	}
	fmt.Fprintln(w)
	if len(s.Counts) > 0 {
		fmt.Fprintf(w, "  %s\n", statusCounts(s.Counts))
	}
}

func newRegistryCmd(stdout, stderr io.Writer, g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "registry", Short: "Work with an MCP registry"}
	var (
		url, out    string
		allVersions bool
		search      string
		retries     int
		budget      crawlBudget
	)
	pull := &cobra.Command{
		Use:   "pull [-o FILE]",
		Short: "Save a registry snapshot, so a census can be reproduced from the same input",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if retries < 0 {
				return usagef("--registry-retries %d: must not be negative; 0 fails at the first error", retries)
			}
			if err := budget.check(); err != nil {
				return err
			}
			copts := &source.CrawlOptions{BaseURL: url, Search: search, MaxRetries: retries}
			budget.apply(copts)
			if retries == 0 {
				copts.MaxRetries = -1
			}
			if !allVersions {
				copts.Version = "latest"
			}
			if !g.quiet {
				copts.OnRetry = func(r source.RetryInfo) {
					fmt.Fprintf(stderr, "mcpvet: registry: %s\n", safe.Line(r.String()))
				}
			}
			entries, err := source.Fetch(cmd.Context(), copts)
			if err != nil {
				return fmt.Errorf("crawling %s (after %d entries; nothing written): %w", url, len(entries), err)
			}
			if err := writeOutput(out, stdout, func(w io.Writer) error { return source.WriteSnapshot(w, entries) }); err != nil {
				return err
			}
			if !g.quiet {
				fmt.Fprintf(stderr, "mcpvet: %d registry entries written\n", len(entries))
			}
			return nil
		},
	}
	pull.Flags().StringVar(&url, "registry", source.DefaultBaseURL, "registry API base URL")
	pull.Flags().StringVarP(&out, "output", "o", "-", "snapshot file (- is stdout)")
	pull.Flags().BoolVar(&allVersions, "all-versions", false, "every version, not only the latest")
	pull.Flags().StringVar(&search, "search", "", "only servers whose name contains this")
	pull.Flags().IntVar(&retries, "registry-retries", source.DefaultMaxRetries, "retries of one registry page after a transient failure (0: fail at once)")
	budget.register(pull.Flags())
	cmd.AddCommand(pull)
	return cmd
}

func newResultsCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{Use: "results", Short: "Work with results databases"}
	var allowPartial bool
	merge := &cobra.Command{
		Use:   "merge OUT.db IN.db...",
		Short: "Combine shard databases into one equal to a single-machine scan",
		Long: "Combine the shard databases of one scan (every shard i/n, each finished) into one equal to a single-machine scan. " +
			"An incomplete or unfinished set is refused unless --allow-partial, which the merged scan records. Merging the same shards again changes nothing.",
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return results.MergeShards(cmd.Context(), args[0], args[1:], &results.MergeOptions{AllowPartial: allowPartial})
		},
	}
	merge.Flags().BoolVar(&allowPartial, "allow-partial", false, "merge an incomplete or unfinished shard set (recorded in the merged scan)")
	cmd.AddCommand(merge)
	return cmd
}

// restoreScanFlags sets f's flags from the options stored with scan id.
func restoreScanFlags(ctx context.Context, st *results.Store, id int64, f *scanFlags) error {
	sc, err := st.Scan(ctx, id)
	if err != nil {
		return err
	}
	var stored struct {
		Flags map[string]json.RawMessage `json:"flags"`
	}
	if len(sc.Options) > 0 {
		if err := json.Unmarshal(sc.Options, &stored); err != nil {
			return fmt.Errorf("--resume: scan %d: reading its stored options: %v", id, err)
		}
	}
	if stored.Flags == nil || f.flags == nil {
		return nil // a scan from an older mcpvet: only the targets are stored
	}
	return restoreFlags(f.flags, stored.Flags)
}

// snapshotName names a snapshot file as a report shows it:
// "snapshot:servers.json (1,068 entries, sha256 9f2c...)", with the file's
// base name only.
func snapshotName(path string, entries int, data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf("snapshot:%s (%d entries, sha256 %s)", filepath.Base(path), entries, hex.EncodeToString(sum[:]))
}
