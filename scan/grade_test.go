package scan

import (
	"strings"
	"testing"
)

func TestGradeRecorded(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		id      string
		wantErr string
	}{
		{"graded", `{"id": "a", "kind": "wrong_type", "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {"q": 1}}}, "param": "q", "response": {"jsonrpc": "2.0", "id": 1, "result": {"isError": true, "content": [{"type": "text", "text": "q must be a string"}]}}}`, `"a"`, ""},
		{"no id", `{"kind": "wrong_type", "request": {"method": "tools/call"}, "response": null}`, "null", ""},
		{"not json", `{"id": "cut"`, "", "not a JSON object: "},
		{"bad kind", `{"kind": "wrong_kind", "request": {"method": "tools/call"}, "response": {"result": {}}}`, "", `"kind": "wrong_kind" is not a probe kind`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := GradeRecorded([]byte(tt.line))
			if tt.wantErr != "" {
				// The message is the reason alone, for a line of its own.
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("GradeRecorded = %v, want an error starting %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(g.ID) != tt.id || g.Kind != "wrong_type" || g.RubricVersion == "" || len(g.Elements) != len(RubricElements()) {
				t.Fatalf("graded %+v, want id %s, kind wrong_type and every element", g, tt.id)
			}
			for i, e := range g.Elements {
				if e.Name != RubricElements()[i] {
					t.Errorf("element %d is %q, want %q", i, e.Name, RubricElements()[i])
				}
			}
		})
	}
}
