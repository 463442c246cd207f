package probe

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckStructuredOutput(t *testing.T) {
	weather := Tool{Name: "get-structured-content", OutputSchema: json.RawMessage(everythingStructuredOu),
		Raw: json.RawMessage(`{"name":"get-structured-content","inputSchema":` + everythingStructuredIn + `,"outputSchema":` + everythingStructuredOu + `}`)}
	tests := []struct {
		name       string
		tool       Tool
		structured string
		want       []string
	}{
		// The real server's answer for location "Chicago".
		{"real: everything weather", weather, `{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}`, []string{}},
		{"no outputSchema", Tool{Name: "a", Raw: json.RawMessage(`{"name":"a"}`)}, `{"x":1}`, nil},
		{"typed fields without raw", Tool{Name: "a", OutputSchema: json.RawMessage(`{"type":"object","required":["n"]}`)}, `{}`,
			[]string{"output/structured_invalid /structuredContent"}},
		{"missing", weather, ``, []string{"output/structured_missing /structuredContent"}},
		{"wrong type", weather, `{"temperature":"warm","conditions":"sun","humidity":1}`, []string{"output/structured_invalid /structuredContent/temperature"}},
		{"missing property and extra", weather, `{"temperature":1,"conditions":"sun","wind":3}`,
			[]string{"output/structured_invalid /structuredContent", "output/structured_invalid /structuredContent"}},
		{"not an object", weather, `[1,2]`, []string{"output/structured_invalid /structuredContent"}},
		{"null", weather, `null`, []string{"output/structured_invalid /structuredContent"}},
		{"not JSON", weather, `{"a":`, []string{"output/structured_invalid /structuredContent"}},
		{"unusable schema reports nothing here", Tool{Name: "a", Raw: json.RawMessage(`{"name":"a","outputSchema":{"type":"nope"}}`)}, `{}`, nil},
	}
	c := NewChecker()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.CheckStructuredOutput(tt.tool, json.RawMessage(tt.structured))
			if tt.want == nil {
				if got != nil {
					t.Errorf("got %v, want nil", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, codePointers(got)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, got)
			}
			for _, f := range got {
				if !strings.HasPrefix(f.Subject, "tool:") {
					t.Errorf("subject %q", f.Subject)
				}
			}
		})
	}
}
