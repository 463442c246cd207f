package probe

// Tests for the survivors of probe/inject.go (shard at main 3efe80d, 96
// killed, 31 lived), each named after the behaviour it pins;
// docs/testing.md, "Survivors of session 9 (probe/inject.go)", lists the
// mutants each one kills. All run on in-memory or loopback servers, with
// no sleeps and no time bounds.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dieOnTransport is an in-memory client transport whose connection closes,
// as if the server process died, when a request matching die is written.
type dieOnTransport struct {
	inner mcp.Transport
	die   func(*jsonrpc.Request) bool
	// deaths counts the requests that closed a connection.
	deaths *atomic.Int32
}

func (t dieOnTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &dieOnConn{Connection: c, t: t}, nil
}

type dieOnConn struct {
	mcp.Connection
	t dieOnTransport
}

func (c *dieOnConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && c.t.die(req) {
		c.t.deaths.Add(1)
		return c.Connection.Close()
	}
	return c.Connection.Write(ctx, msg)
}

// callsTool reports whether req is a tools/call of one of names.
func callsTool(req *jsonrpc.Request, names ...string) bool {
	if req.Method != "tools/call" {
		return false
	}
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return false
	}
	for _, n := range names {
		if p.Name == n {
			return true
		}
	}
	return false
}

// probesPerSubject counts the probes of res by tool, the server's together.
func probesPerSubject(res *Result) map[string]int {
	m := map[string]int{}
	for _, p := range res.Probes {
		if serverKinds[p.Kind] {
			m["server"]++
		} else {
			m[p.Tool]++
		}
	}
	return m
}

func validatingTools() []memTool {
	tools := memTools(nil)
	for i := range tools {
		tools[i].handler = validating(tools[i].schema)
	}
	return tools
}

// TestS9iDefaults: with no InjectOptions at all, every tool is probed up
// to the per-tool cap and each probe is answered (none taken for a hang):
// the default budgets and call timeout leave room for a server that
// answers at once.
func TestS9iDefaults(t *testing.T) {
	res := Run(context.Background(), serve(t, newToolServer(validatingTools())), &Options{ProtocolVersion: "2025-11-25", SkipBasics: true})
	want := map[string]int{"server": 5, "search": 8, "set_mode": 4}
	if diff := cmp.Diff(want, probesPerSubject(res)); diff != "" {
		t.Errorf("probes per subject with the defaults (-want +got):\n%s", diff)
	}
	for _, p := range res.Probes {
		if p.Class == ClassHang || p.Class == ClassCrash {
			t.Errorf("%s %s %s: %s with the default call timeout", p.Tool, p.Kind, p.Param, p.Class)
		}
	}
	if o := (*InjectOptions)(nil).withDefaults(); o.ToolBudget <= 0 || o.ServerBudget < o.ToolBudget || o.CallTimeout <= 0 {
		t.Errorf("defaults: tool budget %v, server budget %v, call timeout %v", o.ToolBudget, o.ServerBudget, o.CallTimeout)
	}
}

// TestS9iServerCapShared: what the server's cap leaves after the server
// probes is shared evenly among the tools (one at least each), so the
// first tool does not take it all.
func TestS9iServerCapShared(t *testing.T) {
	for _, tt := range []struct {
		max  int
		want map[string]int
	}{
		{9, map[string]int{"server": 5, "search": 2, "set_mode": 2}},
		{11, map[string]int{"server": 5, "search": 3, "set_mode": 3}},
		{6, map[string]int{"server": 5, "search": 1}},
	} {
		res := Run(context.Background(), serve(t, newToolServer(validatingTools())), &Options{
			ProtocolVersion: "2025-11-25", SkipBasics: true, Inject: &InjectOptions{MaxPerServer: tt.max, Sequential: true},
		})
		if diff := cmp.Diff(tt.want, probesPerSubject(res)); diff != "" {
			t.Errorf("MaxPerServer %d: probes per subject (-want +got):\n%s", tt.max, diff)
		}
	}
}

// TestS9iCancelledInFlight: the user cancels the run while a probe is in
// flight. The probe got no answer: it is not recorded, and nothing is
// taken for a crash of the server.
func TestS9iCancelledInFlight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := func(hctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cancel()
		<-hctx.Done()
		return errorResult("cancelled"), nil
	}
	res := Run(ctx, serve(t, newToolServer(memTools(h))), &Options{ProtocolVersion: "2025-11-25", SkipBasics: true})
	for _, p := range res.Probes {
		if !serverKinds[p.Kind] {
			t.Errorf("probe %s %s %s recorded although the run was cancelled in flight", p.Tool, p.Kind, p.Class)
		}
	}
	if got := codesOf(res.Findings, "errors/"); len(got) != 0 {
		t.Errorf("errors/ findings of a cancelled run: %v", got)
	}
}

// TestS9iLimitInFlight: the sandbox kills the server for its memory limit
// while a probe is in flight. The finding names the limit and its value;
// the call counts against the server's cap like any probe sent, so with
// one probe left after the server's, the second tool is not called.
func TestS9iLimitInFlight(t *testing.T) {
	var deaths, launches atomic.Int32
	tools := validatingTools()
	launch := func(context.Context) (mcp.Transport, error) {
		launches.Add(1)
		return dieOnTransport{inner: serve(t, newToolServer(tools)), deaths: &deaths,
			die: func(r *jsonrpc.Request) bool { return callsTool(r, "search", "set_mode") }}, nil
	}
	first, _ := launch(context.Background())
	res := Run(context.Background(), first, &Options{
		ProtocolVersion: "2025-11-25", SkipBasics: true, Relaunch: launch,
		Process: func(time.Duration) ProcessInfo {
			if deaths.Load() > 0 {
				return ProcessInfo{Exited: true, LimitExceeded: "memory", LimitValue: "1 GiB"}
			}
			return ProcessInfo{}
		},
		Inject: &InjectOptions{MaxPerServer: 6, MaxRelaunches: 3, Sequential: true},
	})
	var limits []string
	for _, f := range res.Findings {
		if f.Code == CodeLimitExceeded {
			limits = append(limits, f.Value)
		}
	}
	if diff := cmp.Diff([]string{"memory (1 GiB)"}, limits); diff != "" {
		t.Errorf("limit findings (-want +got):\n%s", diff)
	}
	if n := deaths.Load(); n != 1 {
		t.Errorf("%d tool calls ended by the limit, want 1 (the server's cap is spent by the first)", n)
	}
}

// TestS9iExitEvidence: the crash finding of a server that died on a probe
// says how the process ended (exit code and the last line of stderr).
func TestS9iExitEvidence(t *testing.T) {
	var deaths atomic.Int32
	tr := dieOnTransport{inner: serve(t, newToolServer(validatingTools())), deaths: &deaths,
		die: func(r *jsonrpc.Request) bool { return callsTool(r, "set_mode") }}
	code := 2
	res := Run(context.Background(), tr, &Options{
		ProtocolVersion: "2025-11-25", SkipBasics: true,
		Process: func(time.Duration) ProcessInfo {
			if deaths.Load() > 0 {
				return ProcessInfo{Exited: true, ExitCode: &code, StderrTail: "TypeError: mode is undefined\n"}
			}
			return ProcessInfo{}
		},
	})
	var msgs []string
	for _, f := range res.Findings {
		if f.Code == CodeCrashOnInvalidInput {
			msgs = append(msgs, f.Message)
		}
	}
	if len(msgs) != 1 || !strings.HasSuffix(msgs[0], "(exit code 2; stderr: TypeError: mode is undefined); an invalid call must be answered with an error, never end the process") {
		t.Errorf("crash findings: %q", msgs)
	}
}

// TestS9iRelaunchCap: a server that dies on every tool is started again at
// most MaxRelaunches times; then the injection stops.
func TestS9iRelaunchCap(t *testing.T) {
	tools := []memTool{
		{name: "a", schema: modeSchema, handler: validating(modeSchema)},
		{name: "b", schema: modeSchema, handler: validating(modeSchema)},
		{name: "c", schema: modeSchema, handler: validating(modeSchema)},
		{name: "d", schema: modeSchema, handler: validating(modeSchema)},
	}
	var deaths, relaunches atomic.Int32
	launch := func(context.Context) (mcp.Transport, error) {
		return dieOnTransport{inner: serve(t, newToolServer(tools)), deaths: &deaths,
			die: func(r *jsonrpc.Request) bool { return callsTool(r, "a", "b", "c", "d") }}, nil
	}
	first, _ := launch(context.Background())
	res := Run(context.Background(), first, &Options{
		ProtocolVersion: "2025-11-25", SkipBasics: true,
		Relaunch: func(ctx context.Context) (mcp.Transport, error) {
			relaunches.Add(1)
			return launch(ctx)
		},
		Inject: &InjectOptions{MaxRelaunches: 1, Sequential: true},
	})
	if n := relaunches.Load(); n != 1 {
		t.Errorf("relaunches = %d, want 1 (MaxRelaunches)", n)
	}
	var got []string
	for _, p := range res.Probes {
		if !serverKinds[p.Kind] {
			got = append(got, p.Tool+" "+p.Class)
		}
	}
	if diff := cmp.Diff([]string{"a crash", "b crash"}, got); diff != "" {
		t.Errorf("tool probes (-want +got):\n%s", diff)
	}
}

// TestS9iDeadBeforeProbe: the copy the batch's replay runs on dies on a
// basic call (resources/read of its own resource) before the first probe.
// No probe goes to the dead process: it is relaunched, and the probes run
// on the new copy.
func TestS9iDeadBeforeProbe(t *testing.T) {
	var deaths, launches atomic.Int32
	tools := validatingTools()
	launch := func(context.Context) (mcp.Transport, error) {
		n := launches.Add(1)
		return dieOnTransport{inner: serve(t, newToolServer(tools)), deaths: &deaths,
			die: func(r *jsonrpc.Request) bool {
				// The first two copies: the batch's and the replay's.
				return n <= 2 && r.Method == "resources/read" && bytes.Contains(r.Params, []byte(`"mem://doc"`))
			}}, nil
	}
	first, _ := launch(context.Background())
	res := Run(context.Background(), first, &Options{ProtocolVersion: "2025-11-25", Relaunch: launch})
	if n := launches.Load(); n != 3 {
		t.Errorf("launches = %d, want 3 (first, the replay, the relaunch)", n)
	}
	want := map[string]int{"server": 5, "search": 8, "set_mode": 4}
	if diff := cmp.Diff(want, probesPerSubject(res)); diff != "" {
		t.Errorf("probes per subject (-want +got):\n%s", diff)
	}
}

// TestS9iResponseCap: a probe's recorded response is kept as it came up
// to maxProbeResponse bytes of valid JSON; a larger or invalid one becomes
// a JSON string of its head, ending in an ellipsis that says it was cut.
// No response stays none.
func TestS9iResponseCap(t *testing.T) {
	if got := capJSON(nil); got != nil {
		t.Errorf("capJSON(nil) = %q, want nil", got)
	}
	small := json.RawMessage(`{"content":[]}`)
	if got := capJSON(small); !bytes.Equal(got, small) {
		t.Errorf("capJSON(%s) = %s", small, got)
	}
	exact := json.RawMessage(`"` + strings.Repeat("a", maxProbeResponse-2) + `"`)
	if got := capJSON(exact); !bytes.Equal(got, exact) {
		t.Errorf("a response of exactly maxProbeResponse bytes changed: %d bytes, head %.20q", len(got), got)
	}
	over := json.RawMessage(`"` + strings.Repeat("a", maxProbeResponse) + `"`)
	got := capJSON(over)
	var s string
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatalf("capped response is not a JSON string: %v", err)
	}
	if len(s) > maxProbeResponse+len("…") || !strings.HasSuffix(s, "…") || !strings.HasPrefix(s, `"aaa`) {
		t.Errorf("capped response: %d bytes, tail %q", len(s), s[max(0, len(s)-10):])
	}
}

// TestS9iOutputCheckedAgainstSchema: a probe's answer is checked against
// the outputSchema of the listed tool of its name that declares one, even
// when the listing also has an entry of that name without one.
func TestS9iOutputCheckedAgainstSchema(t *testing.T) {
	tools := toolsFromJSON(t,
		`{"name":"get","inputSchema":{"type":"object"}}`,
		`{"name":"get","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`)
	in := &injector{res: &Result{Tools: tools}, seenOutput: map[string]bool{}}
	in.checkOutput(ProbeCall{Method: "tools/call", Tool: "get", Class: ClassAccepted},
		json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`))
	if diff := cmp.Diff([]string{"tool:get " + CodeStructuredMissing}, codesOf(in.res.Findings, "")); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// rejectingHTTP answers every tools/call with HTTP 400 and plain text, as
// some servers do for a request they cannot parse, and passes the rest
// to next.
func rejectingHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			http.Error(w, "Bad Request", http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// TestS9iHTTPRejectionReconnects: a server that answers invalid calls
// with HTTP 400 and no JSON-RPC did not die: the go-sdk client's spent
// connection is replaced by a new session and the probe is a
// protocol_error, for up to maxReconnects new sessions per server. The
// answer after those stands too, and ends the injection: before, it was
// taken for a crash, and a live server got the fatal
// errors/crash_on_invalid_input for its 17th invalid call. Without
// Relaunch no new session can be opened: the first such answer stands
// and ends the injection.
func TestS9iHTTPRejectionReconnects(t *testing.T) {
	var tools []memTool
	for _, n := range []string{"a", "b", "c"} {
		tools = append(tools, memTool{name: n, schema: searchSchema, handler: validating(searchSchema)})
	}
	srv := newToolServer(tools)
	hs := httptest.NewServer(rejectingHTTP(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)))
	t.Cleanup(hs.Close)
	for _, tt := range []struct {
		name     string
		relaunch bool
		rejected int
	}{{"relaunch", true, maxReconnects + 1}, {"no relaunch", false, 1}} {
		t.Run(tt.name, func(t *testing.T) {
			var launches atomic.Int32
			launch := func(context.Context) (mcp.Transport, error) {
				launches.Add(1)
				return &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hs.Client()}, nil
			}
			first, _ := launch(context.Background())
			o := &Options{ProtocolVersion: "2025-11-25", SkipBasics: true, Inject: &InjectOptions{Sequential: true}}
			if tt.relaunch {
				o.Relaunch = launch
			}
			res := Run(context.Background(), first, o)
			rejected := 0
			for i, p := range res.Probes {
				if p.Class == ClassCrash {
					t.Errorf("probe %d (%s %s) recorded as a crash", i, p.Tool, p.Kind)
				}
				if p.Class == ClassProtocolError && strings.HasPrefix(p.Text, "HTTP 400") {
					rejected++
					if i != len(res.Probes)-1 && rejected == tt.rejected {
						t.Errorf("probe %d after the last new session was spent", i+1)
					}
				}
			}
			if rejected != tt.rejected {
				t.Errorf("%d probes answered HTTP 400 recorded as protocol_error, want %d", rejected, tt.rejected)
			}
			if got := codesOf(res.Findings, "errors/crash"); len(got) != 0 {
				t.Errorf("crash findings for a server that never died: %v", got)
			}
			if n, want := launches.Load(), int32(tt.rejected); n != want {
				t.Errorf("launches = %d, want %d (the first and one per new session)", n, want)
			}
		})
	}
}
