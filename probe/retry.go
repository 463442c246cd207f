package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/mcpvet/mcpvet/internal/lazyre"
	"github.com/mcpvet/mcpvet/vocab"
)

// First-retry resolution without a model (issue 25): after an error to an
// injected call that mcpvet may repeat, derive at most one corrected call
// from the response alone and send it once. What an agent would do with
// the response is what the response makes determinable: a closest match
// or suggested name, a permitted value, a required argument named as
// missing (filled from the schema).

// Retry outcomes.
const (
	RetryResolved     = "resolved"       // the corrected call succeeded
	RetrySameError    = "same_error"     // the same error again
	RetryOtherError   = "other_error"    // a different error
	RetryCrash        = vocab.ClassCrash // the server died
	RetryHang         = vocab.ClassHang  // no answer in time
	RetryNoCorrection = "no_correction"  // the response determines no corrected call
)

// Retry is the first retry of one error response.
type Retry struct {
	// Outcome is one of the Retry* outcomes.
	Outcome string `json:"outcome"`
	// Source is "structured" (a JSON field) or "prose" (the text), empty
	// for no_correction.
	Source string `json:"source,omitempty"`
	// Correction says what changed: `units: "kelvinx" -> "metric"`.
	Correction string `json:"correction,omitempty"`
	// Code is the error's code for per-code rates: the response's own
	// "code" field, else the JSON-RPC code ("jsonrpc:-32602"), else
	// "none".
	Code      string          `json:"code"`
	Sent      json.RawMessage `json:"sent,omitempty"`
	LatencyMs float64         `json:"latencyMs,omitempty"`
}

// DefaultMaxRetries is the per-server budget of corrected calls.
const DefaultMaxRetries = 20

// retryAllowed reports whether mcpvet may send a valid call to the tool:
// only read-only, closed-world tools unless the user opted in.
func (in *injector) retryAllowed(t Tool) bool {
	if in.o.RetryUnsafe {
		return true
	}
	destructive, openWorld := effectiveHints(t.Annotations)
	return readOnlyHint(t.Annotations) && !destructive && !openWorld
}

func (in *injector) toolByName(name string) (Tool, bool) {
	for _, t := range in.res.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// retryPass sends the first retries once every probe is in, so that a
// corrected call that kills the server cannot take the place of the
// probes after it.
func (in *injector) retryPass(ctx context.Context) {
	for i := in.first; i < len(in.res.Probes); i++ {
		if in.stop || ctx.Err() != nil || in.retries >= in.o.MaxRetries {
			return
		}
		if in.notes[i].killed {
			continue
		}
		if conn := in.s.rec.currentConn(); conn == nil || conn.isDead() {
			if !in.relaunch(ctx) {
				return
			}
		}
		in.maybeRetry(ctx, &in.res.Probes[i], in.notes[i].code)
	}
}

// maybeRetry derives and sends the corrected call of p, an error answer
// to an injected tools/call, and records it on p.
func (in *injector) maybeRetry(ctx context.Context, p *ProbeCall, code *int64) {
	if in.o.NoRetry || p.Method != "tools/call" || (p.Class != ClassToolError && p.Class != ClassProtocolError) || in.retries >= in.o.MaxRetries {
		return
	}
	target := p.Tool
	if p.Kind != "unknown_tool" {
		t, ok := in.toolByName(p.Tool)
		if !ok || !in.retryAllowed(t) {
			return
		}
	}
	r := &Retry{Code: errorCode(p, code)}
	c, ok := deriveCorrection(p, in.res.Tools)
	if !ok {
		r.Outcome = RetryNoCorrection
		p.Retry = r
		return
	}
	if p.Kind == "unknown_tool" {
		target = c.tool
		t, ok := in.toolByName(target)
		if !ok || !in.retryAllowed(t) {
			return
		}
	}
	conn := in.s.rec.currentConn()
	if conn == nil || conn.isDead() {
		return
	}
	in.retries++
	r.Source, r.Correction, r.Sent = c.source, c.what, callParams(target, c.args)
	sent := r.Sent
	if s, err := conn.withMeta(sent, in.version); err == nil {
		sent = s
	}
	cctx, cancel := context.WithTimeout(ctx, in.o.CallTimeout)
	t0 := time.Now()
	result, werr, err := conn.rawCall(cctx, "tools/call", sent)
	r.LatencyMs = Ms(time.Since(t0))
	cancel()
	switch {
	case err != nil && ctx.Err() != nil:
		return
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		r.Outcome = RetryHang
	case err != nil:
		r.Outcome = RetryCrash
	case werr != nil:
		r.Outcome = sameOrOther(p, werr.Message)
	default:
		class, text := classifyResult("tools/call", result)
		if class == ClassToolError {
			r.Outcome = sameOrOther(p, text)
		} else {
			r.Outcome = RetryResolved
		}
	}
	if r.Outcome != RetryHang && r.Outcome != RetryCrash && !in.alive(ctx) && ctx.Err() == nil {
		r.Outcome = RetryCrash
	}
	p.Retry = r
	if r.Outcome == RetryCrash {
		in.relaunch(ctx)
	}
}

func sameOrOther(p *ProbeCall, text string) string {
	if strings.TrimSpace(text) == strings.TrimSpace(p.Text) {
		return RetrySameError
	}
	return RetryOtherError
}

// errorCode is the response's own code, or its JSON-RPC code.
func errorCode(p *ProbeCall, code *int64) string {
	if m := decodeObject(p.Text); m != nil {
		if c, ok := m["code"].(string); ok && c != "" && len(c) <= 64 {
			return c
		}
	}
	if code != nil {
		return fmt.Sprintf("jsonrpc:%d", *code)
	}
	return "none"
}

// decodeObject decodes s as one JSON object, or the object after a prose
// prefix ("MCP error -32602: ...: {...}"); nil when there is none.
func decodeObject(s string) map[string]any {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s) && i < 512; i++ {
		if s[i] != '{' {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(s[i:]), &m) == nil {
			return m
		}
	}
	return nil
}

// decodeIssues decodes a zod issue array after a prose prefix.
func decodeIssues(s string) []map[string]any {
	i := strings.IndexByte(s, '[')
	if i < 0 {
		return nil
	}
	var a []map[string]any
	if json.Unmarshal([]byte(strings.TrimSpace(s[i:])), &a) != nil {
		return nil
	}
	return a
}

// correction is one derived corrected call.
type correction struct {
	tool         string // for unknown_tool: the suggested tool
	args         json.RawMessage
	source, what string
}

var (
	reDidYouMean = lazyre.New(`(?i)did you mean:?\s*["'` + "`" + `]?([A-Za-z0-9_.:/\-]+)`)
	reOneOf      = lazyre.New(`(?i)(?:one of|valid values(?: are)?|allowed values(?: are)?|use one of)\s*:?\s*\[?\s*["'` + "`" + `]?([A-Za-z0-9_.:/\-]+)`)
	reExpected   = lazyre.New(`(?i)expected\s+["'` + "`" + `]([^"'` + "`" + `]+)["'` + "`" + `]\s*(?:\||,|or)`)
	reParenNote  = lazyre.New(`\s*\(.*\)$`)
)

// deriveCorrection reads the response of p for one corrected call.
func deriveCorrection(p *ProbeCall, tools []Tool) (correction, bool) {
	var sent struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(p.Sent, &sent)
	args := map[string]any{}
	_ = json.Unmarshal(sent.Arguments, &args)
	if args == nil {
		args = map[string]any{}
	}
	var tool Tool
	for _, t := range tools {
		if t.Name == p.Tool {
			tool = t
		}
	}
	text := p.Text
	obj := decodeObject(text)
	param := p.Param
	if obj != nil {
		for _, k := range []string{"field", "param", "parameter", "argument"} {
			if f, ok := obj[k].(string); ok && f != "" {
				param = f
			}
		}
	}
	done := func(source, value string) (correction, bool) {
		if p.Kind == "unknown_tool" {
			for _, t := range tools {
				if t.Name == value {
					return correction{tool: value, args: fillRequired(t.InputSchema, map[string]any{}), source: source,
						what: fmt.Sprintf("tool %q -> %q", p.Tool, value)}, true
				}
			}
			return correction{}, false
		}
		if param == "" {
			return correction{}, false
		}
		old, _ := json.Marshal(args[param])
		args[param] = value
		b, _ := json.Marshal(args)
		return correction{args: b, source: source, what: fmt.Sprintf("%s: %s -> %q", param, old, value)}, true
	}
	// Structured: closest matches, then permitted values.
	if obj != nil {
		for _, k := range []string{"closest_matches", "closestMatches", "suggestions", "did_you_mean", "didYouMean", "candidates", "options", "allowed", "allowed_values", "enum", "values"} {
			if v := firstString(obj[k]); v != "" {
				return done("structured", reParenNote.ReplaceAllString(v, ""))
			}
		}
	}
	for _, is := range decodeIssues(text) {
		if v := firstString(is["options"]); v != "" {
			if path, ok := is["path"].([]any); ok && len(path) > 0 {
				if s, ok := path[0].(string); ok {
					param = s
				}
			}
			return done("structured", v)
		}
		if is["received"] == "undefined" || is["code"] == "invalid_type" && strings.Contains(fmt.Sprint(is["message"]), "Required") {
			if c, ok := fillMissing(tool, args, "structured"); ok {
				return c, true
			}
		}
	}
	// Prose.
	if m := reDidYouMean.FindStringSubmatch(text); m != nil {
		return done("prose", strings.TrimRight(m[1], ".?!,;"))
	}
	if m := reExpected.FindStringSubmatch(text); m != nil {
		return done("prose", m[1])
	}
	if m := reOneOf.FindStringSubmatch(text); m != nil {
		return done("prose", strings.TrimRight(m[1], ".?!,;"))
	}
	low := strings.ToLower(text)
	if strings.Contains(low, "required") || strings.Contains(low, "missing") || strings.Contains(low, "undefined") {
		if c, ok := fillMissing(tool, args, "prose"); ok {
			return c, true
		}
	}
	return correction{}, false
}

// fillMissing adds the required arguments absent from args, filled from
// the schema; false when none is absent.
func fillMissing(t Tool, args map[string]any, source string) (correction, bool) {
	before := len(args)
	b := fillRequired(t.InputSchema, args)
	var filled map[string]any
	_ = json.Unmarshal(b, &filled)
	if len(filled) == before {
		return correction{}, false
	}
	var names []string
	for k := range filled {
		if _, ok := args[k]; !ok || before == 0 {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return correction{args: b, source: source, what: "filled from the schema: " + strings.Join(names, ", ")}, true
}

// fillRequired returns args with every required property the schema names
// and args lacks, set to a schema-valid value.
func fillRequired(schema json.RawMessage, args map[string]any) json.RawMessage {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	for _, name := range s.Required {
		if _, ok := out[name]; !ok {
			out[name] = sampleValue(s.Properties[name])
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// sampleValue is a value the property schema permits: its default,
// const, first example or enum value, else one of its type.
func sampleValue(schema json.RawMessage) any {
	var s struct {
		Type      any             `json:"type"`
		Default   json.RawMessage `json:"default"`
		Const     json.RawMessage `json:"const"`
		Examples  []any           `json:"examples"`
		Enum      []any           `json:"enum"`
		Minimum   *float64        `json:"minimum"`
		MinLength int             `json:"minLength"`
	}
	_ = json.Unmarshal(schema, &s)
	for _, raw := range []json.RawMessage{s.Default, s.Const} {
		var v any
		if len(raw) > 0 && json.Unmarshal(raw, &v) == nil {
			return v
		}
	}
	if len(s.Examples) > 0 {
		return s.Examples[0]
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	typ, _ := s.Type.(string)
	if list, ok := s.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch typ {
	case "integer", "number":
		if s.Minimum != nil {
			return math.Ceil(*s.Minimum)
		}
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return strings.Repeat("a", max(1, s.MinLength))
}

func firstString(v any) string {
	switch x := v.(type) {
	case []any:
		if len(x) > 0 {
			if s, ok := x[0].(string); ok {
				return s
			}
		}
	case string:
		return x
	}
	return ""
}

// RetryRate is the first-retry resolution of a set of error responses.
type RetryRate struct {
	Resolved int `json:"resolved"`
	Tried    int `json:"tried"`
	// Low and High bound the rate's 95% Wilson score interval.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Structured and Prose count the resolved corrections by source.
	Structured int `json:"structured,omitempty"`
	Prose      int `json:"prose,omitempty"`
}

// RetryRates are a server's first-retry rates in all, per probe kind and
// per error code.
type RetryRates struct {
	All    RetryRate            `json:"all"`
	ByKind map[string]RetryRate `json:"byKind,omitempty"`
	ByCode map[string]RetryRate `json:"byCode,omitempty"`
}

// Wilson returns the 95% Wilson score interval of k successes in n.
func Wilson(k, n int) (low, high float64) {
	if n == 0 {
		return 0, 0
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// Rates computes the first-retry rates of res's probes (each error with a
// Retry counts once; no_correction counts as not resolved).
func Rates(res *Result) RetryRates {
	rr := RetryRates{ByKind: map[string]RetryRate{}, ByCode: map[string]RetryRate{}}
	add := func(r *RetryRate, x *Retry) {
		r.Tried++
		if x.Outcome == RetryResolved {
			r.Resolved++
			if x.Source == "structured" {
				r.Structured++
			} else {
				r.Prose++
			}
		}
		r.Low, r.High = Wilson(r.Resolved, r.Tried)
	}
	for _, p := range res.Probes {
		if p.Retry == nil {
			continue
		}
		add(&rr.All, p.Retry)
		k, c := rr.ByKind[p.Kind], rr.ByCode[p.Retry.Code]
		add(&k, p.Retry)
		add(&c, p.Retry)
		rr.ByKind[p.Kind], rr.ByCode[p.Retry.Code] = k, c
	}
	return rr
}
