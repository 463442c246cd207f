package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/vocab"
)

// connectVersion connects a go-sdk client asking for version (empty: the
// newest, server/discover first) and returns the session.
func connectVersion(t *testing.T, s *Server, version string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, s.Transport(), &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client.Connect: %v (info %+v)", err, s.Info(time.Second))
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestRemoteNegotiationEverything connects, with defaults, to the real
// server-everything in streamableHttp mode. It answers server/discover with
// HTTP 400 and the JSON-RPC error -32000 "Server not initialized"; that
// must lead to initialize on the same transport, not to the SSE fallback.
func TestRemoteNegotiationEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testfixture.StartEverythingHTTP(t)
	s := launch(t, &vocab.Plan{Transport: vocab.TransportStreamable, URL: url}, testOptions(BackendAuto), "")
	cs := connectVersion(t, s, "")
	if got := cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Errorf("negotiated %q, want 2025-11-25", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list: %v, %+v", err, tools)
	}
	want := "transport: streamable-http (first POST answered 400 with JSON-RPC error -32000; retried on the same transport)"
	if w := s.Info(0).Warnings; len(w) != 1 || w[0] != want {
		t.Errorf("Warnings = %q, want [%q]", w, want)
	}
}

// rejectDiscover answers server/discover with status and, when rpc is
// set, a JSON-RPC error body (plain text otherwise); GET gets getStatus.
// Everything else goes to next.
func rejectDiscover(next http.Handler, status int, rpc bool, getStatus int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && getStatus != 0 {
			http.Error(w, "no", getStatus)
			return
		}
		if r.Method == http.MethodPost && r.URL.Query().Get("sessionid") == "" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if strings.Contains(string(body), `"server/discover"`) {
				if !rpc {
					http.Error(w, "unknown method", status)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// TestRemoteNegotiation covers the transport decision for go-sdk fixtures
// in each revision: a JSON-RPC error to server/discover means initialize on
// the same transport whatever the status; a 400, 404 or 405 without one
// means the legacy SSE fallback (other statuses do not), and when the GET
// yields no SSE stream the streamable transport is kept for initialize.
func TestRemoteNegotiation(t *testing.T) {
	server := newEchoServer()
	stateful := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	stateless := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil)
	retried := func(status int) string {
		return fmt.Sprintf("transport: streamable-http (first POST answered %d with JSON-RPC error -32000; retried on the same transport)", status)
	}
	type tc struct {
		name    string
		handler http.Handler
		version string // asked for; empty is the newest
		want    string // negotiated
		warning string
	}
	tests := []tc{
		{"400 json-rpc error", rejectDiscover(stateful, 400, true, 0), "", "2025-11-25", retried(400)},
		{"404 json-rpc error", rejectDiscover(stateful, 404, true, 0), "", "2025-11-25", retried(404)},
		{"405 json-rpc error", rejectDiscover(stateful, 405, true, 0), "", "2025-11-25", retried(405)},
		{"500 json-rpc error", rejectDiscover(stateful, 500, true, 0), "", "2025-11-25", "transport: streamable-http"},
		{"200 json-rpc error", rejectDiscover(stateful, 200, true, 0), "", "2025-11-25", "transport: streamable-http"},
		{"404 plain, get 404", rejectDiscover(stateful, 404, false, 404), "", "2025-11-25",
			"transport: streamable-http (POST answered 404; legacy SSE fallback failed: failed to connect: Not Found)"},
		{"403 plain, no fallback", rejectDiscover(stateful, 403, false, 404), "", "2025-11-25", "transport: streamable-http"},
		{"429 plain, no fallback", rejectDiscover(stateful, 429, false, 404), "", "2025-11-25", "transport: streamable-http"},
		{"400 plain, sse on get", rejectDiscover(sse, 400, false, 0), "", "2025-11-25", "transport: legacy SSE (streamable-http POST answered 400)"},
		{"405 plain, sse on get", rejectDiscover(sse, 405, false, 0), "", "2025-11-25", "transport: legacy SSE (streamable-http POST answered 405)"},
	}
	for _, v := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		want := v
		if v == "2026-07-28" {
			// A stateful go-sdk server rejects discover; initialize then
			// negotiates the newest legacy revision.
			want = "2025-11-25"
		}
		tests = append(tests,
			tc{"stateful " + v, stateful, v, want, ""},
			tc{"stateless " + v, stateless, v, v, "transport: streamable-http"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(tt.handler)
			t.Cleanup(hs.Close) // after the session's Close

			s := launch(t, &vocab.Plan{Transport: vocab.TransportStreamable, URL: hs.URL}, testOptions(BackendAuto), "")
			cs := connectVersion(t, s, tt.version)
			if got := cs.InitializeResult().ProtocolVersion; got != tt.want {
				t.Errorf("negotiated %q, want %q", got, tt.want)
			}
			if got := callEcho(t, cs, "hi"); got != "hi" {
				t.Errorf("echo = %q", got)
			}
			if w := s.Info(0).Warnings; tt.warning != "" && (len(w) != 1 || w[0] != tt.warning) {
				t.Errorf("Warnings = %q, want [%q]", w, tt.warning)
			} else if len(w) != 1 {
				t.Errorf("Warnings = %q", w)
			}
		})
	}
}
