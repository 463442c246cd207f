package probe

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTasks: scripted 2025-11-25 servers. The conformant one declares
// tasks (list, tools/call), lists no task, refuses an unknown taskId with
// -32602 and has a tool that requires tasks; the others break one rule
// each. A server that declares no tasks is asked nothing.
func TestTasks(t *testing.T) {
	const taskTool = `{"tools":[{"name":"render","description":"Renders.","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}`
	const caps = `{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}`
	invalid := []string{`{"jsonrpc":"2.0","id":$ID,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}}`}
	for _, tt := range []struct {
		name, caps       string
		list, get        []string
		want             []string
		wantTaskRequests bool
	}{
		{"conformant", caps, result(`{"tasks":[]}`), invalid, []string{}, true},
		{"required without capability", `{"tools":{}}`, nil, nil,
			[]string{"tasks/required_without_capability tool:render /execution/taskSupport"}, false},
		{"unknown task answered", caps, result(`{"tasks":[]}`),
			result(`{"taskId":"mcpvet-no-such-task","status":"working","createdAt":"2025-11-25T00:00:00Z","lastUpdatedAt":"2025-11-25T00:00:00Z","ttl":null}`),
			[]string{"tasks/unknown_task_not_rejected server tasks/get"}, true},
		{"unknown task wrong code", caps, result(`{"tasks":[]}`), []string{`{"jsonrpc":"2.0","id":$ID,"error":{"code":-32603,"message":"boom"}}`},
			[]string{"tasks/unknown_task_not_rejected server tasks/get"}, true},
		{"tasks/list missing", caps, nil, invalid, []string{"protocol/declared_method_missing server tasks/list"}, true},
		{"tasks/list malformed", caps, result(`{"tasks":[{"taskId":7}]}`), invalid, []string{"protocol/message_schema_violation server tasks/list/tasks/0", "protocol/message_schema_violation server tasks/list/tasks/0/taskId"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			script := map[string][]string{
				"initialize": {initAnswer(tt.caps)},
				"ping":       result(`{}`),
				"tools/list": result(taskTool),
			}
			if tt.list != nil {
				script["tasks/list"] = tt.list
			}
			if tt.get != nil {
				script["tasks/get"] = tt.get
			}
			res := runScript(t, &scriptServer{script: script})
			got := findingKeys(res, "tasks/", "protocol/declared_method_missing", "protocol/message_schema_violation")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			asked := slices.ContainsFunc(res.Calls, func(c Call) bool { return c.Method == "tasks/get" })
			if asked != tt.wantTaskRequests {
				t.Errorf("tasks/get sent: %v, want %v", asked, tt.wantTaskRequests)
			}
		})
	}
}
