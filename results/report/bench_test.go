package report_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
	"github.com/mcpvet/mcpvet/results/report"
)

// benchServers is the census size the report must handle: the registry
// holds about 24,000 servers.
const benchServers = 20000

// benchStore writes n census results into a new database, one SaveRun
// (one transaction) per run as a scan does. With MCPVET_BENCH_DB set it
// keeps the database at that path and reuses it on later runs.
func benchStore(b *testing.B, n int) (*results.Store, int64) {
	b.Helper()
	ctx := context.Background()
	path := os.Getenv("MCPVET_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "census.db")
	} else if _, err := os.Stat(path); err == nil {
		st, err := results.Open(ctx, path, &results.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		sc, err := st.LatestScan(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if sc.Done != n {
			b.Fatalf("%s holds %d runs, want %d; remove it", path, sc.Done, n)
		}
		return st, sc.ID
	}
	start := time.Now()
	st, err := results.Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	id, err := st.NewScan(ctx, results.ScanInfo{Kind: results.KindScan, Source: "registry:bench"})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		plan, res := fixture.CensusResult(i)
		if _, err := st.SaveRun(ctx, id, plan.Key, res); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.FinishScan(ctx, id, results.ScanDone); err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %d runs in %s", n, time.Since(start).Round(time.Millisecond))
	return st, id
}

// countingWriter counts the bytes of a report.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countingWriter)(nil)

// BenchmarkReport writes the report of a 20,000-server census in each
// format; the brief asks for under 10 s each. md and html detail the
// first 200 servers (the default of `mcpvet report --servers`); md-all
// and html-all detail every server. Run with
//
//	MCPVET_BENCH_DB=/tmp/census.db go test ./results/report -run '^$' -bench BenchmarkReport -benchtime 1x
func BenchmarkReport(b *testing.B) {
	st, id := benchStore(b, benchServers)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		format  string
		servers int
	}{
		{"md", "md", 200}, {"html", "html", 200}, {"json", "json", 0}, {"csv", "csv", 0},
		{"md-all", "md", 0}, {"html-all", "html", 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var w countingWriter
			cpu := processCPU()
			for b.Loop() {
				w.n = 0
				if err := report.WriteScan(ctx, &w, st, id, tc.format, &results.ReportOptions{Servers: tc.servers}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.n)/(1<<20), "MiB")
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/report")
			b.ReportMetric((processCPU()-cpu)/float64(b.N), "cpu-s/report")
		})
	}
}
