package scoring

import (
	"strings"
	"testing"
)

// TestSplitPayloadLimits: a JSON payload after prose is read up to
// maxParseBytes inclusive, and after at most 8 tries of an opener (7
// brackets of prose, then the payload, is read; 8 are not). (Issue 26: the
// mutants input.go:124 `len(s) > maxParseBytes` -> `>=` and :138 `tries <
// 8` -> `<=`, `tries++` -> `--` lived through the whole suite.)
func TestSplitPayloadLimits(t *testing.T) {
	payload := func(prose string) bool {
		in := newInput(&Response{Kind: KindRuntime, Class: ClassToolError, Text: prose}, &Context{})
		return len(in.fieldsWithKey("field")) > 0
	}
	pad := `{"field":"x","pad":"`
	exact := pad + strings.Repeat("p", maxParseBytes-len(pad)-2) + `"}`
	if len(exact) != maxParseBytes {
		t.Fatalf("exact is %d bytes", len(exact))
	}
	if !payload(exact) {
		t.Errorf("a payload of exactly maxParseBytes was not read")
	}
	brackets := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString("x[" + string(rune('a'+i)) + "] ")
		}
		return b.String() + `Error: {"field":"y"}`
	}
	if !payload(brackets(7)) {
		t.Errorf("payload after 7 brackets not read: %q", brackets(7))
	}
	if payload(brackets(8)) {
		t.Errorf("payload after 8 brackets read (the tries are capped at 8): %q", brackets(8))
	}
}
