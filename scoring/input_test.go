package scoring

import (
	"strconv"
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

// TestWalkLimits: the JSON walk reads leaves to depth 8 through objects
// and arrays, the first 16 items of an array, up to 8 string items per
// array, and at most maxFields fields. (Issue 26: the mutants input.go:181
// `depth > 8` -> `>=`, `len(in.fields) >= maxFields` -> `>`, :190 and :213
// `depth+1` -> `-`, :195 `len(f.items) == 8` negated, :210 `i >= 16` ->
// `>`, :152 `start++` -> `--` and :187 `-1` -> `+1` lived through the
// whole suite.)
func TestWalkLimits(t *testing.T) {
	fields := func(text string) *input {
		return newInput(&Response{Kind: KindRuntime, Class: ClassToolError, Text: text}, &Context{})
	}
	nest := func(open, close string, n int) string {
		return strings.Repeat(open, n-1) + `{"field":"x"}` + strings.Repeat(close, n-1)
	}
	for _, tt := range []struct {
		name, text string
		want       int
	}{
		{"object depth 8", nest(`{"a":`, `}`, 8), 1},
		{"object depth 9", nest(`{"a":`, `}`, 9), 0},
		{"array depth 8", nest(`[`, `]`, 8), 1},
		{"array depth 9", nest(`[`, `]`, 9), 0},
		{"17 items", "[" + strings.TrimSuffix(strings.Repeat(`{"field":"x"},`, 17), ",") + "]", 16},
		// A bracket of prose that is not JSON, then the payload.
		{"after a false opener", `see x[0] and Error: {"field":"x"}`, 1},
	} {
		if got := len(fields(tt.text).fieldsWithKey("field")); got != tt.want {
			t.Errorf("%s: %d fields named field, want %d", tt.name, got, tt.want)
		}
	}
	in := fields(`{"field":["a","b","c","d","e","f","g","h","i"]}`)
	if fs := in.fieldsWithKey("field"); len(fs) == 0 || strings.Join(fs[0].items, "") != "abcdefgh" {
		t.Errorf("items %+v, want the first 8 strings", fs)
	}
	// An object is told from an array (of one): "= object" in evidence. (The mutant
	// input.go:187 `val: -1` -> `+1`, two mutators, lived.)
	if fs := fields(`{"field":{"a":1}}`).fieldsWithKey("field"); len(fs) == 0 || fieldEvidence(fs[0]) != "text.field = object" {
		t.Errorf("object field: %+v", fs)
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range maxFields + 10 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	if in := fields(b.String()); len(in.fields) != maxFields {
		t.Errorf("%d fields, want the cap %d", len(in.fields), maxFields)
	}
}
