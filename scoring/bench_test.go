package scoring

import (
	"fmt"
	"strings"
	"testing"
)

// benchResponses is the corpus repeated to 10,000 responses.
func benchResponses(b *testing.B) []corpusCase {
	cases := loadCorpus(b)
	out := make([]corpusCase, 0, 10000)
	for len(out) < 10000 {
		out = append(out, cases...)
	}
	return out[:10000]
}

// BenchmarkGrade grades 10,000 responses per operation; the target is
// under one second per operation.
func BenchmarkGrade(b *testing.B) {
	rs := benchResponses(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i := range rs {
			Grade(rs[i].Response, rs[i].Context)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/10k")
}

// largeResponse is a 10 MB tool error: an upstream dump proxied verbatim,
// one numbered line per record.
func largeResponse() Response {
	var b strings.Builder
	for i := 0; b.Len() < 10<<20; i++ {
		fmt.Fprintf(&b, "Record %d: Status=FAILED Reason=Upstream timeout after 30 seconds\n", i)
	}
	return Response{Kind: KindRuntime, Method: "tools/call", Tool: "export", Class: ClassToolError,
		ProtocolVersion: "2025-11-25", Text: b.String()}
}

// BenchmarkGradeLarge grades one 10 MB response per operation; the
// targets are under 20 ms and under 30 MB allocated.
func BenchmarkGradeLarge(b *testing.B) {
	r := largeResponse()
	c := Context{ToolNames: []string{"export"}}
	b.ReportAllocs()
	b.SetBytes(int64(len(r.Text)))
	for b.Loop() {
		Grade(r, c)
	}
}

// BenchmarkGradeLargeLines grades a 10 MB response of five million
// two-byte lines, the worst case for counting enumerated lines.
func BenchmarkGradeLargeLines(b *testing.B) {
	r := Response{Kind: KindRuntime, Method: "tools/call", Tool: "export", Class: ClassToolError,
		ProtocolVersion: "2025-11-25", Text: strings.Repeat("X\n", 5<<20)}
	c := Context{ToolNames: []string{"export"}}
	b.ReportAllocs()
	b.SetBytes(int64(len(r.Text)))
	for b.Loop() {
		Grade(r, c)
	}
}
