package results

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

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
	cpu0 := cpuTime()
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
	// CPU time per run is steadier than wall time on a shared machine.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(max(i, 1)), "cpu-ms/run")
	b.SetBytes(int64(bytes / max(i, 1)))
}

// cpuTime is the user plus system time of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type fakeRes struct {
	res  *probe.Result
	size int
}

// BenchmarkSaveRuns stores the same results 32 to a transaction with
// [Store.SaveRuns].
func BenchmarkSaveRuns(b *testing.B) {
	st := newStore(b)
	ctx := context.Background()
	scan := newScan(b, st, ScanInfo{})
	res := make([]*probe.Result, 64)
	for i := range res {
		res[i] = fakeResult(i, census)
	}
	const batch = 32
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	i := 0
	var runs []RunInput
	for b.Loop() {
		runs = append(runs, RunInput{Key: fmt.Sprintf("key-%d", i), Result: res[i%len(res)]})
		if len(runs) == batch {
			if _, err := st.SaveRuns(ctx, scan, runs); err != nil {
				b.Fatal(err)
			}
			runs = runs[:0]
		}
		i++
	}
	if _, err := st.SaveRuns(ctx, scan, runs); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(max(i, 1)), "cpu-ms/run")
}
