package scoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
)

// Recorded is one recorded answer to a failure-injection request, as
// `mcpvet grade` reads it (one JSON object per line): the request sent, the
// JSON-RPC response received, and what the grader needs to know about the
// server. Fields other than these are ignored, so a labelled set can carry
// its labels on the same line.
type Recorded struct {
	// ID is echoed in the output; any JSON value.
	ID json.RawMessage `json:"id"`
	// Kind is the injected failure, one of [Kinds].
	Kind string `json:"kind"`
	// Request is the JSON-RPC request sent: method and params.
	Request json.RawMessage `json:"request"`
	// Response is the JSON-RPC response received, with "result" or
	// "error". null means no answer came (a hang).
	Response json.RawMessage `json:"response"`
	// Param is the argument the probe broke, when there is one.
	Param string `json:"param,omitempty"`
	// ProtocolVersion is the negotiated revision; empty means unknown.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// Capabilities is the server's declared capabilities object; it tells
	// whether -32601 to resources/read or prompts/get is right.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// Tools are the tools of the server's tools/list, for schemas, closest
	// matches and next actions.
	Tools []RecordedTool `json:"tools,omitempty"`
	// Prompts and Resources name the server's prompts and resource URIs.
	Prompts   []string `json:"prompts,omitempty"`
	Resources []string `json:"resources,omitempty"`
	// Canaries maps secret variable names to the values the server was
	// given; any of them in a response is a leak.
	Canaries map[string]string `json:"canaries,omitempty"`
}

// RecordedTool is one tool of a tools/list result.
type RecordedTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// ErrRecorded marks a recorded response that cannot be graded.
var ErrRecorded = errors.New("ungradable record")

// Prepare turns a recorded exchange into the [Response] and [Context]
// [Grade] takes, classifying the answer as a probe does: an "error" member
// is a protocol error, a result with isError true a tool error, any other
// result accepted, and a null response a hang.
func (rec *Recorded) Prepare() (Response, Context, error) {
	if !slices.Contains(Kinds(), rec.Kind) {
		return Response{}, Context{}, fmt.Errorf("%w: \"kind\": %q is not a probe kind; use one of %s", ErrRecorded, rec.Kind, strings.Join(Kinds(), ", "))
	}
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(rec.Request, &req); err != nil || req.Method == "" {
		return Response{}, Context{}, fmt.Errorf("%w: \"request\" must be a JSON-RPC request object with a \"method\"", ErrRecorded)
	}
	pc := probe.ProbeCall{Kind: rec.Kind, Method: req.Method, Param: rec.Param, Sent: req.Params}
	if req.Method == "tools/call" {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(req.Params, &p)
		pc.Tool = p.Name
	}
	raw := bytes.TrimSpace(rec.Response)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		pc.Class = ClassHang
	} else {
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			return Response{}, Context{}, fmt.Errorf("%w: \"response\" must be a JSON-RPC response object: %v", ErrRecorded, err)
		}
		switch {
		case len(resp.Error) > 0 && !bytes.Equal(resp.Error, []byte("null")):
			pc.Class, pc.Response = ClassProtocolError, resp.Error
		case len(resp.Result) > 0:
			var r struct {
				IsError bool `json:"isError"`
			}
			_ = json.Unmarshal(resp.Result, &r)
			pc.Class, pc.Response = ClassAccepted, resp.Result
			if r.IsError {
				pc.Class = ClassToolError
			}
		default:
			return Response{}, Context{}, fmt.Errorf("%w: \"response\" has neither \"result\" nor \"error\"", ErrRecorded)
		}
	}
	res := &probe.Result{}
	for _, t := range rec.Tools {
		res.Tools = append(res.Tools, probe.Tool{Name: t.Name, InputSchema: t.InputSchema})
	}
	res.Liveness.Capabilities = rec.Capabilities
	c := ContextFor(res, pc.Tool, &Options{Canaries: rec.Canaries})
	c.PromptNames = append(c.PromptNames, rec.Prompts...)
	c.ResourceURIs = append(c.ResourceURIs, rec.Resources...)
	return FromProbeCall(pc, rec.ProtocolVersion), c, nil
}
