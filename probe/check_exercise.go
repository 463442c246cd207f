package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpvet/mcpvet/internal/safe"
)

// Successful tool calls, opt-in (Options.Exercise, --exercise): each tool
// annotated readOnlyHint: true and openWorldHint: false is called once
// with the minimal arguments its input schema accepts (the required
// properties only, each the smallest value its schema allows) and a
// progress token, within a declared budget of tools/call requests
// (Options.ExerciseCalls, --exercise-calls). The result is validated
// against the schema (check_messages.go), its structuredContent against
// the tool's outputSchema, and the progress notifications for the token
// must increase. Server requests during a call are answered as always
// (client.go) and their shapes checked (check_elicitation.go). A
// 2026-07-28 server asks through input-required results instead
// (SEP-2322): mcpvet answers their input requests the same way and calls
// again with inputResponses and the requestState, at most
// maxInputRounds times per tool, each round from the budget.

// CodeProgressNotMonotonic: progress notifications of one request did not
// increase.
const CodeProgressNotMonotonic = "protocol/progress_not_monotonic"

// CodeInputRequiredEmpty: an input-required result without inputRequests
// and requestState.
const CodeInputRequiredEmpty = "protocol/input_required_empty"

const specProgress = `"The progress value MUST increase with each notification, even if the total is unknown." (2025-11-25, Utilities, Progress)`

const specInputRequired = `"At least one of ` + "`inputRequests`" + ` or ` + "`requestState`" + ` MUST be present." (2026-07-28 schema, InputRequiredResult)`

func init() {
	register(CatalogEntry{CodeProgressNotMonotonic, SeverityError,
		"progress notifications of one request did not increase",
		"send a larger progress value in each notifications/progress of a request"},
		CatalogEntry{CodeInputRequiredEmpty, SeverityError,
			"a tools/call answered input_required with neither inputRequests nor requestState, so the client has nothing to answer and cannot go on",
			"return the input requests the call needs (inputRequests) and the state to resume from (requestState), or a complete result"})
}

// DefaultExerciseCalls is the budget of tools/call requests of
// --exercise when none is given.
const DefaultExerciseCalls = 20

// MaxExerciseCalls bounds --exercise-calls.
const MaxExerciseCalls = 200

// maxInputRounds bounds the calls again after input-required results of
// one tool.
const maxInputRounds = 3

// Exercise is one successful-path tool call of --exercise.
type Exercise struct {
	Tool string `json:"tool"`
	// Arguments are the arguments generated from the input schema.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Outcome is result, tool_error, error, no_answer or skipped.
	Outcome string `json:"outcome"`
	// Detail says why a call was skipped or failed.
	Detail string `json:"detail,omitempty"`
	// Progress and Logs count the notifications/progress for the call's
	// token and the notifications/message received during the call.
	Progress int `json:"progress"`
	Logs     int `json:"logs"`
	// InputRounds counts the calls again after input-required results
	// (2026-07-28).
	InputRounds int `json:"inputRounds,omitempty"`
}

// exercisable reports whether a tool's annotations say it only reads and
// touches no outside system.
func exercisable(t Tool) bool {
	var a struct {
		ReadOnly  *bool `json:"readOnlyHint"`
		OpenWorld *bool `json:"openWorldHint"`
	}
	return json.Unmarshal(t.Annotations, &a) == nil && a.ReadOnly != nil && *a.ReadOnly && a.OpenWorld != nil && !*a.OpenWorld
}

// generatedArguments returns arguments for the tool that its input schema
// accepts.
func generatedArguments(t Tool) (json.RawMessage, error) {
	sch, err := compileInputSchema(t.InputSchema)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := decodeNumbers(t.InputSchema, &doc); err != nil {
		return nil, err
	}
	root, _ := doc.(map[string]any)
	if root != nil {
		// The generator does not follow $ref: inline the local ones
		// ("#/$defs/x", "#anchor") so a property defined by reference
		// gets a value of its definition.
		budget := maxInlinedNodes
		root, _ = inlineLocalRefs(root, root, 0, &budget).(map[string]any)
	}
	args := map[string]any{}
	if root != nil {
		if m, ok := sample(root, 0).(map[string]any); ok {
			args = m
		}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	if rejects(sch, raw) {
		return raw, fmt.Errorf("the generated arguments %s do not validate against the input schema", raw)
	}
	return raw, nil
}

func runExercise(ctx context.Context, s *session, res *Result, o Options) {
	if !o.Exercise || s == nil || s.rec == nil || !res.Liveness.HandshakeCompleted {
		return
	}
	res.ExerciseCalls = o.ExerciseCalls
	checker := o.Checker
	if checker == nil {
		checker = NewChecker()
	}
	calls, n := 0, 0
	for _, t := range res.Tools {
		if !exercisable(t) || ctx.Err() != nil {
			continue
		}
		if calls >= o.ExerciseCalls {
			break
		}
		n++
		ex := Exercise{Tool: t.Name}
		args, err := generatedArguments(t)
		ex.Arguments = args
		if err != nil {
			ex.Outcome, ex.Detail = "skipped", err.Error()
			res.Exercised = append(res.Exercised, ex)
			continue
		}
		conn := s.rec.currentConn()
		if conn == nil || conn.isDead() {
			break
		}
		token := fmt.Sprintf("mcpvet-exercise-%d", n)
		meta := conn.raw.requestMeta(res.Liveness.ProtocolVersion)
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		meta["progressToken"], _ = json.Marshal(token)
		call := map[string]any{"name": t.Name, "arguments": json.RawMessage(args), "_meta": meta}
		logsBefore := s.rec.notificationCount("notifications/message")
		seen := map[string]bool{}
		var result json.RawMessage
		var werr *jsonrpc.Error
		for {
			params, _ := json.Marshal(call)
			cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
			result, werr, err = conn.rawCall(cctx, "tools/call", params)
			cancel()
			calls++
			if err != nil || werr != nil {
				break
			}
			more, fs := inputRound(t.Name, result)
			for _, f := range fs {
				// A server asking again the same way is one defect.
				if k := f.Code + " " + f.Pointer + " " + f.Value; !seen[k] {
					seen[k] = true
					res.Findings = append(res.Findings, f)
				}
			}
			if more == nil || ex.InputRounds == maxInputRounds || calls >= o.ExerciseCalls || ctx.Err() != nil {
				break
			}
			ex.InputRounds++
			maps.Copy(call, more)
		}
		ex.Logs = s.rec.notificationCount("notifications/message") - logsBefore
		values := s.rec.progressValues(`"` + token + `"`)
		ex.Progress = len(values)
		for i := 1; i < len(values); i++ {
			if values[i] <= values[i-1] {
				res.Findings = append(res.Findings, NewFinding(CodeProgressNotMonotonic, subjectOf("tool", t.Name, 0), "notifications/progress/params/progress",
					fmt.Sprint(values), "the progress values of one call of %s were %v; the spec says %s", t.Name, values, specProgress))
				break
			}
		}
		switch {
		case err != nil:
			ex.Outcome, ex.Detail = "no_answer", err.Error()
		case werr != nil:
			ex.Outcome, ex.Detail = "error", safe.Truncate(fmt.Sprintf("%d %s", werr.Code, werr.Message), 200, safe.Ellipsis)
		default:
			var r struct {
				IsError           bool            `json:"isError"`
				StructuredContent json.RawMessage `json:"structuredContent"`
				ResultType        string          `json:"resultType"`
			}
			_ = json.Unmarshal(result, &r)
			if r.ResultType == "input_required" {
				ex.Outcome = "input_required"
				break
			}
			if r.IsError {
				ex.Outcome = "tool_error"
				break
			}
			ex.Outcome = "result"
			if string(r.StructuredContent) == "null" {
				r.StructuredContent = nil
			}
			res.Findings = append(res.Findings, checker.CheckStructuredOutput(t, r.StructuredContent)...)
		}
		res.Exercised = append(res.Exercised, ex)
	}
	if n > 0 {
		relist(ctx, s, res, o)
	}
}

// Bounds of inlineLocalRefs: nested $ref expansions (a recursive schema
// expands this many times, then keeps its $ref), and the values it
// builds in all (a schema whose many properties each refer to the root
// would otherwise grow as their number to the fourth power).
const (
	maxRefInlining  = 4
	maxInlinedNodes = 20000
)

// inlineLocalRefs returns v with every local $ref ("#/pointer" or
// "#anchor" inside root) replaced by a copy of its target, the $ref's
// sibling keywords kept; refs it cannot resolve, those nested deeper
// than maxRefInlining and everything past *budget values stay as they
// are.
func inlineLocalRefs(v any, root map[string]any, depth int, budget *int) any {
	if *budget <= 0 {
		return v
	}
	*budget--
	switch t := v.(type) {
	case map[string]any:
		if ref, ok := t["$ref"].(string); ok && strings.HasPrefix(ref, "#") && depth < maxRefInlining {
			if target, ok := resolveLocalRef(root, ref).(map[string]any); ok {
				merged := make(map[string]any, len(target)+len(t))
				maps.Copy(merged, target)
				for k, x := range t {
					if k != "$ref" {
						merged[k] = x
					}
				}
				return inlineLocalRefs(merged, root, depth+1, budget)
			}
		}
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = inlineLocalRefs(x, root, depth, budget)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = inlineLocalRefs(x, root, depth, budget)
		}
		return out
	}
	return v
}

// inputRound reads a tools/call result of tool. For an input-required
// result it returns the members to call again with (inputResponses
// answering every input request as mcpvet answers server requests, and
// the requestState), with the findings on the result's input requests;
// for any other result, nil.
func inputRound(tool string, result json.RawMessage) (map[string]any, []Finding) {
	var r struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  *string                    `json:"requestState"`
	}
	if json.Unmarshal(result, &r) != nil || r.ResultType != "input_required" {
		return nil, nil
	}
	if len(r.InputRequests) == 0 && r.RequestState == nil {
		return nil, []Finding{NewFinding(CodeInputRequiredEmpty, subjectOf("tool", tool, 0), "tools/call/result", safe.Truncate(string(result), MaxEvidence, safe.Ellipsis),
			"a call of %s was answered input_required with neither inputRequests nor requestState; the spec says %s", tool, specInputRequired)}
	}
	var fs []Finding
	responses := map[string]json.RawMessage{}
	keys := slices.Sorted(maps.Keys(r.InputRequests))
	for _, k := range keys {
		var req struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(r.InputRequests[k], &req)
		switch req.Method {
		case "elicitation/create":
			fs = append(fs, inputRequestFindings(checkElicitRequest(r.InputRequests[k]), tool, k, req.Method)...)
			responses[k] = json.RawMessage(`{"action":"decline"}`)
		case "sampling/createMessage":
			fs = append(fs, inputRequestFindings(checkSamplingRequest(r.InputRequests[k]), tool, k, req.Method)...)
			b, _ := json.Marshal(map[string]any{"role": "assistant", "model": "mcpvet-fixed-reply", "stopReason": "endTurn",
				"content": map[string]string{"type": "text", "text": SamplingReply}})
			responses[k] = b
		case "roots/list":
			responses[k] = json.RawMessage(`{"roots":[]}`)
		}
	}
	more := map[string]any{"inputResponses": responses}
	if r.RequestState != nil {
		more["requestState"] = *r.RequestState
	}
	return more, fs
}

// relist lists the tools again after the calls, as a client that
// refreshes its list would, and keeps them in res.Relisted for the rug
// pull check (checkRugPull). A server that fails to answer is left
// alone: the first listing's checks already judged it.
func relist(ctx context.Context, s *session, res *Result, o Options) {
	var tools []Tool
	cursor := ""
	for page := 0; page < o.MaxPages && len(tools) < o.MaxItems; page++ {
		conn := s.rec.currentConn()
		if conn == nil || conn.isDead() || ctx.Err() != nil {
			return
		}
		params := json.RawMessage(`{}`)
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
		result, werr, err := conn.rawCall(cctx, "tools/list", params)
		cancel()
		if err != nil || werr != nil || len(result) > maxListKeptBytes {
			return
		}
		var body struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if json.Unmarshal(result, &body) != nil {
			return
		}
		for _, raw := range body.Tools {
			var t Tool
			if json.Unmarshal(raw, &t) == nil {
				t.Raw = raw
				tools = append(tools, t)
			}
		}
		if body.NextCursor == "" || body.NextCursor == cursor {
			break
		}
		cursor = body.NextCursor
	}
	if tools == nil {
		tools = []Tool{}
	}
	res.Relisted = tools
}

func (r *recorder) notificationCount(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.notifications[method]
}

// noteProgress records one progress value; r.mu is held.
func (r *recorder) noteProgress(params json.RawMessage) {
	var p struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress *float64        `json:"progress"`
	}
	if json.Unmarshal(params, &p) != nil || p.Progress == nil || len(p.Token) == 0 {
		return
	}
	if r.progress == nil {
		r.progress = map[string][]float64{}
	}
	k := idKey(p.Token)
	if len(r.progress[k]) < 1000 {
		r.progress[k] = append(r.progress[k], *p.Progress)
	}
}

func (r *recorder) progressValues(token string) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]float64(nil), r.progress[token]...)
}
