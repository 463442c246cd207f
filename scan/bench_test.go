package scan

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// BenchmarkScan measures scan throughput on the wellbehaved fixture, which
// starts instantly: b.N servers at concurrency 8, stored in SQLite.
// It reports servers/s; the target is at least 50 on 2 cores.
func BenchmarkScan(b *testing.B) {
	for _, inject := range []bool{false, true} {
		b.Run(fmt.Sprintf("inject=%v", inject), func(b *testing.B) {
			bin := testfixture.Path(b, benchFixture)
			st, err := results.Open(context.Background(), filepath.Join(b.TempDir(), "b.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			plans := make([]vocab.Plan, b.N)
			for i := range plans {
				plans[i] = vocab.Plan{Key: fmt.Sprint(i), Name: "wellbehaved", Source: "bench", Transport: "stdio", Command: bin}
			}
			b.ResetTimer()
			start := time.Now()
			sum, err := Run(context.Background(), &Options{
				Store: st, Plans: plans, Concurrency: 8, Info: results.ScanInfo{Kind: results.KindScan, Source: "bench"},
				Probe: ProbeOptions{
					Sandbox: &sandbox.Options{Backend: "none"},
					Run:     probe.Options{Inject: &probe.InjectOptions{Disabled: !inject}},
				},
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(sum.Done)/time.Since(start).Seconds(), "servers/s")
			if sum.Counts[vocab.StatusOK] != b.N {
				b.Fatalf("statuses %v", sum.Counts)
			}
		})
	}
}

// benchFixture is the server BenchmarkScan launches; -bench-fixture picks
// another fixture from testdata/servers.
var benchFixture = "wellbehaved"

func init() {
	flag.StringVar(&benchFixture, "bench-fixture", benchFixture, "fixture server BenchmarkScan launches")
}
