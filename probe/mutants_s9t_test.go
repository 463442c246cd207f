package probe

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/vocab"
)

// Tests of session 9 (i26t) for the survivors of probe/retry.go: the first
// retry of an error answer (what is retried, what counts as resolved, the
// budget, a server that dies or hangs on the corrected call) and the
// derivation of the corrected call from the answer alone.

// s9tSchema is a tool of two required text arguments, one of them an enum.
const s9tSchema = `{"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"]},"query":{"type":"string"}},"required":["mode","query"]}`

// s9tRO are the annotations of a read-only, closed-world tool: the only
// tools mcpvet retries by default.
var s9tRO = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}

// s9tTransport passes every message on, but first shows each request to
// onWrite; when onWrite returns true the connection closes instead, as if
// the server process died on that request.
type s9tTransport struct {
	inner   mcp.Transport
	onWrite func(*jsonrpc.Request) bool
}

func (w s9tTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &s9tConn{Connection: c, onWrite: w.onWrite}, nil
}

type s9tConn struct {
	mcp.Connection
	onWrite func(*jsonrpc.Request) bool
}

func (c *s9tConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && c.onWrite(req) {
		return c.Connection.Close()
	}
	return c.Connection.Write(ctx, msg)
}

// s9tRig is one server's injection run reduced to its retries: an injector
// on a live session to an in-memory server of the given tools; the test
// sets the probes as the injection would have recorded them.
type s9tRig struct {
	in *injector
	mu sync.Mutex
	// calls are the tools/call params written, in order, across launches.
	calls []json.RawMessage
	// relaunches counts the calls of Options.Relaunch.
	relaunches atomic.Int32
}

type s9tSetup struct {
	version string // protocol version; 2025-11-25 when empty
	inject  InjectOptions
	// kill closes the connection instead of writing the request (the
	// server dies on it).
	kill func(*jsonrpc.Request) bool
	// relaunch: Options.Relaunch is set; relaunchFails makes it fail.
	relaunch, relaunchFails bool
}

func newS9tRig(t *testing.T, tools []memTool, su s9tSetup) *s9tRig {
	t.Helper()
	r := &s9tRig{}
	if su.version == "" {
		su.version = "2025-11-25"
	}
	launch := func() mcp.Transport {
		return s9tTransport{inner: serve(t, newToolServer(tools)), onWrite: func(req *jsonrpc.Request) bool {
			if req.Method == "tools/call" {
				r.mu.Lock()
				r.calls = append(r.calls, append(json.RawMessage(nil), req.Params...))
				r.mu.Unlock()
			}
			return su.kill != nil && su.kill(req)
		}}
	}
	opts := Options{ProtocolVersion: su.version}
	if su.relaunch {
		opts.Relaunch = func(context.Context) (mcp.Transport, error) {
			r.relaunches.Add(1)
			if su.relaunchFails {
				return nil, errors.New("the server cannot be started again")
			}
			return launch(), nil
		}
	}
	opts = opts.withDefaults()
	rec := newRecorder()
	s, err := connect(context.Background(), rec.transport(launch()), opts)
	if err != nil {
		t.Fatal(err)
	}
	s.rec = rec
	res := &Result{}
	for _, mt := range tools {
		ann, _ := json.Marshal(mt.annotations)
		if mt.annotations == nil {
			ann = nil
		}
		res.Tools = append(res.Tools, Tool{Name: mt.name, InputSchema: json.RawMessage(mt.schema), Annotations: ann})
	}
	r.in = &injector{o: su.inject.withDefaults(), opts: opts, res: res, s: s, version: su.version,
		start: time.Now(), notes: map[int]probeNote{}}
	t.Cleanup(func() {
		r.in.closing.Wait()
		_ = r.in.s.cs.Close()
	})
	return r
}

// written is the tools/call params written so far.
func (r *s9tRig) written() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		out = append(out, string(c))
	}
	return out
}

// s9tProbe is an injected call of tool with arguments args that the server
// answered with an isError result saying text.
func s9tProbe(kind, tool, param, args, text string) ProbeCall {
	return ProbeCall{Kind: kind, Method: "tools/call", Tool: tool, Param: param,
		Sent: callParams(tool, json.RawMessage(args)), Class: ClassToolError, Text: text}
}

// s9tEnumText is a zod-style enum error in prose, as TypeScript servers
// answer a value outside the enum.
const s9tEnumText = "Invalid enum value. Expected 'fast' | 'slow', received 'turbo'"

// TestS9tRetryBudget: MaxRetries caps the corrected calls sent to one
// server; the probes after the budget is spent get no retry.
func TestS9tRetryBudget(t *testing.T) {
	tools := []memTool{{name: "set_mode", schema: s9tSchema, annotations: s9tRO, handler: validating(s9tSchema)}}
	r := newS9tRig(t, tools, s9tSetup{inject: InjectOptions{MaxRetries: 1}})
	r.in.res.Probes = []ProbeCall{
		s9tProbe("enum_violation", "set_mode", "mode", `{"mode":"turbo","query":"q"}`, s9tEnumText),
		s9tProbe("enum_violation", "set_mode", "mode", `{"mode":"warp","query":"q"}`, strings.ReplaceAll(s9tEnumText, "turbo", "warp")),
	}
	r.in.retryPass(context.Background())
	if got := r.written(); len(got) != 1 {
		t.Errorf("%d corrected calls sent with MaxRetries 1: %s", len(got), got)
	}
	if p := r.in.res.Probes[0]; p.Retry == nil || p.Retry.Outcome != RetryResolved {
		t.Errorf("first probe's retry = %+v, want resolved", p.Retry)
	}
	if p := r.in.res.Probes[1]; p.Retry != nil {
		t.Errorf("second probe retried past the budget: %+v", p.Retry)
	}
}

// TestS9tBudgetSpentNoRelaunch: once the budget is spent the retry pass
// ends; a server the last corrected call killed, and that could not be
// started again, is not launched again just to send nothing.
func TestS9tBudgetSpentNoRelaunch(t *testing.T) {
	tools := []memTool{{name: "set_mode", schema: s9tSchema, annotations: s9tRO, handler: validating(s9tSchema)}}
	r := newS9tRig(t, tools, s9tSetup{
		inject:   InjectOptions{MaxRetries: 1},
		kill:     func(req *jsonrpc.Request) bool { return req.Method == "tools/call" },
		relaunch: true, relaunchFails: true,
	})
	r.in.res.Probes = []ProbeCall{
		s9tProbe("enum_violation", "set_mode", "mode", `{"mode":"turbo","query":"q"}`, s9tEnumText),
		s9tProbe("enum_violation", "set_mode", "mode", `{"mode":"warp","query":"q"}`, strings.ReplaceAll(s9tEnumText, "turbo", "warp")),
	}
	r.in.retryPass(context.Background())
	if p := r.in.res.Probes[0]; p.Retry == nil || p.Retry.Outcome != RetryCrash {
		t.Errorf("first probe's retry = %+v, want crash", p.Retry)
	}
	if n := r.relaunches.Load(); n != 1 {
		t.Errorf("%d relaunches, want 1 (after the crash; none once the budget is spent)", n)
	}
}

// TestS9tProtocolErrorRetried: an error answered as a JSON-RPC error
// (here the TypeScript SDK's -32602 with the zod issues) is retried like a
// tool error, and its code for the per-code rates is the JSON-RPC code.
func TestS9tProtocolErrorRetried(t *testing.T) {
	tools := []memTool{{name: "set_mode", schema: s9tSchema, annotations: s9tRO, handler: validating(s9tSchema)}}
	r := newS9tRig(t, tools, s9tSetup{})
	p := s9tProbe("enum_violation", "set_mode", "mode", `{"mode":"turbo","query":"q"}`,
		`MCP error -32602: Invalid arguments for tool set_mode: [{"received":"turbo","code":"invalid_enum_value","options":["fast","slow"],"path":["mode"],"message":"`+s9tEnumText+`"}]`)
	p.Class = ClassProtocolError
	code := int64(-32602)
	r.in.maybeRetry(context.Background(), &p, &code)
	want := &Retry{Outcome: RetryResolved, Source: "structured", Correction: `mode: "turbo" -> "fast"`, Code: "jsonrpc:-32602",
		Sent: json.RawMessage(`{"name":"set_mode","arguments":{"mode":"fast","query":"q"}}`)}
	if p.Retry != nil {
		p.Retry.LatencyMs = 0
	}
	if diff := cmp.Diff(want, p.Retry); diff != "" {
		t.Errorf("retry (-want +got):\n%s", diff)
	}
}

// TestS9tRetryMeta: on 2026-07-28 the corrected call carries the session's
// _meta, as every probe does.
func TestS9tRetryMeta(t *testing.T) {
	tools := []memTool{{name: "set_mode", schema: s9tSchema, annotations: s9tRO, handler: validating(s9tSchema)}}
	r := newS9tRig(t, tools, s9tSetup{version: vocab.Protocol20260728})
	p := s9tProbe("enum_violation", "set_mode", "mode", `{"mode":"turbo","query":"q"}`, s9tEnumText)
	r.in.maybeRetry(context.Background(), &p, nil)
	got := r.written()
	if len(got) != 1 {
		t.Fatalf("corrected calls written: %q, want one", got)
	}
	if _, meta := withoutMeta(json.RawMessage(got[0])); !meta {
		t.Errorf("corrected call %s sent without _meta", got[0])
	}
	if p.Retry == nil || p.Retry.Outcome != RetryResolved {
		t.Errorf("retry = %+v, want resolved", p.Retry)
	}
}

// TestS9tRetryCancelled: a run cancelled while the corrected call is in
// flight records no outcome for it (the server did not fail: the user
// stopped), and nothing is relaunched.
func TestS9tRetryCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := func(hctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cancel()
		<-hctx.Done() // ended by the client's notifications/cancelled or the test's end
		return nil, hctx.Err()
	}
	tools := []memTool{{name: "set_mode", schema: s9tSchema, annotations: s9tRO, handler: stop}}
	r := newS9tRig(t, tools, s9tSetup{relaunch: true})
	p := s9tProbe("enum_violation", "set_mode", "mode", `{"mode":"turbo","query":"q"}`, s9tEnumText)
	r.in.maybeRetry(ctx, &p, nil)
	if ctx.Err() == nil {
		t.Fatal("the corrected call never reached the server")
	}
	if p.Retry != nil {
		t.Errorf("a cancelled retry recorded %+v", p.Retry)
	}
	if n := r.relaunches.Load(); n != 0 {
		t.Errorf("%d relaunches after a cancellation", n)
	}
}

// TestS9tRetryCrashRelaunches: a server that dies on the corrected call is
// a crash, and it is started again; after a corrected call that resolved
// it is not.
func TestS9tRetryCrashRelaunches(t *testing.T) {
	tools := []memTool{
		{name: "set_mode", schema: s9tSchema, annotations: s9tRO, handler: validating(s9tSchema)},
		{name: "fragile", schema: s9tSchema, annotations: s9tRO, handler: validating(s9tSchema)},
	}
	r := newS9tRig(t, tools, s9tSetup{relaunch: true, kill: func(req *jsonrpc.Request) bool {
		return req.Method == "tools/call" && strings.Contains(string(req.Params), `"fragile"`)
	}})
	ok := s9tProbe("enum_violation", "set_mode", "mode", `{"mode":"turbo","query":"q"}`, s9tEnumText)
	r.in.maybeRetry(context.Background(), &ok, nil)
	if ok.Retry == nil || ok.Retry.Outcome != RetryResolved {
		t.Fatalf("set_mode retry = %+v, want resolved", ok.Retry)
	}
	if n := r.relaunches.Load(); n != 0 {
		t.Errorf("%d relaunches after a resolved retry, want 0", n)
	}
	boom := s9tProbe("enum_violation", "fragile", "mode", `{"mode":"turbo","query":"q"}`, s9tEnumText)
	r.in.maybeRetry(context.Background(), &boom, nil)
	if boom.Retry == nil || boom.Retry.Outcome != RetryCrash {
		t.Errorf("fragile retry = %+v, want crash", boom.Retry)
	}
	if n := r.relaunches.Load(); n != 1 {
		t.Errorf("%d relaunches after the crash, want 1", n)
	}
	if c := r.in.s.rec.currentConn(); c == nil || c.isDead() {
		t.Error("no live session after the relaunch")
	}
}

// TestS9tRetryHang: a corrected call never answered is a hang, not a
// crash. The server never answers, so only the call timeout ends the call,
// whatever the load.
func TestS9tRetryHang(t *testing.T) {
	hang := func(hctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-hctx.Done()
		return nil, hctx.Err()
	}
	tools := []memTool{{name: "set_mode", schema: s9tSchema, annotations: s9tRO, handler: hang}}
	r := newS9tRig(t, tools, s9tSetup{inject: InjectOptions{CallTimeout: 20 * time.Millisecond}})
	p := s9tProbe("enum_violation", "set_mode", "mode", `{"mode":"turbo","query":"q"}`, s9tEnumText)
	r.in.maybeRetry(context.Background(), &p, nil)
	if p.Retry == nil || p.Retry.Outcome != RetryHang {
		t.Errorf("retry = %+v, want hang", p.Retry)
	}
}

// TestS9tRetryThenDied: a server that answers the corrected call and then
// no longer answers the liveness ping died on it: the retry is a crash,
// not resolved.
func TestS9tRetryThenDied(t *testing.T) {
	tools := []memTool{{name: "set_mode", schema: s9tSchema, annotations: s9tRO, handler: validating(s9tSchema)}}
	r := newS9tRig(t, tools, s9tSetup{kill: func(req *jsonrpc.Request) bool { return req.Method == "ping" }})
	p := s9tProbe("enum_violation", "set_mode", "mode", `{"mode":"turbo","query":"q"}`, s9tEnumText)
	r.in.maybeRetry(context.Background(), &p, nil)
	if len(r.written()) != 1 {
		t.Fatalf("corrected calls written: %q", r.written())
	}
	if p.Retry == nil || p.Retry.Outcome != RetryCrash {
		t.Errorf("retry = %+v, want crash", p.Retry)
	}
}

// TestS9tSameOrOther: the corrected call's error is same_error when its
// text is the probe's (blanks around it aside), other_error otherwise.
func TestS9tSameOrOther(t *testing.T) {
	say := func(s string) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return errorResult(s), nil }
	}
	tools := []memTool{
		{name: "stubborn", schema: s9tSchema, annotations: s9tRO, handler: say(s9tEnumText + "\n")},
		{name: "picky", schema: s9tSchema, annotations: s9tRO, handler: say("query must be at least 3 characters")},
	}
	r := newS9tRig(t, tools, s9tSetup{})
	for _, tc := range []struct{ tool, want string }{{"stubborn", RetrySameError}, {"picky", RetryOtherError}} {
		p := s9tProbe("enum_violation", tc.tool, "mode", `{"mode":"turbo","query":"q"}`, s9tEnumText)
		r.in.maybeRetry(context.Background(), &p, nil)
		if p.Retry == nil || p.Retry.Outcome != tc.want {
			t.Errorf("%s: retry = %+v, want %s", tc.tool, p.Retry, tc.want)
		}
	}
}

// TestS9tUnknownToolSuggestion: an unknown tool's answer that suggests a
// name is retried on that tool, only when the server lists it.
func TestS9tUnknownToolSuggestion(t *testing.T) {
	tools := []memTool{
		{name: "list_things", schema: `{"type":"object"}`, annotations: s9tRO, handler: validating(`{"type":"object"}`)},
		{name: "set_mode", schema: s9tSchema, annotations: s9tRO, handler: validating(s9tSchema)},
	}
	r := newS9tRig(t, tools, s9tSetup{})
	p := ProbeCall{Kind: "unknown_tool", Method: "tools/call", Tool: "set_mdoe", Sent: callParams("set_mdoe", json.RawMessage(`{}`)),
		Class: ClassProtocolError, Text: "Unknown tool: set_mdoe. Did you mean set_mode?"}
	code := int64(-32602)
	r.in.maybeRetry(context.Background(), &p, &code)
	want := &Retry{Outcome: RetryResolved, Source: "prose", Correction: `tool "set_mdoe" -> "set_mode"`, Code: "jsonrpc:-32602",
		Sent: json.RawMessage(`{"name":"set_mode","arguments":{"mode":"fast","query":"a"}}`)}
	if p.Retry != nil {
		p.Retry.LatencyMs = 0
	}
	if diff := cmp.Diff(want, p.Retry); diff != "" {
		t.Errorf("retry (-want +got):\n%s", diff)
	}
}

// s9tTools are the tools deriveCorrection reads the schemas of.
var s9tTools = []Tool{{Name: "set_mode", InputSchema: json.RawMessage(s9tSchema)}}

// TestS9tZodIssues: the zod issue array a TypeScript server answers with
// (alone or after the SDK's prose) gives a structured correction: the
// first issue with options, on the parameter its path names; a missing
// argument (received undefined, or invalid_type "Required") is filled from
// the schema.
func TestS9tZodIssues(t *testing.T) {
	enum := `{"received":"turbo","code":"invalid_enum_value","options":["fast","slow"],"path":["mode"],"message":"` + s9tEnumText + `"}`
	for _, tc := range []struct {
		name, param, args, text string
		want                    string // source and what
	}{
		{"issues alone", "mode", `{"mode":"turbo","query":"q"}`, "[" + enum + "]",
			`structured mode: "turbo" -> "fast"`},
		{"after prose, other parameter first", "query", `{"mode":"turbo","query":5}`,
			"MCP error -32602: Invalid arguments for tool set_mode: [\n" +
				`{"code":"invalid_type","expected":"string","received":"number","path":["query"],"message":"Expected string, received number"},` + "\n" + enum + "\n]",
			`structured mode: "turbo" -> "fast"`},
		{"empty path", "mode", `{"mode":"turbo","query":"q"}`,
			`Invalid arguments: [{"code":"invalid_enum_value","options":["fast","slow"],"path":[],"message":"bad"}]`,
			`structured mode: "turbo" -> "fast"`},
		{"received undefined, own message", "query", `{"mode":"fast"}`,
			`MCP error -32602: Invalid arguments for tool set_mode: [{"code":"invalid_type","expected":"string","received":"undefined","path":["query"],"message":"Please give a search query"}]`,
			`structured filled from the schema: query`},
		{"invalid_type Required", "query", `{"mode":"fast"}`,
			`MCP error -32602: Invalid arguments for tool set_mode: [{"code":"invalid_type","expected":"string","path":["query"],"message":"Required"}]`,
			`structured filled from the schema: query`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := s9tProbe("enum_violation", "set_mode", tc.param, tc.args, tc.text)
			c, ok := deriveCorrection(&p, s9tTools)
			if got := c.source + " " + c.what; !ok || got != tc.want {
				t.Errorf("correction %q (ok %v), want %q", got, ok, tc.want)
			}
		})
	}
}

// TestS9tCorrectionArgs: the corrected call keeps the probe's other
// arguments and changes the parameter the answer names (its "field"), even
// when the probe made another one invalid; an empty suggestion list is
// skipped for the next; the filled arguments are named, and only they.
func TestS9tCorrectionArgs(t *testing.T) {
	for _, tc := range []struct {
		name, param, args, text string
		what, sent              string
	}{
		{"other arguments kept", "mode", `{"mode":"turbo","query":"weather"}`,
			`{"error":"invalid mode","field":"mode","allowed":["fast","slow"]}`,
			`mode: "turbo" -> "fast"`, `{"mode":"fast","query":"weather"}`},
		{"the field the answer names", "query", `{"mode":"turbo","query":"weather"}`,
			`{"error":"invalid mode","field":"mode","allowed":["fast","slow"]}`,
			`mode: "turbo" -> "fast"`, `{"mode":"fast","query":"weather"}`},
		{"empty closest matches", "mode", `{"mode":"turbo","query":"weather"}`,
			`{"field":"mode","closest_matches":[],"allowed":["slow"]}`,
			`mode: "turbo" -> "slow"`, `{"mode":"slow","query":"weather"}`},
		{"only the filled ones named", "mode", `{"query":"weather"}`,
			`Missing required argument: mode`,
			`filled from the schema: mode`, `{"mode":"fast","query":"weather"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := s9tProbe("wrong_type", "set_mode", tc.param, tc.args, tc.text)
			c, ok := deriveCorrection(&p, s9tTools)
			if !ok || c.what != tc.what || string(c.args) != tc.sent {
				t.Errorf("correction %q with %s (ok %v), want %q with %s", c.what, c.args, ok, tc.what, tc.sent)
			}
		})
	}
}

// TestS9tSampleValue: a missing required argument is filled with a value
// its schema permits: its default, the least integer at or above its
// minimum, else one of its (first) type.
func TestS9tSampleValue(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"integer","default":7}`, `7`},
		{`{"type":"integer","minimum":2.5}`, `3`},
		{`{"type":"integer"}`, `1`},
		{`{"type":["integer","null"]}`, `1`},
		{`{"type":[]}`, `"a"`},
		{`{"type":"string","minLength":3}`, `"aaa"`},
	} {
		b, _ := json.Marshal(sampleValue(json.RawMessage(tc.schema)))
		if string(b) != tc.want {
			t.Errorf("sampleValue(%s) = %s, want %s", tc.schema, b, tc.want)
		}
	}
}

// TestS9tErrorCode: the per-code rates use the answer's own code when it
// is a short text (64 bytes at most) in the JSON object the answer holds
// within its first 512 bytes, else the JSON-RPC code.
func TestS9tErrorCode(t *testing.T) {
	rpc := int64(-32602)
	c64, c65 := strings.Repeat("c", 64), strings.Repeat("c", 65)
	for _, tc := range []struct{ text, want string }{
		{`{"code":"` + c64 + `"}`, c64},
		{`{"code":"` + c65 + `"}`, "jsonrpc:-32602"},
		{strings.Repeat("x", 511) + `{"code":"quota"}`, "quota"},
		{strings.Repeat("x", 512) + `{"code":"quota"}`, "jsonrpc:-32602"},
	} {
		if got := errorCode(&ProbeCall{Text: tc.text}, &rpc); got != tc.want {
			t.Errorf("errorCode(%.20q...) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestS9tWilson: the interval of 3 in 12 and of 10 in 10 is a number (a
// NaN would pass a plain tolerance check).
func TestS9tWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n      int
		low, high float64
	}{{3, 12, 0.0889, 0.5323}, {10, 10, 0.7225, 1}} {
		l, h := Wilson(tc.k, tc.n)
		if !(math.Abs(l-tc.low) <= 5e-4 && math.Abs(h-tc.high) <= 5e-4) {
			t.Errorf("Wilson(%d, %d) = %v, %v; want %.4f, %.4f", tc.k, tc.n, l, h, tc.low, tc.high)
		}
	}
}

// TestS9tRatesBySource: the resolved corrections are counted by source,
// the prose ones included; every retry counts as tried.
func TestS9tRatesBySource(t *testing.T) {
	res := &Result{Probes: []ProbeCall{
		{Kind: "enum_violation", Retry: &Retry{Outcome: RetryResolved, Source: "structured", Code: "none"}},
		{Kind: "enum_violation", Retry: &Retry{Outcome: RetryResolved, Source: "prose", Code: "none"}},
		{Kind: "missing_required", Retry: &Retry{Outcome: RetryResolved, Source: "prose", Code: "none"}},
		{Kind: "missing_required", Retry: &Retry{Outcome: RetrySameError, Source: "prose", Code: "none"}},
		{Kind: "wrong_type", Retry: &Retry{Outcome: RetryNoCorrection, Code: "none"}},
		{Kind: "wrong_type"},
	}}
	rr := Rates(res)
	got := []int{rr.All.Resolved, rr.All.Tried, rr.All.Structured, rr.All.Prose,
		rr.ByKind["missing_required"].Prose, rr.ByCode["none"].Prose}
	if diff := cmp.Diff([]int{3, 5, 1, 2, 1, 2}, got); diff != "" {
		t.Errorf("resolved, tried, structured, prose, missing_required prose, code none prose (-want +got):\n%s", diff)
	}
}
