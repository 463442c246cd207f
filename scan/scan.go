// Package scan orchestrates mcpvet: it turns targets into launch plans,
// runs each plan in the sandbox, probes it, grades it and stores the result.
// It is the only package that knows all the others.
//
// # One server
//
//	plan, _ := scan.ParseTarget([]string{"npm:@modelcontextprotocol/server-memory@2026.1.26"})
//	res, err := scan.Probe(ctx, plan, nil)                      // not stored
//	res, err = scan.RunOne(ctx, plan, &scan.Options{Store: st}) // stored, a scan of one
//
// # Many servers
//
//	sel, _ := scan.Select(plans, &scan.Selection{Transport: "stdio", Sample: 400, Seed: 1})
//	sum, err := scan.Run(ctx, &scan.Options{Store: st, Plans: sel.Plans, Concurrency: 8})
//
// Each server's run is configured by [ProbeOptions], which
// [Settings.ProbeOptions] builds from flat, command-line-shaped settings.
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

	"github.com/mcpvet/mcpvet/internal/timeline"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/scoring"
	"github.com/mcpvet/mcpvet/vocab"
)

// Options configures [Run].
type Options struct {
	// Store receives the scan; required, except by [RunOne] given
	// OpenStore.
	Store *results.Store
	// OpenStore, used by [RunOne] when Store is nil, returns the store;
	// RunOne calls it once, beside the install check and the launch, so
	// that opening the database (SQLite, its migrations and checks) costs
	// the probe no time before the server starts. An error stops the
	// probe (the server is cancelled, nothing is stored) and is RunOne's
	// error. The caller owns the store it returns and closes it.
	OpenStore func(ctx context.Context) (*results.Store, error)
	// Plans are the targets of a new scan. Ignored with Resume.
	Plans []vocab.Plan
	// Info describes a new scan (kind, source, options, seed, shard). Run
	// sets its RubricVersion: every run it stores is graded by
	// [scoring.RubricVersion].
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
	// Conditions, when set, are the run conditions ([CheckConditions]): a
	// new scan records them in its options ("runConditions"), and a
	// failure they explain (a remote name that did not resolve where DNS
	// resolves no public name) is marked as this machine's, so its
	// verdict is not_assessed.
	Conditions *vocab.Conditions
	// Progress, when set, is called after each target from the single
	// writer goroutine, never concurrently.
	Progress func(Progress)
	// KeepPartial stores the result of a server that the end of ctx cut
	// short and marks its target done; the scan is still marked
	// interrupted and Run returns [ErrInterrupted]. Without it such a
	// target stays pending, to run whole on [Options.Resume]. [RunOne]
	// sets it: a probe of one server has no resume.
	KeepPartial bool

	// saved, when set, is called with each stored result by the writer.
	saved func(*probe.Result)
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
	// Interrupted is true when ctx ended before every target ran whole.
	Interrupted bool
}

// ErrNoStore is returned by [Run] and [RunOne] when [Options.Store] is
// nil (nil options included) and [RunOne] has no [Options.OpenStore] (or
// it returned no store): a scan always stores what it ran.
var ErrNoStore = errors.New("scan: no results store")

// ErrInterrupted is returned when the scan stopped before every target
// ran; what ran is stored and the scan can be resumed.
var ErrInterrupted = errors.New("scan interrupted")

// Run scans every target of a new or resumed scan. Each server runs under
// its own deadline in a bounded pool; one goroutine writes to the store. A
// server that fails is a result, not an error: Run returns an error only
// when the store or the sandbox infrastructure fails, or ctx ends
// ([ErrInterrupted]), and in every case what finished is stored.
//
// opts may be nil: the zero Options, which has no store, so Run returns
// [ErrNoStore].
func Run(ctx context.Context, opts *Options) (Summary, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	// A probe (RunOne: one new target, given whole) does not wait for
	// the store: see early below.
	early := o.saved != nil && o.Resume == 0 && len(o.Plans) == 1 && o.Plans[0].Key != ""
	opening := early && o.Store == nil && o.OpenStore != nil
	if o.Store == nil && o.OpenStore != nil && o.saved != nil && !early {
		// RunOne of a plan without a key: the store is needed first.
		st, err := o.OpenStore(ctx)
		if err != nil {
			return Summary{}, err
		}
		o.Store = st
	}
	if o.Store == nil && !opening {
		return Summary{}, ErrNoStore
	}
	if o.Concurrency <= 0 {
		o.Concurrency = runtime.NumCPU()
	}
	if o.InstallConcurrency <= 0 {
		o.InstallConcurrency = o.Concurrency
	}
	if o.Probe.Run.Checker == nil {
		o.Probe.Run.Checker = probe.NewChecker()
	}
	o.Info.RubricVersion = scoring.RubricVersion
	if o.Conditions != nil {
		o.Info.Options = withConditions(o.Info.Options, o.Conditions)
	}
	sum := Summary{Counts: map[vocab.Status]int{}}
	start := time.Now()

	// The workers' context ends on interrupt or on a fatal error. The
	// single writer stores each result; the two pools (installs, which
	// are network-bound, feed probes) return only fatal infrastructure
	// errors, each cancelling the whole scan, and keep the first.
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	// The scan row and its targets are stored before any result. A probe
	// (RunOne: one new target, given whole) does not wait for them: its
	// install check and launch go on while they are written (issue 25,
	// probe cost: the first commit after opening syncs the WAL header),
	// and, with OpenStore, while the store is opened; its writer waits
	// for them. A scan learns its targets from them. st is set before
	// setup is closed; only the writer (after setup) and the code after
	// the writer has ended read it.
	var scanID int64
	var stored, pending []vocab.Plan
	var setupErr error
	st := o.Store
	setup := make(chan struct{})
	prepare := func() {
		defer close(setup)
		if opening {
			if st, setupErr = o.OpenStore(ctx); setupErr != nil {
				return
			}
			if st == nil {
				setupErr = ErrNoStore
				return
			}
		}
		if scanID, stored, setupErr = o.pending(ctx, st); setupErr != nil {
			return
		}
		sum.ScanID = scanID
		scanRow, err := st.Scan(ctx, scanID)
		if err != nil {
			setupErr = err
			return
		}
		sum.Total = scanRow.Targets
		sum.Skipped = scanRow.Targets - len(stored)
	}
	if early {
		// What pending would return for a new scan: the given plan,
		// secrets included.
		pending = o.Plans
		go func() {
			prepare()
			if setupErr != nil {
				cancel(setupErr)
			}
		}()
	} else {
		prepare()
		if setupErr != nil {
			return sum, setupErr
		}
		pending = stored
	}
	out := make(chan done, o.Concurrency)
	var writeErr error
	cut := 0 // results stored with KeepPartial after ctx ended
	var wg sync.WaitGroup
	wg.Go(func() {
		<-setup
		if setupErr != nil {
			for range out { // drain; nothing can be stored
			}
			return
		}
		cut, writeErr = o.write(ctx, st, scanID, out, &sum, start, cancel)
	})

	// A plan whose install fails is done without taking a probe slot; one
	// that installed is probed from the cache.
	ip := pool.New().WithContext(wctx).WithMaxGoroutines(o.InstallConcurrency).WithCancelOnError().WithFirstError()
	p := pool.New().WithContext(wctx).WithMaxGoroutines(o.Concurrency).WithCancelOnError().WithFirstError()
	finish := func(ctx context.Context, plan *vocab.Plan, res *probe.Result, err error) error {
		cutShort := ctx.Err() != nil
		switch {
		case cutShort && !o.KeepPartial:
			// Interrupted mid-run: the result is incomplete, so the
			// target stays pending for --resume.
			return nil
		case err != nil:
			cancel(err)
			return &targetError{plan: plan, err: err}
		}
		if res != nil && attributeEnvironment(res, o.Conditions) {
			v := scoring.Decide(res, o.Probe.Policy)
			res.Verdict = &v
		}
		out <- done{plan: plan, res: res, cut: cutShort}
		return nil
	}
	for i := range pending {
		plan := &pending[i]
		if wctx.Err() != nil && !o.KeepPartial {
			break
		}
		ip.Go(func(ctx context.Context) error {
			if res, done, err := installStep(ctx, plan, &o.Probe); done {
				return finish(ctx, plan, res, err)
			}
			if ctx.Err() != nil && !o.KeepPartial {
				return nil
			}
			p.Go(func(ctx context.Context) error {
				// The result is stored while the sandbox tears the
				// server down; the slot is held until it has.
				res, torn, err := probeOnce(ctx, plan, &o.Probe, true)
				defer torn()
				return finish(ctx, plan, res, err)
			})
			return nil
		})
	}
	infraErr := ip.Wait()
	if err := p.Wait(); infraErr == nil {
		infraErr = err
	}
	close(out)
	wg.Wait()
	sum.Elapsed = time.Since(start)
	if setupErr != nil {
		return sum, setupErr
	}

	status := results.ScanDone
	var retErr error
	switch {
	case writeErr != nil:
		status, retErr = results.ScanFailed, writeErr
	case infraErr != nil:
		status, retErr = results.ScanFailed, infraErr
	case sum.Skipped+sum.Done < sum.Total || cut > 0:
		status, retErr = results.ScanInterrupted, ErrInterrupted
		sum.Interrupted = true
	}
	timeline.Mark("finishing the scan row")
	if err := st.FinishScan(context.WithoutCancel(ctx), scanID, status); err != nil && retErr == nil {
		retErr = err
	}
	return sum, retErr
}

// pending records a new scan, or resumes [Options.Resume], and returns
// its id and the targets still to run, with their secret values.
func (o *Options) pending(ctx context.Context, st *results.Store) (int64, []vocab.Plan, error) {
	scanID := o.Resume
	if scanID == 0 {
		id, err := st.NewScan(ctx, o.Info)
		if err != nil {
			return 0, nil, err
		}
		scanID = id
		timeline.Mark("scan row stored")
		if _, err := st.AddTargets(ctx, scanID, o.Plans); err != nil {
			return 0, nil, err
		}
	}
	pending, err := st.PendingTargets(ctx, scanID)
	if err != nil {
		return 0, nil, err
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
				return 0, nil, err
			}
		}
		if err := st.ResumeScan(ctx, scanID); err != nil {
			return 0, nil, err
		}
	}
	return scanID, pending, nil
}

// done is one finished target on its way to the writer.
type done struct {
	plan *vocab.Plan
	res  *probe.Result
	// cut is set for a result the end of ctx cut short, stored with
	// [Options.KeepPartial].
	cut bool
}

// write is the single writer: it stores each result from out, marking its
// target done in the same transaction, and reports progress. A store
// error is fatal: it cancels the scan, and the rest of out is drained
// without storing. cut counts the results stored cut short.
func (o *Options) write(ctx context.Context, st *results.Store, scanID int64, out <-chan done, sum *Summary, start time.Time, cancel context.CancelCauseFunc) (cut int, writeErr error) {
	for d := range out {
		if writeErr != nil {
			continue // drain; the scan is stopping
		}
		timeline.Mark("storing the result")
		if _, err := st.SaveRun(context.WithoutCancel(ctx), scanID, d.plan.Key, d.res); err != nil {
			writeErr = err
			cancel(err)
			continue
		}
		sum.Done++
		sum.Counts[d.res.Liveness.Status]++
		if d.cut {
			cut++
		}
		if o.saved != nil {
			o.saved(d.res)
		}
		if o.Progress != nil {
			p := Progress{Done: sum.Skipped + sum.Done, Total: sum.Total, Key: d.plan.Key, Name: d.plan.Name,
				Status: d.res.Liveness.Status, Counts: sum.Counts, Elapsed: time.Since(start)}
			if d.res.Verdict != nil {
				p.Verdict = d.res.Verdict.Decision
			}
			o.Progress(p)
		}
	}
	return cut, writeErr
}

// targetError is a fatal infrastructure failure while running one target.
type targetError struct {
	plan *vocab.Plan
	err  error
}

func (e *targetError) Error() string { return fmt.Sprintf("scan: %s: %v", e.plan.Key, e.err) }
func (e *targetError) Unwrap() error { return e.err }

// RunOne probes one plan as a scan of one target, with
// [Options.KeepPartial] (a probe has no resume: a result cut short by the
// end of ctx is stored and returned, with [ErrInterrupted]). opts.Plans,
// Resume and the concurrency are ignored. The result is nil when the
// probe stored none: the store or the sandbox infrastructure failed, and
// the error says which. opts may be nil, as for [Run]. With
// [Options.OpenStore] instead of Store, the store is opened while the
// package's install is checked and the server launched.
func RunOne(ctx context.Context, plan *vocab.Plan, opts *Options) (*probe.Result, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Plans = []vocab.Plan{*plan}
	o.Resume, o.Restore = 0, nil
	o.Concurrency, o.InstallConcurrency = 1, 1
	o.KeepPartial = true
	var res *probe.Result
	o.saved = func(r *probe.Result) { res = r }
	_, err := Run(ctx, &o)
	if te := (*targetError)(nil); errors.As(err, &te) {
		err = fmt.Errorf("probing %s: %w", plan.Name, te.err)
	}
	return res, err
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
