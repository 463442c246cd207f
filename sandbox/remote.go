package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/vocab"
)

// remoteTransport reaches a streamable-http or sse server. It wraps the
// go-sdk client transports with a bounded HTTP client, the plan's headers,
// and the fallback from streamable HTTP to the legacy SSE transport that the
// 2025-03-26 revision describes ("Backwards Compatibility": POST the
// initialize request; if it fails with a 4xx status, GET the URL expecting
// an SSE stream whose first event is "endpoint").
type remoteTransport struct {
	s      *Server
	plan   *vocab.Plan
	client *http.Client
	rt     *remoteRoundTripper

	mu   sync.Mutex
	conn *remoteConn
	used bool
}

func newRemoteTransport(ctx context.Context, s *Server, plan *vocab.Plan) (*remoteTransport, error) {
	u, err := url.Parse(plan.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "remote URL %q is not an http(s) URL", redactUserinfo(plan.URL))
	}
	if err := checkRemoteURL(ctx, plan, s.opts.AllowPrivateNetwork, s.opts.resolver()); err != nil {
		return nil, err
	}
	headers := map[string]string{}
	for k, v := range plan.Headers {
		if !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
			return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid header %q", k)
		}
		headers[k] = v
	}
	// Secret headers ("header:NAME" in plan.Secrets) the plan leaves empty
	// get a canary, like secret environment variables do.
	for _, sec := range plan.Secrets {
		name, ok := strings.CutPrefix(sec, vocab.SecretHeaderPrefix)
		if !ok {
			continue
		}
		if !validHeaderName(name) {
			return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid secret header %q", name)
		}
		if headers[name] != "" {
			continue
		}
		c := newCanary()
		headers[name] = c
		if s.canaries == nil {
			s.canaries = map[string]string{}
		}
		s.canaries[sec] = c
	}
	lim := s.opts.Limits
	base := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            guardedDial(plan, s.opts.AllowPrivateNetwork, s.opts.resolver()),
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  30 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	home := origin(u)
	rt := &remoteRoundTripper{base: base, headers: headers, home: home, s: s, maxBody: int64(lim.MessageBytes), maxTotal: lim.StdoutBytes}
	client := &http.Client{
		Transport:     rt,
		CheckRedirect: checkRedirect(s, home, len(headers) > 0),
	}
	return &remoteTransport{s: s, plan: plan, client: client, rt: rt}, nil
}

// validHeaderName reports whether name is an RFC 9110 token.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// Connect implements [mcp.Transport]. For streamable-http nothing is sent
// until the first Write; for sse the GET is made now.
func (t *remoteTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used {
		return nil, errors.New("connecting remote server: transport already used")
	}
	t.used = true
	s := t.s
	s.mu.Lock()
	s.started = true
	s.startTime = time.Now()
	s.mu.Unlock()
	c := &remoteConn{t: t, decided: make(chan struct{}), closed: make(chan struct{})}
	lim := s.opts.Limits
	if t.plan.Transport == vocab.TransportSSE {
		conn, cancel, err := t.connectSSE(ctx)
		if err != nil {
			return nil, fmt.Errorf("connecting sse server: %w", err)
		}
		c.conn, c.cancel = conn, cancel
		c.decide("transport: legacy SSE")
	} else {
		conn, err := (&mcp.StreamableClientTransport{
			Endpoint:     t.plan.URL,
			HTTPClient:   t.client,
			MaxRetries:   2,
			MaxEventSize: lim.MessageBytes,
			// The standalone GET stream needs session state the go-sdk only
			// shares with its own connection type, which we wrap.
			DisableStandaloneSSE: true,
		}).Connect(ctx)
		if err != nil {
			return nil, fmt.Errorf("connecting streamable-http server: %w", err)
		}
		c.conn = conn
	}
	if lim.Wall > 0 {
		c.wall = time.AfterFunc(lim.Wall, func() {
			s.setLimit(LimitWallTime)
			c.Close()
		})
	}
	t.conn = c
	return c, nil
}

// connectSSE opens the legacy SSE stream. The go-sdk binds the hanging GET
// to the context given to Connect, so that context is detached from ctx
// (which only bounds the connection attempt) and cancelled at Close.
func (t *remoteTransport) connectSSE(ctx context.Context) (mcp.Connection, context.CancelFunc, error) {
	connCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := (&mcp.SSEClientTransport{Endpoint: t.plan.URL, HTTPClient: t.client, MaxEventSize: t.s.opts.Limits.MessageBytes}).Connect(connCtx)
	if !stop() || err != nil {
		cancel()
		if err == nil {
			conn.Close()
			err = ctx.Err()
		}
		return nil, nil, err
	}
	return conn, cancel, nil
}

func (t *remoteTransport) close() error {
	t.mu.Lock()
	c := t.conn
	t.mu.Unlock()
	var err error
	if c != nil {
		err = c.Close()
	}
	t.client.CloseIdleConnections()
	return err
}

// remoteConn is the connection with the transport decided at the first
// Write.
type remoteConn struct {
	t        *remoteTransport
	decideMu sync.Mutex // serializes Writes until the transport is decided
	mu       sync.Mutex // guards conn and cancel
	conn     mcp.Connection
	decided  chan struct{} // closed once conn is final
	once     sync.Once
	closed   chan struct{}
	closeMu  sync.Once
	wall     *time.Timer
	cancel   context.CancelFunc // ends the SSE stream's context, if any
}

func (c *remoteConn) decide(warning string) {
	c.once.Do(func() {
		c.t.s.warn(warning)
		close(c.decided)
	})
}

func (c *remoteConn) current() mcp.Connection {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

func (c *remoteConn) SessionID() string { return c.current().SessionID() }

// Read waits for the transport to be decided, then reads from it.
func (c *remoteConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case <-c.decided:
	}
	msg, err := c.current().Read(ctx)
	if err == nil {
		c.t.rt.noteProtocolVersion(msg)
	}
	return msg, err
}

// Write sends msg. The first Write decides the transport, following the
// specification's "Backwards Compatibility" section for clients (2025-11-25):
// POST the first request; "If it fails with the following HTTP status codes
// "400 Bad Request", "404 Not Found" or "405 Method Not Allowed": Issue a
// GET request to the server URL, expecting that this will open an SSE
// stream and return an endpoint event as the first event." Any other status
// (401, 403, 429, 5xx, ...) keeps streamable HTTP.
//
// A 400, 404 or 405 that carries a JSON-RPC error is not such a failure: the server
// speaks streamable HTTP and rejected the request (a 2025-11-25 server
// answers server/discover with 400 and "Server not initialized"), so the
// go-sdk retries with initialize on the same transport. And when the GET
// does not yield an SSE endpoint either, the streamable connection is kept,
// so that retry still has a transport to run on.
func (c *remoteConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.decided:
		return c.current().Write(ctx, msg)
	default:
	}
	// Deciding Writes are serialized by decideMu; c.mu only guards the
	// swap, so Close never waits for the network.
	c.decideMu.Lock()
	defer c.decideMu.Unlock()
	select {
	case <-c.decided:
		return c.current().Write(ctx, msg)
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	streamable := c.current()
	err := streamable.Write(ctx, msg)
	status := c.t.rt.firstStatus()
	werr := serverError(err)
	if werr == nil {
		werr = c.t.rt.firstError()
	}
	switch {
	case err == nil || !sseFallbackStatus[status]:
		c.decide("transport: streamable-http")
		return err
	case werr != nil:
		c.decide(fmt.Sprintf("transport: streamable-http (first POST answered %d with JSON-RPC error %d; retried on the same transport)", status, werr.Code))
		return err
	}
	sse, cancel, serr := c.t.connectSSE(ctx)
	if serr != nil {
		c.decide(fmt.Sprintf("transport: streamable-http (POST answered %d; legacy SSE fallback failed: %v)", status, serr))
		return err
	}
	c.mu.Lock()
	c.conn, c.cancel = sse, cancel
	c.mu.Unlock()
	_ = streamable.Close()
	select {
	case <-c.closed:
		// Closed while we connected: do not leak the stream.
		_ = sse.Close()
		cancel()
		return mcp.ErrConnectionClosed
	default:
	}
	c.decide(fmt.Sprintf("transport: legacy SSE (streamable-http POST answered %d)", status))
	return sse.Write(ctx, msg)
}

// sseFallbackStatus are the statuses the specification names for trying
// the legacy HTTP+SSE transport.
var sseFallbackStatus = map[int]bool{http.StatusBadRequest: true, http.StatusNotFound: true, http.StatusMethodNotAllowed: true}

// serverError returns the JSON-RPC error a server sent inside err, if any.
// The go-sdk marks per-call rejections with its own "rejected by transport"
// error (-32005), which is no answer from the server and is skipped.
func serverError(err error) *jsonrpc.Error {
	switch e := err.(type) {
	case nil:
		return nil
	case *jsonrpc.Error:
		if e.Code == -32005 && e.Message == "rejected by transport" {
			return nil
		}
		return e
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			if w := serverError(inner); w != nil {
				return w
			}
		}
		return nil
	case interface{ Unwrap() error }:
		return serverError(e.Unwrap())
	}
	return nil
}

// Close closes the underlying connection; it is idempotent.
func (c *remoteConn) Close() error {
	var err error
	c.closeMu.Do(func() {
		close(c.closed)
		if c.wall != nil {
			c.wall.Stop()
		}
		err = c.current().Close()
		c.mu.Lock()
		if c.cancel != nil {
			c.cancel()
		}
		c.mu.Unlock()
	})
	return err
}

// remoteRoundTripper adds the plan's headers, bounds response bodies, and
// remembers what the fallback and the protocol version header need.
type remoteRoundTripper struct {
	base     http.RoundTripper
	headers  map[string]string
	home     string // origin the headers belong to
	s        *Server
	maxBody  int64 // one JSON body
	maxTotal int64 // all bodies together
	total    atomic.Int64

	mu              sync.Mutex
	first           int            // status of the first POST, 0 before
	firstErr        *jsonrpc.Error // JSON-RPC error in a 4xx answer to the first POST
	protocolVersion string
}

// maxErrorPeek bounds what is read of a 4xx body to find a JSON-RPC error.
const maxErrorPeek = 64 << 10

func (r *remoteRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.Response == nil && origin(req.URL) != r.home {
		// Not a redirect mcpvet followed: the server itself named this
		// URL, as a legacy SSE "endpoint" event does. Messages go to the
		// server's own origin only, never to a host it chooses.
		r.s.warn(fmt.Sprintf("the server's SSE endpoint names another origin (%s); mcpvet posts only to %s", origin(req.URL), r.home))
		return nil, fmt.Errorf("%w: %s", errSSEEndpointOrigin, origin(req.URL))
	}
	req = req.Clone(req.Context())
	for k, v := range r.headers {
		// The transport's own headers win: a plan must not be able to
		// break the protocol (Content-Type, Accept, session id). The
		// plan's headers go to the plan's origin only.
		if req.Header.Get(k) == "" && origin(req.URL) == r.home {
			req.Header.Set(k, v)
		}
	}
	r.mu.Lock()
	if pv := r.protocolVersion; pv != "" && req.Header.Get("Mcp-Protocol-Version") == "" {
		req.Header.Set("Mcp-Protocol-Version", pv)
	}
	r.mu.Unlock()
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	r.s.noteHTTP(resp)
	if req.Method == http.MethodPost {
		r.mu.Lock()
		first := r.first == 0
		if first {
			r.first = resp.StatusCode
		}
		r.mu.Unlock()
		if first && resp.StatusCode >= 400 && resp.StatusCode < 500 {
			// The go-sdk drops error bodies it cannot decode, such as the
			// TypeScript SDK's {"id": null, "error": ...}; the fallback
			// decision needs to know whether one was there.
			peek, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorPeek))
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(peek), resp.Body), resp.Body}
			if werr := decodeErrorBody(peek); werr != nil {
				r.mu.Lock()
				r.firstErr = werr
				r.mu.Unlock()
			}
		}
	}
	max := r.maxBody
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		max = -1 // streams are bounded per event (MaxEventSize) and in total
	}
	resp.Body = &boundedBody{rc: resp.Body, max: max, r: r}
	return resp, nil
}

// decodeErrorBody returns the JSON-RPC error object in body, if it is one.
func decodeErrorBody(body []byte) *jsonrpc.Error {
	var msg struct {
		JSONRPC string `json:"jsonrpc"`
		Error   *struct {
			Code    *int64 `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.JSONRPC != "2.0" || msg.Error == nil || msg.Error.Code == nil {
		return nil
	}
	return &jsonrpc.Error{Code: *msg.Error.Code, Message: msg.Error.Message}
}

func (r *remoteRoundTripper) firstError() *jsonrpc.Error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.firstErr
}

func (r *remoteRoundTripper) firstStatus() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first
}

// noteProtocolVersion records the version an initialize (or discover)
// result negotiated, for the Mcp-Protocol-Version header.
func (r *remoteRoundTripper) noteProtocolVersion(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.protocolVersion != "" {
		return
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &res) == nil && res.ProtocolVersion != "" && len(res.ProtocolVersion) < 64 &&
		!strings.ContainsAny(res.ProtocolVersion, "\r\n\x00") {
		r.protocolVersion = res.ProtocolVersion
	}
}

// errBodyTooLarge ends a response body that exceeds a limit.
var errBodyTooLarge = errors.New("response body exceeds limit")

type boundedBody struct {
	rc   io.ReadCloser
	max  int64
	n    int64
	r    *remoteRoundTripper
	over bool
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.over {
		return 0, errBodyTooLarge
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	total := b.r.total.Add(int64(n))
	if b.max >= 0 && b.n > b.max {
		b.over = true
		b.r.s.setLimit(LimitMessageSize)
		return 0, errBodyTooLarge
	}
	if b.r.maxTotal > 0 && total > b.r.maxTotal {
		b.over = true
		b.r.s.setLimit(LimitStdoutBytes)
		return 0, errBodyTooLarge
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }
