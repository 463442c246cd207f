// Command httpdefects is a go-sdk streamable-HTTP MCP server that is
// conformant by default and breaks one rule with -defect NAME, for running
// mcpvet and the official conformance suite side by side on the same
// servers (issue 23). It listens on -addr and prints "LISTENING URL".
//
// Defects: sdk-default (the go-sdk handler with default options: no
// Origin check, no 400 without a session id), concurrent-409 (a second
// request of a session while one is in flight gets 409), origin-refused
// (any request with an Origin is refused 403), deleted-session-400,
// missing-session-200, protocol-version-ignored, notification-200,
// get-200-text, bad-version (initialize answers 1999-01-01), cursor-loop
// (tools/list repeats its cursor and its page), method-header-ignored
// (2026-07-28: Mcp-Method is never compared with the body). With
// -stateless the go-sdk serves 2026-07-28 (server/discover) too.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func newServer(defect string) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "httpdefects", Version: "1.0.0"}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)}
	type in struct {
		Text string `json:"text" jsonschema:"the text to echo back"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Title: "Echo", Description: "Echo the text back unchanged.", Annotations: ro},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	switch defect {
	case "bad-version":
		server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				r, err := next(ctx, method, req)
				if ir, ok := r.(*mcp.InitializeResult); ok && err == nil {
					ir.ProtocolVersion = "1999-01-01"
				}
				return r, err
			}
		})
	case "cursor-loop":
		server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				r, err := next(ctx, method, req)
				if lr, ok := r.(*mcp.ListToolsResult); ok && err == nil {
					lr.NextCursor = "again"
				}
				return r, err
			}
		})
	}
	return server
}

type handler struct {
	next      http.Handler
	defect    string
	stateless bool // no sessions: the 400 without a session id does not apply
	mu        sync.Mutex
	deleted   map[string]bool
	inFlight  map[string]bool
}

type statusWriter struct {
	http.ResponseWriter
	from, to int
}

func (w *statusWriter) WriteHeader(code int) {
	if code == w.from {
		code = w.to
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	sid := r.Header.Get("Mcp-Session-Id")
	isInit := bytes.Contains(body, []byte(`"initialize"`))
	// Conformant: a request without a session id (other than initialize)
	// gets 400, which the go-sdk leaves out.
	if !h.stateless && h.defect != "sdk-default" && h.defect != "missing-session-200" && r.Method == http.MethodPost && sid == "" && !isInit {
		http.Error(w, "Bad Request: Mcp-Session-Id required", http.StatusBadRequest)
		return
	}
	switch h.defect {
	case "concurrent-409":
		if h.stateless {
			sid = "*" // one request at a time for the whole server
		}
		if r.Method == http.MethodPost && sid != "" && !isInit {
			h.mu.Lock()
			if h.inFlight[sid] {
				h.mu.Unlock()
				http.Error(w, "Conflict: a request of this session is in progress", http.StatusConflict)
				return
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
	case "origin-refused":
		if r.Header.Get("Origin") != "" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
	case "deleted-session-400":
		h.mu.Lock()
		gone := h.deleted[sid]
		if r.Method == http.MethodDelete {
			h.deleted[sid] = true
		}
		h.mu.Unlock()
		if gone {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
	case "missing-session-200":
		// A tools/list without a session id is answered as if it had one.
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if sid == "" && r.Method == http.MethodPost && json.Unmarshal(body, &m) == nil && m.Method == "tools/list" && m.ID != nil {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m.ID)
			return
		}
	case "protocol-version-ignored":
		if r.Header.Get("Mcp-Method") != "" {
			// 2026-07-28: the header is made to agree with _meta.
			r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		} else {
			r.Header.Del("Mcp-Protocol-Version")
		}
	case "method-header-ignored":
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method != "" {
			r.Header.Set("Mcp-Method", m.Method)
		}
	case "notification-200":
		w = &statusWriter{ResponseWriter: w, from: http.StatusAccepted, to: http.StatusOK}
	case "get-200-text":
		if r.Method == http.MethodGet {
			io.WriteString(w, "hello")
			return
		}
	}
	h.next.ServeHTTP(w, r)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	defect := flag.String("defect", "", "the rule to break (empty: conformant)")
	stateless := flag.Bool("stateless", false, "serve stateless, which is how the go-sdk speaks 2026-07-28")
	flag.Parse()
	server := newServer(*defect)
	opts := &mcp.StreamableHTTPOptions{Stateless: *stateless}
	if *defect != "sdk-default" {
		opts.CrossOriginProtection = http.NewCrossOriginProtection()
	}
	h := &handler{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts),
		defect: *defect, stateless: *stateless, deleted: map[string]bool{}, inFlight: map[string]bool{}}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpdefects:", err)
		os.Exit(1)
	}
	fmt.Printf("LISTENING http://%s/mcp\n", l.Addr())
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
		<-ch
		_ = srv.Close()
	}()
	_ = srv.Serve(l)
}
