package probe

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
)

// httpDefect wraps a conforming go-sdk streamable handler and breaks one
// HTTP-level rule.
type httpDefect struct {
	next    http.Handler
	defect  string
	mu      sync.Mutex
	deleted map[string]bool
}

// statusWriter rewrites the status of an answer, and its session id when
// sid is set.
type statusWriter struct {
	http.ResponseWriter
	from, to int
	sid      string
}

func (w *statusWriter) WriteHeader(code int) {
	if code == w.from {
		code = w.to
	}
	if w.sid != "" && w.Header().Get("Mcp-Session-Id") != "" {
		w.Header().Set("Mcp-Session-Id", w.sid)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.sid != "" && w.Header().Get("Mcp-Session-Id") != "" {
		w.Header().Set("Mcp-Session-Id", w.sid)
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (h *httpDefect) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	sid := r.Header.Get("Mcp-Session-Id")
	switch h.defect {
	case "session charset":
		w = &statusWriter{ResponseWriter: w, sid: "session id é"}
	case "deleted session 400":
		h.mu.Lock()
		gone := h.deleted[sid]
		if r.Method == http.MethodDelete {
			if h.deleted == nil {
				h.deleted = map[string]bool{}
			}
			h.deleted[sid] = true
		}
		h.mu.Unlock()
		if gone {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
	case "missing session 200":
		if sid == "" && r.Method == http.MethodPost && !bytes.Contains(body, []byte(`"initialize"`)) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}`)
			return
		}
	case "protocol version ignored":
		r.Header.Del("Mcp-Protocol-Version")
	case "notification 200":
		w = &statusWriter{ResponseWriter: w, from: http.StatusAccepted, to: http.StatusOK}
	case "get 200 text":
		if r.Method == http.MethodGet {
			io.WriteString(w, "hello")
			return
		}
	}
	h.next.ServeHTTP(w, r)
}

func sdkHandler(opts *mcp.StreamableHTTPOptions) http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "http-check", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "noop", Description: "Do nothing."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	if opts == nil {
		opts = &mcp.StreamableHTTPOptions{}
	}
	if opts.CrossOriginProtection == nil {
		opts.CrossOriginProtection = http.NewCrossOriginProtection()
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)
}

// conformingHandler is a go-sdk streamable handler with Origin checks and
// the 400 for requests without a session id, which the go-sdk leaves out:
// it starts a new session for any POST without one.
func conformingHandler(opts *mcp.StreamableHTTPOptions) http.Handler {
	next := sdkHandler(opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if !bytes.Contains(body, []byte(`"initialize"`)) {
				http.Error(w, "Bad Request: Mcp-Session-Id required", http.StatusBadRequest)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func httpCodes(fs []Finding) []string {
	codes := []string{}
	for _, f := range fs {
		codes = append(codes, f.Code)
	}
	sort.Strings(codes)
	return codes
}

// TestHTTPChecks runs the HTTP-level checks against a conforming go-sdk
// server and against one fixture per rule that breaks it.
func TestHTTPChecks(t *testing.T) {
	tests := []struct {
		name    string
		handler http.Handler
		version string
		want    []string
	}{
		{"conforming", conformingHandler(nil), "2025-11-25", []string{}},
		{"conforming 2025-03-26", conformingHandler(nil), "2025-03-26", []string{}},
		{"go-sdk default: foreign origin, missing session", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
			return mcp.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil)
		}, nil),
			"2025-11-25", []string{CodeHTTPForeignOrigin, CodeHTTPMissingSession}},
		{"foreign host", conformingHandler(&mcp.StreamableHTTPOptions{DisableLocalhostProtection: true}), "2025-11-25", []string{CodeHTTPForeignHost}},
		{"session charset", &httpDefect{next: conformingHandler(nil), defect: "session charset"}, "2025-11-25", []string{CodeHTTPSessionCharset}},
		{"deleted session", &httpDefect{next: conformingHandler(nil), defect: "deleted session 400"}, "2025-11-25", []string{CodeHTTPDeletedSession}},
		{"missing session", &httpDefect{next: conformingHandler(nil), defect: "missing session 200"}, "2025-11-25", []string{CodeHTTPMissingSession}},
		{"go-sdk: missing session", sdkHandler(nil), "2025-11-25", []string{CodeHTTPMissingSession}},
		{"protocol version", &httpDefect{next: conformingHandler(nil), defect: "protocol version ignored"}, "2025-11-25", []string{CodeHTTPProtocolVersion}},
		{"protocol version before the header existed", &httpDefect{next: conformingHandler(nil), defect: "protocol version ignored"}, "2025-03-26", []string{}},
		{"notification", &httpDefect{next: conformingHandler(nil), defect: "notification 200"}, "2025-11-25", []string{CodeHTTPNotification}},
		{"get", &httpDefect{next: conformingHandler(nil), defect: "get 200 text"}, "2025-11-25", []string{CodeHTTPGet}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(tt.handler)
			t.Cleanup(hs.Close)
			fs, _, n := runHTTPChecks(t.Context(), hs.Client(), hs.URL, tt.version)
			if diff := cmp.Diff(tt.want, httpCodes(fs)); diff != "" {
				t.Errorf("codes (-want +got):\n%s\n%v", diff, fs)
			}
			if n > 12 {
				t.Errorf("%d extra requests, want at most 12", n)
			}
			for _, f := range fs {
				if !strings.Contains(f.Message, `(2025-11-25, Transports`) {
					t.Errorf("%s does not quote the spec: %s", f.Code, f.Message)
				}
			}
		})
	}
}

// TestHTTPChecksEverything runs the checks against the real
// server-everything in streamableHttp mode: it accepts a foreign Host and
// a foreign Origin, and answers 400 instead of 404 on a deleted session;
// a session without client capabilities lists three tools fewer.
func TestHTTPChecksEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	url := testfixture.StartEverythingHTTP(t)
	fs, base, n := runHTTPChecks(t.Context(), http.DefaultClient, url, "2025-11-25")
	want := []string{CodeHTTPDeletedSession, CodeHTTPForeignHost, CodeHTTPForeignOrigin}
	if diff := cmp.Diff(want, httpCodes(fs)); diff != "" {
		t.Errorf("codes (-want +got):\n%s\n%v", diff, fs)
	}
	if len(base) != 13 || base["get-roots-list"] || !base["echo"] {
		t.Errorf("tools without client capabilities = %v, want the 13 unconditional ones", base)
	}
	t.Logf("%d extra requests", n)
}

// BenchmarkHTTPChecksEverything measures the HTTP-level checks against the
// real server-everything: their wall time bounds what they add to a probe,
// which runs them beside the listing.
//
//	go test ./probe -run '^$' -bench HTTPChecksEverything -benchtime 20x
func BenchmarkHTTPChecksEverything(b *testing.B) {
	url := testfixture.StartEverythingHTTP(b)
	// The server's first sessions are slow while node compiles its code.
	runHTTPChecks(b.Context(), http.DefaultClient, url, "2025-11-25")
	b.ResetTimer()
	for b.Loop() {
		runHTTPChecks(b.Context(), http.DefaultClient, url, "2025-11-25")
	}
}
