// Package scan orchestrates mcpvet: it turns targets into launch plans,
// runs each plan in the sandbox, probes it, grades it and stores the result.
// It is the only package that knows all the others.
//
// # One server
//
//	plan, _ := scan.ParseTarget([]string{"npm:@modelcontextprotocol/server-memory@2026.1.26"})
//	res, err := scan.Probe(ctx, plan, nil)
//
// # Many servers
//
//	sum, err := scan.Run(ctx, &scan.Options{Store: st, Plans: plans, Concurrency: 8})
//
// Run stores the targets first and marks each done in the same transaction
// that stores its run, so an interrupted scan resumes with [Options.Resume]
// without redoing or duplicating finished targets.
package scan

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/scan/vocab"
)

// Options configures [Run].
type Options struct {
	// Store receives the scan; required.
	Store *results.Store
	// Plans are the targets of a new scan. Ignored with Resume.
	Plans []vocab.Plan
	// Info describes a new scan (kind, source, options, seed, shard).
	Info results.ScanInfo
	// Resume continues the scan with this id instead of starting one.
	Resume int64
	// Restore obtains again the secret values a stored plan of a resumed
	// scan lacks (see [vocab.Plan.Stored]), filling them in place. It is
	// called for every pending plan with SecretFrom before anything is
	// written; an error stops the resume. Without it such a plan stops
	// the resume with a [*vocab.MissingSecretError].
	Restore func(ctx context.Context, plan *vocab.Plan) error
	// Concurrency is how many servers run at once (default: CPUs).
	Concurrency int
	// InstallConcurrency is how many packages install at once, in a pool
	// of their own so that network waits hold no server slot (default:
	// Concurrency).
	InstallConcurrency int
	// Probe configures each server's run.
	Probe ProbeOptions
	// Progress, when set, is called after each target from the single
	// writer goroutine, never concurrently.
	Progress func(Progress)
}

// Progress reports one finished target.
type Progress struct {
	Done, Total int
	// Key and Status describe the target just finished.
	Key    string
	Name   string
	Status vocab.Status
	// Verdict is the target's decision, if graded.
	Verdict string
	// Counts are the statuses so far.
	Counts  map[vocab.Status]int
	Elapsed time.Duration
}

// Summary is what a scan did.
type Summary struct {
	ScanID  int64
	Total   int
	Done    int
	Skipped int // already done before a resume
	Counts  map[vocab.Status]int
	Elapsed time.Duration
	// Interrupted is true when ctx ended before every target ran.
	Interrupted bool
}

// ErrInterrupted is returned when the scan stopped before every target
// ran; what ran is stored and the scan can be resumed.
var ErrInterrupted = errors.New("scan interrupted")

// Run scans every target of a new or resumed scan. Each server runs under
// its own deadline in a bounded pool; one goroutine writes to the store. A
// server that fails is a result, not an error: Run returns an error only
// when the store or the sandbox infrastructure fails, or ctx ends
// ([ErrInterrupted]), and in every case what finished is stored.
func Run(ctx context.Context, opts *Options) (Summary, error) {
	o := *opts
	if o.Store == nil {
		return Summary{}, errors.New("scan: no results store")
	}
	if o.Concurrency <= 0 {
		o.Concurrency = runtime.NumCPU()
	}
	if o.InstallConcurrency <= 0 {
		o.InstallConcurrency = o.Concurrency
	}
	if o.Probe.Probe.Checker == nil {
		o.Probe.Probe.Checker = probe.NewChecker()
	}
	st := o.Store
	sum := Summary{Counts: map[vocab.Status]int{}}
	start := time.Now()

	scanID := o.Resume
	if scanID == 0 {
		id, err := st.NewScan(ctx, o.Info)
		if err != nil {
			return sum, err
		}
		scanID = id
		if _, err := st.AddTargets(ctx, scanID, o.Plans); err != nil {
			return sum, err
		}
	}
	pending, err := st.PendingTargets(ctx, scanID)
	if err != nil {
		return sum, err
	}
	if o.Resume == 0 {
		// The stored plans lack the secret values; the given ones have them.
		given := make(map[string]*vocab.Plan, len(o.Plans))
		for i := range o.Plans {
			given[o.Plans[i].Key] = &o.Plans[i]
		}
		for i := range pending {
			if g := given[pending[i].Key]; g != nil {
				pending[i] = *g
			}
		}
	} else {
		for i := range pending {
			if err := restoreSecrets(ctx, &pending[i], o.Restore); err != nil {
				return sum, err
			}
		}
		if err := st.ResumeScan(ctx, scanID); err != nil {
			return sum, err
		}
	}
	sum.ScanID = scanID
	scanRow, err := st.Scan(ctx, scanID)
	if err != nil {
		return sum, err
	}
	sum.Total = scanRow.Targets
	sum.Skipped = scanRow.Targets - len(pending)

	type done struct {
		plan *vocab.Plan
		res  *probe.Result
	}
	// The workers' context ends on interrupt or on a fatal store error.
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	out := make(chan done, o.Concurrency)
	var writeErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the single writer
		defer wg.Done()
		for d := range out {
			if writeErr != nil {
				continue // drain; the scan is stopping
			}
			if _, err := st.SaveRun(context.WithoutCancel(ctx), scanID, d.plan.Key, d.res); err != nil {
				writeErr = err
				cancel(err)
				continue
			}
			sum.Done++
			sum.Counts[d.res.Liveness.Status]++
			if o.Progress != nil {
				p := Progress{Done: sum.Skipped + sum.Done, Total: sum.Total, Key: d.plan.Key, Name: d.plan.Name,
					Status: d.res.Liveness.Status, Counts: sum.Counts, Elapsed: time.Since(start)}
				if d.res.Verdict != nil {
					p.Verdict = d.res.Verdict.Decision
				}
				o.Progress(p)
			}
		}
	}()

	// Two pools: installs (network-bound) feed probes (CPU-bound). A plan
	// whose install fails is done without taking a probe slot; one that
	// installed is probed from the cache.
	ip := pool.New().WithContext(wctx).WithMaxGoroutines(o.InstallConcurrency)
	p := pool.New().WithContext(wctx).WithMaxGoroutines(o.Concurrency)
	var infraMu sync.Mutex
	var infraErr error
	finish := func(ctx context.Context, plan *vocab.Plan, res *probe.Result, err error) {
		if ctx.Err() != nil {
			// Interrupted mid-run: the result is incomplete, so the
			// target stays pending for --resume.
			return
		}
		if err != nil {
			infraMu.Lock()
			if infraErr == nil {
				infraErr = fmt.Errorf("scan: %s: %w", plan.Key, err)
			}
			infraMu.Unlock()
			cancel(err)
			return
		}
		out <- done{plan, res}
	}
	for i := range pending {
		plan := &pending[i]
		if wctx.Err() != nil {
			break
		}
		ip.Go(func(ctx context.Context) error {
			if res, done, err := installStep(ctx, plan, &o.Probe); done {
				finish(ctx, plan, res, err)
				return nil
			}
			if ctx.Err() != nil {
				return nil
			}
			p.Go(func(ctx context.Context) error {
				res, err := Probe(ctx, plan, &o.Probe)
				finish(ctx, plan, res, err)
				return nil
			})
			return nil
		})
	}
	_ = ip.Wait()
	_ = p.Wait()
	close(out)
	wg.Wait()
	sum.Elapsed = time.Since(start)

	status := results.ScanDone
	var retErr error
	switch {
	case writeErr != nil:
		status, retErr = results.ScanFailed, writeErr
	case infraErr != nil:
		status, retErr = results.ScanFailed, infraErr
	case sum.Skipped+sum.Done < sum.Total:
		status, retErr = results.ScanInterrupted, ErrInterrupted
		sum.Interrupted = true
	}
	if err := st.FinishScan(context.WithoutCancel(ctx), scanID, status); err != nil && retErr == nil {
		retErr = err
	}
	return sum, retErr
}

// restoreSecrets fills the secret values a stored plan lacks with restore.
func restoreSecrets(ctx context.Context, p *vocab.Plan, restore func(context.Context, *vocab.Plan) error) error {
	if len(p.SecretFrom) == 0 {
		return nil
	}
	if restore == nil {
		return p.Restore(&vocab.Plan{})
	}
	return restore(ctx, p)
}
