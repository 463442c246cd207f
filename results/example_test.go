package results_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/vocab"
)

// A resumable scan: targets first, then one SaveRun per probed target.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "mcpvet")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	st, err := results.Open(ctx, filepath.Join(dir, "mcpvet.db"), nil)
	if err != nil {
		log.Fatal(err) // an *OpenError: cmd exits 3
	}
	defer st.Close()

	scan, err := st.NewScan(ctx, results.ScanInfo{Kind: results.KindScan, Source: "registry"})
	if err != nil {
		log.Fatal(err)
	}
	plans := []vocab.Plan{
		{Key: "a@1#0", Name: "a", Version: "1", Source: "registry", Transport: vocab.TransportStdio, Command: "a"},
		{Key: "b@1#0", Name: "b", Version: "1", Source: "registry", Transport: vocab.TransportStdio, Command: "b"},
	}
	if _, err := st.AddTargets(ctx, scan, plans); err != nil {
		log.Fatal(err)
	}
	// Probe only the first, as if the scan had been interrupted.
	res := &probe.Result{
		Target:   probe.Target{Name: "a", Version: "1", Source: "registry", Transport: vocab.TransportStdio},
		Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true},
		Verdict:  &probe.Verdict{Decision: "keep"},
	}
	if _, err := st.SaveRun(ctx, scan, plans[0].Key, res); err != nil {
		log.Fatal(err)
	}
	pending, err := st.PendingTargets(ctx, scan)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("pending:", pending[0].Key)

	for rec, err := range st.Runs(ctx, scan) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("run:", rec.TargetKey, rec.Result.Liveness.Status, rec.Result.Verdict.Decision)
	}
	// Output:
	// pending: b@1#0
	// run: a@1#0 ok keep
}
