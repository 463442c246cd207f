package probe

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/internal/timeline"
	"github.com/mcpvet/mcpvet/internal/tokens"
	"github.com/mcpvet/mcpvet/vocab"
)

// Options configures [Run]. The zero value is usable.
type Options struct {
	// Target describes what is probed; it is copied into the result.
	Target Target
	// HandshakeTimeout bounds launch plus handshake (default
	// [DefaultHandshakeTimeout]).
	HandshakeTimeout time.Duration
	// CallTimeout bounds each request after the handshake (default
	// [DefaultCallTimeout]).
	CallTimeout time.Duration
	// ProtocolVersion is the version the client asks for; empty asks for
	// the newest the go-sdk speaks (server/discover, falling back to
	// initialize).
	ProtocolVersion string
	// MaxPages caps the pages followed per list method (default
	// [DefaultMaxPages]).
	MaxPages int
	// MaxItems caps the items kept per list method (default
	// [DefaultMaxItems]).
	MaxItems int
	// Process reports on the server process behind the transport; nil for
	// transports without one (in-memory, HTTP). It waits up to wait for
	// the process to exit before answering, so that an exit racing the
	// handshake failure is seen.
	//
	// Contract with [Options.Relaunch]: Process describes the process
	// behind the newest transport, the one Run was given until Relaunch
	// returns a new one, that one after. Run calls it during the run and
	// once at the end (the stderr tail and stdout noise are final only then),
	// so it must stay usable until Run returns; it must be safe for
	// concurrent use.
	Process func(wait time.Duration) ProcessInfo
	// Checker runs the conformance checks; nil creates one per run. Share
	// one across a scan so schema compilations are cached.
	Checker *Checker
	// Relaunch starts a fresh copy of the server when failure injection
	// killed it and returns its transport; nil means the remaining probes
	// are skipped. Run calls it at most [InjectOptions.MaxRelaunches]
	// times, with a context bounded by the server's budget, and closes the
	// old session itself; the caller owns every process it started (the
	// first and each relaunched one) and closes them after Run returns.
	// Once Relaunch has returned, [Options.Process] must describe the new
	// process.
	Relaunch func(ctx context.Context) (mcp.Transport, error)
	// Inject configures failure injection; nil means the defaults of
	// [InjectOptions].
	Inject *InjectOptions

	// SkipBasics skips the capability-gated calls after listing (ping,
	// logging/setLevel, completion/complete, prompts/get, resources/read,
	// subscriptions; see check_basics.go), as `--no-inject` does: like
	// failure injection, they are calls beyond the listing.
	SkipBasics bool

	// Exercise calls each tool annotated readOnlyHint: true and
	// openWorldHint: false once with arguments generated from its input
	// schema, and checks the result (check_exercise.go).
	Exercise bool
	// ExerciseCalls is the budget of tools/call requests of Exercise
	// (input-required rounds included); 0 means DefaultExerciseCalls.
	ExerciseCalls int

	// HTTPClient reaches Target.URL for the HTTP-level checks of a
	// streamable-http target (see check_http.go); nil skips them.
	HTTPClient *http.Client

	// client is the run's log of server-to-client requests.
	client *clientLog
	// Closing, when set, is called once by [Run], from its goroutine, when
	// the last request of the run has been answered and the checks have
	// run, while the session closes (for a stdio server, the sandbox's
	// stdin grace and what follows), with the result as it stands: its
	// Probes, listings and Liveness.ProtocolVersion and Capabilities are
	// final, while the stderr tail, the exit, late answers, Calls and
	// Received are not yet. It may set the grades of res.Probes (scan
	// grades the answers there: issue 25, probe cost) and must change
	// nothing else. It is not called for a run whose handshake failed.
	Closing func(res *Result)

	// basicsPending: the basic calls have not run; the injection runs
	// them, beside its batch or before its one-at-a-time run.
	basicsPending bool
}

// ProcessInfo is what the launcher knows about the server process.
type ProcessInfo struct {
	// SpawnError is set when the process could not be started.
	SpawnError string
	Exited     bool
	ExitCode   *int
	// Signal names the signal that ended the process, if any.
	Signal string
	// StderrTail is the last 4 KiB of stderr.
	StderrTail string
	// StdoutNoise is the first non-protocol bytes seen on stdout.
	StdoutNoise string
	// LimitExceeded names the sandbox limit that killed the server.
	LimitExceeded string
	// LimitValue is that limit's value in words ("1073741824 bytes").
	LimitValue string
	// LimitDetail says more when it changes what the user should do: the
	// server died at start under RLIMIT_DATA, the memory limit where no
	// cgroup can be used, and --memory is to be raised. A handshake it
	// ended is then not assessed (Liveness.Environment), not the server's
	// failure.
	LimitDetail string
	// Started is when the process was started.
	Started time.Time
	// HTTPStatus is the first HTTP status a remote server answered (the
	// first error status when an earlier answer succeeded), 0 for stdio.
	HTTPStatus int
	// HTTPContentType is the media type of that answer.
	HTTPContentType string
	// OAuthMetadata reports whether a 401 answer's WWW-Authenticate header
	// advertised OAuth protected-resource metadata.
	OAuthMetadata bool
}

// The defaults of [Options], in one place: the CLI's flags show them too.
const (
	DefaultHandshakeTimeout = 20 * time.Second
	DefaultCallTimeout      = 10 * time.Second
	DefaultMaxPages         = 50
	DefaultMaxItems         = 5000
)

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.HandshakeTimeout <= 0 {
		out.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if out.CallTimeout <= 0 {
		out.CallTimeout = DefaultCallTimeout
	}
	if out.MaxPages <= 0 {
		out.MaxPages = DefaultMaxPages
	}
	if out.MaxItems <= 0 {
		out.MaxItems = DefaultMaxItems
	}
	if out.ExerciseCalls <= 0 {
		out.ExerciseCalls = DefaultExerciseCalls
	}
	return out
}

// session is one connected probe run: the SDK session plus the recorder
// that sees its wire.
type session struct {
	cs  *mcp.ClientSession
	rec *recorder
	// client counts the server-to-client requests answered; shared by the
	// sessions of one run.
	client *clientLog
}

// Run probes the server behind t: handshake, listing, conformance checks
// and failure injection. It never returns an error: whatever the server
// does is recorded in the result. Cancelling ctx ends the run early with
// what was found so far.
func Run(ctx context.Context, t mcp.Transport, opts *Options) *Result {
	o := opts.withDefaults()
	start := time.Now()
	res := &Result{
		Target:            o.Target,
		Tools:             []Tool{},
		Prompts:           []Prompt{},
		Resources:         []Resource{},
		ResourceTemplates: []ResourceTemplate{},
		Findings:          []Finding{},
		Calls:             []Call{},
		Probes:            []ProbeCall{},
	}
	rec := newRecorder()
	o.client = &clientLog{}
	defer func() { res.Client = o.client.side(declaredCapabilities()) }()
	// CPU-only preparations run while the server starts, rather than
	// after the handshake on the way of the listing and the injection:
	// the tokenizer parses its ranks, and the schema the checks will most
	// likely need is compiled (see warmSpec): the revision asked for, or
	// else the one the SDK's initialize asks for, which most servers
	// answer with.
	go tokens.Warm()
	go warmSpec(cmp.Or(o.ProtocolVersion, vocab.Protocol20251125))
	s, err := connect(ctx, rec.transport(t), o)
	timeline.Mark("handshake done")
	res.Liveness.Timings.HandshakeMs = Ms(time.Since(start))
	if err != nil {
		rec.abandon(abandonOutcome(ctx, err))
		classifyFailure(ctx, res, err, rec, o)
		oauthCheck401(ctx, res, o)
		res.Calls = rec.telemetry()
		res.Received, res.ReceivedDropped = rec.messages()
		res.Liveness.Timings.TotalMs = Ms(time.Since(start))
		return res
	}
	s.rec = rec
	describeHandshake(res, s.cs, rec)
	// The schema of the negotiated revision, when the server chose another
	// than the one compiled while it started.
	go warmSpec(res.Liveness.ProtocolVersion)
	var pages []Page
	if ex, ok := rec.last(res.Liveness.Handshake); ok && ex.result != nil {
		pages = append(pages, Page{Method: res.Liveness.Handshake, Result: ex.result})
	}
	checkProcess(res, o)
	httpDone := startHTTPChecks(ctx, res, o)

	listStart := time.Now()
	pages = append(pages, listAll(ctx, s, res, o)...)
	timeline.Mark("listed")
	// The basic calls run beside the injection's batch when there is one
	// (inject_batch.go); otherwise before it, as they always did.
	o.basicsPending = !o.SkipBasics && !o.Exercise && o.batchesInjection()
	if !o.basicsPending {
		runBasics(ctx, s, res, o)
		timeline.Mark("basics done")
		runExercise(ctx, s, res, o)
		timeline.Mark("exercise done")
	}
	res.Liveness.Timings.ListMs = Ms(time.Since(listStart))

	// The listings are final: count their tokens while the failures are
	// injected.
	measured := make(chan *ContextCost, 1)
	go func() { measured <- MeasureContext(res) }()
	probeStart := time.Now()
	s = injectFailures(ctx, s, res, o)
	res.Liveness.Timings.ProbeMs = Ms(time.Since(probeStart))
	timeline.Mark("injection and retries done")
	res.Context = <-measured
	timeline.Mark("context cost counted")

	rec.awaitLate(lateGrace)
	// Shut the server down while the conformance checks run: a server that
	// does not exit on end of input costs the sandbox's stdin grace, and
	// the checks need nothing from it. (Running the listing's checks beside
	// the injection instead was measured slower on 2 cores: they took CPU
	// from the server answering the batch, and the grace is idle time.)
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		if s != nil {
			_ = s.cs.Close()
		}
	}()
	checker := o.Checker
	if checker == nil {
		checker = NewChecker()
	}
	validated := map[string]bool{res.Liveness.Handshake: true}
	for _, k := range listKinds {
		validated[k.method] = true
	}
	pages = append(pages, rec.messagePages(validated)...)
	// The poison checks read the answers received so far (tool results,
	// errors, prompts/get, resources/read); the final list is taken below.
	res.Received, res.ReceivedDropped = rec.messages()
	timeline.Mark("checks start")
	res.Findings = append(res.Findings, checker.Check(res, pages)...)
	httpDone()
	timeline.Mark("checks done")
	if o.Closing != nil {
		o.Closing(res)
		timeline.Mark("closing work done")
	}
	<-closed
	timeline.Mark("session closed")
	res.Findings = append(res.Findings, rec.lateFindings()...)
	rec.abandon("closed")
	if first := rec.firstByte(); !first.IsZero() {
		res.Liveness.Timings.StartMs = Ms(first.Sub(start))
	}
	// Pollution can arrive after the handshake too; the stored tail is
	// final only once the process is gone.
	checkProcess(res, o)
	res.Calls = rec.telemetry()
	res.Received, res.ReceivedDropped = rec.messages()
	res.Liveness.Timings.TotalMs = Ms(time.Since(start))
	return res
}

// connect performs the handshake as the server speaks it: the go-sdk
// client tries server/discover (2026-07-28) and falls back to initialize
// plus notifications/initialized.
func connect(ctx context.Context, t mcp.Transport, o Options) (*session, error) {
	if o.client == nil {
		o.client = &clientLog{}
	}
	client := newClient(o.client)
	hctx, cancel := context.WithTimeout(ctx, o.HandshakeTimeout)
	defer cancel()
	cs, err := client.Connect(hctx, t, &mcp.ClientSessionOptions{ProtocolVersion: o.ProtocolVersion})
	if err != nil {
		if hctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("%w: %w", errHandshakeTimeout, err)
		}
		return nil, err
	}
	return &session{cs: cs, client: o.client}, nil
}

var errHandshakeTimeout = errors.New("handshake timed out")

func abandonOutcome(ctx context.Context, err error) string {
	if errors.Is(err, errHandshakeTimeout) || ctx.Err() != nil {
		return "timeout"
	}
	return "closed"
}

func describeHandshake(res *Result, cs *mcp.ClientSession, rec *recorder) {
	l := &res.Liveness
	l.HandshakeCompleted = true
	l.Status = vocab.StatusOK
	// The SDK sends initialize only when server/discover did not settle
	// a version, so an initialize exchange means the legacy handshake.
	l.Handshake = "server/discover"
	if _, ok := rec.last("initialize"); ok {
		l.Handshake = "initialize"
	}
	ir := cs.InitializeResult()
	if ir == nil {
		return
	}
	l.ProtocolVersion = ir.ProtocolVersion
	if ir.ServerInfo != nil {
		l.ServerInfo = &ServerInfo{Name: ir.ServerInfo.Name, Title: ir.ServerInfo.Title, Version: ir.ServerInfo.Version}
	}
	l.InstructionsBytes = len(ir.Instructions)
	l.Instructions = safe.Truncate(ir.Instructions, MaxInstructions, safe.Ellipsis)
	// Keep the capabilities exactly as sent, not as the SDK re-encodes them.
	if ex, ok := rec.last(l.Handshake); ok && ex.result != nil {
		var raw struct {
			Capabilities json.RawMessage `json:"capabilities"`
		}
		if json.Unmarshal(ex.result, &raw) == nil && len(raw.Capabilities) > 0 {
			l.Capabilities = raw.Capabilities
		}
	}
	if l.Capabilities == nil && ir.Capabilities != nil {
		l.Capabilities, _ = json.Marshal(ir.Capabilities)
	}
	if !vocab.KnownProtocol(l.ProtocolVersion) {
		res.Findings = append(res.Findings, NewFinding(CodeUnknownVersion, "server", "/protocolVersion", l.ProtocolVersion,
			"the server negotiated %q, which is not a published MCP revision; answer one of %s; the spec says %s", l.ProtocolVersion, strings.Join(vocab.ProtocolVersions, ", "), specVersionNegotiation))
	}
}

// checkProcess folds what the launcher saw (stdout noise, stderr) into the
// liveness record of a run whose handshake completed.
func checkProcess(res *Result, o Options) {
	if o.Process == nil {
		return
	}
	pi := o.Process(0)
	l := &res.Liveness
	l.StderrTail = pi.StderrTail
	if pi.ExitCode != nil {
		l.ExitCode = pi.ExitCode
	}
	if pi.StdoutNoise != "" && l.StdoutNoise == "" {
		l.StdoutNoise = safe.Truncate(pi.StdoutNoise, MaxEvidence, safe.Ellipsis)
		l.Status = vocab.StatusStdoutPollution
		res.Findings = append(res.Findings, NewFinding(CodeStdoutPollution, "server", "stdout", pi.StdoutNoise,
			"the server wrote non-protocol bytes to stdout; over stdio, stdout must carry only JSON-RPC messages, so write logs and banners to stderr"))
	}
}

// MaxInstructions bounds Liveness.Instructions.
const MaxInstructions = 16 << 10

// wireError extracts the JSON-RPC error inside err, if any.
func wireError(err error) *jsonrpc.Error {
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return werr
	}
	return nil
}
