package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/internal/timeline"
	"github.com/mcpvet/mcpvet/vocab"
)

// Failure injection sends each tool calls its own input schema rejects, and
// the server requests it cannot honour (an unknown tool, method, resource,
// prompt or cursor), then records how each was answered in Result.Probes.
// Grading those answers is the scoring package's job; this file only sends
// and classifies.
//
// Safety: an argument object is sent only when the tool's own input schema
// rejects it (validated before sending), so a server that validates its
// input never runs the tool. Tools are probed whatever their annotations
// say; each ProbeCall records whether its tool is (by default or
// explicitly) destructive or open-world.

// Response classes (ProbeCall.Class): the words of [vocab.ClassProtocolError]
// and its kin, which probe sets.
const (
	ClassProtocolError = vocab.ClassProtocolError
	ClassToolError     = vocab.ClassToolError
	ClassAccepted      = vocab.ClassAccepted
	ClassCrash         = vocab.ClassCrash
	ClassHang          = vocab.ClassHang
	// ClassLimit: the sandbox killed the server for a resource limit
	// while the call was in flight. Such a call is no answer: it is never
	// recorded among the probes (see [CodeLimitExceeded]), so the word
	// stays probe's own.
	ClassLimit = "limit"
)

// Finding codes of failure injection.
const (
	CodeAcceptedInvalidInput     = "errors/accepted_invalid_input"
	CodeCrashOnInvalidInput      = "errors/crash_on_invalid_input"
	CodeHangOnInvalidInput       = "errors/hang_on_invalid_input"
	CodeWrongChannel             = "errors/wrong_channel"
	CodeUnknownMethodNotRejected = "errors/unknown_method_not_rejected"
	CodeBadCursorAccepted        = "errors/bad_cursor_accepted"
)

func init() {
	register(
		CatalogEntry{CodeAcceptedInvalidInput, SeverityError,
			"a request its own schema rejects was answered as a success",
			"validate tool arguments against the inputSchema before acting, and answer a violation with a tool result with isError: true that names the parameter and the expected value"},
		CatalogEntry{CodeCrashOnInvalidInput, SeverityFatal,
			"the server died on invalid input",
			"catch errors in request handlers and answer them as errors; invalid input must never end the process"},
		CatalogEntry{CodeHangOnInvalidInput, SeverityFatal,
			"the server never answered an invalid request",
			"answer every request, invalid ones included, promptly; reject bad input before starting slow work"},
		CatalogEntry{CodeWrongChannel, SeverityWarn,
			"an error came on the wrong channel",
			"since MCP 2025-11-25, report argument validation errors as tool results with isError: true so the model can read them; report an unknown tool as a JSON-RPC error (-32602)"},
		CatalogEntry{CodeUnknownMethodNotRejected, SeverityError,
			"an unknown method was not rejected with -32601",
			"answer requests for methods the server does not implement with the JSON-RPC error -32601 (Method not found)"},
		CatalogEntry{CodeBadCursorAccepted, SeverityWarn,
			"a cursor the server never issued was not rejected with -32602",
			"answer an unknown or expired pagination cursor with the JSON-RPC error -32602 (Invalid params) and say how to restart the listing"},
	)
}

// Defaults of [InjectOptions].
const (
	DefaultInjectMaxPerTool    = 8
	DefaultInjectMaxPerServer  = 120
	DefaultInjectToolBudget    = 5 * time.Second
	DefaultInjectServerBudget  = 60 * time.Second
	DefaultInjectCallTimeout   = 5 * time.Second
	DefaultInjectMaxRelaunches = 3
)

// InjectOptions configures failure injection in [Run]. A nil *InjectOptions
// and zero fields mean the defaults.
//
// Budgets are checked before each probe is sent, so a budget is overrun by
// at most one call timeout plus one liveness ping.
type InjectOptions struct {
	// Disabled turns failure injection off.
	Disabled bool
	// MaxPerTool caps the invalid calls sent to one tool (default 8).
	MaxPerTool int
	// MaxPerServer caps all failure-injection probes sent to one server,
	// the server-level ones included (default 120). When the tools would
	// need more than what is left after the server-level probes, each
	// tool's share shrinks evenly (to one at least) so that as many tools
	// as possible are probed.
	MaxPerServer int
	// ToolBudget is the time after which no further probe of the same tool
	// is started (default 5s).
	ToolBudget time.Duration
	// ServerBudget is the time after which no further probe is started
	// (default 60s). Relaunching a killed server counts against it.
	ServerBudget time.Duration
	// CallTimeout bounds each probe and each liveness ping; a probe without
	// a response by then is classified hang (default 5s).
	CallTimeout time.Duration
	// MaxRelaunches caps how often a server killed by a probe is started
	// again through Options.Relaunch (default 3).
	MaxRelaunches int
	// NoRetry turns the first retry off: by default, after an error to a
	// call of a read-only, closed-world tool, one corrected call derived
	// from the response alone is sent ([Retry]).
	NoRetry bool
	// Sequential sends every probe alone, each followed by a liveness
	// ping, rather than first trying them all at once (see
	// inject_batch.go); the batch falls back to this run by itself when
	// anything goes wrong in it.
	Sequential bool
	// RetryUnsafe also retries calls of destructive, open-world and
	// unannotated tools (a corrected call is a valid call: it runs).
	RetryUnsafe bool
	// MaxRetries caps the corrected calls sent to one server (default
	// [DefaultMaxRetries]).
	MaxRetries int
}

func (o *InjectOptions) withDefaults() InjectOptions {
	var out InjectOptions
	if o != nil {
		out = *o
	}
	if out.MaxPerTool <= 0 {
		out.MaxPerTool = DefaultInjectMaxPerTool
	}
	if out.MaxPerServer <= 0 {
		out.MaxPerServer = DefaultInjectMaxPerServer
	}
	if out.ToolBudget <= 0 {
		out.ToolBudget = DefaultInjectToolBudget
	}
	if out.ServerBudget <= 0 {
		out.ServerBudget = DefaultInjectServerBudget
	}
	if out.CallTimeout <= 0 {
		out.CallTimeout = DefaultInjectCallTimeout
	}
	if out.MaxRetries <= 0 {
		out.MaxRetries = DefaultMaxRetries
	}
	if out.MaxRelaunches <= 0 {
		out.MaxRelaunches = DefaultInjectMaxRelaunches
	}
	return out
}

// maxProbeResponse bounds ProbeCall.Response and ProbeCall.Text.
const maxProbeResponse = 64 << 10

// injectFailures runs failure injection against the server behind s and
// appends the probes and their findings to res. It returns the session that
// is open at the end: s, or a fresh one when a probe killed the server and
// Options.Relaunch started it again. The caller closes it.
func injectFailures(ctx context.Context, s *session, res *Result, o Options) *session {
	cfg := o.Inject.withDefaults()
	if cfg.Disabled || s == nil || s.rec == nil || !res.Liveness.HandshakeCompleted || ctx.Err() != nil {
		if o.basicsPending {
			runBasics(ctx, s, res, o)
		}
		return s
	}
	in := &injector{
		o: cfg, opts: o, res: res, s: s,
		version: res.Liveness.ProtocolVersion,
		start:   time.Now(),
		first:   len(res.Probes),
	}
	in.basics = o.basicsPending
	if c := s.rec.currentConn(); c == nil || c.isDead() {
		// The basic calls meet the dead server, as they would have
		// before the injection.
		in.runBasics(ctx)
		// The server died after the handshake (the listing said why): no
		// request goes to a dead process. Relaunch it where the plan
		// allows, and say so.
		if !in.relaunch(ctx) {
			in.closing.Wait()
			return in.s
		}
		in.add(CodeRelaunched, "server", "", "",
			"the server died before failure injection; the probes ran on a relaunched copy")
	}
	in.run(ctx)
	timeline.Mark("injected")
	in.retryPass(ctx)
	in.findings()
	in.closing.Wait()
	return in.s
}

// injector is one failure-injection run. It is used by one goroutine.
type injector struct {
	o       InjectOptions
	opts    Options
	res     *Result
	s       *session
	version string
	start   time.Time
	// first is the index in res.Probes of this run's first probe.
	first int
	sent  int
	// stop ends the run: the server is gone and cannot be restarted.
	stop       bool
	relaunches int
	reconnects int // new sessions after HTTP error answers (see reconnect)
	// retries counts the corrected calls sent.
	retries int
	// notes hold what the findings need beyond the ProbeCall, by index in
	// res.Probes.
	notes map[int]probeNote
	// seenOutput holds the structured-output findings already reported.
	seenOutput map[string]bool
	// closing tracks the sessions of killed servers being shut down.
	closing sync.WaitGroup
	// basics: the basic calls (check_basics.go) are still to run.
	basics bool
}

// runBasics runs the basic calls if they are still to run.
func (in *injector) runBasics(ctx context.Context) {
	if in.basics {
		in.basics = false
		opts := in.opts
		opts.basicsPending = false
		runBasics(ctx, in.s, in.res, opts)
	}
}

// probeNote is what the injector knows about a probe beyond its ProbeCall.
type probeNote struct {
	code *int64 // JSON-RPC error code of a protocol_error
	// httpStatus is the HTTP 4xx status of a protocol_error answered
	// without JSON-RPC.
	httpStatus int
	killed     bool   // the server did not survive the probe
	exit       string // how the process ended, when the launcher knows
}

func (in *injector) stopped(ctx context.Context) bool {
	return in.stop || ctx.Err() != nil || in.sent >= in.o.MaxPerServer ||
		time.Since(in.start) >= in.o.ServerBudget
}

func (in *injector) run(ctx context.Context) {
	in.notes = map[int]probeNote{}
	in.seenOutput = map[string]bool{}
	if in.batchable() && in.batch(ctx) {
		return
	}
	in.runBasics(ctx)
	for _, p := range serverProbes(in.res) {
		if in.stopped(ctx) {
			return
		}
		if in.probe(ctx, p) == nil {
			return
		}
	}
	perTool := in.perTool(in.sent)
	for _, t := range in.res.Tools {
		if in.stopped(ctx) {
			return
		}
		in.probeTool(ctx, t, perTool)
	}
}

// perTool is each tool's share of the probes once used were sent: the
// per-tool cap, or less so that every tool gets at least one within the
// server's cap.
func (in *injector) perTool(used int) int {
	perTool := in.o.MaxPerTool
	if n := len(in.res.Tools); n > 0 && (in.o.MaxPerServer-used)/n < perTool {
		perTool = max(1, (in.o.MaxPerServer-used)/n)
	}
	return perTool
}

// probeTool sends the planned probes of one tool until its budget or cap
// is spent, or one of them hangs or kills the server (the next would most
// likely do the same).
func (in *injector) probeTool(ctx context.Context, t Tool, limit int) {
	start := time.Now()
	for _, p := range toolProbes(t, limit) {
		if in.stopped(ctx) || time.Since(start) >= in.o.ToolBudget {
			return
		}
		pc := in.probe(ctx, p)
		if pc == nil || pc.Class == ClassHang || pc.Class == ClassCrash || pc.Class == ClassLimit {
			return
		}
	}
}

// probe sends p, records it, checks that the server survived and restarts
// it if not. It returns the recorded probe, or nil when the run was
// cancelled before an answer.
func (in *injector) probe(ctx context.Context, p ProbeCall) *ProbeCall {
	conn := in.s.rec.currentConn()
	if conn != nil && conn.isDead() && in.relaunch(ctx) {
		conn = in.s.rec.currentConn()
	}
	if conn == nil || conn.isDead() {
		// Never send to a dead process: the answer would be blamed on
		// this probe.
		in.stop = true
		return nil
	}
	if sent, err := conn.withMeta(p.Sent, in.version); err == nil {
		p.Sent = sent
	}
	cctx, cancel := context.WithTimeout(ctx, in.o.CallTimeout)
	t0 := time.Now()
	result, werr, err := conn.rawCall(cctx, p.Method, p.Sent)
	p.LatencyMs = Ms(time.Since(t0))
	cancel()
	var note probeNote
	var httpErr *HTTPStatusError
	switch {
	case err != nil && ctx.Err() != nil:
		return nil
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		p.Class = ClassHang
	case errors.As(err, &httpErr):
		// An HTTP 4xx answer without a JSON-RPC one: a finding on this
		// request; whether the server died is the ping's to say below.
		p.Class = ClassProtocolError
		note.httpStatus = httpErr.Code
		p.Text = httpErr.Error()
	case err != nil:
		p.Class = ClassCrash
		note.killed = true
	default:
		note = answered(&p, result, werr)
	}
	spent := false
	if note.httpStatus != 0 && ctx.Err() == nil {
		// The go-sdk client spends its connection on a plain 4xx
		// answer, so whether the server still answers is asked on a new
		// session: only a server that no longer answers crashed. When no
		// new session may be opened (no Relaunch, or maxReconnects
		// opened already), the answer stands: the server did not die,
		// but no further request can go through the spent connection,
		// so the injection ends here. (Before, such an answer was taken
		// for a crash: a live server answering its 17th invalid call
		// with 400 got the fatal errors/crash_on_invalid_input.)
		switch {
		case !in.mayReconnect():
			spent = true
			in.stop = true
		case !in.reconnect(ctx):
			note.killed = true
			p.Class = ClassCrash
		}
	}
	if !note.killed && !spent && !in.alive(ctx) && ctx.Err() == nil {
		note.killed = true
		if p.Class != ClassHang {
			p.Class = ClassCrash
		}
	}
	if note.killed {
		note.exit = in.exitEvidence()
		// A limit the sandbox enforced ended the call (issue 22 item 10):
		// the request in flight gets the limit finding, and the call is
		// no answer at all: it is not recorded as a probe, so it is never
		// graded nor taken for a crash on invalid input. Process describes
		// the newest process, so this holds after a relaunch too (the
		// limit of a relaunched server was graded as the fatal
		// crash_on_invalid_input before). The lookup waits for the exit
		// to be recorded, as exitEvidence does before a relaunch: the
		// connection closes before the launcher has reaped the process
		// and read its cgroup (a relaunched server killed in flight was
		// still graded as a crash; a real fixture showed it).
		if in.opts.Process != nil {
			if pi := in.opts.Process(exitWait / 4); pi.LimitExceeded != "" {
				limit := pi.LimitExceeded
				if pi.LimitValue != "" {
					limit += " (" + pi.LimitValue + ")"
				}
				in.add(CodeLimitExceeded, "server", p.Method, limit,
					"the sandbox killed the server while it answered %s: %s limit exceeded", describe(p), limit)
				in.sent++
				p.Class = ClassLimit
				if !in.relaunch(ctx) {
					in.stop = true
				}
				return &p
			}
		}
	}
	in.sent++
	in.res.Probes = append(in.res.Probes, p)
	idx := len(in.res.Probes) - 1
	in.notes[idx] = note
	in.checkOutput(p, result)
	if note.killed && !in.relaunch(ctx) {
		in.stop = true
	}
	return &in.res.Probes[idx]
}

// answered classifies a probe the server answered, with a result or a
// JSON-RPC error.
func answered(p *ProbeCall, result json.RawMessage, werr *jsonrpc.Error) probeNote {
	var note probeNote
	if werr != nil {
		p.Class = ClassProtocolError
		code := werr.Code
		note.code = &code
		b, _ := json.Marshal(werr)
		p.Response = capJSON(b)
		p.Text = safe.Truncate(werr.Message, maxProbeResponse, safe.Ellipsis)
		return note
	}
	p.Class, p.Text = classifyResult(p.Method, result)
	p.Response = capJSON(result)
	return note
}

// alive reports whether the server still answers: any response to a ping,
// even an error (2026-07-28 servers may not implement ping), will do.
func (in *injector) alive(ctx context.Context) bool {
	conn := in.s.rec.currentConn()
	if conn == nil || conn.isDead() {
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, in.o.CallTimeout)
	defer cancel()
	_, _, err := conn.rawCall(cctx, "ping", nil)
	return err == nil
}

// exitEvidence describes how the first server process ended, when the
// launcher can tell. After a relaunch it returns "": only the first
// process's exit is described, although Options.Process then reports on
// the relaunched process (see [Options.Relaunch]).
func (in *injector) exitEvidence() string {
	if in.opts.Process == nil || in.relaunches > 0 {
		return ""
	}
	pi := in.opts.Process(exitWait / 4)
	if !pi.Exited {
		return ""
	}
	return exitText(pi)
}

// relaunch replaces a killed server with a fresh one, connected the way
// connect does with the protocol version already negotiated. It reports
// whether probing can go on.
func (in *injector) relaunch(ctx context.Context) bool {
	if in.opts.Relaunch == nil || in.relaunches >= in.o.MaxRelaunches || ctx.Err() != nil {
		return false
	}
	in.relaunches++
	return in.fresh(ctx)
}

// maxReconnects bounds the new sessions of [injector.reconnect] per server.
const maxReconnects = 16

// mayReconnect reports whether a new session may replace one an HTTP
// error answer spent.
func (in *injector) mayReconnect() bool {
	return in.opts.Relaunch != nil && in.reconnects < maxReconnects
}

// reconnect opens a new session to a server that answered a request with
// an HTTP error status, after which the client's connection is spent; it
// reports whether the server answered the new session's handshake. It is
// not a relaunch: the server did not die. The caller checks
// [injector.mayReconnect] first.
func (in *injector) reconnect(ctx context.Context) bool {
	in.reconnects++
	return in.fresh(ctx)
}

// fresh replaces the session with a new one from [Options.Relaunch].
func (in *injector) fresh(ctx context.Context) bool {
	old := in.s
	in.closing.Go(func() { _ = old.cs.Close() })
	rctx, cancel := context.WithTimeout(ctx, max(in.o.ServerBudget-time.Since(in.start), in.o.CallTimeout))
	defer cancel()
	t, err := in.opts.Relaunch(rctx)
	if err != nil {
		return false
	}
	o := in.opts
	o.ProtocolVersion = in.version
	s, err := connect(rctx, old.rec.transport(t), o)
	if err != nil {
		return false
	}
	s.rec = old.rec
	in.s = s
	return true
}

// classifyResult classifies a success response: isError on a tools/call
// result is a tool error, anything else is acceptance. It returns the text
// content joined by newlines.
func classifyResult(method string, result json.RawMessage) (class, text string) {
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(result, &r)
	var texts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	text = safe.Truncate(strings.Join(texts, "\n"), maxProbeResponse, safe.Ellipsis)
	if method == "tools/call" && r.IsError {
		return ClassToolError, text
	}
	return ClassAccepted, text
}

// capJSON keeps b when it fits in maxProbeResponse; a larger answer is kept
// as a JSON string of its first bytes, so the result stays valid JSON.
func capJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || len(b) <= maxProbeResponse && json.Valid(b) {
		return b
	}
	// Only the head is converted: a 16 MiB answer is not copied whole.
	s, _ := json.Marshal(safe.Truncate(string(b[:min(len(b), maxProbeResponse+utf8.UTFMax)]), maxProbeResponse, safe.Ellipsis))
	return s
}

// checkOutput runs the structured-output conformance check on a probe
// answered with success, for a tool that declares an outputSchema; a
// result without structuredContent is output/structured_missing.
func (in *injector) checkOutput(p ProbeCall, result json.RawMessage) {
	if p.Method != "tools/call" || p.Class != ClassAccepted || len(result) == 0 {
		return
	}
	var r struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	if string(r.StructuredContent) == "null" {
		// Absent or null: output/structured_missing for a tool with an
		// outputSchema.
		r.StructuredContent = nil
	}
	for _, t := range in.res.Tools {
		if t.Name == p.Tool && len(t.OutputSchema) > 0 {
			if in.opts.Checker == nil {
				in.opts.Checker = NewChecker()
			}
			for _, f := range in.opts.Checker.CheckStructuredOutput(t, r.StructuredContent) {
				// Probes of one tool tend to get the same answer: report each
				// distinct defect once.
				key := f.Code + "\x00" + f.Subject + "\x00" + f.Pointer + "\x00" + f.Value + "\x00" + f.Message
				if !in.seenOutput[key] {
					in.seenOutput[key] = true
					in.res.Findings = append(in.res.Findings, f)
				}
			}
			return
		}
	}
}

// serverKinds are the probe kinds aimed at the server rather than a tool.
var serverKinds = map[string]bool{
	KindUnknownTool: true, KindUnknownMethod: true, KindUnknownResource: true,
	KindUnknownPrompt: true, KindBadCursor: true,
}

// findings turns this run's probes into findings.
func (in *injector) findings() {
	type group struct {
		subject string
		idx     []int
	}
	var groups []*group
	bySubject := map[string]*group{}
	for i := in.first; i < len(in.res.Probes); i++ {
		p := in.res.Probes[i]
		subject := "server"
		if !serverKinds[p.Kind] {
			subject = "tool:" + p.Tool
		}
		g := bySubject[subject]
		if g == nil {
			g = &group{subject: subject}
			bySubject[subject] = g
			groups = append(groups, g)
		}
		g.idx = append(g.idx, i)
	}
	for _, g := range groups {
		if g.subject == "server" {
			in.serverFindings(g.idx)
		} else {
			in.toolFindings(g.subject, g.idx)
		}
	}
}

func (in *injector) add(code, subject, pointer, value, format string, args ...any) {
	in.res.Findings = append(in.res.Findings, NewFinding(code, subject, pointer, value, format, args...))
}

// describe names a probe for a message: "wrong_type on limit".
func describe(p ProbeCall) string {
	if p.Param == "" {
		return p.Kind
	}
	return p.Kind + " on " + p.Param
}

// ArgumentPointer is the JSON pointer, within the call's params, of the
// argument the probe made invalid: /arguments/NAME, or /arguments when the
// probe broke no single argument or was aimed at the server.
func (p ProbeCall) ArgumentPointer() string {
	if p.Param == "" || serverKinds[p.Kind] {
		return "/arguments"
	}
	return "/arguments/" + strings.ReplaceAll(strings.ReplaceAll(p.Param, "~", "~0"), "/", "~1")
}

func sentArguments(p ProbeCall) string {
	var c struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(p.Sent, &c) != nil || c.Arguments == nil {
		return "(arguments absent)"
	}
	return string(c.Arguments)
}

// toolFindings raises the findings of the probes of one tool. Wrong
// channels are the grader's (see serverFindings).
func (in *injector) toolFindings(subject string, idx []int) {
	var accepted []ProbeCall
	var crash, hang *ProbeCall
	var hangNote, crashNote probeNote
	for _, i := range idx {
		p := in.res.Probes[i]
		switch p.Class {
		case ClassAccepted:
			accepted = append(accepted, p)
		case ClassCrash:
			if crash == nil {
				crash, crashNote = &p, in.notes[i]
			}
		case ClassHang:
			if hang == nil {
				hang, hangNote = &p, in.notes[i]
			}
		}
	}
	tool := strings.TrimPrefix(subject, "tool:")
	if len(accepted) > 0 {
		var what []string
		for _, p := range accepted {
			what = append(what, describe(p))
		}
		in.add(CodeAcceptedInvalidInput, subject, accepted[0].ArgumentPointer(), sentArguments(accepted[0]),
			"%s answered %d of %d calls its own inputSchema rejects as a success (%s); validate the arguments and answer a violation with isError: true, naming the parameter and the value expected",
			tool, len(accepted), len(idx), strings.Join(what, ", "))
	}
	if crash != nil {
		in.add(CodeCrashOnInvalidInput, subject, crash.ArgumentPointer(), sentArguments(*crash),
			"the server died after tools/call %s with %s%s; an invalid call must be answered with an error, never end the process",
			tool, describe(*crash), evidenceSuffix(crashNote))
	}
	if hang != nil {
		extra := ""
		if hangNote.killed {
			extra = ", and then stopped answering ping"
		}
		in.add(CodeHangOnInvalidInput, subject, hang.ArgumentPointer(), sentArguments(*hang),
			"tools/call %s with %s got no answer within %s%s%s; reject invalid arguments before doing any work",
			tool, describe(*hang), in.o.CallTimeout, extra, evidenceSuffix(hangNote))
	}
}

func evidenceSuffix(n probeNote) string {
	if n.exit == "" {
		return ""
	}
	return " (" + n.exit + ")"
}

// serverFindings raises the findings of the probes aimed at the server.
// Wrong channels are the grader's (package scoring): which channel and code
// are right depends on the kind, the protocol revision and the declared
// capabilities, which the rubric decides.
func (in *injector) serverFindings(idx []int) {
	crashed, hung := false, false
	// accepted: an unknown tool, resource or prompt was answered with
	// success; methodAccepted: the unknown method was.
	accepted, methodAccepted := false, false
	for _, i := range idx {
		p, note := in.res.Probes[i], in.notes[i]
		switch {
		case p.Class == ClassCrash && !crashed:
			crashed = true
			in.add(CodeCrashOnInvalidInput, "server", p.Method, string(p.Sent),
				"the server died after %s (%s)%s; an invalid request must be answered with an error, never end the process",
				p.Method, p.Kind, evidenceSuffix(note))
		case p.Class == ClassHang && !hung:
			hung = true
			in.add(CodeHangOnInvalidInput, "server", p.Method, string(p.Sent),
				"%s (%s) got no answer within %s; answer every request, an error if nothing else",
				p.Method, p.Kind, in.o.CallTimeout)
		}
		switch p.Kind {
		case KindUnknownTool:
			if p.Class == ClassAccepted {
				accepted = true
				in.add(CodeAcceptedInvalidInput, "server", "tools/call", string(p.Sent),
					"calling the unknown tool %q succeeded; answer it with the JSON-RPC error -32602 naming the closest tools", p.Tool)
			}
		case KindUnknownResource, KindUnknownPrompt:
			if p.Class == ClassAccepted {
				accepted = true
				in.add(CodeAcceptedInvalidInput, "server", p.Method, string(p.Sent),
					"%s of something the server never listed succeeded; answer it with a JSON-RPC error that says it does not exist", p.Method)
			}
		case KindUnknownMethod:
			if note.code != nil && *note.code == jsonrpc.CodeMethodNotFound {
				break
			}
			methodAccepted = methodAccepted || p.Class == ClassAccepted
			got := p.Class
			switch {
			case note.code != nil:
				got = fmt.Sprintf("JSON-RPC error %d", *note.code)
			case note.httpStatus != 0:
				got = fmt.Sprintf("HTTP %d %s without a JSON-RPC error", note.httpStatus, http.StatusText(note.httpStatus))
			}
			in.add(CodeUnknownMethodNotRejected, "server", p.Method, got,
				"the unknown method %q was answered with %s; JSON-RPC requires the error -32601 (Method not found)", p.Method, got)
		case KindBadCursor:
			switch {
			case p.Class == ClassAccepted:
				in.add(CodeBadCursorAccepted, "server", "tools/list", neverIssuedCursor,
					"tools/list accepted the cursor %q, which the server never issued; answer an unknown cursor with the JSON-RPC error -32602", neverIssuedCursor)
			case note.code != nil && *note.code != jsonrpc.CodeInvalidParams:
				in.add(CodeBadCursorAccepted, "server", "tools/list", fmt.Sprint(*note.code),
					"tools/list answered the never-issued cursor %q with JSON-RPC error %d; the specification asks for -32602 (Invalid params)", neverIssuedCursor, *note.code)
			}
		}
	}
	if methodAccepted && !accepted {
		// Success for a method that does not exist is accepted input too,
		// besides not being -32601; one accepted finding per server is
		// enough when a name probe raised one already.
		in.add(CodeAcceptedInvalidInput, "server", "", KindUnknownMethod,
			"the server returned success for an %s probe; answer it with a JSON-RPC error", KindUnknownMethod)
	}
}
