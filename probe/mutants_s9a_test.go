package probe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// Tests for the survivors of session 9 in probe/inject_args.go, lines
// 1-510 (docs/testing.md, "Survivors of session 9 (probe/inject_args.go,
// lines 1-510)"): the harmless values the other required arguments of a
// probe carry (arrays at minItems, nested objects and arrays cut at depth
// 3, strings padded to minLength in characters), the schema size cap, a
// schema that is not exactly one JSON value, and the property order.

// s9aOneProbe returns the decoded arguments of the probe of kind and param
// that invalidArguments builds for schema.
func s9aOneProbe(t *testing.T, schema, kind, param string) map[string]any {
	t.Helper()
	probes, err := invalidArguments(json.RawMessage(schema), false)
	if err != nil {
		t.Fatalf("invalidArguments: %v", err)
	}
	for _, p := range probes {
		if p.Kind == kind && p.Param == param {
			var args map[string]any
			if err := decodeNumbers(p.Args, &args); err != nil {
				t.Fatalf("decoding %s: %v", p.Args, err)
			}
			return args
		}
	}
	t.Fatalf("no %s probe of %q among %q", kind, param, render(probes))
	return nil
}

// s9aJSON is v as JSON text.
func s9aJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestS9aArraySamples: a required array argument the probe does not break
// is sent with minItems items (at most 16), each a sample of "items", and
// nested arrays are sampled three levels deep, deeper items being the
// placeholder. What goes out is read from the missing_required probe of
// the tool's other argument, whose one defect must be that argument.
func TestS9aArraySamples(t *testing.T) {
	tests := []struct {
		name string
		prop string // the schema of "value"
		want string // what "value" carries in the other probes
	}{
		{
			name: "GeoJSON position, exactly two numbers",
			prop: `{"type":"array","items":{"type":"number"},"minItems":2,"maxItems":2}`,
			want: `[0,0]`,
		},
		{
			name: "polygon ring of at least four points, each a position",
			prop: `{"type":"array","minItems":4,"items":{"type":"array","items":{"type":"number","minimum":-180,"maximum":180},"minItems":2,"maxItems":3}}`,
			want: `[[0,0],[0,0],[0,0],[0,0]]`,
		},
		{
			name: "tags without minItems: empty",
			prop: `{"type":"array","items":{"type":"string"},"description":"Labels to attach"}`,
			want: `[]`,
		},
		{
			name: "scopes from an enum",
			prop: `{"type":"array","items":{"type":"string","enum":["repo","read:org","gist"]},"minItems":1,"uniqueItems":true}`,
			want: `["repo"]`,
		},
		{
			name: "ids with a minimum",
			prop: `{"type":"array","items":{"type":"integer","minimum":1},"minItems":3}`,
			want: `[1,1,1]`,
		},
		{
			name: "items without a schema: the placeholder",
			prop: `{"type":"array","minItems":2}`,
			want: `["mcpvet-probe","mcpvet-probe"]`,
		},
		{
			name: "384-dimension embedding: capped at 16 items",
			prop: `{"type":"array","items":{"type":"number"},"minItems":384,"maxItems":384}`,
			want: `[` + strings.TrimSuffix(strings.Repeat("0,", 16), ",") + `]`,
		},
		{
			name: "17 items asked: still 16",
			prop: `{"type":"array","items":{"type":"boolean"},"minItems":17}`,
			want: `[` + strings.TrimSuffix(strings.Repeat("false,", 16), ",") + `]`,
		},
		{
			name: "matrix batch three levels deep: sampled to the numbers",
			prop: `{"type":"array","minItems":1,"items":{"type":"array","minItems":1,"items":{"type":"array","minItems":2,"items":{"type":"number","exclusiveMinimum":0}}}}`,
			want: `[[[1,1]]]`,
		},
		{
			name: "image tensor four levels deep: the fourth level's items are the placeholder",
			prop: `{"type":"array","minItems":1,"items":{"type":"array","minItems":1,"items":{"type":"array","minItems":1,"items":{"type":"array","minItems":3,"maxItems":3,"items":{"type":"integer","minimum":0,"maximum":255}}}}}`,
			want: `[[[["mcpvet-probe","mcpvet-probe","mcpvet-probe"]]]]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := `{"type":"object","properties":{"collection":{"type":"string"},"value":` + tt.prop + `},"required":["collection","value"]}`
			args := s9aOneProbe(t, schema, KindMissingRequired, "collection")
			if got := s9aJSON(t, args["value"]); got != tt.want {
				t.Errorf("value sent = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestS9aArrayExercise: the exercise call (generatedArguments, the one
// valid call mcpvet makes) fills a required array with exactly minItems
// sampled items, so it validates.
func TestS9aArrayExercise(t *testing.T) {
	tool := Tool{Name: "geocode_reverse", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"position":{"type":"array","items":{"type":"number","minimum":-90,"maximum":90},"minItems":2,"maxItems":2},
		"language":{"type":"string","enum":["en","de"]}},"required":["position","language"]}`)}
	raw, err := generatedArguments(tool)
	if err != nil {
		t.Fatalf("generatedArguments: %v", err)
	}
	if got, want := string(raw), `{"language":"en","position":[0,0]}`; got != want {
		t.Errorf("exercise arguments = %s, want %s", got, want)
	}
}

// TestS9aObjectSamples: a required object argument is sent with its own
// required members, sampled three levels deep; an object four levels down
// is sent empty.
func TestS9aObjectSamples(t *testing.T) {
	tests := []struct {
		name string
		prop string
		want string
	}{
		{
			name: "pod labels, three levels",
			prop: `{"type":"object","required":["metadata"],"properties":{"metadata":{"type":"object","required":["labels"],"properties":{"labels":{"type":"object","required":["app"],"properties":{"app":{"type":"string","minLength":1}}}}}}}`,
			want: `{"metadata":{"labels":{"app":"mcpvet-probe"}}}`,
		},
		{
			name: "deployment manifest, four levels: the fourth is empty",
			prop: `{"type":"object","required":["spec"],"properties":{"spec":{"type":"object","required":["template"],"properties":{"template":{"type":"object","required":["metadata"],"properties":{"metadata":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}}}}}}`,
			want: `{"spec":{"template":{"metadata":{}}}}`,
		},
		{
			name: "a required member without a property: the placeholder",
			prop: `{"type":"object","required":["owner","repo"],"properties":{"owner":{"type":"string"}}}`,
			want: `{"owner":"mcpvet-probe","repo":"mcpvet-probe"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := `{"type":"object","properties":{"namespace":{"type":"string"},"value":` + tt.prop + `},"required":["namespace","value"]}`
			args := s9aOneProbe(t, schema, KindMissingRequired, "namespace")
			if got := s9aJSON(t, args["value"]); got != tt.want {
				t.Errorf("value sent = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestS9aStringSamples: a required string argument is padded with "x" up
// to its minLength, counted in characters, when minLength is at most the
// 64 KiB cap (maxLongString), and cut to its maxLength in characters.
func TestS9aStringSamples(t *testing.T) {
	tests := []struct {
		name string
		prop string
		want string
	}{
		{
			name: "API key of at least 20 characters",
			prop: `{"type":"string","minLength":20,"description":"Your API key"}`,
			want: "mcpvet-probe" + strings.Repeat("x", 8),
		},
		{
			name: "minLength equal to the placeholder's length: unchanged",
			prop: `{"type":"string","minLength":12}`,
			want: "mcpvet-probe",
		},
		{
			name: "email of at least 25 characters",
			prop: `{"type":"string","format":"email","minLength":25}`,
			want: "probe@mcpvet.invalidxxxxx",
		},
		{
			name: "minLength exactly the cap: padded",
			prop: `{"type":"string","minLength":65536}`,
			want: "mcpvet-probe" + strings.Repeat("x", 65536-12),
		},
		{
			name: "minLength one past the cap: not padded",
			prop: `{"type":"string","minLength":65537}`,
			want: "mcpvet-probe",
		},
		{
			name: "city from an example, padded in characters",
			prop: `{"type":"string","pattern":"^[A-Za-zÀ-ÿ]+$","examples":["Zürich"],"minLength":8}`,
			want: "Zürichxx",
		},
		{
			name: "kanji cut to maxLength in characters",
			prop: `{"type":"string","pattern":"^\\p{Han}+$","examples":["東京都庁舎"],"maxLength":3}`,
			want: "東京都",
		},
		{
			name: "three-letter code",
			prop: `{"type":"string","maxLength":3}`,
			want: "mcp",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := `{"type":"object","properties":{"id":{"type":"integer"},"value":` + tt.prop + `},"required":["id","value"]}`
			args := s9aOneProbe(t, schema, KindMissingRequired, "id")
			got, _ := args["value"].(string)
			if got != tt.want {
				t.Errorf("value sent = %.40q (%d characters), want %.40q (%d characters)",
					got, utf8.RuneCountInString(got), tt.want, utf8.RuneCountInString(tt.want))
			}
		})
	}
}

// TestS9aEmptyEnum: a server publishing an empty enum (no value is valid;
// draft 2020-12 allows it) gets probes, not a crash of the scanner: the
// argument is sent as its type's sample. The validator (jsonschema v5)
// reads an empty enum as no enum at all, so the exercise call goes out
// with that sample too, as for a schema without the enum.
func TestS9aEmptyEnum(t *testing.T) {
	schema := `{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":[]}},"required":["path","mode"]}`
	probes, err := invalidArguments(json.RawMessage(schema), false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`missing_required path {"mode":"mcpvet-probe"}`,
		`missing_required mode {"path":"mcpvet-probe"}`,
		`wrong_type path {"mode":"mcpvet-probe","path":12345}`,
		`wrong_type mode {"mode":12345,"path":"mcpvet-probe"}`,
		"empty_arguments {}",
		"absent_arguments (absent)",
	}
	if diff := cmp.Diff(want, render(probes)); diff != "" {
		t.Errorf("probes (-want +got):\n%s", diff)
	}
	raw, err := generatedArguments(Tool{Name: "chmod", InputSchema: json.RawMessage(schema)})
	if err != nil || string(raw) != `{"mode":"mcpvet-probe","path":"mcpvet-probe"}` {
		t.Errorf("generatedArguments = %s, %v", raw, err)
	}
}

// TestS9aSchemaSize: an input schema of exactly maxSchemaBytes (1 MiB) is
// probed; one byte more is refused with an error naming both sizes.
func TestS9aSchemaSize(t *testing.T) {
	schemaOf := func(size int) string {
		head := `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"description":"`
		tail := `"}`
		return head + strings.Repeat("d", size-len(head)-len(tail)) + tail
	}
	probes, err := invalidArguments(json.RawMessage(schemaOf(maxSchemaBytes)), false)
	if err != nil {
		t.Fatalf("schema of exactly %d bytes: %v", maxSchemaBytes, err)
	}
	want := []string{
		"missing_required query {}",
		`wrong_type query {"query":12345}`,
		"absent_arguments (absent)",
	}
	if diff := cmp.Diff(want, render(probes)); diff != "" {
		t.Errorf("probes of a 1 MiB schema (-want +got):\n%s", diff)
	}
	_, err = invalidArguments(json.RawMessage(schemaOf(maxSchemaBytes+1)), false)
	if err == nil || err.Error() != "input schema of 1048577 bytes exceeds 1048576" {
		t.Errorf("schema of %d bytes: error %v", maxSchemaBytes+1, err)
	}
}

// TestS9aSchemaOneValue: an input schema must be exactly one JSON value.
// The validator's loader ignores what follows the value when it cannot be
// read as a token (a stray "}" or text), so without decodeNumbers' own
// check such a schema would be probed; and empty input is an error, not an
// empty document.
func TestS9aSchemaOneValue(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]} }`,
		`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}]`,
		`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}garbage`,
	} {
		if _, err := compileInputSchema(json.RawMessage(schema)); err != nil {
			t.Fatalf("the premise: the validator's loader refuses %s: %v", schema, err)
		}
		if got, err := invalidArguments(json.RawMessage(schema), false); err == nil {
			t.Errorf("invalidArguments(%s) = %q, want an error", schema, render(got))
		}
		if got, err := generatedArguments(Tool{Name: "search", InputSchema: json.RawMessage(schema)}); err == nil {
			t.Errorf("generatedArguments(%s) = %s, want an error", schema, got)
		}
	}
	var v any
	if err := decodeNumbers(nil, &v); err == nil {
		t.Errorf("decodeNumbers of empty input: no error, value %v", v)
	}
	if err := decodeNumbers([]byte(`{"a":1} {"b":2}`), &v); err == nil {
		t.Errorf("decodeNumbers of two values: no error, value %v", v)
	}
}

// TestS9aPropertyOrder: probes follow the order the schema declares its
// properties in; propertyOrder's fallback, for a raw schema whose
// "properties" it cannot read, is the keys sorted. (Through
// invalidArguments the fallback only ever gets an empty property map,
// since both read the same JSON object; this pins the helper's own
// contract.)
func TestS9aPropertyOrder(t *testing.T) {
	schema := `{"type":"object","properties":{
		"path":{"type":"string"},"content":{"type":"string"},"mode":{"type":"integer"},"encoding":{"type":"string"}}}`
	var got []string
	probes, err := invalidArguments(json.RawMessage(schema), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probes {
		got = append(got, p.Param)
	}
	if diff := cmp.Diff([]string{"path", "content", "mode", "encoding"}, got); diff != "" {
		t.Errorf("probe order (-want +got):\n%s", diff)
	}

	props := func(keys ...string) map[string]any {
		m := map[string]any{}
		for _, k := range keys {
			m[k] = map[string]any{"type": "string"}
		}
		return m
	}
	tests := []struct {
		name string
		raw  string
		keys []string
		want []string
	}{
		{"one key", `{"type":"object"}`, []string{"path"}, []string{"path"}},
		{"two keys", `{"type":"object"}`, []string{"path", "content"}, []string{"content", "path"}},
		{"write_file's four", `{"type":"object"}`, []string{"path", "content", "mode", "encoding"}, []string{"content", "encoding", "mode", "path"}},
		{"not JSON", `{`, []string{"zeta", "beta", "alpha", "gamma", "delta"}, []string{"alpha", "beta", "delta", "gamma", "zeta"}},
		{"properties not an object", `{"properties":[]}`, []string{"b", "a", "c"}, []string{"a", "b", "c"}},
		{"prefixes and case", `{}`, []string{"ab", "a", "B", "abc", "Ab"}, []string{"Ab", "B", "a", "ab", "abc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, propertyOrder(json.RawMessage(tt.raw), props(tt.keys...))); diff != "" {
				t.Errorf("propertyOrder (-want +got):\n%s", diff)
			}
		})
	}
}
