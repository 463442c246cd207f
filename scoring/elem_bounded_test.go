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

// TestBoundedEnumerationForms: the enumerations measure counts besides
// comma lists, each at its edges: one item a line (a plain-text list,
// after a leading blank line, and exactly MaxEnumeration+1 lines, i.e.
// MaxEnumeration newlines), and the server's own names mentioned in the
// text (only when it has more than MaxEnumeration of them; a name at byte
// 0 counts), while JSON punctuation and "key": value members of JSON
// that does not parse are layout; comma lists count a line at a time
// and from six items; and a segment of exactly maxTokenBytes
// is counted whole. 14 mutants of measure, itemLines, isItemLine and
// countTokens lived through the whole suite before (elem_bounded.go:26,
// 54, 72, 76, 77, 97, 101, 103, 109, 116, 119, 122, 136, 142).
func TestBoundedEnumerationForms(t *testing.T) {
	seq := func(prefix, sep string, n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("%s%02d", prefix, i+1)
		}
		return strings.Join(s, sep)
	}
	names := strings.Fields(seq("tool_", " ", MaxEnumeration+5))
	for _, tt := range []struct {
		name  string
		kind  string
		names []string
		text  string
		pass  bool
		enum  string
	}{
		{"one item a line (the heading is a line too)", KindRuntime, nil, "Known regions:\n" + seq("region_", "\n", 30), false, "enumerates 31 items"},
		{"after a blank first line", KindRuntime, nil, "\n" + seq("region_", "\n", 30), false, "enumerates 30 items"},
		{"exactly MaxEnumeration newlines", KindRuntime, nil, seq("region_", "\n", MaxEnumeration+1), false, fmt.Sprintf("enumerates %d items", MaxEnumeration+1)},
		{"own names, the first at byte 0", KindUnknownTool, names, seq("tool_", " ", MaxEnumeration+1) + " exist; tool_99 does not", false, fmt.Sprintf("enumerates %d items", MaxEnumeration+1)},
		{"no more names than the budget: not scanned", KindUnknownTool, names[:MaxEnumeration], seq("tool_", " ", MaxEnumeration) + " exist; tool_99 does not", true, "largest enumeration 0"},
		{"comma lists are counted a line at a time", KindRuntime, nil, "\n" + strings.Repeat("north, south, east, west\n", 9), true, "largest enumeration 0"},
		{"five items a line are prose", KindRuntime, nil, "Pick one of: north, south, east, west, up", true, "largest enumeration 0"},
		{"six are an enumeration", KindRuntime, nil, "Pick one of: north, south, east, west, up, down", true, "largest enumeration 6"},
		{"members of JSON that does not parse are layout", KindRuntime, nil, "{\n" + seq(`"key_`, "\": 1,\n", 30) + "\": 1,\n  ],", true, "largest enumeration 0"},
		{"a segment of exactly maxTokenBytes", KindRuntime, nil, strings.Repeat("error ", maxTokenBytes/6) + strings.Repeat("x", maxTokenBytes%6), false, "over the 500-token budget"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "a segment of exactly maxTokenBytes" && len(tt.text) != maxTokenBytes {
				t.Fatalf("text of %d bytes", len(tt.text))
			}
			c := Context{ToolNames: append([]string{"lookup"}, tt.names...)}
			if tt.names != nil {
				c.ToolNames = tt.names
			}
			g := Grade(Response{Kind: tt.kind, Method: "tools/call", Tool: "lookup", Sent: raw(`"tool_99"`), Class: ClassToolError,
				ProtocolVersion: "2025-11-25", Text: tt.text}, c)
			if g.Pass(ElemBounded) != tt.pass || !strings.Contains(evidenceOf(g, ElemBounded), tt.enum) {
				t.Errorf("bounded pass %v (%s), want %v and %q", g.Pass(ElemBounded), evidenceOf(g, ElemBounded), tt.pass, tt.enum)
			}
		})
	}
}
