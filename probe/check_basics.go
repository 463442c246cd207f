package probe

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpvet/mcpvet/internal/lazyre"
	"github.com/mcpvet/mcpvet/internal/safe"
)

// Capability-gated basics: the read-only methods a server declares by
// capability are called once each, with arguments taken from what it
// listed, and their answers checked. Their results are also validated
// against the schema (check_messages.go). Each undeclared capability's
// method is sent once too: answering it is a finding, as is a declared
// capability whose method answers -32601.
const (
	CodePingNotEmpty         = "protocol/ping_not_empty"
	CodeCapabilityMissing    = "protocol/declared_method_missing"
	CodeUndeclaredAnswered   = "protocol/undeclared_method_answered"
	CodeBasicFailed          = "protocol/basic_call_failed"
	CodeResourceContent      = "resources/content_shape"
	CodeResourceMIMEMismatch = "resources/mime_mismatch"
)

func init() {
	register(
		CatalogEntry{CodePingNotEmpty, SeverityWarn,
			"ping was not answered with an empty result",
			`answer ping with {} ("The receiver MUST respond promptly with an empty response", Basic Utilities: Ping)`},
		CatalogEntry{CodeCapabilityMissing, SeverityError,
			"a method of a declared capability answered -32601 (method not found)",
			"implement the methods of every capability the server declares (logging/setLevel for logging, completion/complete for completions, resources/subscribe for resources.subscribe, prompts/get, resources/read), or stop declaring it"},
		CatalogEntry{CodeUndeclaredAnswered, SeverityWarn,
			"a method was answered although its capability was not declared",
			"declare the capability in the initialize result (clients only use what is declared), or answer the method with -32601"},
		CatalogEntry{CodeBasicFailed, SeverityWarn,
			"a read-only method of a declared capability failed on arguments taken from the server's own listing",
			"answer prompts/get with the declared arguments, resources/read of listed resources, completion/complete of listed prompts and templates, and subscriptions without internal errors or timeouts"},
		CatalogEntry{CodeResourceContent, SeverityError,
			"resources/read returned a content item that is neither text nor valid base64 blob",
			"give each item of contents a uri and exactly one of text (a string) or blob (base64)"},
		CatalogEntry{CodeResourceMIMEMismatch, SeverityInfo,
			"resources/read returned a mimeType other than the one listed",
			"list the mimeType the resource is read with, or leave it out of the listing"},
	)
}

// basicsTimeout bounds each basic call.
const basicsTimeout = 5 * time.Second

type basics struct {
	s    *session
	res  *Result
	caps map[string]json.RawMessage
	o    Options

	mu  sync.Mutex
	out []Finding
}

// runBasics calls the capability-gated basics on the probe's session.
func runBasics(ctx context.Context, s *session, res *Result, o Options) {
	res.Findings = append(res.Findings, basicsFindings(ctx, s, res, o)...)
}

// basicsFindings runs the basic calls and returns their findings; it
// changes nothing in res, so it may run beside the injection's batch
// (inject_batch.go), which keeps them only when the batch is kept.
func basicsFindings(ctx context.Context, s *session, res *Result, o Options) []Finding {
	if o.SkipBasics || s == nil || s.rec == nil || !res.Liveness.HandshakeCompleted || ctx.Err() != nil {
		return nil
	}
	caps := map[string]json.RawMessage{}
	_ = json.Unmarshal(res.Liveness.Capabilities, &caps)
	// The calls are independent of each other: running them at once keeps
	// the probe's time to the slowest one rather than their sum. Each
	// collects its findings apart, so they are appended in the same order
	// whichever finishes first.
	checks := []func(*basics, context.Context){(*basics).ping, (*basics).logging, (*basics).completion,
		(*basics).prompts, (*basics).resources, (*basics).template, (*basics).tasks}
	runs := make([]*basics, len(checks))
	var wg sync.WaitGroup
	for i, f := range checks {
		b := &basics{s: s, res: res, o: o, caps: caps}
		runs[i] = b
		wg.Go(func() { f(b, ctx) })
	}
	wg.Wait()
	var out []Finding
	for _, b := range runs {
		out = append(out, b.out...)
	}
	return out
}

func (b *basics) add(f Finding) {
	b.mu.Lock()
	b.out = append(b.out, f)
	b.mu.Unlock()
}

func (b *basics) declared(name string) bool {
	c, ok := b.caps[name]
	return ok && string(c) != "null"
}

// call sends one request; answered is false when no answer came.
func (b *basics) call(ctx context.Context, method string, params any) (result json.RawMessage, werr *jsonrpc.Error, answered bool) {
	conn := b.s.rec.currentConn()
	if conn == nil || conn.isDead() || ctx.Err() != nil {
		return nil, nil, false
	}
	var raw json.RawMessage
	if params != nil {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return nil, nil, false
		}
	}
	timeout := min(b.o.CallTimeout, basicsTimeout)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	result, werr, err := conn.rawCall(cctx, method, raw)
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			b.add(NewFinding(CodeBasicFailed, "server", method, "",
				"%s got no answer within %s", method, timeout))
		}
		return nil, nil, false
	}
	return result, werr, true
}

// gated checks one call of a method gated by capability.
func (b *basics) gated(method, capability string, declared bool, result json.RawMessage, werr *jsonrpc.Error) bool {
	switch {
	case declared && werr != nil && werr.Code == jsonrpc.CodeMethodNotFound:
		b.add(NewFinding(CodeCapabilityMissing, "server", method, werr.Message,
			"the server declared the %q capability, but %s answered -32601 (method not found)", capability, method))
	case declared && werr != nil && werr.Code == jsonrpc.CodeInternalError:
		b.add(NewFinding(CodeBasicFailed, "server", method, werr.Message,
			"%s failed with an internal error (-32603) on arguments taken from the server's own listing: %s", method, safe.Truncate(werr.Message, 200, safe.Ellipsis)))
	case !declared && werr == nil && result != nil:
		b.add(NewFinding(CodeUndeclaredAnswered, "server", method, safe.Truncate(string(result), 200, safe.Ellipsis),
			"%s was answered with a result although the server did not declare the %q capability", method, capability))
	}
	return werr == nil && result != nil
}

func (b *basics) ping(ctx context.Context) {
	result, werr, ok := b.call(ctx, "ping", nil)
	if !ok {
		return
	}
	if werr != nil {
		b.add(NewFinding(CodePingNotEmpty, "server", "ping", werr.Message,
			"ping was answered with the error %d; the receiver must respond promptly with an empty result", werr.Code))
		return
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(result, &m) == nil {
		delete(m, "_meta")
		if len(m) == 0 {
			return
		}
	}
	b.add(NewFinding(CodePingNotEmpty, "server", "ping", safe.Truncate(string(result), 200, safe.Ellipsis),
		"ping was answered with %s; the receiver must respond with an empty result {}", safe.Truncate(string(result), 200, safe.Ellipsis)))
}

func (b *basics) logging(ctx context.Context) {
	// "emergency" is the least verbose level: it changes nothing a
	// client would notice.
	result, werr, ok := b.call(ctx, "logging/setLevel", map[string]string{"level": "emergency"})
	if ok {
		b.gated("logging/setLevel", "logging", b.declared("logging"), result, werr)
	}
}

var templateVar = lazyre.New(`\{([A-Za-z0-9_]+)\}`)

func (b *basics) completion(ctx context.Context) {
	var params map[string]any
	for _, p := range b.res.Prompts {
		var args []struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(p.Arguments, &args) == nil && len(args) > 0 && args[0].Name != "" {
			params = map[string]any{"ref": map[string]string{"type": "ref/prompt", "name": p.Name},
				"argument": map[string]string{"name": args[0].Name, "value": ""}}
			break
		}
	}
	if params == nil {
		for _, t := range b.res.ResourceTemplates {
			if m := templateVar.FindStringSubmatch(t.URITemplate); m != nil {
				params = map[string]any{"ref": map[string]string{"type": "ref/resource", "uri": t.URITemplate},
					"argument": map[string]string{"name": m[1], "value": ""}}
				break
			}
		}
	}
	declared := b.declared("completions")
	if params == nil {
		if declared {
			return // nothing listed to complete
		}
		params = map[string]any{"ref": map[string]string{"type": "ref/prompt", "name": "mcpvet-no-such-prompt"},
			"argument": map[string]string{"name": "x", "value": ""}}
	}
	result, werr, ok := b.call(ctx, "completion/complete", params)
	if ok {
		b.gated("completion/complete", "completions", declared, result, werr)
	}
}

func (b *basics) prompts(ctx context.Context) {
	if !b.declared("prompts") || len(b.res.Prompts) == 0 {
		return
	}
	p := b.res.Prompts[0]
	var args []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	}
	_ = json.Unmarshal(p.Arguments, &args)
	values := map[string]string{}
	for _, a := range args {
		if a.Name != "" {
			values[a.Name] = "1"
		}
	}
	result, werr, ok := b.call(ctx, "prompts/get", map[string]any{"name": p.Name, "arguments": values})
	if ok {
		b.gated("prompts/get", "prompts", true, result, werr)
	}
}

func (b *basics) resources(ctx context.Context) {
	if !b.declared("resources") {
		return
	}
	if len(b.res.Resources) > 0 {
		r := b.res.Resources[0]
		result, werr, ok := b.call(ctx, "resources/read", map[string]string{"uri": r.URI})
		if ok && b.gated("resources/read", "resources", true, result, werr) {
			b.contentShape(r.URI, r.MIMEType, result)
		}
		var rc struct {
			Subscribe bool `json:"subscribe"`
		}
		_ = json.Unmarshal(b.caps["resources"], &rc)
		result, werr, ok = b.call(ctx, "resources/subscribe", map[string]string{"uri": r.URI})
		if ok && b.gated("resources/subscribe", "resources.subscribe", rc.Subscribe, result, werr) && rc.Subscribe {
			result, werr, ok = b.call(ctx, "resources/unsubscribe", map[string]string{"uri": r.URI})
			if ok {
				b.gated("resources/unsubscribe", "resources.subscribe", true, result, werr)
			}
		}
	}
}

// template reads the first simple template, expanded.
func (b *basics) template(ctx context.Context) {
	if !b.declared("resources") {
		return
	}
	for _, t := range b.res.ResourceTemplates {
		vars := templateVar.FindAllStringSubmatch(t.URITemplate, -1)
		if len(vars) == 0 || strings.ContainsAny(templateVar.ReplaceAllString(t.URITemplate, ""), "{}") {
			continue // only simple {var} templates are expanded
		}
		uri := templateVar.ReplaceAllString(t.URITemplate, "1")
		result, werr, ok := b.call(ctx, "resources/read", map[string]string{"uri": uri})
		if ok && b.gated("resources/read", "resources", true, result, werr) {
			b.contentShape(uri, "", result)
		}
		break
	}
}

// contentShape checks the contents of a resources/read result beyond the
// schema: exactly one of text and blob, blob in base64, the listed type.
func (b *basics) contentShape(uri, listedMIME string, result json.RawMessage) {
	var rr struct {
		Contents []map[string]json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(result, &rr) != nil {
		return // the schema check reports it
	}
	subject := "resource:" + uri
	for i, c := range rr.Contents {
		ptr := fmt.Sprintf("resources/read/contents/%d", i)
		_, hasText := c["text"]
		blob, hasBlob := c["blob"]
		switch {
		case hasText == hasBlob:
			b.add(NewFinding(CodeResourceContent, subject, ptr, "",
				"content item %d of %s has %s; it needs exactly one of text and blob", i, uri, map[bool]string{true: "both text and blob", false: "neither text nor blob"}[hasText]))
		case hasBlob:
			var s string
			if json.Unmarshal(blob, &s) != nil {
				break
			}
			if _, err := base64.StdEncoding.DecodeString(s); err != nil {
				b.add(NewFinding(CodeResourceContent, subject, ptr+"/blob", safe.Truncate(s, 80, safe.Ellipsis),
					"content item %d of %s has a blob that is not valid base64: %v", i, uri, err))
			}
		}
		var mime string
		if m, ok := c["mimeType"]; ok && json.Unmarshal(m, &mime) == nil && listedMIME != "" && mime != "" && mime != listedMIME {
			b.add(NewFinding(CodeResourceMIMEMismatch, subject, ptr+"/mimeType", mime,
				"%s was listed with mimeType %q but read as %q", uri, listedMIME, mime))
		}
	}
}
