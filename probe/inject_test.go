package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
)

// Input schemas of the in-memory fixture tools.
const (
	searchSchema = `{"type":"object","properties":{"query":{"type":"string","maxLength":50,"description":"text to find"},"limit":{"type":"integer","minimum":1,"maximum":20}},"required":["query"],"additionalProperties":false}`
	modeSchema   = `{"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"]}},"required":["mode"]}`
)

// memTool is one tool of an in-memory fixture server.
type memTool struct {
	name, schema string
	annotations  *mcp.ToolAnnotations
	handler      mcp.ToolHandler
}

// memTools returns the search and mode tools with handler h.
func memTools(h mcp.ToolHandler) []memTool {
	return []memTool{
		{name: "search", schema: searchSchema, handler: h, annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}},
		{name: "set_mode", schema: modeSchema, handler: h},
	}
}

// newToolServer builds a go-sdk server with low-level tools (the SDK does
// not validate their arguments), one resource and one prompt.
func newToolServer(tools []memTool) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "inject", Version: "1"}, nil)
	for _, mt := range tools {
		srv.AddTool(&mcp.Tool{Name: mt.name, Description: "fixture", InputSchema: json.RawMessage(mt.schema), Annotations: mt.annotations}, mt.handler)
	}
	srv.AddResource(&mcp.Resource{URI: "mem://doc", Name: "doc"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			if req.Params.URI != "mem://doc" {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://doc", Text: "hi"}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	return srv
}

// serve runs srv on a fresh in-memory pipe until the test ends and returns
// the client side.
func serve(t testing.TB, srv *mcp.Server) mcp.Transport {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Run(ctx, st)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ct
}

// validating answers arguments its schema rejects with an isError result
// naming the problem, and anything else with "ok".
func validating(schema string) mcp.ToolHandler {
	sch, err := compileInputSchema(json.RawMessage(schema))
	if err != nil {
		panic(err)
	}
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		var v any
		if err := decodeNumbers(args, &v); err != nil {
			return errorResult("arguments: " + err.Error()), nil
		}
		if err := sch.Validate(v); err != nil {
			return errorResult("invalid arguments: " + err.Error()), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func codesOf(fs []Finding, prefix string) []string {
	var out []string
	for _, f := range fs {
		if strings.HasPrefix(f.Code, prefix) {
			out = append(out, f.Subject+" "+f.Code)
		}
	}
	slices.Sort(out)
	return out
}

func TestInjectServerProbes(t *testing.T) {
	tools := memTools(nil)
	for i := range tools {
		tools[i].handler = validating(tools[i].schema)
	}
	for _, version := range []string{"2025-06-18", "2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			res := Run(context.Background(), serve(t, newToolServer(tools)), &Options{ProtocolVersion: version})
			var got []string
			for _, p := range res.Probes {
				if serverKinds[p.Kind] {
					got = append(got, fmt.Sprintf("%s %s %s", p.Kind, p.Method, p.Class))
				}
			}
			want := []string{
				"unknown_tool tools/call protocol_error",
				"unknown_method mcpvet/unknown_method protocol_error",
				"unknown_resource resources/read protocol_error",
				"unknown_prompt prompts/get protocol_error",
				"bad_cursor tools/list protocol_error",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("server probes (-want +got):\n%s", diff)
			}
			// The first tool whose schema rejects {} is misspelled.
			if p := res.Probes[0]; p.Tool != "searc" {
				t.Errorf("unknown tool = %q, want searc", p.Tool)
			}
			var uri struct {
				URI string `json:"uri"`
			}
			_ = json.Unmarshal(res.Probes[2].Sent, &uri)
			if uri.URI != "mem://do" {
				t.Errorf("unknown resource uri = %q, want mem://do", uri.URI)
			}
			if diff := cmp.Diff([]string(nil), codesOf(res.Findings, "errors/")); diff != "" {
				t.Errorf("errors/ findings (-want +got):\n%s", diff)
			}
			for _, p := range res.Probes {
				var sent map[string]json.RawMessage
				if err := json.Unmarshal(p.Sent, &sent); err != nil {
					t.Fatalf("sent %s: %v", p.Sent, err)
				}
				_, hasMeta := sent["_meta"]
				if hasMeta != (res.Liveness.ProtocolVersion == "2026-07-28") {
					t.Errorf("%s sent %s: _meta present = %v on %s", p.Kind, p.Sent, hasMeta, res.Liveness.ProtocolVersion)
				}
			}
		})
	}
}

// A probe answered with success and structuredContent is checked against
// the tool's outputSchema.
func TestInjectChecksStructuredOutput(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "structured", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{
		Name: "weather", Description: "fixture", InputSchema: json.RawMessage(modeSchema),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"temp":"warm"}`}},
			StructuredContent: json.RawMessage(`{"temp":"warm"}`),
		}, nil
	})
	res := Run(context.Background(), serve(t, srv), &Options{ProtocolVersion: "2025-11-25"})
	n := 0
	for _, f := range res.Findings {
		if f.Code == CodeStructuredInvalid && f.Subject == "tool:weather" {
			n++
		}
	}
	// The four accepted probes got the same answer: one finding.
	if n != 1 {
		t.Errorf("structured output findings = %d, want 1: %+v", n, res.Findings)
	}
}

func TestInjectHang(t *testing.T) {
	var hung atomic.Int32
	hang := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		hung.Add(1)
		<-ctx.Done() // the probe's notifications/cancelled ends it
		return nil, ctx.Err()
	}
	tools := []memTool{
		{name: "stuck", schema: modeSchema, handler: hang},
		{name: "search", schema: searchSchema, handler: validating(searchSchema), annotations: memTools(nil)[0].annotations},
	}
	res := Run(context.Background(), serve(t, newToolServer(tools)),
		&Options{ProtocolVersion: "2025-11-25", Inject: &InjectOptions{CallTimeout: time.Second}}) // waited out once; the search answers must never miss it under load
	var stuck []string
	searched := 0
	for _, p := range res.Probes {
		switch p.Tool {
		case "stuck":
			stuck = append(stuck, p.Kind+" "+p.Class)
		case "search":
			searched++
			if p.Class != ClassToolError {
				t.Errorf("search probe %s: class %s", p.Kind, p.Class)
			}
		}
	}
	// The first hang ends the tool's probing; the server still answers
	// ping, so the next tool is probed on the same session.
	if diff := cmp.Diff([]string{"missing_required hang"}, stuck); diff != "" {
		t.Errorf("stuck probes (-want +got):\n%s", diff)
	}
	if searched != 8 {
		t.Errorf("search probes = %d, want 8", searched)
	}
	if diff := cmp.Diff([]string{"tool:stuck " + CodeHangOnInvalidInput}, codesOf(res.Findings, "errors/")); diff != "" {
		t.Errorf("errors/ findings (-want +got):\n%s", diff)
	}
	timeouts := 0
	for _, c := range res.Calls {
		if c.Outcome == "timeout" && c.Tool == "stuck" {
			timeouts++
		}
	}
	if timeouts != 1 {
		t.Errorf("telemetry has %d timed-out stuck calls, want 1: %+v", timeouts, res.Calls)
	}
}

// crashTransport is an in-memory client transport whose connection closes,
// as if the server process died, when a tools/call for the tool kill is
// written.
type crashTransport struct {
	inner mcp.Transport
	kill  string
	// crashes counts the connections that died.
	crashes *atomic.Int32
}

func (t crashTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &crashConn{Connection: c, t: t}, nil
}

type crashConn struct {
	mcp.Connection
	t    crashTransport
	once sync.Once
}

func (c *crashConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && callsTool(req, c.t.kill) {
		c.once.Do(func() { c.t.crashes.Add(1) })
		return c.Connection.Close()
	}
	return c.Connection.Write(ctx, msg)
}

func TestInjectCrash(t *testing.T) {
	tools := []memTool{
		{name: "alpha", schema: modeSchema, handler: validating(modeSchema)},
		{name: "boom", schema: searchSchema, handler: validating(searchSchema)},
		{name: "omega", schema: modeSchema, handler: validating(modeSchema)},
	}
	var crashes atomic.Int32
	launch := func(ctx context.Context) (mcp.Transport, error) {
		return crashTransport{inner: serve(t, newToolServer(tools)), kill: "boom", crashes: &crashes}, nil
	}
	// The batch (inject_batch.go) sees the crash, throws its answers away
	// and replays the injection one request at a time on a fresh copy:
	// the probes recorded are the same as the sequential run's, with one
	// launch and one crash more.
	for _, mode := range []struct {
		name       string
		sequential bool
		launches   int32
	}{{"relaunch", true, 1}, {"relaunch batched", false, 2}} {
		t.Run(mode.name, func(t *testing.T) {
			crashes.Store(0)
			var relaunches atomic.Int32
			first, _ := launch(context.Background())
			res := Run(context.Background(), first, &Options{
				ProtocolVersion: "2025-11-25",
				Relaunch: func(ctx context.Context) (mcp.Transport, error) {
					relaunches.Add(1)
					return launch(ctx)
				},
				Inject: &InjectOptions{Sequential: mode.sequential},
			})
			var got []string
			for _, p := range res.Probes {
				if !serverKinds[p.Kind] {
					got = append(got, p.Tool+" "+p.Kind+" "+p.Class)
				}
			}
			want := []string{
				"alpha missing_required tool_error",
				"alpha wrong_type tool_error",
				"alpha absent_arguments tool_error",
				"alpha enum_violation tool_error",
				// The first probe of boom kills the server: it is recorded,
				// boom is not probed further, and omega is probed on the
				// relaunched server.
				"boom missing_required crash",
				"omega missing_required tool_error",
				"omega wrong_type tool_error",
				"omega absent_arguments tool_error",
				"omega enum_violation tool_error",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("probes (-want +got):\n%s", diff)
			}
			if relaunches.Load() != mode.launches || crashes.Load() != mode.launches {
				t.Errorf("relaunches = %d, crashes = %d; want %d and %d", relaunches.Load(), crashes.Load(), mode.launches, mode.launches)
			}
			if diff := cmp.Diff([]string{"tool:boom " + CodeCrashOnInvalidInput}, codesOf(res.Findings, "errors/")); diff != "" {
				t.Errorf("errors/ findings (-want +got):\n%s", diff)
			}
			handshakes := 0
			for _, c := range res.Calls {
				if c.Method == "initialize" {
					handshakes++
				}
			}
			if handshakes != int(mode.launches)+1 {
				t.Errorf("initialize calls = %d, want %d (launch and relaunches)", handshakes, mode.launches+1)
			}
		})
	}
	t.Run("no relaunch", func(t *testing.T) {
		first, _ := launch(context.Background())
		res := Run(context.Background(), first, &Options{ProtocolVersion: "2025-11-25"})
		last := res.Probes[len(res.Probes)-1]
		if last.Tool != "boom" || last.Class != ClassCrash {
			t.Errorf("last probe = %s %s %s, want the killing boom probe", last.Tool, last.Kind, last.Class)
		}
		for _, p := range res.Probes {
			if p.Tool == "omega" {
				t.Errorf("omega probed after the server died without a relaunch")
			}
		}
	})
}

// TestInjectCrashProcess kills a real server process with an invalid call
// and checks that a fresh process takes over.
func TestInjectCrashProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches a server binary")
	}
	bin := filepath.Join(t.TempDir(), "crashy")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/inject/crashy").CombinedOutput(); err != nil {
		t.Fatalf("building crashy: %v\n%s", err, out)
	}
	launches := 0
	launch := func(context.Context) (mcp.Transport, error) {
		launches++
		return &mcp.CommandTransport{Command: exec.Command(bin)}, nil
	}
	first, _ := launch(context.Background())
	start := time.Now()
	res := Run(context.Background(), first, &Options{ProtocolVersion: "2025-11-25", Relaunch: launch})
	t.Logf("run took %v (probing %.1f ms)", time.Since(start), res.Liveness.Timings.ProbeMs)
	var got []string
	for _, p := range res.Probes {
		if !serverKinds[p.Kind] {
			got = append(got, p.Tool+" "+p.Kind+" "+p.Class)
		}
	}
	want := []string{
		"fragile missing_required crash",
		"sturdy missing_required tool_error",
		"sturdy wrong_type tool_error",
		"sturdy absent_arguments tool_error",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probes (-want +got):\n%s", diff)
	}
	// The first launch, the batch's replay, the relaunch after the crash.
	if launches != 3 {
		t.Errorf("launches = %d, want 3", launches)
	}
	if diff := cmp.Diff([]string{"tool:fragile " + CodeCrashOnInvalidInput}, codesOf(res.Findings, "errors/")); diff != "" {
		t.Errorf("errors/ findings (-want +got):\n%s", diff)
	}
}

func TestInjectCaps(t *testing.T) {
	const callTime = 60 * time.Millisecond
	slow := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(callTime)
		return errorResult("invalid arguments"), nil
	}
	tools := memTools(nil)
	for i := range tools {
		tools[i].handler = validating(tools[i].schema)
	}
	count := func(res *Result) map[string]int {
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
	tests := []struct {
		name string
		opts *InjectOptions
		want map[string]int
	}{
		{"defaults", nil, map[string]int{"server": 5, "search": 8, "set_mode": 4}},
		{"max per tool", &InjectOptions{MaxPerTool: 2}, map[string]int{"server": 5, "search": 2, "set_mode": 2}},
		// Two probes left after the server's five: one for each tool.
		{"max per server", &InjectOptions{MaxPerServer: 7}, map[string]int{"server": 5, "search": 1, "set_mode": 1}},
		// Five left: an even share of two each.
		{"max per server shared", &InjectOptions{MaxPerServer: 10}, map[string]int{"server": 5, "search": 2, "set_mode": 2}},
		{"max per server below the server probes", &InjectOptions{MaxPerServer: 3}, map[string]int{"server": 3}},
		{"disabled", &InjectOptions{Disabled: true}, map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Run(context.Background(), serve(t, newToolServer(tools)), &Options{ProtocolVersion: "2025-11-25", Inject: tt.opts})
			if diff := cmp.Diff(tt.want, count(res)); diff != "" {
				t.Errorf("probes per subject (-want +got):\n%s", diff)
			}
		})
	}
	// Each slow call takes at least callTime, so within a budget of
	// 2.5*callTime at most three probes can start: the bounds below hold
	// however slow the machine is.
	t.Run("tool budget", func(t *testing.T) {
		res := Run(context.Background(), serve(t, newToolServer(memTools(slow))),
			&Options{ProtocolVersion: "2025-11-25", Inject: &InjectOptions{ToolBudget: callTime * 5 / 2}})
		got := count(res)
		for _, tool := range []string{"search", "set_mode"} {
			if got[tool] < 1 || got[tool] > 3 {
				t.Errorf("%s probes = %d, want 1 to 3 within its budget", tool, got[tool])
			}
		}
	})
	t.Run("server budget", func(t *testing.T) {
		res := Run(context.Background(), serve(t, newToolServer(memTools(slow))),
			&Options{ProtocolVersion: "2025-11-25", Inject: &InjectOptions{ServerBudget: callTime * 5 / 2}})
		got := count(res)
		if tp := got["search"] + got["set_mode"]; tp > 3 {
			t.Errorf("tool probes = %d (%v), want at most 3 within the server budget", tp, got)
		}
		if got["server"] < 1 {
			t.Errorf("no server probe was sent: %v", got)
		}
	})
}

func TestInjectWellbehaved(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches a fixture binary")
	}
	bin := testfixture.Path(t, "wellbehaved")
	for _, version := range []string{"", "2025-11-25", "2025-06-18"} {
		t.Run("version="+version, func(t *testing.T) {
			res := Run(context.Background(), &mcp.CommandTransport{Command: exec.Command(bin)}, &Options{ProtocolVersion: version})
			if !res.Liveness.HandshakeCompleted {
				t.Fatalf("handshake failed: %+v", res.Liveness)
			}
			kinds := map[string]bool{}
			for _, p := range res.Probes {
				kinds[p.Kind] = true
				if p.Class != ClassToolError && p.Class != ClassProtocolError {
					t.Errorf("probe %s %s %s: class %s, response %s", p.Kind, p.Tool, p.Param, p.Class, p.Response)
				}
				if p.Kind != KindUnknownTool && p.Method == "tools/call" && p.Class != ClassToolError {
					t.Errorf("argument probe %s %s answered on the %s channel", p.Kind, p.Tool, p.Class)
				}
			}
			for _, k := range []string{KindMissingRequired, KindWrongType, KindEnumViolation, KindOutOfRange, KindPatternViolation,
				KindMaxLength, KindUnknownProperty, KindAbsentArguments, KindUnknownTool, KindUnknownMethod,
				KindUnknownResource, KindUnknownPrompt, KindBadCursor} {
				if !kinds[k] {
					t.Errorf("no %s probe was sent", k)
				}
			}
			if got := codesOf(res.Findings, "errors/"); len(got) > 0 {
				t.Errorf("errors/ findings on the well-behaved server: %v", got)
			}
			t.Logf("%d probes in %.1f ms", len(res.Probes), res.Liveness.Timings.ProbeMs)
		})
	}
}

// BenchmarkInject measures failure injection alone (no handshake or
// listing) against an in-memory server with ten validating tools.
func BenchmarkInject(b *testing.B) {
	var tools []memTool
	for i := range 10 {
		schema := searchSchema
		if i%2 == 1 {
			schema = modeSchema
		}
		tools = append(tools, memTool{name: fmt.Sprintf("tool_%d", i), schema: schema, handler: validating(schema)})
	}
	ctx := context.Background()
	o := (&Options{ProtocolVersion: "2025-11-25"}).withDefaults()
	rec := newRecorder()
	s, err := connect(ctx, rec.transport(serve(b, newToolServer(tools))), o)
	if err != nil {
		b.Fatal(err)
	}
	defer s.cs.Close()
	s.rec = rec
	base := &Result{}
	describeHandshake(base, s.cs, rec)
	listAll(ctx, s, base, o)
	if len(base.Tools) != 10 {
		b.Fatalf("listed %d tools", len(base.Tools))
	}
	probes := 0
	b.ResetTimer()
	for b.Loop() {
		res := *base
		res.Probes, res.Findings = nil, nil
		s = injectFailures(ctx, s, &res, o)
		probes = len(res.Probes)
	}
	b.ReportMetric(float64(probes), "probes/op")
}
