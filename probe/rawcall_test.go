package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSession connects to srv the way Run does and returns the session and
// its recording connection.
func rawSession(t *testing.T, srv *mcp.Server, version string) (*session, *recordingConn) {
	t.Helper()
	rec := newRecorder()
	s, err := connect(context.Background(), rec.transport(serve(t, srv)), (&Options{ProtocolVersion: version}).withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	s.rec = rec
	t.Cleanup(func() { _ = s.cs.Close() })
	return s, rec.currentConn()
}

// argsServer has one tool that echoes the raw arguments it received, or
// "(absent)".
func argsServer(seen chan<- json.RawMessage) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "args", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := string(req.Params.Arguments)
			if req.Params.Arguments == nil {
				text = "(absent)"
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			seen <- json.RawMessage(`"cancelled"`)
			return nil, ctx.Err()
		})
	return srv
}

func toolText(t *testing.T, result json.RawMessage) string {
	t.Helper()
	class, text := classifyResult("tools/call", result)
	if class != ClassAccepted {
		t.Fatalf("result %s classified %s", result, class)
	}
	return text
}

func TestRawCallSendsExactParams(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			s, conn := rawSession(t, argsServer(nil), version)
			tests := []struct {
				params json.RawMessage
				want   string
			}{
				{json.RawMessage(`{"name":"echo"}`), "(absent)"},
				{json.RawMessage(`{"name":"echo","arguments":null}`), "null"},
				{json.RawMessage(`{"name":"echo","arguments":{}}`), "{}"},
				{json.RawMessage(`{"name":"echo","arguments":[1,2]}`), "[1,2]"},
			}
			for _, tt := range tests {
				params, err := conn.withMeta(tt.params, s.cs.InitializeResult().ProtocolVersion)
				if err != nil {
					t.Fatal(err)
				}
				result, werr, err := conn.rawCall(context.Background(), "tools/call", params)
				if err != nil || werr != nil {
					t.Fatalf("rawCall(%s): %v %v", params, werr, err)
				}
				if got := toolText(t, result); got != tt.want {
					t.Errorf("server saw arguments %s, want %s", got, tt.want)
				}
			}
		})
	}
}

// The raw ID space and the SDK's share the connection: each side gets its
// own answers, concurrently, and the SDK never sees a raw response.
func TestRawCallAlongsideSDK(t *testing.T) {
	s, conn := rawSession(t, argsServer(nil), "2025-11-25")
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 20 {
		wg.Go(func() {
			args := fmt.Sprintf(`{"i":%d}`, i)
			result, werr, err := conn.rawCall(context.Background(), "tools/call", json.RawMessage(`{"name":"echo","arguments":`+args+`}`))
			if err != nil || werr != nil {
				errs <- fmt.Errorf("raw %d: %v %v", i, werr, err)
				return
			}
			if _, text := classifyResult("tools/call", result); text != args {
				errs <- fmt.Errorf("raw %d got %s", i, text)
			}
		})
		wg.Go(func() {
			res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]int{"sdk": i}})
			if err != nil {
				errs <- fmt.Errorf("sdk %d: %v", i, err)
				return
			}
			if got, want := res.Content[0].(*mcp.TextContent).Text, fmt.Sprintf(`{"sdk":%d}`, i); got != want {
				errs <- fmt.Errorf("sdk %d got %s", i, got)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	calls := s.rec.telemetry()
	n := 0
	for _, c := range calls {
		if c.Method == "tools/call" {
			n++
			if c.Outcome != "result" || c.Tool != "echo" {
				t.Errorf("telemetry %+v", c)
			}
		}
	}
	if n != 40 {
		t.Errorf("telemetry has %d tools/call, want 40 (20 raw, 20 SDK)", n)
	}
}

func TestRawStateDeliver(t *testing.T) {
	var st rawState
	key, ch, _ := st.register()
	id, _ := jsonrpc.MakeID(key)
	sdkID, _ := jsonrpc.MakeID(float64(1))
	lateID, _ := jsonrpc.MakeID("mcpvet-999")
	tests := []struct {
		name string
		msg  jsonrpc.Message
		want bool
	}{
		{"SDK response", &jsonrpc.Response{ID: sdkID}, false},
		{"server request", &jsonrpc.Request{ID: id, Method: "ping"}, false},
		{"raw response", &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)}, true},
		{"late raw response nobody waits for", &jsonrpc.Response{ID: lateID}, true},
	}
	for _, tt := range tests {
		if got := st.deliver(tt.msg); got != tt.want {
			t.Errorf("%s: deliver = %v, want %v", tt.name, got, tt.want)
		}
	}
	select {
	case resp := <-ch:
		if string(resp.Result) != "{}" {
			t.Errorf("delivered %s", resp.Result)
		}
	default:
		t.Error("the raw response was not delivered")
	}
}

// On 2026-07-28 a raw request carries the same _meta the SDK sends (with
// the negotiated version); before, none.
func TestRawCallMeta(t *testing.T) {
	s, conn := rawSession(t, argsServer(nil), "")
	if v := s.cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	if _, err := s.cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	sdk, ok := s.rec.last("tools/list")
	if !ok {
		t.Fatal("no tools/list recorded")
	}
	params, err := conn.withMeta(json.RawMessage(`{"cursor":"x"}`), "2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	metaOf := func(b json.RawMessage) map[string]any {
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		return p.Meta
	}
	if diff := cmp.Diff(metaOf(sdk.params), metaOf(params)); diff != "" {
		t.Errorf("raw _meta differs from the SDK's (-sdk +raw):\n%s", diff)
	}
	if got, _ := conn.withMeta(json.RawMessage(`{"cursor":"x"}`), "2025-11-25"); string(got) != `{"cursor":"x"}` {
		t.Errorf("2025-11-25 params = %s, want them untouched", got)
	}
	var fresh recordingConn
	m := metaOf(must(fresh.withMeta(nil, "2026-07-28")))
	if m[mcp.MetaKeyProtocolVersion] != "2026-07-28" || m[mcp.MetaKeyClientInfo] == nil || m[mcp.MetaKeyClientCapabilities] == nil {
		t.Errorf("fallback _meta = %v", m)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestRawCallTimeoutCancels(t *testing.T) {
	seen := make(chan json.RawMessage, 1)
	s, conn := rawSession(t, argsServer(seen), "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := conn.rawCall(ctx, "tools/call", json.RawMessage(`{"name":"wait","arguments":{}}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	select {
	case <-seen:
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw notifications/cancelled")
	}
	var outcome string
	for _, c := range s.rec.telemetry() {
		if c.Tool == "wait" {
			outcome = c.Outcome
		}
	}
	if outcome != "timeout" {
		t.Errorf("telemetry outcome = %q, want timeout", outcome)
	}
	// The late error response to the cancelled call must not disturb the
	// session.
	if err := s.cs.Ping(context.Background(), nil); err != nil {
		t.Errorf("ping after a cancelled raw call: %v", err)
	}
}

func TestRawCallConnectionClosed(t *testing.T) {
	srv := argsServer(nil)
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Run(ctx, st)
	}()
	rec := newRecorder()
	s, err := connect(context.Background(), rec.transport(ct), (&Options{ProtocolVersion: "2025-11-25"}).withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer s.cs.Close()
	conn := rec.currentConn()
	cancel() // the server goes away
	<-done
	cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer ccancel()
	_, _, err = conn.rawCall(cctx, "ping", nil)
	if !errors.Is(err, errConnDead) {
		t.Errorf("err = %v, want errConnDead", err)
	}
	if !conn.isDead() {
		t.Error("isDead = false after the server closed")
	}
}
