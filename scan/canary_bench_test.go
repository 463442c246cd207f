package scan

import (
	"context"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/scoring"
)

// BenchmarkCanarySearchEverything measures the secret search over
// everything a probe of @modelcontextprotocol/server-everything received,
// with three canaries, against the probe itself: the %probe metric is the
// search's cost as a share of one probe (the budget is 5%).
//
//	go test -run XXX -bench CanarySearchEverything -benchtime 20x ./scan
func BenchmarkCanarySearchEverything(b *testing.B) {
	cache := npmCache(b)
	plan := npmPlan("@modelcontextprotocol/server-everything", "2026.1.26")
	plan.Secrets = []string{"API_KEY", "GITHUB_TOKEN", "DATABASE_PASSWORD"}
	o := &ProbeOptions{Sandbox: &sandbox.Options{CacheDir: cache}}
	// Install and warm up, then time one probe with grading.
	if _, err := Probe(context.Background(), &plan, o); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	res, err := Probe(context.Background(), &plan, o)
	if err != nil {
		b.Fatal(err)
	}
	probeTime := time.Since(start)
	if len(res.Received) == 0 {
		b.Fatalf("no messages received: %s %s", res.Liveness.Status, res.Liveness.Detail)
	}
	canaries := map[string]string{"API_KEY": "mcpvet-canary-0123456789abcdef", "GITHUB_TOKEN": "mcpvet-canary-fedcba9876543210",
		"DATABASE_PASSWORD": "mcpvet-canary-00112233aabbccdd"}
	bytes := 0
	for _, m := range res.Received {
		bytes += len(m.Body) + len(m.ErrorMessage) + len(m.ErrorData)
	}
	b.SetBytes(int64(bytes))
	b.ResetTimer()
	for range b.N {
		if f := scoring.SecretLeaks(res, canaries); len(f) != 0 {
			b.Fatalf("findings without a leak: %v", f)
		}
	}
	b.StopTimer()
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(len(res.Received)), "messages")
	b.ReportMetric(float64(probeTime.Milliseconds()), "probe-ms")
	b.ReportMetric(100*float64(per)/float64(probeTime), "%probe")
}
