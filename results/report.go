package results

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// ReportSchemaVersion is the "schemaVersion" of the JSON report
// (docs/report-schema.md). It changes only when a field is renamed,
// removed or changes meaning; added fields keep it.
const ReportSchemaVersion = 1

// ReportOptions configure [BuildReport]. The zero
// value (or nil) is ready to use.
type ReportOptions struct {
	// Servers caps the per-server sections of the md and html reports
	// (the html server table still lists every server); 0 means every
	// server. The json and csv reports always hold every server.
	Servers int
	// Database is the database path the report names.
	Database string
	// Generator names the program, such as "mcpvet v1.2.3".
	Generator string
	// Now returns the report's time; default time.Now.
	Now func() time.Time
}

// A Report is a scan's census and the summary row of each server, ready
// to write in any format. It reads each server's full result from the
// store again when a writer needs it, so it holds no full results.
type Report struct {
	SchemaVersion int
	GeneratedAt   time.Time
	Generator     string
	Database      string
	Scan          Scan
	Census        *Census
	// Rows are the servers sorted by name, version and target key.
	Rows []ServerRow
	// Sections is how many of Rows get a per-server section in md and
	// html.
	Sections int

	st *Store
}

// Result reads the full stored result of row i of r.Rows. It is safe for
// concurrent use, as the store's reads are.
func (r *Report) Result(ctx context.Context, i int) (*probe.Result, error) {
	if r.st == nil {
		return nil, errors.New("report has no store to read results from")
	}
	return r.st.Run(ctx, r.Rows[i].RunID)
}

// ResultJSON reads the stored JSON of the result of row i of r.Rows, as
// [Store.Run] would decode it. It is safe for concurrent use.
func (r *Report) ResultJSON(ctx context.Context, i int) ([]byte, error) {
	if r.st == nil {
		return nil, errors.New("report has no store to read results from")
	}
	return r.st.runJSON(ctx, r.Rows[i].RunID)
}

// A ServerRow summarises one run: the server table of a report, one CSV
// row.
type ServerRow struct {
	RunID   int64  `json:"runId"`
	Key     string `json:"key"`
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// InstalledVersion is the package version installed for a dist-tag
	// such as latest.
	InstalledVersion string `json:"installedVersion,omitempty"`
	Source           string `json:"source,omitempty"`
	PackageType      string `json:"packageType"`
	Transport        string `json:"transport"`
	// Launch is the command line or URL.
	Launch             string       `json:"launch,omitempty"`
	Status             vocab.Status `json:"status"`
	Group              string       `json:"livenessGroup"`
	HandshakeCompleted bool         `json:"handshakeCompleted"`
	ProtocolVersion    string       `json:"protocolVersion,omitempty"`
	ServerName         string       `json:"serverName,omitempty"`
	ServerVersion      string       `json:"serverVersion,omitempty"`
	SDK                string       `json:"sdk"`
	SDKEvidence        string       `json:"sdkEvidence,omitempty"`
	Tools              int          `json:"tools"`
	Prompts            int          `json:"prompts"`
	Resources          int          `json:"resources"`
	ResourceTemplates  int          `json:"resourceTemplates"`
	Findings           int          `json:"findings"`
	Fatal              int          `json:"fatal"`
	Errors             int          `json:"errors"`
	Warnings           int          `json:"warnings"`
	Probes             int          `json:"probes"`
	Graded             int          `json:"graded"`
	Score              *float64     `json:"score"`
	Verdict            string       `json:"verdict,omitempty"`
	// Rule is the verdict rule that decided.
	Rule      string    `json:"verdictRule,omitempty"`
	ExitCode  *int      `json:"exitCode,omitempty"`
	TotalMs   float64   `json:"totalMs"`
	CreatedAt time.Time `json:"createdAt"`
}

// RowOf summarises a stored run.
func RowOf(rec Record) ServerRow {
	res := rec.Result
	l := &res.Liveness
	row := ServerRow{
		RunID: rec.ID, Key: rec.TargetKey, CreatedAt: rec.CreatedAt,
		Name: res.Target.Name, Version: res.Target.Version, InstalledVersion: res.Target.InstalledVersion, Source: res.Target.Source,
		PackageType: PackageType(res.Target), Transport: transportKey(res.Target),
		Status: l.Status, Group: GroupOf(*l), HandshakeCompleted: l.HandshakeCompleted,
		ProtocolVersion: l.ProtocolVersion,
		Tools:           len(res.Tools), Prompts: len(res.Prompts), Resources: len(res.Resources),
		ResourceTemplates: len(res.ResourceTemplates),
		Findings:          len(res.Findings), Probes: len(res.Probes),
		Score: res.Score, ExitCode: l.ExitCode, TotalMs: l.Timings.TotalMs,
	}
	switch {
	case len(res.Target.Command) > 0:
		row.Launch = safe.Truncate(strings.Join(res.Target.Command, " "), 512, safe.Ellipsis)
	case res.Target.URL != "":
		row.Launch = safe.Truncate(res.Target.URL, 512, safe.Ellipsis)
	}
	if si := l.ServerInfo; si != nil {
		row.ServerName, row.ServerVersion = si.Name, si.Version
	}
	row.SDK, row.SDKEvidence = SDKOfResult(res)
	for i := range res.Findings {
		switch res.Findings[i].Severity {
		case probe.SeverityFatal:
			row.Fatal++
		case probe.SeverityError:
			row.Errors++
		case probe.SeverityWarn:
			row.Warnings++
		}
	}
	for i := range res.Probes {
		if len(res.Probes[i].Elements) > 0 {
			row.Graded++
		}
	}
	if v := res.Verdict; v != nil {
		row.Verdict = v.Decision
		for _, r := range v.Rules {
			if r.Fired {
				row.Rule = r.Name
				break
			}
		}
	}
	return row
}

// BuildReport computes the census of a scan in one pass over its runs and
// keeps a summary row per server. A scan that is still running or was
// interrupted is reported with the runs it has. The pass reads only the
// fields the census needs (run_summaries), decoded on GOMAXPROCS goroutines.
func BuildReport(ctx context.Context, st *Store, scanID int64, opts *ReportOptions) (*Report, error) {
	var o ReportOptions
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	sc, err := st.Scan(ctx, scanID)
	if err != nil {
		return nil, err
	}
	r := &Report{
		SchemaVersion: ReportSchemaVersion,
		GeneratedAt:   o.Now().UTC(),
		Generator:     o.Generator,
		Database:      o.Database,
		Scan:          sc,
		st:            st,
	}
	t := NewTally()
	r.Rows = make([]ServerRow, 0, sc.Done)
	err = st.leanRuns(ctx, scanID, func(rec Record) {
		t.Add(rec.Result)
		r.Rows = append(r.Rows, RowOf(rec))
	})
	if err != nil {
		return nil, fmt.Errorf("results: building report of scan %d: %w", scanID, err)
	}
	r.Census = t.CensusOf(sc)
	sort.SliceStable(r.Rows, func(i, j int) bool {
		a, b := &r.Rows[i], &r.Rows[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Key < b.Key
	})
	r.Sections = len(r.Rows)
	if o.Servers > 0 && o.Servers < r.Sections {
		r.Sections = o.Servers
	}
	return r, nil
}

// Pending is the number of the scan's targets without a run.
func (r *Report) Pending() int { return max(r.Scan.Targets-r.Scan.Done, 0) }

// PublicSource names a scan's source for a published report: a snapshot
// or config named by a local path keeps only its file name (and what the
// scan recorded after it: entry count and digest); a registry keeps its
// URL.
func PublicSource(src string) string {
	for _, kind := range []string{"snapshot:", "config:"} {
		rest, ok := strings.CutPrefix(src, kind)
		if !ok {
			continue
		}
		path, tail := rest, ""
		if i := strings.Index(rest, " ("); i >= 0 {
			path, tail = rest[:i], rest[i:]
		}
		return kind + filepath.Base(path) + tail
	}
	return src
}

// CensusOf returns the census of the results added so far as a report of
// scan sc states it: with the run conditions and the public source the
// scan recorded, intervals clustered by entry for a sample, and exact
// counts without intervals for a complete census.
func (t *Tally) CensusOf(sc Scan) *Census {
	c := t.Census()
	c.EntriesWithoutPlans = entriesWithoutPlans(sc.Options)
	c.Conditions = ConditionsOf(sc.Options)
	c.Source = PublicSource(sc.Source)
	if c.Sampled = Sampled(sc.Options); c.Sampled {
		t.sampleIntervals(c)
	} else {
		markExact(reflect.ValueOf(c))
	}
	return c
}
