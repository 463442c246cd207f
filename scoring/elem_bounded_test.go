package scoring

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestEnumerationBoundary: an error may enumerate exactly MaxEnumeration
// items; one more fails the bounded element.
func TestEnumerationBoundary(t *testing.T) {
	list := func(n int) string {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("unit%d", i+1)
		}
		return "units must be one of: " + strings.Join(names, ", ") + "."
	}
	for _, tt := range []struct {
		n    int
		want bool
	}{{MaxEnumeration - 1, true}, {MaxEnumeration, true}, {MaxEnumeration + 1, false}} {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			r := Response{Kind: KindEnumViolation, Method: "tools/call", Tool: "get_forecast", Param: "units",
				Sent: json.RawMessage(`"kelvin"`), Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: list(tt.n)}
			g := Grade(r, Context{ToolNames: []string{"get_forecast"}, ParamNames: []string{"units"}})
			if got := g.Pass(ElemBounded); got != tt.want {
				t.Errorf("%d items: bounded pass = %v, want %v (%s)", tt.n, got, tt.want, evidenceOf(g, ElemBounded))
			}
			if want := fmt.Sprintf("largest enumeration %d", tt.n); tt.want && !strings.Contains(evidenceOf(g, ElemBounded), want) {
				t.Errorf("evidence %q does not say %q", evidenceOf(g, ElemBounded), want)
			}
		})
	}
}

// TestBoundedLimits: gradeBounded at exactly the token budget and the
// enumeration limit, and one past each.
func TestBoundedLimits(t *testing.T) {
	tests := []struct {
		tokens, enum int
		want         bool
	}{
		{MaxErrorTokens, MaxEnumeration, true},
		{MaxErrorTokens + 1, 0, false},
		{0, MaxEnumeration + 1, false},
		{0, 0, true},
	}
	for _, tt := range tests {
		if got, ev := gradeBounded(tt.tokens, tt.enum); got != tt.want {
			t.Errorf("gradeBounded(%d, %d) = %v (%s), want %v", tt.tokens, tt.enum, got, ev, tt.want)
		}
	}
	if MaxEnumeration != 25 || MaxErrorTokens != 500 {
		t.Errorf("limits changed: MaxEnumeration %d, MaxErrorTokens %d; docs/rubric.md states 25 and 500", MaxEnumeration, MaxErrorTokens)
	}
}
