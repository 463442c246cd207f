package scoring

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// Probe kinds: the failure each injected request carries. Failure
// injection (package probe) defines them; the first group makes one argument
// of a tools/call invalid against the tool's input schema, the second names
// something the server does not have.
const (
	KindMissingRequired  = probe.KindMissingRequired
	KindWrongType        = probe.KindWrongType
	KindEnumViolation    = probe.KindEnumViolation
	KindOutOfRange       = probe.KindOutOfRange
	KindPatternViolation = probe.KindPatternViolation
	KindFormatViolation  = probe.KindFormatViolation
	KindMaxLength        = probe.KindMaxLength
	KindUnknownProperty  = probe.KindUnknownProperty
	// KindEmptyArguments sends "arguments": {} to a tool with required
	// parameters.
	KindEmptyArguments = probe.KindEmptyArguments
	// KindAbsentArguments omits "arguments" altogether.
	KindAbsentArguments = probe.KindAbsentArguments

	KindUnknownTool     = probe.KindUnknownTool
	KindUnknownMethod   = probe.KindUnknownMethod
	KindUnknownResource = probe.KindUnknownResource
	KindUnknownPrompt   = probe.KindUnknownPrompt
	KindBadCursor       = probe.KindBadCursor
)

// Kinds the grader knows beyond failure injection's, for recorded and
// published errors.
const (
	// KindUnknownID is an argument that is well formed but names an entity
	// the server does not have (a project id, a file path). Probes rarely
	// produce it; recorded and published errors do.
	KindUnknownID = "unknown_id"
	// KindRuntime is a failure that no argument caused: expired
	// credentials, a rate limit, an upstream outage. Param may still name an
	// argument involved (a conflict between two arguments, a path outside
	// the allowed roots).
	KindRuntime = "runtime"
)

// Response classes: how the server answered a probe (the words of vocab).
const (
	// ClassProtocolError is a JSON-RPC error response.
	ClassProtocolError = vocab.ClassProtocolError
	// ClassToolError is a result with isError: true.
	ClassToolError = vocab.ClassToolError
	// ClassAccepted is a success result for input that should have failed.
	ClassAccepted = vocab.ClassAccepted
	// ClassCrash means the server exited or closed the connection.
	ClassCrash = vocab.ClassCrash
	// ClassHang means no answer came before the deadline.
	ClassHang = vocab.ClassHang
)

// validationKinds make an argument invalid against the input schema.
var validationKinds = map[string]bool{
	KindMissingRequired: true, KindWrongType: true, KindEnumViolation: true,
	KindOutOfRange: true, KindPatternViolation: true, KindFormatViolation: true, KindMaxLength: true,
	KindUnknownProperty: true, KindEmptyArguments: true, KindAbsentArguments: true,
}

// nameKinds name something that does not exist; closest matches apply.
var nameKinds = map[string]bool{
	KindUnknownTool: true, KindUnknownMethod: true, KindUnknownResource: true,
	KindUnknownPrompt: true, KindUnknownID: true,
}

// missingKinds leave a required argument out.
var missingKinds = map[string]bool{
	KindMissingRequired: true, KindEmptyArguments: true, KindAbsentArguments: true,
}

// Kinds lists every probe kind [Grade] understands.
func Kinds() []string {
	return []string{
		KindMissingRequired, KindWrongType, KindEnumViolation, KindOutOfRange,
		KindPatternViolation, KindFormatViolation, KindMaxLength, KindUnknownProperty, KindEmptyArguments,
		KindAbsentArguments, KindUnknownTool, KindUnknownMethod, KindUnknownResource,
		KindUnknownPrompt, KindBadCursor, KindUnknownID, KindRuntime,
	}
}

// Response is one answer to a failure-injection request: what [Grade]
// grades. Its JSON form is the "response" object of the corpus files in
// testdata/errors.
type Response struct {
	// Kind is the injected failure, one of [Kinds].
	Kind string `json:"kind"`
	// Method is the JSON-RPC method called (tools/call, prompts/get, ...).
	Method string `json:"method"`
	// Tool is the tool called, for tools/call.
	Tool string `json:"tool,omitempty"`
	// Param is the argument the probe made invalid. A dotted or JSON-pointer
	// path ("entities[0].observations", "/entities/0/observations") is
	// allowed; its last name segment is what the response must mention.
	// For unknown_tool and unknown_prompt it is "name", for
	// unknown_resource "uri", for bad_cursor "cursor".
	Param string `json:"param,omitempty"`
	// Sent is the invalid value itself (not the whole params object): the
	// argument's value; the unknown name, URI, method or cursor; the name of
	// the unknown property for unknown_property; absent for missing
	// arguments.
	Sent json.RawMessage `json:"sent,omitempty"`
	// Arguments is the whole params object the probe sent. A value from it
	// echoed back (a URL, a path) is not a leak.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Class is one of the Class constants.
	Class string `json:"class"`
	// ProtocolVersion is the negotiated protocol revision.
	ProtocolVersion string `json:"protocolVersion"`
	// ErrorCode, ErrorMessage and ErrorData come from a JSON-RPC error.
	ErrorCode    *int64          `json:"errorCode,omitempty"`
	ErrorMessage string          `json:"errorMessage,omitempty"`
	ErrorData    json.RawMessage `json:"errorData,omitempty"`
	// Text is the concatenated text content of a result.
	Text string `json:"text,omitempty"`
	// StructuredContent is the result's structuredContent.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
}

// Context is what the grader knows about the server apart from the
// response: the names an executable next action or a closest match may
// use, and the secrets that must never appear.
type Context struct {
	// ToolNames are the tools the server listed.
	ToolNames []string `json:"toolNames,omitempty"`
	// ParamNames are the properties of the called tool's input schema.
	ParamNames []string `json:"paramNames,omitempty"`
	// Required are the required properties of the called tool.
	Required []string `json:"required,omitempty"`
	// PromptNames and ResourceURIs are the prompts and resources listed.
	PromptNames  []string `json:"promptNames,omitempty"`
	ResourceURIs []string `json:"resourceURIs,omitempty"`
	// Canaries maps each declared secret environment variable to the unique
	// canary value the sandbox gave it.
	Canaries map[string]string `json:"canaries,omitempty"`
	// PublicPaths are host paths the scanner itself gave the server (an
	// allowed directory argument); mentioning them, or anything below them,
	// is not a leak.
	PublicPaths []string `json:"publicPaths,omitempty"`
	// Capabilities is the capabilities object the server declared in its
	// initialize result; empty when unknown. It decides whether -32601
	// (method not found) is the right answer to resources/read or
	// prompts/get.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
}

// declares reports whether the server declared capability name, and
// whether that is known at all.
func (c *Context) declares(name string) (yes, known bool) {
	switch name {
	case "resources":
		if len(c.ResourceURIs) > 0 {
			return true, true
		}
	case "prompts":
		if len(c.PromptNames) > 0 {
			return true, true
		}
	}
	if len(bytes.TrimSpace(c.Capabilities)) == 0 {
		return false, false
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(c.Capabilities, &caps) != nil {
		return false, false
	}
	v, ok := caps[name]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null")), true
}

// FromProbeCall converts a recorded probe call into a [Response]. The
// probe's Sent is the whole params object; the value of the invalid
// argument (or the unknown name, URI or cursor) is extracted from it.
// Response is parsed as a JSON-RPC error object for protocol errors and as
// a tool result otherwise; when it is truncated or not JSON, pc.Text is
// used as the text.
func FromProbeCall(pc probe.ProbeCall, protocolVersion string) Response {
	r := Response{
		Kind:            pc.Kind,
		Method:          pc.Method,
		Tool:            pc.Tool,
		Param:           pc.Param,
		Class:           pc.Class,
		ProtocolVersion: protocolVersion,
		Text:            pc.Text,
	}
	r.Sent = sentValue(pc)
	r.Arguments = pc.Sent
	switch pc.Class {
	case ClassProtocolError:
		var e struct {
			Code    *int64          `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if json.Unmarshal(pc.Response, &e) == nil {
			r.ErrorCode, r.ErrorMessage, r.ErrorData = e.Code, e.Message, e.Data
			if r.ErrorMessage != "" && r.Text == r.ErrorMessage {
				r.Text = ""
			}
		} else if r.ErrorMessage == "" {
			r.ErrorMessage, r.Text = r.Text, ""
		}
	case ClassToolError, ClassAccepted:
		var res struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if json.Unmarshal(pc.Response, &res) == nil {
			if r.Text == "" {
				var texts []string
				for _, c := range res.Content {
					if c.Type == "text" {
						texts = append(texts, c.Text)
					}
				}
				r.Text = strings.Join(texts, "\n")
			}
			if len(res.StructuredContent) > 0 && !bytes.Equal(res.StructuredContent, []byte("null")) {
				r.StructuredContent = res.StructuredContent
			}
		} else if r.Text == "" && pc.Class == ClassAccepted {
			r.Text = string(pc.Response)
		}
	}
	return r
}

// sentValue picks the invalid value out of the params object a probe sent.
func sentValue(pc probe.ProbeCall) json.RawMessage {
	var params map[string]json.RawMessage
	if json.Unmarshal(pc.Sent, &params) != nil {
		return nil
	}
	switch pc.Kind {
	case KindUnknownTool, KindUnknownPrompt:
		return params["name"]
	case KindUnknownResource:
		return params["uri"]
	case KindBadCursor:
		return params["cursor"]
	case KindUnknownMethod:
		m, _ := json.Marshal(pc.Method)
		return m
	case KindUnknownProperty:
		// The received "value" of an unknown property is its name.
		if pc.Param != "" {
			m, _ := json.Marshal(leafName(pc.Param))
			return m
		}
	}
	if pc.Param == "" {
		return nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(params["arguments"], &args) != nil {
		return nil
	}
	if v, ok := args[pc.Param]; ok {
		return v
	}
	// A nested path ("messages[0].role", "/entities/0/name"), or an
	// argument nested under an object argument (CircleCI's
	// {"params": {"workflowId": ...}} for workflowId): errors-v10.
	return nestedValue(params["arguments"], pc.Param)
}

// nestedValue resolves path (dotted, bracketed or a JSON pointer) in the
// arguments v; failing that, it returns the value of the first member
// named like the path's last segment, looked for breadth-first in nested
// objects and arrays (at most four levels).
func nestedValue(v json.RawMessage, path string) json.RawMessage {
	segs := strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '/' || r == '[' || r == ']' })
	cur := v
	for _, seg := range segs {
		seg = strings.Trim(seg, `"'`)
		var obj map[string]json.RawMessage
		var arr []json.RawMessage
		switch {
		case json.Unmarshal(cur, &obj) == nil && obj != nil:
			cur = obj[seg]
		case json.Unmarshal(cur, &arr) == nil && isAllDigits(seg):
			i, _ := strconv.Atoi(seg)
			if i >= len(arr) {
				cur = nil
			} else {
				cur = arr[i]
			}
		default:
			cur = nil
		}
		if cur == nil {
			break
		}
	}
	if cur != nil {
		return cur
	}
	leaf := leafName(path)
	level := []json.RawMessage{v}
	for depth := 0; depth < 4 && len(level) > 0; depth++ {
		var next []json.RawMessage
		for _, x := range level {
			var obj map[string]json.RawMessage
			var arr []json.RawMessage
			if json.Unmarshal(x, &obj) == nil && obj != nil {
				if depth > 0 {
					if w, ok := obj[leaf]; ok {
						return w
					}
				}
				for _, k := range slices.Sorted(maps.Keys(obj)) {
					next = append(next, obj[k])
				}
			} else if json.Unmarshal(x, &arr) == nil {
				next = append(next, arr...)
			}
		}
		level = next
	}
	return nil
}

// leafName returns the last name segment of a dotted, bracketed or
// JSON-pointer path: "entities[0].observations" and
// "/entities/0/observations" both give "observations".
func leafName(p string) string {
	p = strings.TrimSpace(p)
	segs := strings.FieldsFunc(p, func(r rune) bool {
		return r == '.' || r == '/' || r == '[' || r == ']'
	})
	for i := len(segs) - 1; i >= 0; i-- {
		s := strings.Trim(segs[i], `"'`)
		if s == "" || isAllDigits(s) {
			continue
		}
		return s
	}
	return p
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
