package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRawKept bounds the raw bytes of a handshake response kept for later
// parsing. Larger answers are still counted in telemetry.
const maxRawKept = 8 << 20

// recorder sits on the wire between the go-sdk client and the server's
// transport. It is the probe's source of truth: the SDK's typed results
// drop or reject malformed items, while the recorder keeps the exact bytes
// the server sent, and it times every request.
//
// Write and Read may run concurrently (the SDK reads on its own goroutine),
// so all state is behind mu.
type recorder struct {
	mu        sync.Mutex
	start     time.Time
	firstRead time.Time
	pending   map[jsonrpc.ID]*pendingCall
	calls     []exchange
	seq       int
	// notifications counts server-to-client notifications by method.
	notifications map[string]int
	// serverRequests counts server-to-client requests by method.
	serverRequests map[string]int
	// conn is the connection of the most recent session, for raw calls.
	conn *recordingConn
	// received keeps every message of the server for the canary search.
	kept            []Message
	receivedBytes   int
	receivedDropped int
	// toValidate are errors, notifications and server requests kept for
	// schema validation (check_messages.go).
	toValidate []rawMessage
	// resultsKept and resultBytesKept count the results kept for
	// validation, within maxValidatedResults and maxValidatedResultBytes.
	resultsKept, resultBytesKept int
	// cancelled maps the JSON of each request id the probe cancelled to its
	// method; late lists the methods answered after their cancellation.
	cancelled map[string]string
	late      []string
	// progress are the progress values received per progress token (the
	// token's JSON), for --exercise.
	progress map[string][]float64
}

type pendingCall struct {
	seq    int
	method string
	tool   string
	hash   string
	params json.RawMessage
	sent   time.Time
}

// exchange is one completed (or abandoned) request/response pair.
type exchange struct {
	Call
	params json.RawMessage
	result json.RawMessage
	err    *jsonrpc.Error
}

func newRecorder() *recorder {
	return &recorder{
		start:          time.Now(),
		pending:        map[jsonrpc.ID]*pendingCall{},
		notifications:  map[string]int{},
		serverRequests: map[string]int{},
	}
}

// transport wraps t so that its connection reports to r.
func (r *recorder) transport(t mcp.Transport) mcp.Transport {
	return &recordingTransport{inner: t, rec: r}
}

type recordingTransport struct {
	inner mcp.Transport
	rec   *recorder
}

func (t *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	rc := &recordingConn{inner: c, rec: t.rec}
	t.rec.setConn(rc)
	return rc, nil
}

type recordingConn struct {
	inner mcp.Connection
	rec   *recorder
	// raw tracks the probe's own requests (see rawcall.go).
	raw rawState
}

func (c *recordingConn) SessionID() string { return c.inner.SessionID() }
func (c *recordingConn) Close() error      { return c.inner.Close() }

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.rec.sent(req)
		c.raw.noteMeta(req)
	} else if ok && req.Method == "notifications/cancelled" {
		c.rec.noteCancelled(req.Params)
	}
	return c.inner.Write(ctx, msg)
}

// Read returns the next message for the SDK. Responses to raw calls are
// delivered to their callers and never reach the SDK.
func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.inner.Read(ctx)
		if err != nil {
			c.raw.fail(err)
			return msg, err
		}
		c.rec.received(msg)
		if c.raw.deliver(msg) {
			continue
		}
		return msg, nil
	}
}

func (r *recorder) sent(req *jsonrpc.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	p := &pendingCall{seq: r.seq, method: req.Method, params: req.Params, sent: time.Now(), hash: hashInput(req.Params)}
	if req.Method == "tools/call" {
		var named struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(req.Params, &named)
		p.tool = named.Name
	}
	r.pending[req.ID] = p
}

func (r *recorder) received(msg jsonrpc.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.firstRead.IsZero() {
		r.firstRead = time.Now()
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		r.keep(msg, r.pending[resp.ID])
	} else {
		r.keep(msg, nil)
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			r.serverRequests[m.Method]++
			r.keepMessage(msgRequest, m.Method, m)
		} else {
			r.notifications[m.Method]++
			r.keepMessage(msgNotification, m.Method, m)
			if m.Method == "notifications/progress" {
				r.noteProgress(m.Params)
			}
		}
	case *jsonrpc.Response:
		r.noteLate(m.ID)
		p, ok := r.pending[m.ID]
		if !ok {
			return
		}
		delete(r.pending, m.ID)
		ex := exchange{
			Call: Call{
				Seq:       p.seq,
				Method:    p.method,
				Tool:      p.tool,
				InputHash: p.hash,
				LatencyMs: Ms(time.Since(p.sent)),
				Outcome:   "result",
			},
			params: p.params,
		}
		if m.Error != nil {
			r.keepMessage(msgError, p.method, m)
			var werr *jsonrpc.Error
			if errors.As(m.Error, &werr) {
				code := werr.Code
				ex.ErrorCode = &code
				ex.err = werr
				b, _ := json.Marshal(werr)
				ex.OutputBytes = len(b)
			} else {
				code := int64(jsonrpc.CodeInternalError)
				ex.ErrorCode = &code
				ex.err = &jsonrpc.Error{Code: code, Message: m.Error.Error()}
				ex.OutputBytes = len(m.Error.Error())
			}
			ex.Outcome = "error"
		} else {
			ex.OutputBytes = len(m.Result)
			// The handshake's result is read back from here, and other
			// results for schema validation (check_messages.go) within a
			// budget; list pages reach their callers directly and are
			// validated as they stream, and keeping them would hold every
			// page for the whole run.
			if (p.method == "initialize" || p.method == "server/discover") && len(m.Result) <= maxRawKept {
				ex.result = m.Result
			} else if r.keepResultFor(p.method, len(m.Result)) {
				ex.result = m.Result
			}
			if p.method == "tools/call" {
				var r struct {
					IsError bool `json:"isError"`
				}
				_ = json.Unmarshal(m.Result, &r)
				ex.IsError = r.IsError
			}
		}
		r.calls = append(r.calls, ex)
	}
}

// abandon records every request still waiting for an answer with outcome
// (timeout or closed). It is called when the probe gives up on the server.
func (r *recorder) abandon(outcome string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, p := range r.pending {
		r.calls = append(r.calls, exchange{Call: Call{
			Seq: p.seq, Method: p.method, Tool: p.tool, InputHash: p.hash,
			LatencyMs: Ms(time.Since(p.sent)), Outcome: outcome,
		}, params: p.params})
		delete(r.pending, id)
	}
}

// last returns the most recent completed exchange for method, if any.
func (r *recorder) last(method string) (exchange, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.calls) - 1; i >= 0; i-- {
		if r.calls[i].Method == method {
			return r.calls[i], true
		}
	}
	return exchange{}, false
}

// pendingMethod reports whether a request for method is still unanswered.
func (r *recorder) pendingMethod(method string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.pending {
		if p.method == method {
			return true
		}
	}
	return false
}

// telemetry returns the call log ordered by sequence number.
func (r *recorder) telemetry() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Call, len(r.calls))
	for i, ex := range r.calls {
		out[i] = ex.Call
	}
	sortCalls(out)
	return out
}

func (r *recorder) firstByte() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.firstRead
}

func sortCalls(calls []Call) {
	// Insertion sort: the log is nearly sorted (responses arrive in order).
	for i := 1; i < len(calls); i++ {
		for j := i; j > 0 && calls[j].Seq < calls[j-1].Seq; j-- {
			calls[j], calls[j-1] = calls[j-1], calls[j]
		}
	}
}

// hashInput returns the first 16 hex digits of the SHA-256 of params.
func hashInput(params json.RawMessage) string {
	sum := sha256.Sum256(params)
	return hex.EncodeToString(sum[:8])
}
