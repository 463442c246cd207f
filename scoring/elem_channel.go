package scoring

import (
	"fmt"
	"slices"
)

// Rubric element 1, channel (docs/rubric.md).

// JSON-RPC error codes the channel rule reads.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	// codeResourceNotFound is the resources page's "Resource not found"
	// code before SEP-2164 moved it to -32602.
	codeResourceNotFound = -32002
)

// gradeChannel judges the channel by kind, class, error code and protocol
// revision (docs/rubric.md quotes the revision's text for each row).
func gradeChannel(in *input) (bool, string) {
	r := in.r
	pv := r.ProtocolVersion
	var at string
	switch r.Class {
	case ClassProtocolError:
		at = "JSON-RPC error"
		if r.ErrorCode != nil {
			at = fmt.Sprintf("JSON-RPC error %d", *r.ErrorCode)
		}
	case ClassToolError:
		at = "result.isError=true"
	case ClassAccepted:
		if reportsFailure(r) {
			return false, "success result (no isError) whose text reports the failure; the client and the model's harness take it for success: a failure belongs in a tool execution error (isError: true)"
		}
		return false, "success result for invalid input (accepted)"
	case ClassCrash:
		return false, "server crashed on invalid input"
	case ClassHang:
		return false, "no answer before the deadline (hang)"
	default:
		return false, fmt.Sprintf("unknown class %q", r.Class)
	}
	switch {
	case validationKinds[r.Kind] && r.Method != "" && r.Method != "tools/call":
		// prompts/get with a missing or wrong argument: no tool result
		// exists for a prompt, so in every revision the answer is a
		// JSON-RPC error, -32602 ("Prompts: Unknown prompt name or
		// missing required arguments", InvalidParamsError 2026-07-28).
		if r.Class != ClassProtocolError {
			return false, at + " for invalid arguments of " + r.Method + "; they are a protocol error (JSON-RPC error -32602)"
		}
		if ok, why := protocolCode(r, []int64{codeInvalidParams}, "invalid arguments of "+r.Method+" are -32602 (invalid params)"); !ok {
			return false, at + " for invalid arguments of " + r.Method + "; " + why
		}
		return true, at + " for invalid arguments of " + r.Method
	case validationKinds[r.Kind]:
		if r.Class == ClassToolError {
			return true, at + " for an input validation error"
		}
		if pv != "" && pv >= ChannelCutover {
			return false, fmt.Sprintf("%s for an input validation error; since %s it belongs in a tool execution error (isError: true) the model can read (negotiated %s)", at, ChannelCutover, pv)
		}
		if ok, why := protocolCode(r, []int64{codeInvalidParams}, "invalid arguments are -32602 (invalid params)"); !ok {
			return false, at + " for an input validation error; " + why
		}
		return true, fmt.Sprintf("%s for an input validation error; either channel is acceptable before %s (negotiated %q)", at, ChannelCutover, pv)
	case r.Kind == KindUnknownTool:
		if r.Class != ClassProtocolError {
			return false, at + " for an unknown tool; an unknown tool is a protocol error (JSON-RPC error -32602)"
		}
		if ok, why := protocolCode(r, []int64{codeInvalidParams}, "an unknown tool is -32602 (invalid params)"); !ok {
			return false, at + " for an unknown tool; " + why
		}
		return true, at + " for an unknown tool"
	case r.Kind == KindUnknownID || r.Kind == KindRuntime:
		if r.Method == "tools/call" && r.Class != ClassToolError {
			return false, at + " for an error that originates in the tool; it belongs in a tool execution error (isError: true)"
		}
		return true, at
	}
	// unknown_method, unknown_resource, unknown_prompt, bad_cursor: no tool
	// result exists for these methods, so a JSON-RPC error it is, with the
	// code that says what went wrong.
	if r.Class != ClassProtocolError {
		return false, at + "; " + r.Kind + " is a protocol error (JSON-RPC error)"
	}
	var want []int64
	var rule string
	switch r.Kind {
	case KindUnknownMethod:
		want, rule = []int64{codeMethodNotFound}, "an unknown method is -32601 (method not found)"
	case KindUnknownResource:
		want, rule = []int64{codeResourceNotFound, codeInvalidParams}, "an unknown resource is -32002 (resource not found) or, since SEP-2164, -32602"
		if !in.declares("resources") {
			want = append(want, codeMethodNotFound)
		}
	case KindUnknownPrompt:
		want, rule = []int64{codeInvalidParams}, "an unknown prompt is -32602 (invalid params)"
		if !in.declares("prompts") {
			want = append(want, codeMethodNotFound)
		}
	case KindBadCursor:
		want, rule = []int64{codeInvalidParams}, "an invalid cursor is -32602 (invalid params)"
	}
	if ok, why := protocolCode(r, want, rule); !ok {
		return false, at + "; " + why
	}
	return true, at
}

// declares reports whether the server declared capability name; when that
// is unknown the server gets the benefit of the doubt.
func (in *input) declares(name string) bool {
	yes, known := in.c.declares(name)
	return yes || !known
}

// protocolCode checks a protocol error's code. The standard codes that
// mean something else fail: -32603 tells the client the server broke,
// -32601 that the method does not exist, -32700 and -32600 that the
// request was malformed. A code in want passes; any other code (a
// server-defined one) passes too, since it says nothing false.
func protocolCode(r *Response, want []int64, rule string) (bool, string) {
	if r.Class != ClassProtocolError || r.ErrorCode == nil {
		return true, ""
	}
	c := *r.ErrorCode
	if slices.Contains(want, c) {
		return true, ""
	}
	switch c {
	case codeInternalError:
		return false, "-32603 (internal error) says the server broke, not that the request was wrong; " + rule
	case codeMethodNotFound:
		return false, "-32601 (method not found) says the method does not exist; " + rule
	case codeParseError, codeInvalidRequest:
		return false, fmt.Sprintf("%d says the JSON-RPC message was malformed; %s", c, rule)
	case codeInvalidParams:
		return false, "-32602 (invalid params); " + rule
	}
	return true, ""
}
