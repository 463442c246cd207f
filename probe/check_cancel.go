package probe

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// CodeResponseAfterCancel: after the probe cancelled a request that got
// no answer in time (notifications/cancelled), the server answered it
// anyway.
const CodeResponseAfterCancel = "protocol/response_after_cancel"

const specCancel = `"The receiver of a cancellation notification SHOULD: Stop processing the cancelled request; Free associated resources; Not send a response for the cancelled request" (2025-11-25, Utilities, Cancellation)`

func init() {
	register(CatalogEntry{CodeResponseAfterCancel, SeverityWarn,
		"the server answered a request after the client cancelled it",
		"stop work on a request when notifications/cancelled names it, and send no response for it"})
}

// idKey is the compact JSON of a request id.
func idKey(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// noteCancelled records the request a notifications/cancelled names.
func (r *recorder) noteCancelled(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	key := idKey(p.RequestID)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancelled == nil {
		r.cancelled = map[string]string{}
	}
	method := ""
	for id, pc := range r.pending {
		if b, err := json.Marshal(id.Raw()); err == nil && string(b) == key {
			method = pc.method
		}
	}
	if method == "" {
		// A raw call is dropped from pending before it is cancelled.
		for i := len(r.calls) - 1; i >= 0 && method == ""; i-- {
			if r.calls[i].Outcome == "timeout" {
				method = r.calls[i].Method
			}
		}
	}
	r.cancelled[key] = method
}

// noteLate records a response to a cancelled request; r.mu is held.
func (r *recorder) noteLate(id jsonrpc.ID) {
	if len(r.cancelled) == 0 {
		return
	}
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return
	}
	if method, ok := r.cancelled[string(b)]; ok {
		delete(r.cancelled, string(b))
		r.late = append(r.late, method+" (id "+string(b)+")")
	}
}

// lateFindings reports the responses that came after a cancellation.
func (r *recorder) lateFindings() []Finding {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.late) == 0 {
		return nil
	}
	return []Finding{NewFinding(CodeResponseAfterCancel, "server", "notifications/cancelled", strings.Join(r.late, ", "),
		"the server answered %d request(s) after mcpvet cancelled them (%s); the spec says %s", len(r.late), strings.Join(r.late, ", "), specCancel)}
}

// lateGrace is how long a run that cancelled requests waits, before it
// closes the session, for late answers to them. It costs nothing when
// nothing was cancelled, and a cancellation already cost a timeout.
const lateGrace = 100 * time.Millisecond

// awaitLate waits up to d while cancelled requests are still unanswered.
func (r *recorder) awaitLate(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		n := len(r.cancelled)
		r.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
