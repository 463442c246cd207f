package probe

import "testing"

// BenchmarkCheckEverything checks every page and tool of the recorded
// server-everything listing with one Checker, as a scan does: schemas
// compile once and later servers hit the cache.
func BenchmarkCheckEverything(b *testing.B) {
	pages := loadRecorded(b, "everything")
	res := resultFromPages(b, pages)
	c := NewChecker()
	c.Check(res, pages)
	b.ReportAllocs()
	for b.Loop() {
		c.Check(res, pages)
	}
	b.ReportMetric(float64(len(res.Tools)), "tools")
}

// BenchmarkCheckEverythingCold is the same with an empty schema cache each
// time: every tool schema is compiled.
func BenchmarkCheckEverythingCold(b *testing.B) {
	pages := loadRecorded(b, "everything")
	res := resultFromPages(b, pages)
	NewChecker().Check(res, pages) // compile the MCP schema once
	b.ReportAllocs()
	for b.Loop() {
		NewChecker().Check(res, pages)
	}
}
