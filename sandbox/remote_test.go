package sandbox

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/vocab"
)

func newEchoServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1.0.0"}, nil)
	type echoArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Return the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return server
}

// headerRecorder records the X-Api-Key and Mcp-Protocol-Version headers of
// every request.
type headerRecorder struct {
	mu      sync.Mutex
	keys    []string
	methods []string
	next    http.Handler
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.keys = append(h.keys, r.Header.Get("X-Api-Key"))
	h.methods = append(h.methods, r.Method)
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

func TestRemote(t *testing.T) {
	server := newEchoServer()
	for _, tc := range []struct {
		name      string
		handler   http.Handler
		transport string
		warning   string
	}{
		{"streamable", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil), vocab.TransportStreamable, "transport: streamable-http"},
		{"fallback to sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil), vocab.TransportStreamable, "transport: legacy SSE (streamable-http POST answered 400)"},
		{"sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil), vocab.TransportSSE, "transport: legacy SSE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &headerRecorder{next: tc.handler}
			hs := httptest.NewServer(rec)
			defer hs.Close()
			plan := &vocab.Plan{Transport: tc.transport, URL: hs.URL, Headers: map[string]string{"X-Api-Key": "k1", "Content-Type": "text/plain"}}
			s := launch(t, plan, testOptions(BackendAuto), "")
			cs := clientSession(t, s)
			if got := callEcho(t, cs, "hi"); got != "hi" {
				t.Errorf("echo = %q", got)
			}
			cs.Close()
			info := s.Info(0)
			if diff := cmp.Diff([]string{tc.warning}, info.Warnings); diff != "" {
				t.Errorf("Warnings (-want +got):\n%s", diff)
			}
			if info.Backend != "remote" || !info.Network || info.Started.IsZero() {
				t.Errorf("info = %+v", info)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.keys) == 0 || slices.ContainsFunc(rec.keys, func(k string) bool { return k != "k1" }) {
				t.Errorf("X-Api-Key headers seen = %q, want all k1", rec.keys)
			}
		})
	}
}

func TestRemoteBodyLimit(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"x":"` + strings.Repeat("a", 1<<20) + `"}}`))
	}))
	defer hs.Close()
	opts := testOptions(BackendAuto)
	opts.Limits.MessageBytes = 64 << 10
	s := launch(t, &vocab.Plan{Transport: vocab.TransportStreamable, URL: hs.URL}, opts, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if cs, err := client.Connect(ctx, s.Transport(), nil); err == nil {
		cs.Close()
		t.Fatal("Connect succeeded against a server sending a 1 MiB body with a 64 KiB limit")
	}
	if got := s.Info(0).LimitExceeded; got != LimitMessageSize {
		t.Errorf("LimitExceeded = %q, want %q", got, LimitMessageSize)
	}
}
