package probe

import (
	"encoding/json"
	"strings"
)

// The shape of a server's sampling/createMessage request against what
// mcpvet declared: sampling without context or tools (client.go). A
// request that relies on an undeclared part of the capability fails, or
// is quietly ignored, in every client that declares as mcpvet does.

// CodeSamplingUndeclared: a sampling request uses a part of the sampling
// capability the client did not declare.
const CodeSamplingUndeclared = "sampling/undeclared_feature_used"

const (
	specSamplingTools   = `"The client MUST return an error if this field is provided but ClientCapabilities.sampling.tools is not declared." (2025-11-25 schema, CreateMessageRequestParams.tools and .toolChoice)`
	specSamplingContext = `"Values \"thisServer\" and \"allServers\" are soft-deprecated. Servers SHOULD only use these values if the client declares ClientCapabilities.sampling.context." (2025-11-25 schema, CreateMessageRequestParams.includeContext)`
)

func init() {
	register(CatalogEntry{CodeSamplingUndeclared, SeverityWarn,
		"a sampling/createMessage request uses tools, toolChoice or includeContext thisServer/allServers although the client did not declare sampling.tools or sampling.context",
		"send tools and toolChoice only to clients that declare sampling.tools, and includeContext other than none only to clients that declare sampling.context; otherwise sample without them"})
	registerWhy(map[string]string{
		CodeSamplingUndeclared: specSamplingTools + "; " + specSamplingContext + ". mcpvet declares sampling without tools or context, so such a request would fail (tools) or lose what it asked for (context) in a client like it. Checked on every sampling/createMessage received, and on every sampling input request of a 2026-07-28 input-required result.",
	})
}

// checkSamplingRequest checks one sampling/createMessage request (a whole
// JSON-RPC message, or an input request: both hold params) against the
// sampling capability mcpvet declares.
func checkSamplingRequest(raw json.RawMessage) []Finding {
	var msg struct {
		Params struct {
			Tools          json.RawMessage `json:"tools"`
			ToolChoice     json.RawMessage `json:"toolChoice"`
			IncludeContext string          `json:"includeContext"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &msg) != nil {
		return nil
	}
	caps := declaredCapabilities().Sampling
	present := func(r json.RawMessage) bool { return len(r) > 0 && string(r) != "null" }
	var out []Finding
	if caps == nil || caps.Tools == nil {
		for _, f := range []struct {
			name string
			v    json.RawMessage
		}{{"tools", msg.Params.Tools}, {"toolChoice", msg.Params.ToolChoice}} {
			if present(f.v) {
				out = append(out, NewFinding(CodeSamplingUndeclared, "server", "sampling/createMessage/params/"+f.name, string(f.v),
					"the server sent sampling/createMessage with %s, but the client declared no sampling.tools; the spec says %s", f.name, specSamplingTools))
			}
		}
	}
	if (caps == nil || caps.Context == nil) && (msg.Params.IncludeContext == "thisServer" || msg.Params.IncludeContext == "allServers") {
		out = append(out, NewFinding(CodeSamplingUndeclared, "server", "sampling/createMessage/params/includeContext", msg.Params.IncludeContext,
			"the server sent sampling/createMessage with includeContext %q, but the client declared no sampling.context; the spec says %s", msg.Params.IncludeContext, specSamplingContext))
	}
	return out
}

// inputRequestFindings moves the findings of a request check to an input
// request of a tool's input-required result.
func inputRequestFindings(fs []Finding, tool, key, method string) []Finding {
	for i := range fs {
		fs[i].Subject = subjectOf("tool", tool, 0)
		fs[i].Pointer = "tools/call/result/inputRequests/" + escapeToken(key) + strings.TrimPrefix(fs[i].Pointer, method)
	}
	return fs
}
