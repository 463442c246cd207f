package probe

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpvet/mcpvet/internal/safe"
)

// Tasks (2025-11-25, experimental): what a server declares and how it
// answers mcpvet's own requests. A server that declares tasks.list is
// asked tasks/list (its answer validated against ListTasksResult, -32601
// is protocol/declared_method_missing); a server that declares tasks is
// asked tasks/get for a task that does not exist, which must be refused;
// a tool whose execution.taskSupport is "required" on a server that does
// not declare tasks.requests.tools.call can be called by no client.
// 2026-07-28 moved tasks out of the core protocol (no tasks capability,
// no Tool.execution), so nothing here applies to it.

const (
	CodeTaskRequiredUndeclared = "tasks/required_without_capability"
	CodeTaskUnknownAnswered    = "tasks/unknown_task_not_rejected"
)

const (
	specTaskNegotiation = `"If a server's capabilities do not include tasks.requests.tools.call, then clients MUST NOT attempt to use task augmentation on that server's tools, regardless of the execution.taskSupport value." and "If taskSupport is \"required\", clients MUST invoke the tool as a task. Servers MUST return a -32601 (Method not found) error if a client does not attempt to do so." (2025-11-25, Basic, Utilities, Tasks, Tool-Level Negotiation)`
	specTaskErrors      = `"Receivers MUST return standard JSON-RPC errors for the following protocol error cases: ... Invalid or nonexistent taskId in tasks/get, tasks/result, tasks/cancel: -32602 (Invalid params)" (2025-11-25, Basic, Utilities, Tasks, Error Handling)`
)

func init() {
	register(
		CatalogEntry{CodeTaskRequiredUndeclared, SeverityError,
			"a tool requires being called as a task (execution.taskSupport: required) but the server does not declare tasks.requests.tools.call, so no client may call it",
			"declare tasks: {requests: {tools: {call: {}}}} in the server capabilities, or set the tool's taskSupport to optional or forbidden"},
		CatalogEntry{CodeTaskUnknownAnswered, SeverityError,
			"tasks/get for a task that does not exist was not refused with -32602 (invalid params)",
			"answer tasks/get, tasks/result and tasks/cancel of an unknown or expired taskId with error -32602"},
	)
	registerWhy(map[string]string{
		CodeTaskRequiredUndeclared: specTaskNegotiation + ": the two rules together leave the tool uncallable.",
		CodeTaskUnknownAnswered:    specTaskErrors + "; mcpvet sends one tasks/get with a taskId it made up (mcpvet-no-such-task) to servers that declare tasks.",
	})
}

// unknownTaskID is the taskId of mcpvet's tasks/get: no server issued it.
const unknownTaskID = "mcpvet-no-such-task"

// tasks runs the task checks (a check of runBasics).
func (b *basics) tasks(ctx context.Context) {
	var caps struct {
		List     json.RawMessage `json:"list"`
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	declared := b.declared("tasks")
	if declared {
		_ = json.Unmarshal(b.caps["tasks"], &caps)
	}
	present := func(r json.RawMessage) bool { return len(r) > 0 && string(r) != "null" }
	if !present(caps.Requests.Tools.Call) {
		for i, t := range b.res.Tools {
			var x struct {
				Execution struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			}
			if json.Unmarshal(t.Raw, &x) == nil && x.Execution.TaskSupport == "required" {
				b.add(NewFinding(CodeTaskRequiredUndeclared, subjectOf("tool", t.Name, i), "/execution/taskSupport", "required",
					"tool %s must be called as a task, but the server does not declare tasks.requests.tools.call; the spec says %s", t.Name, specTaskNegotiation))
			}
		}
	}
	if !declared {
		return
	}
	if present(caps.List) {
		result, werr, ok := b.call(ctx, "tasks/list", map[string]any{})
		if ok && b.gated("tasks/list", "tasks.list", true, result, werr) {
			b.mu.Lock()
			b.out = append(b.out, checkPages(b.res.Liveness.ProtocolVersion, []Page{{Method: "tasks/list", Result: result}})...)
			b.mu.Unlock()
		}
	}
	result, werr, ok := b.call(ctx, "tasks/get", map[string]string{"taskId": unknownTaskID})
	switch {
	case !ok:
	case werr == nil:
		b.add(NewFinding(CodeTaskUnknownAnswered, "server", "tasks/get", safe.Truncate(string(result), 200, safe.Ellipsis),
			"tasks/get of the unknown taskId %q was answered with a result; the spec says %s", unknownTaskID, specTaskErrors))
	case werr.Code == jsonrpc.CodeMethodNotFound:
		b.gated("tasks/get", "tasks", true, nil, werr)
	case werr.Code != jsonrpc.CodeInvalidParams:
		b.add(NewFinding(CodeTaskUnknownAnswered, "server", "tasks/get", fmt.Sprint(werr.Code),
			"tasks/get of the unknown taskId %q was refused with %d, not -32602; the spec says %s", unknownTaskID, werr.Code, specTaskErrors))
	}
}
