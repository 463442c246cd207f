package probe

// Session 10 survivors of probe/check_http.go (the HTTP-level checks of a
// streamable-http target): see docs/testing.md for the mutants each test
// kills. All run against go-sdk handlers on loopback servers, wrapped by
// fixtures that break one rule, with no sleeps and no time bounds.

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

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// s10kServer wraps a handler: it records what the target saw (requests,
// session ids issued and deleted, methods on a session) and answers the
// requests answer picks with the status it returns instead of passing
// them on; a request with an id gets a JSON-RPC result {} with it, so
// only the status is wrong.
type s10kServer struct {
	next   http.Handler
	answer func(r *http.Request, method string) int

	mu       sync.Mutex
	requests int
	issued   map[string]bool
	deleted  map[string]bool
	// onSession counts the JSON-RPC methods POSTed with a session id.
	onSession map[string]int
}

// s10kIssue records the session id an answer issues.
type s10kIssue struct {
	http.ResponseWriter
	s *s10kServer
}

func (w s10kIssue) WriteHeader(code int) {
	if sid := w.Header().Get("Mcp-Session-Id"); sid != "" {
		w.s.mu.Lock()
		w.s.issued[sid] = true
		w.s.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w s10kIssue) Write(b []byte) (int, error) {
	if sid := w.Header().Get("Mcp-Session-Id"); sid != "" {
		w.s.mu.Lock()
		w.s.issued[sid] = true
		w.s.mu.Unlock()
	}
	return w.ResponseWriter.Write(b)
}

func (w s10kIssue) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func (s *s10kServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	sid := r.Header.Get("Mcp-Session-Id")
	s.mu.Lock()
	if s.issued == nil {
		s.issued, s.deleted, s.onSession = map[string]bool{}, map[string]bool{}, map[string]int{}
	}
	s.requests++
	if r.Method == http.MethodDelete {
		s.deleted[sid] = true
	}
	if r.Method == http.MethodPost && sid != "" {
		s.onSession[m.Method]++
	}
	s.mu.Unlock()
	if s.answer != nil {
		if status := s.answer(r, m.Method); status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			if len(m.ID) > 0 {
				io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`)
			}
			return
		}
	}
	if sid == "" {
		w = s10kIssue{w, s}
	}
	s.next.ServeHTTP(w, r)
}

// s10kOwnOrigin reports whether a request carries the test server's own
// Origin (http://127.0.0.1:PORT), as the valid-Origin check sends it.
func s10kOwnOrigin(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Origin"), "http://127.0.0.1:")
}

// s10kFound is a finding as the user reads it in a table: code, where,
// and the status seen.
func s10kFound(fs []Finding) []string {
	got := []string{}
	for _, f := range fs {
		got = append(got, f.Code+" "+f.Pointer+" = "+f.Value)
	}
	sort.Strings(got)
	return got
}

// TestS10KThreeHundredIsNotAcceptance: the checks read "accepted" as a
// 2xx answer. A 300 (Multiple Choices, which the HTTP client does not
// follow) to a request the server must accept is a refusal, and a 300 to
// a request the server must refuse is not an acceptance.
func TestS10KThreeHundredIsNotAcceptance(t *testing.T) {
	const foreign = "https://mcpvet-rebinding-check.invalid"
	tests := []struct {
		name   string
		answer func(r *http.Request, method string) int
		want   []string
		// lists, when not 0, is how often tools/list was POSTed on a
		// session.
		lists int
	}{
		{"initialize with the own Origin answered 300 is a refusal",
			func(r *http.Request, method string) int {
				if s10kOwnOrigin(r) && method == "initialize" {
					return http.StatusMultipleChoices
				}
				return 0
			},
			[]string{CodeHTTPValidOrigin + " http:POST initialize (Origin: ORIGIN) = 300"}, 0},
		{"notifications/initialized with the own Origin answered 300 is a refusal",
			func(r *http.Request, method string) int {
				if s10kOwnOrigin(r) && method == "notifications/initialized" {
					return http.StatusMultipleChoices
				}
				return 0
			},
			[]string{CodeHTTPValidOrigin + " http:POST notifications/initialized (Origin: ORIGIN) = 300"}, 0},
		{"notifications/initialized with the own Origin refused 403",
			func(r *http.Request, method string) int {
				if s10kOwnOrigin(r) && method == "notifications/initialized" {
					return http.StatusForbidden
				}
				return 0
			},
			[]string{CodeHTTPValidOrigin + " http:POST notifications/initialized (Origin: ORIGIN) = 403"}, 0},
		{"initialize with a foreign Origin answered 300 is no acceptance",
			func(r *http.Request, method string) int {
				if r.Header.Get("Origin") == foreign {
					return http.StatusMultipleChoices
				}
				return 0
			},
			[]string{}, 0},
		{"notifications/initialized answered 300 was not accepted, so 202 is not owed",
			func(r *http.Request, method string) int {
				if r.Header.Get("Origin") == "" && method == "notifications/initialized" {
					return http.StatusMultipleChoices
				}
				return 0
			},
			[]string{}, 0},
		{"tools/list answered 300: the simultaneous and resumed listings are not tried",
			func(r *http.Request, method string) int {
				if method == "tools/list" && r.Header.Get("Mcp-Session-Id") != "" {
					return http.StatusMultipleChoices
				}
				return 0
			},
			[]string{}, 1},
		{"an unsupported MCP-Protocol-Version answered 300 is no acceptance",
			func(r *http.Request, method string) int {
				if r.Header.Get("Mcp-Protocol-Version") == "1999-01-01" {
					return http.StatusMultipleChoices
				}
				return 0
			},
			[]string{}, 0},
		{"DELETE answered 300 ended nothing: the session still answers",
			func(r *http.Request, method string) int {
				if r.Method == http.MethodDelete {
					return http.StatusMultipleChoices
				}
				return 0
			},
			[]string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &s10kServer{next: conformingHandler(nil), answer: tt.answer}
			hs := httptest.NewServer(srv)
			t.Cleanup(hs.Close)
			fs, _, _ := runHTTPChecks(t.Context(), hs.Client(), hs.URL, "2025-11-25")
			got := s10kFound(fs)
			for i := range got {
				got[i] = strings.ReplaceAll(got[i], originOf(hs.URL), "ORIGIN")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, fs)
			}
			if tt.lists != 0 {
				srv.mu.Lock()
				defer srv.mu.Unlock()
				if got := srv.onSession["tools/list"]; got != tt.lists {
					t.Errorf("tools/list POSTed on a session %d times, want %d", got, tt.lists)
				}
			}
		})
	}
}

// TestS10KDeleteAnswered200 pins that a DELETE answered 200 (not only
// the go-sdk's 204) ended the session, so a later request on it that is
// not answered 404 is a finding.
func TestS10KDeleteAnswered200(t *testing.T) {
	next := conformingHandler(nil)
	ok200 := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			w = &statusWriter{ResponseWriter: w, from: http.StatusNoContent, to: http.StatusOK}
		}
		next.ServeHTTP(w, r)
	})
	hs := httptest.NewServer(&httpDefect{next: ok200, defect: "deleted session 400"})
	t.Cleanup(hs.Close)
	fs, _, _ := runHTTPChecks(t.Context(), hs.Client(), hs.URL, "2025-11-25")
	want := []string{CodeHTTPDeletedSession + " http:POST ping (deleted session) = 400"}
	if diff := cmp.Diff(want, s10kFound(fs)); diff != "" {
		t.Errorf("findings (-want +got):\n%s\n%v", diff, fs)
	}
}

// TestS10KRequestsCounted pins the count runHTTPChecks returns (the one
// the bound maxHTTPCheckRequests is checked against): it is the number of
// requests the target saw, the streamed ones of the resumption check
// included, and the checks did reach the target.
func TestS10KRequestsCounted(t *testing.T) {
	srv := &s10kServer{next: conformingHandler(&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	fs, _, n := runHTTPChecks(t.Context(), hs.Client(), hs.URL, "2025-11-25")
	if len(fs) != 0 {
		t.Errorf("findings on a conforming resumable server: %v", fs)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if n != srv.requests || n == 0 {
		t.Errorf("runHTTPChecks counted %d requests, the server saw %d", n, srv.requests)
	}
	// The resumption check streamed tools/list and resumed it with GET.
	if srv.onSession["tools/list"] < 1+concurrentRequests+1 {
		t.Errorf("tools/list POSTed on the session %d times, want the listing, %d simultaneous ones and the streamed one", srv.onSession["tools/list"], concurrentRequests)
	}
}

// TestS10KSessionsDeleted pins "Sessions the checks open are deleted": a
// server that accepts a foreign Origin had a session opened by that
// check, another by the own-Origin check and one by the session checks,
// and every one of them got its DELETE.
func TestS10KSessionsDeleted(t *testing.T) {
	// The go-sdk handler without Origin checks (conformingHandler adds
	// them), with the 400 for a request without a session id.
	bare := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newNoopServer() }, nil)
	srv := &s10kServer{}
	srv.next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if !bytes.Contains(body, []byte(`"initialize"`)) {
				http.Error(w, "Bad Request: Mcp-Session-Id required", http.StatusBadRequest)
				return
			}
		}
		bare.ServeHTTP(w, r)
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	fs, _, _ := runHTTPChecks(t.Context(), hs.Client(), hs.URL, "2025-11-25")
	if diff := cmp.Diff([]string{CodeHTTPForeignOrigin}, httpCodes(fs)); diff != "" {
		t.Errorf("codes (-want +got):\n%s\n%v", diff, fs)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.issued) != 3 {
		t.Errorf("%d sessions issued, want 3 (foreign Origin, own Origin, session checks): %v", len(srv.issued), srv.issued)
	}
	if diff := cmp.Diff(srv.issued, srv.deleted); diff != "" {
		t.Errorf("sessions issued (-) and deleted (+):\n%s", diff)
	}
}

// TestS10KBaseTools pins the baseline of NeedsClientCapabilities: the tools
// a capability-less session lists on one page; unknown (nil) when the
// listing has more pages or is an error.
func TestS10KBaseTools(t *testing.T) {
	listing := func(answer string) http.Handler {
		next := conformingHandler(nil)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if r.Header.Get("Mcp-Session-Id") != "" && bytes.Contains(body, []byte(`"id":2,"method":"tools/list"`)) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, answer)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	tests := []struct {
		name    string
		handler http.Handler
		want    map[string]bool
	}{
		{"one page", conformingHandler(nil), map[string]bool{"noop": true}},
		{"more pages", listing(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"noop","inputSchema":{"type":"object"}}],"nextCursor":"page-2"}}`), nil},
		{"error", listing(`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"internal error"}}`), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(tt.handler)
			t.Cleanup(hs.Close)
			_, base, _ := runHTTPChecks(t.Context(), hs.Client(), hs.URL, "2025-11-25")
			if diff := cmp.Diff(tt.want, base); diff != "" {
				t.Errorf("base tools (-want +got):\n%s", diff)
			}
		})
	}
}

// s10kBare marks a request that opens a session with no client
// capabilities, as the HTTP checks' sessions do.
type s10kBare struct{}

// s10kCapabilityHandler serves a go-sdk server whose tool list-roots is
// listed only to sessions that declared client capabilities.
func s10kCapabilityHandler() http.Handler {
	full := newNoopServer()
	mcp.AddTool(full, &mcp.Tool{Name: "list-roots", Description: "List the client's roots."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "none"}}}, nil, nil
		})
	bare := newNoopServer()
	next := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if r.Context().Value(s10kBare{}) != nil {
			return bare
		}
		return full
	}, &mcp.StreamableHTTPOptions{CrossOriginProtection: http.NewCrossOriginProtection()})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"capabilities":{}`)) {
				r = r.WithContext(context.WithValue(r.Context(), s10kBare{}, true))
			}
		}
		next.ServeHTTP(w, r)
	})
}

// TestS10KRunNeedsClientCapabilities: a probe of a streamable-http target
// runs the HTTP checks, and a tool the server lists only to a client that
// declares capabilities is marked NeedsClientCapabilities; a 2026-07-28
// target has no capability-less session to compare with, so no tool is.
func TestS10KRunNeedsClientCapabilities(t *testing.T) {
	tests := []struct {
		name      string
		handler   http.Handler
		handshake string
		want      map[string]bool
	}{
		{"initialize", s10kCapabilityHandler(), "initialize", map[string]bool{"list-roots": true, "noop": false}},
		{"2026-07-28", sdkHandler(stateless()), "server/discover", map[string]bool{"noop": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(tt.handler)
			t.Cleanup(hs.Close)
			tr := &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hs.Client()}
			res := Run(t.Context(), tr, &Options{Target: Target{URL: hs.URL, Transport: "streamable-http"}, HTTPClient: hs.Client(),
				Inject: &InjectOptions{Disabled: true}, SkipBasics: true})
			if res.Liveness.Handshake != tt.handshake {
				t.Fatalf("handshake %q, want %q", res.Liveness.Handshake, tt.handshake)
			}
			got := map[string]bool{}
			for _, tool := range res.Tools {
				got[tool.Name] = tool.NeedsClientCapabilities
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NeedsClientCapabilities (-want +got):\n%s", diff)
			}
		})
	}
}

// TestS10KStatelessRefusals: on a 2026-07-28 target, a 300 to a foreign
// Origin is no acceptance, and a request refused with a JSON-RPC error is
// no acceptance even when the HTTP status is 200: the findings are about
// requests answered with a result.
func TestS10KStatelessRefusals(t *testing.T) {
	tests := []struct {
		name    string
		handler func(next http.Handler) http.Handler
	}{
		{"foreign Origin answered 300", func(next http.Handler) http.Handler {
			return &s10kServer{next: next, answer: func(r *http.Request, _ string) int {
				if r.Header.Get("Origin") == "https://mcpvet-rebinding-check.invalid" {
					return http.StatusMultipleChoices
				}
				return 0
			}}
		}},
		{"refusals answered 200 with a JSON-RPC error", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				next.ServeHTTP(&statusWriter{ResponseWriter: w, from: http.StatusBadRequest, to: http.StatusOK}, r)
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(tt.handler(sdkHandler(stateless())))
			t.Cleanup(hs.Close)
			fs, _, _ := runHTTPChecks(t.Context(), hs.Client(), hs.URL, "2026-07-28")
			if diff := cmp.Diff([]string{}, httpCodes(fs)); diff != "" {
				t.Errorf("codes (-want +got):\n%s\n%v", diff, fs)
			}
		})
	}
}

// TestS10KHasResult pins what counts as an answer with a result: a
// JSON-RPC error, a null result or no answer is none.
func TestS10KHasResult(t *testing.T) {
	tests := []struct {
		name string
		r    *reply
		want bool
	}{
		{"result", &reply{msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)}, true},
		{"empty result", &reply{msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{}}`)}, true},
		{"error", &reply{msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"header mismatch"}}`)}, false},
		{"null result", &reply{msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":null}`)}, false},
		{"no message", &reply{status: 200}, false},
		{"no reply", nil, false},
	}
	for _, tt := range tests {
		if got := hasResult(tt.r); got != tt.want {
			t.Errorf("%s: hasResult = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestS10KConcurrentFinding pins how simultaneous requests are judged: a
// status of 400 or more is a refusal, and the message counts them.
func TestS10KConcurrentFinding(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		want     string // the message's start; "" for no finding
	}{
		{"all answered", []int{200, 200, 200}, ""},
		{"transport errors are not refusals", []int{0, 200, 0}, ""},
		{"3xx is not a refusal", []int{399, 200, 300}, ""},
		{"one 400", []int{200, 400, 200}, "1 of 3 simultaneous tools/list requests were refused (statuses [200 400 200])"},
		{"two 409", []int{409, 200, 409}, "2 of 3 simultaneous tools/list requests were refused (statuses [409 200 409])"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &httpChecks{}
			h.concurrentFinding(tt.statuses)
			got := ""
			if len(h.findings) > 1 {
				t.Fatalf("%d findings, want at most 1: %v", len(h.findings), h.findings)
			}
			if len(h.findings) == 1 {
				if h.findings[0].Code != CodeHTTPConcurrent {
					t.Errorf("code %s, want %s", h.findings[0].Code, CodeHTTPConcurrent)
				}
				got = h.findings[0].Message
				if tt.want != "" && strings.HasPrefix(got, tt.want) {
					got = tt.want
				}
			}
			if got != tt.want {
				t.Errorf("message %q, want it to start with %q", got, tt.want)
			}
		})
	}
}

// TestS10KReadSSEEvents pins the SSE parsing of the resumption check:
// data lines of one event join with a newline (and only between them),
// comments are skipped, an id with no data is an event (a priming one),
// and no more than max events are read.
func TestS10KReadSSEEvents(t *testing.T) {
	never := func([]sseEvent) bool { return false }
	tests := []struct {
		name   string
		stream string
		max    int
		want   []sseEvent
	}{
		{"one line", "id: 1\ndata: {\"a\":1}\n\n", 16, []sseEvent{{"1", `{"a":1}`}}},
		{"lines joined", "data: first\ndata: second\ndata:third\n\n", 16, []sseEvent{{"", "first\nsecond\nthird"}}},
		{"priming event and comment", ": keep-alive\n\nid: p\ndata: \n\nid: 2\ndata: x\n\n", 16, []sseEvent{{"p", ""}, {"2", "x"}}},
		{"bounded", "data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n", 3, []sseEvent{{"", "1"}, {"", "2"}, {"", "3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readSSEEvents(strings.NewReader(tt.stream), tt.max, never)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(sseEvent{})); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
