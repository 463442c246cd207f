package probe

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Every message a server sends is validated against the schema of the
// negotiated revision, not only the handshake and list results: the
// results of every other request (tool calls, prompts/get, resources/read,
// completion/complete, ping, logging/setLevel, subscriptions), JSON-RPC
// errors, notifications and server-to-client requests. Violations carry
// the JSON pointer inside the message.

// CodeMessageSchemaViolation is a schema violation in a message other than
// the handshake and list results: a result the probe provoked (ping, a
// tool call, prompts/get, ...), an error, a notification or a server
// request. It is reported apart from protocol/schema_violation, at a lower
// severity, because these messages answer requests a client may never
// send.
const CodeMessageSchemaViolation = "protocol/message_schema_violation"

// messageMethods are the [Page.Method] values validated as messages.
var messageMethods = map[string]bool{}

func init() {
	register(CatalogEntry{CodeMessageSchemaViolation, SeverityWarn,
		"a call result, error, notification or server request does not match the MCP schema of the negotiated version",
		"send every message in the shape the negotiated revision's schema gives it (for 2026-07-28, every result carries resultType); the message names the pointer inside the message. Reported at info when the message only lacks fields a later revision added and matches an earlier one"})
	for method, def := range map[string]string{
		"tools/call":            "CallToolResult",
		"prompts/get":           "GetPromptResult",
		"resources/read":        "ReadResourceResult",
		"completion/complete":   "CompleteResult",
		"ping":                  "EmptyResult",
		"logging/setLevel":      "EmptyResult",
		"tasks/list":            "ListTasksResult",
		"resources/subscribe":   "EmptyResult",
		"resources/unsubscribe": "EmptyResult",
		msgError:                "JSONRPCError",
		msgNotification:         "ServerNotification",
		msgRequest:              "ServerRequest",
	} {
		specResultType[method] = def
		messageMethods[method] = true
	}
	// Notifications and requests by method, so a violation is reported
	// inside the message rather than as "matches none of the union".
	for method, def := range map[string]string{
		"notifications/message":                "LoggingMessageNotification",
		"notifications/progress":               "ProgressNotification",
		"notifications/cancelled":              "CancelledNotification",
		"notifications/resources/updated":      "ResourceUpdatedNotification",
		"notifications/resources/list_changed": "ResourceListChangedNotification",
		"notifications/tools/list_changed":     "ToolListChangedNotification",
		"notifications/prompts/list_changed":   "PromptListChangedNotification",
		"notifications/elicitation/complete":   "ElicitationCompleteNotification",
		"notifications/tasks/status":           "TaskStatusNotification",
	} {
		specResultType[msgNotification+" "+method] = def
	}
	for method, def := range map[string]string{
		"sampling/createMessage": "CreateMessageRequest",
		"roots/list":             "ListRootsRequest",
		"elicitation/create":     "ElicitRequest",
		"ping":                   "PingRequest",
	} {
		specResultType[msgRequest+" "+method] = def
	}
	specResultType[msgInputRequired] = "InputRequiredResult"
}

// Pseudo-methods of whole messages in [Page.Method].
const (
	msgError        = "$error"
	msgNotification = "$notification"
	msgRequest      = "$request"
	// msgInputRequired is the definition of any result whose resultType
	// is input_required (2026-07-28).
	msgInputRequired = "$input_required"
)

// specAlias names a definition that a later revision renamed.
var specAlias = map[string]string{"JSONRPCError": "JSONRPCErrorResponse"}

// Bounds on what one run validates beyond its list pages.
const (
	maxValidatedResults  = 200
	maxValidatedMessages = 100
)

// rawMessage is one server-sent message kept for validation.
type rawMessage struct {
	kind   string // msgError, msgNotification or msgRequest
	method string // of the message, or of the request an error answers
	raw    json.RawMessage
}

// maxValidatedResultBytes bounds the bytes of results kept for validation
// over a run, so that many large tool results cannot grow mcpvet's memory.
const maxValidatedResultBytes = 4 << 20

// keepResultFor reports whether a result of method with n bytes is kept
// for validation, and counts it; it is called with r.mu held. List pages
// are validated as they are read, never kept here.
func (r *recorder) keepResultFor(method string, n int) bool {
	if _, ok := specResultType[method]; !ok || strings.HasSuffix(method, "/list") {
		return false
	}
	if r.resultsKept >= maxValidatedResults || r.resultBytesKept+n > maxValidatedResultBytes {
		return false
	}
	r.resultsKept++
	r.resultBytesKept += n
	return true
}

// keepMessage records msg for validation; it is called with r.mu held.
func (r *recorder) keepMessage(kind, method string, msg jsonrpc.Message) {
	if len(r.toValidate) >= maxValidatedMessages {
		return
	}
	raw, err := jsonrpc.EncodeMessage(msg)
	if err != nil || len(raw) > maxCheckedPageBytes {
		return
	}
	r.toValidate = append(r.toValidate, rawMessage{kind: kind, method: method, raw: raw})
}

// messagePages returns what the run received beyond the pages already
// validated (handshake and lists): other results by method, then errors,
// notifications and server requests as whole messages.
func (r *recorder) messagePages(skip map[string]bool) []Page {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Page
	n := 0
	for _, ex := range r.calls {
		if ex.result == nil || skip[ex.Method] || n >= maxValidatedResults {
			continue
		}
		if _, ok := specResultType[ex.Method]; !ok {
			continue
		}
		out = append(out, Page{Method: ex.Method, Result: ex.result})
		n++
	}
	for _, m := range r.toValidate {
		out = append(out, Page{Method: m.kind + " " + m.method, Result: m.raw})
	}
	return out
}

// checkMessagePage validates one page of [recorder.messagePages].
func checkMessagePage(spec *specSchema, p Page) []Finding {
	kind, method, whole := strings.Cut(p.Method, " ")
	if !whole {
		fs := checkPage(spec, p)
		if messageMethods[p.Method] {
			asMessageViolation(fs)
		}
		return fs
	}
	key := kind
	if _, ok := specResultType[p.Method]; ok {
		key = p.Method
	}
	fs := checkPage(spec, Page{Method: key, Result: p.Result})
	what := map[string]string{msgError: "the error answering " + method, msgNotification: "the notification " + method, msgRequest: "the server request " + method}[kind]
	for i := range fs {
		fs[i].Pointer = method + strings.TrimPrefix(fs[i].Pointer, key)
		fs[i].Message = strings.Replace(fs[i].Message, key+" result", what, 1)
	}
	asMessageViolation(fs)
	if kind == msgRequest && method == "elicitation/create" {
		fs = append(fs, checkElicitRequest(p.Result)...)
	}
	if kind == msgRequest && method == "sampling/createMessage" {
		fs = append(fs, checkSamplingRequest(p.Result)...)
	}
	return fs
}

// earlierRevision is in the message of a violation that only lacks fields
// a later revision added (see checkPage).
const earlierRevision = "the server answers in an earlier revision"

// asMessageViolation turns page findings into message findings. A message
// that only lacks what a later revision added (resultType at 2026-07-28,
// which go-sdk v1.8 leaves out of ping and logging/setLevel) and matches
// an earlier revision is reported at info: clients must treat the absent
// field as its default.
func asMessageViolation(fs []Finding) {
	for i := range fs {
		if fs[i].Code == CodeSchemaViolation {
			fs[i].Code = CodeMessageSchemaViolation
			fs[i].Severity = catalog[CodeMessageSchemaViolation].Severity
			if strings.Contains(fs[i].Message, earlierRevision) {
				fs[i].Severity = SeverityInfo
			}
		}
	}
}
