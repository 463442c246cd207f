package scan

import (
	"context"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
)

// BenchmarkInjectEverything measures failure injection with the default
// caps against @modelcontextprotocol/server-everything, installed by the
// benchmark itself and run in the default sandbox, for the newest protocol
// version and for 2025-11-25. ns/op is the whole probe (launch, handshake,
// listing, injection, grading); inject-ms is the injection alone.
//
//	go test -run XXX -bench InjectEverything -benchtime 5x ./scan
//
// It replaces a test that only logged these figures and depended on another
// package's test having installed the server first.
func BenchmarkInjectEverything(b *testing.B) {
	cache := npmCache(b)
	for _, version := range []string{"", "2025-11-25"} {
		name := version
		if name == "" {
			name = "newest"
		}
		b.Run(name, func(b *testing.B) {
			plan := npmPlan("@modelcontextprotocol/server-everything", "2026.1.26")
			o := &ProbeOptions{Sandbox: &sandbox.Options{CacheDir: cache}, Run: probe.Options{ProtocolVersion: version}}
			// Install and warm up outside the timing.
			if _, err := Probe(context.Background(), &plan, o); err != nil {
				b.Fatal(err)
			}
			var injectMs float64
			var probes, tools int
			classes := map[string]int{}
			b.ResetTimer()
			for b.Loop() {
				res, err := Probe(context.Background(), &plan, o)
				if err != nil {
					b.Fatal(err)
				}
				if !res.Liveness.HandshakeCompleted {
					b.Fatalf("handshake failed: %s %s", res.Liveness.Status, res.Liveness.Detail)
				}
				injectMs += res.Liveness.Timings.ProbeMs
				probes, tools = len(res.Probes), len(res.Tools)
				clear(classes)
				for _, p := range res.Probes {
					classes[p.Class]++
				}
			}
			if probes == 0 {
				b.Fatalf("no probes against %d tools", tools)
			}
			b.ReportMetric(injectMs/float64(b.N), "inject-ms")
			b.ReportMetric(float64(probes), "probes")
			b.ReportMetric(float64(tools), "tools")
			b.Logf("classes %v", classes)
		})
	}
}
