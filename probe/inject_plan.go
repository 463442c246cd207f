package probe

import (
	"encoding/json"
	"github.com/mcpvet/mcpvet/internal/lazyre"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Names and values the server-level probes send. Each names nothing the
// server can have issued or registered.
const (
	unknownMethodName = "mcpvet/unknown_method"
	neverIssuedCursor = "mcpvet-never-issued-cursor"
	unknownToolName   = "mcpvet_unknown_tool"
	unknownPromptName = "mcpvet_unknown_prompt"
	unknownURI        = "mcpvet-probe://unknown/resource"
)

// effectiveHints returns the destructive and open-world hints of a tool as
// a client must read them, defaults included. Per the MCP schema
// (ToolAnnotations), destructiveHint defaults to true and is meaningful
// only when readOnlyHint is not true, and openWorldHint defaults to true.
func effectiveHints(annotations json.RawMessage) (destructive, openWorld bool) {
	var a struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
		OpenWorld   *bool `json:"openWorldHint"`
	}
	_ = json.Unmarshal(annotations, &a)
	readOnly := a.ReadOnly != nil && *a.ReadOnly
	destructive = !readOnly && (a.Destructive == nil || *a.Destructive)
	openWorld = a.OpenWorld == nil || *a.OpenWorld
	return destructive, openWorld
}

// readOnlyHint reports whether the tool is annotated read-only.
func readOnlyHint(annotations json.RawMessage) bool {
	var a struct {
		ReadOnly bool `json:"readOnlyHint"`
	}
	_ = json.Unmarshal(annotations, &a)
	return a.ReadOnly
}

// toolProbes plans the invalid calls for one tool, at most limit of them.
// A schema the generator cannot prove anything about gives none.
func toolProbes(t Tool, limit int) []ProbeCall {
	if limit <= 0 {
		return nil
	}
	destructive, openWorld := effectiveHints(t.Annotations)
	args, err := invalidArguments(t.InputSchema, readOnlyHint(t.Annotations) && !openWorld)
	if err != nil {
		return nil
	}
	var out []ProbeCall
	for _, a := range pickProbes(args, limit) {
		out = append(out, ProbeCall{
			Kind: a.Kind, Method: "tools/call", Tool: t.Name, Param: a.Param,
			Sent:        callParams(t.Name, a.Args),
			Destructive: destructive, OpenWorld: openWorld,
		})
	}
	return out
}

// callParams builds tools/call params; nil args leaves `arguments` out.
func callParams(name string, args json.RawMessage) json.RawMessage {
	n, _ := json.Marshal(name)
	if args == nil {
		return json.RawMessage(`{"name":` + string(n) + `}`)
	}
	return json.RawMessage(`{"name":` + string(n) + `,"arguments":` + string(args) + `}`)
}

// serverProbes plans the probes aimed at the server rather than one tool:
// an unknown tool one character away from a real one, an unknown method,
// resources/read of an unknown URI, prompts/get of an unknown prompt and
// tools/list with a cursor that was never issued. Feature probes run only
// for the capabilities the server declared; the unknown method always.
func serverProbes(res *Result) []ProbeCall {
	caps := map[string]json.RawMessage{}
	_ = json.Unmarshal(res.Liveness.Capabilities, &caps)
	has := func(c string) bool {
		v, ok := caps[c]
		return ok && string(v) != "null"
	}
	var out []ProbeCall
	if has("tools") {
		name := unknownToolName
		if t, ok := nearMissTarget(res.Tools); ok {
			name = nearMiss(t.Name, toolNames(res.Tools))
		}
		out = append(out, ProbeCall{Kind: KindUnknownTool, Method: "tools/call", Tool: name, Param: "name",
			Sent: callParams(name, json.RawMessage(`{}`))})
	}
	out = append(out, ProbeCall{Kind: KindUnknownMethod, Method: unknownMethodName, Sent: json.RawMessage(`{}`)})
	if has("resources") {
		uri := unknownResourceURI(res)
		b, _ := json.Marshal(map[string]string{"uri": uri})
		out = append(out, ProbeCall{Kind: KindUnknownResource, Method: "resources/read", Param: "uri", Sent: b})
	}
	if has("prompts") {
		name := unknownPromptName
		names := map[string]bool{}
		for _, p := range res.Prompts {
			names[p.Name] = true
		}
		for _, p := range res.Prompts {
			if utf8.RuneCountInString(p.Name) >= 2 {
				name = nearMiss(p.Name, names)
				break
			}
		}
		b, _ := json.Marshal(map[string]string{"name": name})
		out = append(out, ProbeCall{Kind: KindUnknownPrompt, Method: "prompts/get", Param: "name", Sent: b})
	}
	if has("tools") {
		b, _ := json.Marshal(map[string]string{"cursor": neverIssuedCursor})
		out = append(out, ProbeCall{Kind: KindBadCursor, Method: "tools/list", Param: "cursor", Sent: b})
	}
	return out
}

func toolNames(tools []Tool) map[string]bool {
	m := map[string]bool{}
	for _, t := range tools {
		m[t.Name] = true
	}
	return m
}

// nearMissTarget picks the tool whose name the unknown-tool probe misspells:
// preferably one whose schema rejects {}, so that even a server that
// resolves names loosely and runs the real tool gets arguments it must
// refuse.
func nearMissTarget(tools []Tool) (Tool, bool) {
	var fallback *Tool
	for i, t := range tools {
		if utf8.RuneCountInString(t.Name) < 2 {
			continue
		}
		if fallback == nil {
			fallback = &tools[i]
		}
		if sch, err := compileInputSchema(t.InputSchema); err == nil && rejects(sch, json.RawMessage(`{}`)) {
			return t, true
		}
	}
	if fallback != nil {
		return *fallback, true
	}
	return Tool{}, false
}

// nearMiss returns a name one edit away from name that is not in taken:
// the last character dropped, else replaced, else one appended.
func nearMiss(name string, taken map[string]bool) string {
	r := []rune(name)
	cands := []string{string(r[:len(r)-1])}
	for _, c := range "xzq" {
		if r[len(r)-1] != c {
			cands = append(cands, string(r[:len(r)-1])+string(c))
		}
	}
	cands = append(cands, name+"s", name+"x")
	for _, c := range cands {
		if c != "" && !taken[c] {
			return c
		}
	}
	return name + "_mcpvet"
}

// unknownResourceURI misspells the first listed resource URI by one
// character when the result matches no listed resource and no template;
// otherwise it uses a URI in a scheme of the probe's own.
func unknownResourceURI(res *Result) string {
	known := map[string]bool{}
	for _, r := range res.Resources {
		known[r.URI] = true
	}
	for _, r := range res.Resources {
		if utf8.RuneCountInString(r.URI) < 2 {
			continue
		}
		c := nearMiss(r.URI, known)
		if !matchesTemplate(c, res.ResourceTemplates) {
			return c
		}
		break
	}
	return unknownURI
}

var templateExpr = lazyre.New(`\{[^}]*\}`)

// matchesTemplate reports whether uri could be an expansion of one of the
// templates (each {expression} standing for any text).
func matchesTemplate(uri string, templates []ResourceTemplate) bool {
	for _, t := range templates {
		parts := templateExpr.Split(t.URITemplate, -1)
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re, err := regexp.Compile("^" + strings.Join(parts, ".*") + "$")
		if err == nil && re.MatchString(uri) {
			return true
		}
	}
	return false
}
