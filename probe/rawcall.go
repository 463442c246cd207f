package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/version"
	"github.com/mcpvet/mcpvet/vocab"
)

// Raw calls are requests the probe writes straight to the server's
// connection, bypassing the go-sdk client: the client rewrites a nil
// `arguments` to {}, refuses some request shapes and, for 2026-07-28
// sessions, answers list requests from its cache, so failure injection could
// not send what it means to through it.
//
// Raw calls use their own ID space, the strings "mcpvet-1", "mcpvet-2", ...,
// while the SDK numbers its requests; [recordingConn.Read] takes every
// response with a raw ID off the wire before the SDK sees it, so the SDK
// never meets a response to a request it did not send. The recorder still
// times them, so they appear in the call log like any other request.

// rawIDPrefix starts the ID of every raw call.
const rawIDPrefix = "mcpvet-"

// errConnDead reports that the connection under a raw call failed.
var errConnDead = errors.New("connection closed")

// rawState is the raw-call side of one [recordingConn]. Its zero value is
// ready to use; all fields are behind mu.
type rawState struct {
	mu      sync.Mutex
	next    int
	waiters map[string]chan *jsonrpc.Response
	dead    chan struct{} // closed when a Read from the server fails
	deadErr error
	// meta is the latest SEP-2575 request _meta the SDK sent on this
	// connection (the server/discover handshake carries the full triple).
	meta json.RawMessage
}

func (s *rawState) init() {
	if s.waiters == nil {
		s.waiters = map[string]chan *jsonrpc.Response{}
		s.dead = make(chan struct{})
	}
}

// register allocates a raw ID and the channel its response is delivered on.
func (s *rawState) register() (string, chan *jsonrpc.Response, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	s.next++
	id := rawIDPrefix + strconv.Itoa(s.next)
	ch := make(chan *jsonrpc.Response, 1)
	s.waiters[id] = ch
	return id, ch, s.dead
}

func (s *rawState) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiters, id)
}

// deliver hands a response with a raw ID to its waiter. It reports whether
// msg belonged to the raw ID space, in which case the SDK must not see it,
// even when nobody waits any more (a late answer to a timed-out probe).
func (s *rawState) deliver(msg jsonrpc.Message) bool {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return false
	}
	id, ok := resp.ID.Raw().(string)
	if !ok || !strings.HasPrefix(id, rawIDPrefix) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch, ok := s.waiters[id]; ok {
		delete(s.waiters, id)
		ch <- resp // buffered, and each waiter gets one response
	}
	return true
}

// fail marks the connection dead after a failed Read.
func (s *rawState) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	select {
	case <-s.dead:
	default:
		s.deadErr = err
		close(s.dead)
	}
}

// noteMeta keeps the SEP-2575 _meta of an SDK request so raw calls can
// mirror it.
func (s *rawState) noteMeta(req *jsonrpc.Request) {
	if !req.IsCall() || len(req.Params) == 0 || !strings.Contains(string(req.Params), mcp.MetaKeyProtocolVersion) {
		return
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &p) != nil || p.Meta[mcp.MetaKeyProtocolVersion] == nil {
		return
	}
	b, err := json.Marshal(p.Meta)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.meta = b
}

// requestMeta returns the _meta a request of a session speaking version
// needs: for 2026-07-28 and later the protocol version, client info and
// client capabilities the SDK itself sends (see injectRequestMeta in the
// go-sdk's mcp/client.go), with the negotiated version; nil before.
func (s *rawState) requestMeta(version string) map[string]json.RawMessage {
	if version < vocab.Protocol20260728 {
		return nil
	}
	s.mu.Lock()
	saved := s.meta
	s.mu.Unlock()
	m := map[string]json.RawMessage{}
	if saved != nil {
		_ = json.Unmarshal(saved, &m)
	}
	m[mcp.MetaKeyProtocolVersion], _ = json.Marshal(version)
	if m[mcp.MetaKeyClientInfo] == nil {
		m[mcp.MetaKeyClientInfo], _ = json.Marshal(clientImplementation())
	}
	if m[mcp.MetaKeyClientCapabilities] == nil {
		m[mcp.MetaKeyClientCapabilities] = json.RawMessage(`{}`)
	}
	return m
}

func clientImplementation() *mcp.Implementation {
	return &mcp.Implementation{Name: "mcpvet", Version: version.Version}
}

// withMeta adds the _meta a session speaking version needs to params (a JSON
// object or empty), unless params already carries one.
func (c *recordingConn) withMeta(params json.RawMessage, version string) (json.RawMessage, error) {
	meta := c.raw.requestMeta(version)
	if meta == nil {
		return params, nil
	}
	obj := map[string]json.RawMessage{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &obj); err != nil {
			return nil, fmt.Errorf("adding _meta: params are not an object: %w", err)
		}
	}
	if _, ok := obj["_meta"]; ok {
		return params, nil
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("adding _meta: %w", err)
	}
	obj["_meta"] = b
	return json.Marshal(obj)
}

// rawCall sends one request with a raw ID straight to the server and waits
// for its response, ctx's end or the connection's failure. params is sent
// exactly as given (nil omits the member). A JSON-RPC error response is
// returned as werr with a nil err; err is set only when no response came:
// it wraps ctx.Err() on timeout and errConnDead when the server went away.
//
// rawCall is safe for concurrent use, and with the SDK's own traffic on the
// same connection; it needs the SDK's read loop running, which it is for
// as long as the client session is open.
func (c *recordingConn) rawCall(ctx context.Context, method string, params json.RawMessage) (result json.RawMessage, werr *jsonrpc.Error, err error) {
	key, ch, dead := c.raw.register()
	id, err := jsonrpc.MakeID(key)
	if err != nil {
		c.raw.drop(key)
		return nil, nil, fmt.Errorf("raw call %s: %w", method, err)
	}
	req := &jsonrpc.Request{ID: id, Method: method, Params: params}
	c.rec.sent(req)
	if err := c.write(ctx, req); err != nil {
		c.raw.drop(key)
		if ctx.Err() != nil {
			c.rec.abandonID(id, "timeout")
			return nil, nil, fmt.Errorf("raw call %s: %w", method, ctx.Err())
		}
		// Over HTTP the server may answer the POST itself with an error:
		// a JSON-RPC error in the body is its answer; a 4xx status without
		// one is an answer too, not a death (the go-sdk's streamable
		// server answers an unknown method with 400 and plain text, and
		// the next request with 200). Whether the server still answers is
		// for the caller to check.
		var jerr *jsonrpc.Error
		if errors.As(err, &jerr) {
			c.rec.abandonID(id, "http error")
			return nil, jerr, nil
		}
		if code := httpRejection(err); code != 0 {
			// The go-sdk client fails its connection after such an
			// answer: no further request can go through it.
			c.raw.fail(err)
			c.rec.abandonID(id, "http error")
			return nil, nil, fmt.Errorf("raw call %s: %w", method, &HTTPStatusError{Code: code, Err: err})
		}
		// A write that fails outside a timeout means the server is gone,
		// even if the read loop has not seen it yet: mark the connection
		// dead so no further request is sent to it.
		c.raw.fail(err)
		c.rec.abandonID(id, "closed")
		return nil, nil, fmt.Errorf("raw call %s: %w: %w", method, errConnDead, err)
	}
	select {
	case resp := <-ch:
		result, werr = splitResponse(resp)
		return result, werr, nil
	case <-dead:
		c.raw.drop(key)
		// The response may have been read just before the failure.
		select {
		case resp := <-ch:
			result, werr = splitResponse(resp)
			return result, werr, nil
		default:
		}
		c.rec.abandonID(id, "closed")
		return nil, nil, fmt.Errorf("raw call %s: %w", method, errConnDead)
	case <-ctx.Done():
		c.raw.drop(key)
		c.rec.abandonID(id, "timeout")
		c.cancelRaw(key)
		return nil, nil, fmt.Errorf("raw call %s: %w", method, ctx.Err())
	}
}

// write writes msg, giving up when ctx ends: a server that stops reading
// its input would otherwise block the probe once the pipe is full. A write
// given up on ends when the connection closes, which [Run] always does.
func (c *recordingConn) write(ctx context.Context, msg jsonrpc.Message) error {
	done := make(chan error, 1)
	go func() { done <- c.inner.Write(context.WithoutCancel(ctx), msg) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// splitResponse returns the result or the JSON-RPC error of resp.
func splitResponse(resp *jsonrpc.Response) (json.RawMessage, *jsonrpc.Error) {
	if resp.Error == nil {
		return resp.Result, nil
	}
	if w := wireError(resp.Error); w != nil {
		return nil, w
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}
}

// cancelRaw tells the server to stop working on the raw request key, as
// the SDK does for its own requests whose context ends. It is best effort
// and bounded by cancelWriteTimeout.
func (c *recordingConn) cancelRaw(key string) {
	params, err := json.Marshal(map[string]any{"requestId": key, "reason": "mcpvet: no response within the probe timeout"})
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelWriteTimeout)
	defer cancel()
	c.rec.noteCancelled(params)
	_ = c.write(ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
}

// cancelWriteTimeout bounds the write of a cancellation notification.
const cancelWriteTimeout = time.Second

// isDead reports whether a Read from the server has failed.
func (c *recordingConn) isDead() bool {
	c.raw.mu.Lock()
	defer c.raw.mu.Unlock()
	c.raw.init()
	select {
	case <-c.raw.dead:
		return true
	default:
		return false
	}
}

// abandonID records the request id, if still waiting, with outcome
// ("timeout" or "closed"); a late response is then ignored.
func (r *recorder) abandonID(id jsonrpc.ID, outcome string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.pending[id]
	if !ok {
		return
	}
	delete(r.pending, id)
	r.calls = append(r.calls, exchange{Call: Call{
		Seq: p.seq, Method: p.method, Tool: p.tool, InputHash: p.hash,
		LatencyMs: Ms(time.Since(p.sent)), Outcome: outcome,
	}, params: p.params})
}

// currentConn returns the connection of the most recent session on r.
func (r *recorder) currentConn() *recordingConn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conn
}

func (r *recorder) setConn(c *recordingConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.conn = c
	// A request cancelled on an earlier connection can never be answered
	// on this one: a relaunched server numbers nothing of the old one's,
	// and raw call ids start again, so its answer to a new "mcpvet-1" was
	// taken for a response after cancel (issue 22 item 10: a listing the
	// memory limit ended, then a relaunch).
	r.cancelled = nil
}

// HTTPStatusError is a request the server answered with an HTTP client
// error status (4xx) and no JSON-RPC response: an answer, not a death.
type HTTPStatusError struct {
	Code int
	Err  error
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("HTTP %d %s without a JSON-RPC answer", e.Code, http.StatusText(e.Code))
}

func (e *HTTPStatusError) Unwrap() error { return e.Err }

// httpRejection returns the HTTP 4xx status a streamable-HTTP client
// write failed with, or 0. The go-sdk ends such an error with the status
// text ("sending \"x\": Bad Request"); a lost session (404 with a session
// id) reads differently and stays a failure of the connection.
func httpRejection(err error) int {
	if errors.Is(err, mcp.ErrSessionMissing) {
		return 0
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "sending ") && !strings.Contains(msg, ": sending ") {
		return 0
	}
	for code := 400; code < 500; code++ {
		if t := http.StatusText(code); t != "" && strings.HasSuffix(msg, ": "+t) {
			return code
		}
	}
	return 0
}
