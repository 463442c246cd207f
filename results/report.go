package results

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/scan/vocab"
)

// ReportSchemaVersion is the "schemaVersion" of the JSON report
// (docs/report-schema.md). It changes only when a field is renamed,
// removed or changes meaning; added fields keep it.
const ReportSchemaVersion = 1

// Report formats.
const (
	FormatMarkdown = "md"
	FormatHTML     = "html"
	FormatJSON     = "json"
	FormatCSV      = "csv"
)

// ReportFormats lists the formats [WriteReport] writes.
var ReportFormats = []string{FormatMarkdown, FormatHTML, FormatJSON, FormatCSV}

// ErrUnknownFormat: the report format is not one of [ReportFormats].
var ErrUnknownFormat = errors.New("unknown report format")

// ReportFormat returns the canonical name of a format ("markdown" is
// "md", "htm" is "html"), or an error wrapping [ErrUnknownFormat] that
// lists the valid formats.
func ReportFormat(name string) (string, error) {
	switch f := strings.ToLower(strings.TrimSpace(name)); f {
	case "md", "markdown":
		return FormatMarkdown, nil
	case "html", "htm":
		return FormatHTML, nil
	case "json":
		return FormatJSON, nil
	case "csv":
		return FormatCSV, nil
	}
	return "", fmt.Errorf("%w %q: use one of %s", ErrUnknownFormat, name, strings.Join(ReportFormats, ", "))
}

// ReportOptions configure [BuildReport] and [WriteReport]. The zero
// value (or nil) is ready to use.
type ReportOptions struct {
	// Format is md, html, json or csv (see [ReportFormat]); WriteReport
	// requires it.
	Format string
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
// interrupted is reported with the runs it has. The pass decodes only the
// fields the census reads, on GOMAXPROCS goroutines.
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
	r.Census = t.Census()
	r.Census.EntriesWithoutPlans = entriesWithoutPlans(sc.Options)
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

// WriteReport writes the report of a scan in opts.Format. The database is
// read twice: once for the census, then once more for the per-server
// sections, one result at a time, so memory stays small for any scan.
func WriteReport(ctx context.Context, w io.Writer, st *Store, scanID int64, opts *ReportOptions) error {
	var format string
	if opts != nil {
		format = opts.Format
	}
	rw, err := reportWriterFor(format)
	if err != nil {
		return err
	}
	r, err := BuildReport(ctx, st, scanID, opts)
	if err != nil {
		return err
	}
	return r.write(ctx, w, rw)
}

// Write writes the report in a format of [ReportFormats].
func (r *Report) Write(ctx context.Context, w io.Writer, format string) error {
	rw, err := reportWriterFor(format)
	if err != nil {
		return err
	}
	return r.write(ctx, w, rw)
}

func (r *Report) write(ctx context.Context, w io.Writer, rw reportWriter) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := rw.writeReport(ctx, bw, r); err != nil {
		return fmt.Errorf("results: writing report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("results: writing report: %w", err)
	}
	return nil
}

// A reportWriter renders a report in one format.
type reportWriter interface {
	writeReport(ctx context.Context, w io.Writer, r *Report) error
}

func reportWriterFor(format string) (reportWriter, error) {
	f, err := ReportFormat(format)
	if err != nil {
		return nil, err
	}
	switch f {
	case FormatMarkdown:
		return markdownWriter{}, nil
	case FormatHTML:
		return htmlWriter{}, nil
	case FormatJSON:
		return jsonWriter{}, nil
	default:
		return csvWriter{}, nil
	}
}

// renderSections renders the per-server sections of the first n rows and
// writes them to w in row order. Each section's full result is read from
// the store and rendered into a buffer on one of GOMAXPROCS goroutines;
// at most two sections per goroutine wait to be written, so memory stays
// bounded for any n.
func (r *Report) renderSections(ctx context.Context, w io.Writer, n int,
	render func(buf *bytes.Buffer, i int, row *ServerRow, res *probe.Result) error) error {
	if r.st == nil {
		return errors.New("report has no store to read results from")
	}
	n = min(n, len(r.Rows))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type section struct {
		i    int
		buf  *bytes.Buffer
		err  error
		done chan struct{}
	}
	workers := max(runtime.GOMAXPROCS(0), 1)
	order := make(chan *section, 2*workers)
	jobs := make(chan *section)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for s := range jobs {
				if s.err = ctx.Err(); s.err == nil {
					row := &r.Rows[s.i]
					var res *probe.Result
					if res, s.err = r.st.Run(ctx, row.RunID); s.err == nil {
						s.err = render(s.buf, s.i, row, res)
					}
				}
				close(s.done)
			}
		})
	}
	wg.Go(func() {
		defer close(order)
		defer close(jobs)
		for i := range n {
			s := &section{i: i, buf: sectionBufs.Get().(*bytes.Buffer), done: make(chan struct{})}
			s.buf.Reset()
			select {
			case order <- s:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- s:
			case <-ctx.Done():
				s.err = ctx.Err()
				close(s.done)
				return
			}
		}
	})
	var err error
	for s := range order {
		<-s.done
		if err == nil {
			if err = s.err; err == nil {
				_, err = w.Write(s.buf.Bytes())
			}
			if err != nil {
				cancel()
			}
		}
		if s.buf.Cap() <= 1<<20 {
			sectionBufs.Put(s.buf)
		}
	}
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

var sectionBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// eachJSON calls fn with the stored JSON of each row's result, in row
// order.
func (r *Report) eachJSON(ctx context.Context, fn func(i int, row *ServerRow, js []byte) error) error {
	if r.st == nil {
		return errors.New("report has no store to read results from")
	}
	for i := range r.Rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		js, err := r.st.runJSON(ctx, r.Rows[i].RunID)
		if err != nil {
			return err
		}
		if err := fn(i, &r.Rows[i], js); err != nil {
			return err
		}
	}
	return nil
}

// Pending is the number of the scan's targets without a run.
func (r *Report) Pending() int { return max(r.Scan.Targets-r.Scan.Done, 0) }

// sectionAnchor is the HTML id of row i's section.
func sectionAnchor(i int) string { return fmt.Sprintf("s%d", i+1) }
