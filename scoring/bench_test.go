package scoring

import "testing"

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
