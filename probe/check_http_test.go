package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
)

// httpDefect wraps a conforming go-sdk streamable handler and breaks one
// HTTP-level rule.
type httpDefect struct {
	next     http.Handler
	defect   string
	mu       sync.Mutex
	deleted  map[string]bool
	inFlight map[string]bool
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
	case "origin refused":
		// Over-blocking: any Origin at all is refused.
		if r.Header.Get("Origin") != "" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
	case "concurrent 409":
		// One request at a time per session: a second one while the
		// first is in flight is refused with 409 Conflict.
		if r.Method == http.MethodPost && sid != "" && bytes.Contains(body, []byte(`"tools/list"`)) {
			h.mu.Lock()
			if h.inFlight[sid] {
				h.mu.Unlock()
				http.Error(w, "Conflict: a request is in progress", http.StatusConflict)
				return
			}
			if h.inFlight == nil {
				h.inFlight = map[string]bool{}
			}
			h.inFlight[sid] = true
			h.mu.Unlock()
			defer func() {
				h.mu.Lock()
				delete(h.inFlight, sid)
				h.mu.Unlock()
			}()
			time.Sleep(100 * time.Millisecond)
		}
	case "concurrent 409 stateless":
		// One request at a time for the whole server.
		if r.Method == http.MethodPost && bytes.Contains(body, []byte(`"tools/list"`)) {
			h.mu.Lock()
			if h.inFlight["*"] {
				h.mu.Unlock()
				http.Error(w, "Conflict", http.StatusConflict)
				return
			}
			if h.inFlight == nil {
				h.inFlight = map[string]bool{}
			}
			h.inFlight["*"] = true
			h.mu.Unlock()
			defer func() {
				h.mu.Lock()
				delete(h.inFlight, "*")
				h.mu.Unlock()
			}()
			time.Sleep(100 * time.Millisecond)
		}
	case "protocol version rewritten":
		// A server that takes the version from _meta and never compares
		// the header with it.
		if r.Header.Get("Mcp-Protocol-Version") != "" {
			r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		}
	case "method header rewritten":
		// A server that never looks at Mcp-Method: the header is made to
		// match the body before the SDK sees it.
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method != "" {
			r.Header.Set("Mcp-Method", m.Method)
		}
	case "meta filled in":
		// A server that serves a request without _meta as if it had one.
		if bytes.Contains(body, []byte(`"params":{}`)) {
			body = bytes.Replace(body, []byte(`"params":{}`), []byte(`"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`), 1)
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
	case "resume lost":
		// Resumption without an event store behind it: the stream is
		// primed, but a GET with Last-Event-ID replays nothing.
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
	case "resume repeated":
		// The event Last-Event-ID names is sent again first.
		if last := r.Header.Get("Last-Event-ID"); r.Method == http.MethodGet && last != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "event: prime\nid: "+last+"\ndata: \n\n")
			w.(http.Flusher).Flush()
			w = &headerWritten{w}
		}
	case "get 200 text":
		if r.Method == http.MethodGet {
			io.WriteString(w, "hello")
			return
		}
	}
	h.next.ServeHTTP(w, r)
}

// headerWritten ignores a second WriteHeader after a fixture wrote its own.
type headerWritten struct{ http.ResponseWriter }

func (headerWritten) WriteHeader(int) {}

func (w headerWritten) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// stateless is the go-sdk option that makes its handler speak 2026-07-28.
func stateless() *mcp.StreamableHTTPOptions { return &mcp.StreamableHTTPOptions{Stateless: true} }

func newNoopServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "http-check", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "noop", Description: "Do nothing."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	return server
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
		{"protocol version 2025-06-18, the revision that introduced the header", &httpDefect{next: conformingHandler(nil), defect: "protocol version ignored"}, "2025-06-18", []string{CodeHTTPProtocolVersion}},
		{"protocol version before the header existed", &httpDefect{next: conformingHandler(nil), defect: "protocol version ignored"}, "2025-03-26", []string{}},
		{"notification", &httpDefect{next: conformingHandler(nil), defect: "notification 200"}, "2025-11-25", []string{CodeHTTPNotification}},
		{"get", &httpDefect{next: conformingHandler(nil), defect: "get 200 text"}, "2025-11-25", []string{CodeHTTPGet}},
		{"own origin refused", &httpDefect{next: conformingHandler(nil), defect: "origin refused"}, "2025-11-25", []string{CodeHTTPValidOrigin}},
		{"concurrent requests refused", &httpDefect{next: conformingHandler(nil), defect: "concurrent 409"}, "2025-11-25", []string{CodeHTTPConcurrent}},
		{"resumable conforming", conformingHandler(&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}), "2025-11-25", []string{}},
		{"resumption loses the response", &httpDefect{next: conformingHandler(&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}), defect: "resume lost"}, "2025-11-25", []string{CodeHTTPSSELost}},
		{"resumption repeats the last event", &httpDefect{next: conformingHandler(&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}), defect: "resume repeated"}, "2025-11-25", []string{CodeHTTPSSERepeated}},
		{"2026-07-28 conforming", sdkHandler(stateless()), "2026-07-28", []string{}},
		{"2026-07-28 go-sdk default: foreign origin", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newNoopServer() }, stateless()), "2026-07-28", []string{CodeHTTPForeignOrigin}},
		{"2026-07-28 foreign host", sdkHandler(&mcp.StreamableHTTPOptions{Stateless: true, DisableLocalhostProtection: true}), "2026-07-28", []string{CodeHTTPForeignHost}},
		{"2026-07-28 own origin refused", &httpDefect{next: sdkHandler(stateless()), defect: "origin refused"}, "2026-07-28", []string{CodeHTTPValidOrigin}},
		{"2026-07-28 concurrent requests refused", &httpDefect{next: sdkHandler(stateless()), defect: "concurrent 409 stateless"}, "2026-07-28", []string{CodeHTTPConcurrent}},
		{"2026-07-28 Mcp-Method not validated", &httpDefect{next: sdkHandler(stateless()), defect: "method header rewritten"}, "2026-07-28", []string{CodeHTTPMethodHeader}},
		{"2026-07-28 protocol version header not validated", &httpDefect{next: sdkHandler(stateless()), defect: "protocol version rewritten"}, "2026-07-28", []string{CodeHTTPProtocolVersion}},
		{"2026-07-28 _meta not required", &httpDefect{next: sdkHandler(stateless()), defect: "meta filled in"}, "2026-07-28", []string{CodeHTTPMetaMissing}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(tt.handler)
			t.Cleanup(hs.Close)
			fs, _, n := runHTTPChecks(t.Context(), hs.Client(), hs.URL, tt.version)
			if diff := cmp.Diff(tt.want, httpCodes(fs)); diff != "" {
				t.Errorf("codes (-want +got):\n%s\n%v", diff, fs)
			}
			if n > maxHTTPCheckRequests {
				t.Errorf("%d extra requests, want at most %d", n, maxHTTPCheckRequests)
			}
			for _, f := range fs {
				if !strings.Contains(f.Message, `(2025-11-25, Transports`) && !strings.Contains(f.Message, `2026-07-28, schema`) {
					t.Errorf("%s does not quote the spec: %s", f.Code, f.Message)
				}
			}
		})
	}
}

// TestVisibleASCII pins the session-id charset bounds of the 2025-11-25
// transport text: 0x21 to 0x7E, so space (0x20) and DEL (0x7F) are out.
func TestVisibleASCII(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"", false},
		{"!", true},
		{"~", true},
		{"a1-B2_c3.~!", true},
		{"a b", false},
		{"a\x7fb", false},
		{"\x7f", false},
		{"\x80", false},
		{"é", false},
		{"tab\there", false},
	}
	for _, tt := range tests {
		if got := visibleASCII(tt.id); got != tt.want {
			t.Errorf("visibleASCII(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

// TestForeignHostSource pins where http/foreign_host_accepted comes from:
// SDK hardening (the DNS-rebinding advisories), not a MUST of the
// transport text, and graded info accordingly.
func TestForeignHostSource(t *testing.T) {
	e, ok := catalog[CodeHTTPForeignHost]
	if !ok || e.Severity != SeverityInfo {
		t.Errorf("%s severity = %q, want info (hardening, not a spec rule)", CodeHTTPForeignHost, e.Severity)
	}
	why := Why(CodeHTTPForeignHost)
	for _, want := range []string{"GHSA-w48q-cv73-mx4w", "GHSA-xw59-hvm2-8pj6", "not a line of the specification"} {
		if !strings.Contains(why, want) {
			t.Errorf("Why(%s) lacks %q: %s", CodeHTTPForeignHost, want, why)
		}
	}
	if strings.Contains(specHost, "MUST validate the Origin") {
		t.Errorf("the Host finding still quotes the Origin MUST: %s", specHost)
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

// TestRunHTTPStateless: a probe of a server that negotiates 2026-07-28
// over streamable HTTP (handshake server/discover) runs the stateless HTTP
// checks; a conforming go-sdk server draws no http finding.
func TestRunHTTPStateless(t *testing.T) {
	for _, tt := range []struct {
		name    string
		handler http.Handler
		want    []string
	}{
		{"conforming", sdkHandler(stateless()), nil},
		{"Mcp-Method not validated", &httpDefect{next: sdkHandler(stateless()), defect: "method header rewritten"}, []string{CodeHTTPMethodHeader}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(tt.handler)
			t.Cleanup(hs.Close)
			tr := &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hs.Client()}
			res := Run(t.Context(), tr, &Options{Target: Target{URL: hs.URL, Transport: "streamable-http"}, HTTPClient: hs.Client(),
				Inject: &InjectOptions{Disabled: true}, SkipBasics: true})
			if res.Liveness.ProtocolVersion != "2026-07-28" || res.Liveness.Handshake != "server/discover" {
				t.Fatalf("negotiated %q by %q, want 2026-07-28 by server/discover", res.Liveness.ProtocolVersion, res.Liveness.Handshake)
			}
			var got []string
			for _, f := range res.Findings {
				if strings.HasPrefix(f.Code, "http/") {
					got = append(got, f.Code)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("http findings (-want +got):\n%s\n%v", diff, res.Findings)
			}
		})
	}
}
