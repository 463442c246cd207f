package probe

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Optimistic batch (issue 25, probe cost): the injection's probes are
// independent requests, so they are first sent together, up to
// [batchInFlight] at a time, with one liveness ping after the last answer
// instead of one after each probe. Most servers answer every probe: then
// the answers are recorded, in plan order, exactly as the one-at-a-time
// run would have recorded them (the same classes, texts and findings).
//
// Only a clean batch is kept: every probe answered (a result or a JSON-RPC
// error), the connection alive and the final ping answered. Anything else
// (a crash, a probe without an answer within the call timeout, an HTTP
// error status, a dead connection) would not say which request was to
// blame, so the batch is thrown away: the server is launched afresh and
// the whole injection is replayed one request at a time, each followed by
// a ping (the [injector.run] path), which pins a crash or a hang on one
// request as before. The replay's launch is not counted against
// [InjectOptions.MaxRelaunches]. The cost of a server that crashes or
// hangs is one more launch, the probes sent before the crash once more,
// and, for a hang, one call timeout more.
//
// The batch runs only where a replay is possible (Options.Relaunch is
// set) and over stdio: HTTP servers keep the one-at-a-time run, whose
// reconnects after 4xx answers are per request.

// batchInFlight bounds the probes of a batch waiting for an answer at once.
const batchInFlight = 16

// batchable reports whether the injection may try the optimistic batch.
func (in *injector) batchable() bool {
	return in.opts.batchesInjection() && in.relaunches == 0
}

// batchesInjection reports whether failure injection will try the batch
// (when the server is still alive after the listing).
func (o Options) batchesInjection() bool {
	cfg := o.Inject.withDefaults()
	return !cfg.Disabled && !cfg.Sequential && o.Relaunch != nil && o.HTTPClient == nil && o.Target.URL == ""
}

// plan lists the probes the one-at-a-time run would send to a server that
// answers every one of them: the server probes, then each tool's share,
// within the server's cap.
func (in *injector) plan() []ProbeCall {
	out := serverProbes(in.res)
	if len(out) > in.o.MaxPerServer {
		return out[:in.o.MaxPerServer]
	}
	perTool := in.perTool(len(out))
	for _, t := range in.res.Tools {
		for _, p := range toolProbes(t, perTool) {
			if len(out) >= in.o.MaxPerServer {
				return out
			}
			out = append(out, p)
		}
	}
	return out
}

// batchAnswer is what one probe of a batch got.
type batchAnswer struct {
	result  json.RawMessage
	werr    *jsonrpc.Error
	err     error
	latency time.Duration
	sent    bool
}

// batch runs the optimistic batch. It reports whether the injection is
// done: the batch was clean and recorded, or the run was cancelled (what
// was answered in plan order before the first unanswered probe is kept).
// When it returns false nothing was recorded and a fresh copy of the
// server is ready for the one-at-a-time replay; when no fresh copy could
// be started, it records nothing more and stops the injection.
func (in *injector) batch(ctx context.Context) bool {
	conn := in.s.rec.currentConn()
	if conn == nil || conn.isDead() {
		return false
	}
	probes := in.plan()
	if len(probes) == 0 {
		return false
	}
	for i := range probes {
		if sent, err := conn.withMeta(probes[i].Sent, in.version); err == nil {
			probes[i].Sent = sent
		}
	}
	// The basic calls, when still to run, go beside the probes; their
	// findings are kept with the batch.
	var basics []Finding
	var basicsDone sync.WaitGroup
	if in.basics {
		opts := in.opts
		opts.basicsPending = false
		basicsDone.Go(func() { basics = basicsFindings(ctx, in.s, in.res, opts) })
	}
	answers := make([]batchAnswer, len(probes))
	// A failed probe ends the batch early: the rest would be replayed
	// anyway.
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := make(chan struct{}, batchInFlight)
	var wg sync.WaitGroup
	for i := range probes {
		select {
		case slots <- struct{}{}:
		case <-bctx.Done():
		}
		if bctx.Err() != nil || conn.isDead() {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			a := &answers[i]
			cctx, ccancel := context.WithTimeout(bctx, in.o.CallTimeout)
			defer ccancel()
			t0 := time.Now()
			a.result, a.werr, a.err = conn.rawCall(cctx, probes[i].Method, probes[i].Sent)
			a.latency, a.sent = time.Since(t0), true
			if a.err != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	basicsDone.Wait()
	clean := !conn.isDead()
	for _, a := range answers {
		clean = clean && a.sent && a.err == nil
	}
	if clean && in.alive(ctx) {
		in.keepBasics(basics)
		in.record(probes, answers, len(probes))
		return true
	}
	if ctx.Err() != nil {
		n := 0
		for n < len(answers) && answers[n].sent && answers[n].err == nil {
			n++
		}
		in.keepBasics(basics)
		in.record(probes, answers, n)
		in.stop = true
		return true
	}
	// Something went wrong somewhere in the batch: replay it one request
	// at a time on a fresh copy of the server.
	// The basic calls are replayed with it, before it, as without a batch;
	// with no server to replay on, their answers beside the batch cannot
	// be told apart from its effects, and none is kept.
	if !in.fresh(ctx) {
		in.stop = true
		in.basics = false
		return true
	}
	return false
}

// keepBasics keeps the findings of basic calls run beside a batch.
func (in *injector) keepBasics(f []Finding) {
	if in.basics {
		in.basics = false
		in.res.Findings = append(in.res.Findings, f...)
	}
}

// record keeps the first n answers of a batch as the one-at-a-time run
// would have recorded them.
func (in *injector) record(probes []ProbeCall, answers []batchAnswer, n int) {
	for i := range n {
		p, a := probes[i], answers[i]
		p.LatencyMs = Ms(a.latency)
		note := answered(&p, a.result, a.werr)
		in.sent++
		in.res.Probes = append(in.res.Probes, p)
		idx := len(in.res.Probes) - 1
		in.notes[idx] = note
		in.checkOutput(p, a.result)
	}
}
