package probe

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// batchFixture is a server of three validating tools, one resource and one
// prompt: every probe gets an error answer.
func batchFixture(t *testing.T) func(context.Context) (mcp.Transport, error) {
	tools := []memTool{
		{name: "alpha", schema: modeSchema, handler: validating(modeSchema)},
		{name: "boom", schema: searchSchema, handler: validating(searchSchema)},
		{name: "omega", schema: modeSchema, handler: validating(modeSchema)},
	}
	return func(context.Context) (mcp.Transport, error) { return serve(t, newToolServer(tools)), nil }
}

// gateTransport holds back the first tools/call requests written until
// `gate` of them have been written, then lets everything through: a client
// that waits for each answer before the next request gets no answer.
type gateTransport struct {
	inner mcp.Transport
	gate  int
}

func (g gateTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := g.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &gateConn{Connection: c, gate: g.gate}, nil
}

type gateConn struct {
	mcp.Connection
	gate int

	mu   sync.Mutex
	held []jsonrpc.Message
	open bool
}

func (c *gateConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.mu.Lock()
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" && !c.open {
		c.held = append(c.held, msg)
		if len(c.held) < c.gate {
			c.mu.Unlock()
			return nil
		}
		c.open = true
		held := c.held
		c.held = nil
		c.mu.Unlock()
		for _, m := range held {
			if err := c.Connection.Write(ctx, m); err != nil {
				return err
			}
		}
		return nil
	}
	c.mu.Unlock()
	return c.Connection.Write(ctx, msg)
}

// probeLines is what a result's probes say, without their latencies.
func probeLines(res *Result) []string {
	var out []string
	for _, p := range res.Probes {
		b, _ := json.Marshal(struct {
			Kind, Tool, Param, Method, Class, Text string
			Sent, Response                         json.RawMessage
		}{p.Kind, p.Tool, p.Param, p.Method, p.Class, p.Text, p.Sent, p.Response})
		out = append(out, string(b))
	}
	return out
}

func pings(res *Result) int {
	n := 0
	for _, c := range res.Calls {
		if c.Method == "ping" {
			n++
		}
	}
	return n
}

// TestInjectBatchSendsAtOnce: with a relaunch available, the probes go out
// together (three tools/call requests are written before any is answered)
// with one liveness ping for all of them, and the result records exactly
// what the one-at-a-time run records.
func TestInjectBatchSendsAtOnce(t *testing.T) {
	launch := batchFixture(t)
	first, _ := launch(context.Background())
	batched := Run(context.Background(), gateTransport{inner: first, gate: 3}, &Options{
		ProtocolVersion: "2025-11-25", Relaunch: launch, SkipBasics: true,
	})
	second, _ := launch(context.Background())
	sequential := Run(context.Background(), second, &Options{
		ProtocolVersion: "2025-11-25", Relaunch: launch, SkipBasics: true,
		Inject: &InjectOptions{Sequential: true},
	})
	for _, p := range batched.Probes {
		if p.Class != ClassToolError && p.Class != ClassProtocolError {
			t.Errorf("batched probe %s %s %s: class %s, want an error answer", p.Tool, p.Kind, p.Param, p.Class)
		}
	}
	if diff := cmp.Diff(probeLines(sequential), probeLines(batched)); diff != "" {
		t.Errorf("probes (-sequential +batched):\n%s", diff)
	}
	if diff := cmp.Diff(codesOf(sequential.Findings, ""), codesOf(batched.Findings, "")); diff != "" {
		t.Errorf("findings (-sequential +batched):\n%s", diff)
	}
	if got, want := pings(batched), 1; got != want {
		t.Errorf("batched run sent %d pings, want %d", got, want)
	}
	if got, want := pings(sequential), len(sequential.Probes); got != want {
		t.Errorf("sequential run sent %d pings, want %d (one per probe)", got, want)
	}
}

// dieAfterTransport answers the first tools/call of tool kill, then the
// connection dies as if the process exited right after answering: in a
// batch, the requests still in flight are cut off with it.
type dieAfterTransport struct {
	inner  mcp.Transport
	kill   string
	deaths *atomic.Int32
}

func (d dieAfterTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := d.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &dieAfterConn{Connection: c, t: d}, nil
}

type dieAfterConn struct {
	mcp.Connection
	t dieAfterTransport

	mu     sync.Mutex
	doomed *jsonrpc.ID
	dead   bool
}

func (c *dieAfterConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" {
		var p struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(req.Params, &p) == nil && p.Name == c.t.kill {
			c.mu.Lock()
			if c.doomed == nil {
				id := req.ID
				c.doomed = &id
			}
			c.mu.Unlock()
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *dieAfterConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.mu.Lock()
	dead := c.dead
	c.mu.Unlock()
	if dead {
		_ = c.Connection.Close()
		return nil, errConnDead
	}
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.mu.Lock()
		if c.doomed != nil && resp.ID == *c.doomed {
			c.dead = true
			c.t.deaths.Add(1)
		}
		c.mu.Unlock()
	}
	return msg, err
}

// TestInjectBatchCrashPinnedOnOneRequest: a server that answers boom's
// first probe and then dies, while other probes of the batch are in
// flight, gets the crash on that one request, as the one-at-a-time run
// gives it: the batch is thrown away and replayed alone on a fresh copy.
func TestInjectBatchCrashPinnedOnOneRequest(t *testing.T) {
	serveFixture := batchFixture(t)
	var deaths, launches atomic.Int32
	launch := func(ctx context.Context) (mcp.Transport, error) {
		launches.Add(1)
		inner, _ := serveFixture(ctx)
		return dieAfterTransport{inner: inner, kill: "boom", deaths: &deaths}, nil
	}
	run := func(sequential bool) *Result {
		deaths.Store(0)
		launches.Store(0)
		first, _ := launch(context.Background())
		return Run(context.Background(), first, &Options{
			ProtocolVersion: "2025-11-25", Relaunch: launch, SkipBasics: true,
			Inject: &InjectOptions{Sequential: sequential},
		})
	}
	var got []string
	batched := run(false)
	for _, p := range batched.Probes {
		if !serverKinds[p.Kind] {
			got = append(got, p.Tool+" "+p.Kind+" "+p.Class)
		}
	}
	want := []string{
		"alpha missing_required tool_error",
		"alpha wrong_type tool_error",
		"alpha absent_arguments tool_error",
		"alpha enum_violation tool_error",
		"boom missing_required crash",
		"omega missing_required tool_error",
		"omega wrong_type tool_error",
		"omega absent_arguments tool_error",
		"omega enum_violation tool_error",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tool:boom " + CodeCrashOnInvalidInput}, codesOf(batched.Findings, "errors/")); diff != "" {
		t.Errorf("errors/ findings (-want +got):\n%s", diff)
	}
	// The first copy died in the batch, the second in the replay on
	// boom's probe; the third ran the rest.
	if deaths.Load() != 2 || launches.Load() != 3 {
		t.Errorf("deaths = %d, launches = %d; want 2 and 3", deaths.Load(), launches.Load())
	}
	sequential := run(true)
	if diff := cmp.Diff(probeLines(sequential), probeLines(batched)); diff != "" {
		t.Errorf("probes (-sequential +batched):\n%s", diff)
	}
}

// afterTransport holds back the first request of method hold until a
// request of method after has been written.
type afterTransport struct {
	inner       mcp.Transport
	hold, after string
}

func (a afterTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := a.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &afterConn{Connection: c, t: a}, nil
}

type afterConn struct {
	mcp.Connection
	t afterTransport

	mu   sync.Mutex
	held jsonrpc.Message
	seen bool // a request of method after was written
	done bool // the held request went through
}

func (c *afterConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return c.Connection.Write(ctx, msg)
	}
	c.mu.Lock()
	switch {
	case req.Method == c.t.hold && !c.seen && !c.done && c.held == nil:
		c.held = msg
		c.mu.Unlock()
		return nil
	case req.Method == c.t.after && !c.seen:
		c.seen = true
		held := c.held
		c.held, c.done = nil, held != nil
		c.mu.Unlock()
		if err := c.Connection.Write(ctx, msg); err != nil {
			return err
		}
		if held != nil {
			return c.Connection.Write(ctx, held)
		}
		return nil
	}
	c.mu.Unlock()
	return c.Connection.Write(ctx, msg)
}

// TestInjectBatchRunsBasicsBeside: the basic calls (ping, logging,
// prompts/get, resources/read...) go out beside the batch, not before it
// (the basics' ping is answered only once a probe was sent), and their
// findings are those of the one-at-a-time run. When the batch is thrown
// away, they are run again before the replay.
func TestInjectBatchRunsBasicsBeside(t *testing.T) {
	launch := batchFixture(t)
	first, _ := launch(context.Background())
	beside := Run(context.Background(), afterTransport{inner: first, hold: "ping", after: "tools/call"}, &Options{
		ProtocolVersion: "2025-11-25", Relaunch: launch,
	})
	second, _ := launch(context.Background())
	sequential := Run(context.Background(), second, &Options{
		ProtocolVersion: "2025-11-25", Relaunch: launch,
		Inject: &InjectOptions{Sequential: true},
	})
	if diff := cmp.Diff(codesOf(sequential.Findings, ""), codesOf(beside.Findings, "")); diff != "" {
		t.Errorf("findings (-sequential +beside):\n%s", diff)
	}
	if diff := cmp.Diff(probeLines(sequential), probeLines(beside)); diff != "" {
		t.Errorf("probes (-sequential +beside):\n%s", diff)
	}

	// A crash in the batch: the basics run again on the fresh copy, before
	// the replay, and what they find is kept once.
	var deaths atomic.Int32
	dying := func(ctx context.Context) (mcp.Transport, error) {
		inner, _ := launch(ctx)
		return dieAfterTransport{inner: inner, kill: "boom", deaths: &deaths}, nil
	}
	run := func(sequential bool) *Result {
		first, _ := dying(context.Background())
		return Run(context.Background(), first, &Options{
			ProtocolVersion: "2025-11-25", Relaunch: dying,
			Inject: &InjectOptions{Sequential: sequential},
		})
	}
	crashedBeside, crashedSequential := run(false), run(true)
	if diff := cmp.Diff(codesOf(crashedSequential.Findings, ""), codesOf(crashedBeside.Findings, "")); diff != "" {
		t.Errorf("after a crash, findings (-sequential +beside):\n%s", diff)
	}
}
