package results

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
)

// BenchmarkSaveRun stores census-sized results (20 tools, 50 calls, 30
// probes, 20 findings, plus a few prompts and resources), one transaction
// per run as a scan does. It reports runs/s.
func BenchmarkSaveRun(b *testing.B) {
	st := newStore(b)
	ctx := context.Background()
	scan := newScan(b, st, ScanInfo{})
	res := make([]*fakeRes, 64)
	for i := range res {
		r := fakeResult(i, census)
		js, _ := encodeJSON(r)
		res[i] = &fakeRes{r, len(js)}
	}
	b.ReportAllocs()
	b.ResetTimer()
	var bytes int
	i := 0
	for b.Loop() {
		r := res[i%len(res)]
		if _, err := st.SaveRun(ctx, scan, fmt.Sprintf("key-%d", i), r.res); err != nil {
			b.Fatal(err)
		}
		bytes += r.size
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "runs/s")
	b.SetBytes(int64(bytes / max(i, 1)))
}

type fakeRes struct {
	res  *probe.Result
	size int
}
