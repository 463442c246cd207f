package probe

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxReceivedKept bounds the bytes of server messages a run keeps for the
// canary search ([Result.Received]). The sandbox bounds one message and a
// server's total output; this bounds what stays in memory after the run.
const maxReceivedKept = 64 << 20

// Message is one message a server sent, as received: every string in it is
// server-controlled. Results keep them (not stored in the database) so
// the grader can search them for the secrets the server was given.
type Message struct {
	// Kind is "result", "error", "notification" or "request".
	Kind string
	// Method is the request's method for results and errors, otherwise
	// the message's own method.
	Method string
	// Name is the tool or prompt name, or the resource URI, the request
	// named, if any.
	Name string
	// Body is the result (for "result") or the params.
	Body json.RawMessage
	// Params are the params of the request a result or error answers.
	Params json.RawMessage
	// ErrorMessage and ErrorData are an error response's message and data.
	ErrorMessage string
	ErrorData    json.RawMessage
}

// keep appends the message m of the server to r.kept within the
// memory bound. r.mu is held.
func (r *recorder) keep(msg jsonrpc.Message, p *pendingCall) {
	var m Message
	switch x := msg.(type) {
	case *jsonrpc.Request:
		m = Message{Kind: "notification", Method: x.Method, Body: x.Params}
		if x.IsCall() {
			m.Kind = "request"
		}
	case *jsonrpc.Response:
		m.Kind = "result"
		if p != nil {
			m.Method = p.method
			m.Name = p.tool
			m.Params = p.params
			if m.Name == "" && len(p.params) > 0 {
				var named struct {
					Name string `json:"name"`
					URI  string `json:"uri"`
				}
				_ = json.Unmarshal(p.params, &named)
				m.Name = named.Name
				if m.Name == "" {
					m.Name = named.URI
				}
			}
		}
		if x.Error == nil && isListMethod(m.Method) {
			// A listing may be 16 MiB, and its items are kept (the first
			// MaxItems) in the result: the secret search reads them there
			// instead of holding every page for the whole run.
			return
		}
		m.Body = x.Result
		if x.Error != nil {
			m.Kind = "error"
			var werr *jsonrpc.Error
			if errors.As(x.Error, &werr) {
				m.ErrorMessage, m.ErrorData = werr.Message, werr.Data
			} else {
				m.ErrorMessage = x.Error.Error()
			}
		}
	default:
		return
	}
	n := len(m.Body) + len(m.ErrorMessage) + len(m.ErrorData) + len(m.Method) + len(m.Name)
	if r.receivedBytes+n > maxReceivedKept {
		r.receivedDropped++
		return
	}
	r.receivedBytes += n
	r.kept = append(r.kept, m)
}

// messages returns the kept messages in arrival order and how many were
// dropped over the bound.
func (r *recorder) messages() ([]Message, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.kept...), r.receivedDropped
}

// isListMethod reports whether method is one of the listings whose items
// the result keeps: tools, prompts, resources and resource templates.
func isListMethod(method string) bool {
	switch method {
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		return true
	}
	return false
}
