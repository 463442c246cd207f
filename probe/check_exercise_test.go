package probe

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestExercise calls the read-only, closed-world tools of a scripted
// server: one returns no structuredContent although it declares an
// outputSchema, with progress that goes backwards; a tool without the
// annotations is never called.
func TestExercise(t *testing.T) {
	tools := `{"tools":[
	 {"name":"reader","description":"Reads.","inputSchema":{"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]+$"}},"required":["id"]},
	  "outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},
	  "annotations":{"readOnlyHint":true,"openWorldHint":false}},
	 {"name":"writer","description":"Writes.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false}}]}`
	srv := &scriptServer{script: map[string][]string{
		"initialize": {initAnswer(`{"tools":{}}`)},
		"ping":       result(`{}`),
		"tools/list": result(tools),
		"tools/call": {
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpvet-exercise-1","progress":5}}`,
			`20ms|{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpvet-exercise-1","progress":3}}`,
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"reading"}}`,
			`20ms|{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"n is 1"}]}}`,
		},
	}}
	run := func(exercise bool) *Result {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return Run(ctx, srv, &Options{CallTimeout: 2 * time.Second, Exercise: exercise, Inject: &InjectOptions{Disabled: true}})
	}
	res := run(true)
	want := []Exercise{{Tool: "reader", Arguments: []byte(`{"id":"a"}`), Outcome: "result", Progress: 2, Logs: 1}}
	if diff := cmp.Diff(want, res.Exercised); diff != "" {
		t.Errorf("exercised (-want +got):\n%s", diff)
	}
	got := findingKeys(res, CodeStructuredMissing, CodeProgressNotMonotonic)
	wantCodes := []string{
		"output/structured_missing tool:reader /structuredContent",
		"protocol/progress_not_monotonic tool:reader notifications/progress/params/progress",
	}
	if diff := cmp.Diff(wantCodes, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s\n%v", diff, res.Findings)
	}
	if res := run(false); len(res.Exercised) != 0 || len(findingKeys(res, CodeStructuredMissing)) != 0 {
		t.Errorf("without Exercise: exercised %v, findings %v", res.Exercised, res.Findings)
	}
}
