package probe

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Tests of session 9 (i26g) for the survivors of probe/check_schema.go,
// lines 1-800: the scanner's limits at their exact bounds, the messages of
// a schema that does not compile, the property-count contradictions,
// patternProperties, local $ref resolution through arrays and anchors, and
// the removal of ECMA-only patterns before compiling.

// s9gCheck runs the input-schema checks of protocol 2025-11-25 on schema.
func s9gCheck(t *testing.T, schema string) []Finding {
	t.Helper()
	return sortUniqueFindings(NewChecker().checkSchema("2025-11-25", "tool:t", inputSide, json.RawMessage(schema), true))
}

// s9gCodes counts the findings by code.
func s9gCodes(fs []Finding) map[string]int {
	n := map[string]int{}
	for _, f := range fs {
		n[f.Code]++
	}
	return n
}

// s9gProps returns n string properties p0..p(n-1), described or not, as
// the members of a "properties" object.
func s9gProps(n int, described bool) string {
	parts := make([]string, n)
	for i := range parts {
		if described {
			parts[i] = fmt.Sprintf(`"p%d":{"type":"string","description":"Column %d."}`, i, i)
		} else {
			parts[i] = fmt.Sprintf(`"p%d":{"type":"string"}`, i)
		}
	}
	return strings.Join(parts, ",")
}

// TestS9gSizeLimit: a schema of exactly 1 MiB (the recommended empty
// schema, pretty-printed with padding) is still checked; one byte more is
// too large.
func TestS9gSizeLimit(t *testing.T) {
	base := `{"type":"object","additionalProperties":false}`
	at := base + strings.Repeat(" ", maxToolSchemaBytes-len(base))
	if got := s9gCheck(t, at); len(got) != 0 {
		t.Errorf("schema of exactly %d bytes: %v, want no finding", len(at), got)
	}
	got := s9gCheck(t, at+" ")
	if diff := cmp.Diff([]string{"schema/too_large /inputSchema"}, codePointers(got)); diff != "" {
		t.Errorf("schema of %d bytes (-want +got):\n%s", len(at)+1, diff)
	}
}

// s9gNested returns an input schema whose properties nest levels objects
// deep under "root" ("level1" ... "levelN"), the innermost one an enum:
// its JSON nests 2*levels+4 objects and arrays.
func s9gNested(levels int) string {
	inner := `{"type":"string","enum":["a","b"],"description":"Leaf."}`
	for i := levels; i >= 1; i-- {
		inner = fmt.Sprintf(`{"type":"object","description":"Level %d.","properties":{"level%d":%s}}`, i, i, inner)
	}
	return fmt.Sprintf(`{"type":"object","properties":{"root":%s}}`, inner)
}

// TestS9gDepthLimit: a configuration tree nesting exactly 128 objects and
// arrays is checked; 129 is too deep.
func TestS9gDepthLimit(t *testing.T) {
	at := s9gNested(62)
	if d := nestingDepth([]byte(at)); d != maxToolSchemaDepth {
		t.Fatalf("fixture nests %d levels, want %d", d, maxToolSchemaDepth)
	}
	if got := s9gCheck(t, at); len(got) != 0 {
		t.Errorf("schema nesting %d levels: %v, want no finding", maxToolSchemaDepth, got)
	}
	over := strings.Replace(at, `"enum":["a","b"]`, `"enum":[["a"],"b"]`, 1)
	got := s9gCheck(t, over)
	if diff := cmp.Diff([]string{"schema/too_deep /inputSchema"}, codePointers(got)); diff != "" {
		t.Errorf("schema nesting %d levels (-want +got):\n%s", maxToolSchemaDepth+1, diff)
	}
	if got[0].Value != "129" {
		t.Errorf("too_deep value %q, want 129", got[0].Value)
	}
}

// TestS9gPropertyLimit: a tool with exactly 1000 parameters (a table's
// columns) is checked; 1001 is too many.
func TestS9gPropertyLimit(t *testing.T) {
	at := `{"type":"object","properties":{` + s9gProps(maxToolSchemaProperties, true) + `},"additionalProperties":false}`
	if got := s9gCheck(t, at); len(got) != 0 {
		t.Errorf("schema of %d properties: %d findings, want none: %v", maxToolSchemaProperties, len(got), codePointers(got)[:min(3, len(got))])
	}
	over := `{"type":"object","properties":{` + s9gProps(maxToolSchemaProperties+1, true) + `},"additionalProperties":false}`
	got := s9gCheck(t, over)
	if diff := cmp.Diff([]string{"schema/too_many_properties /inputSchema"}, codePointers(got)); diff != "" {
		t.Errorf("schema of %d properties (-want +got):\n%s", maxToolSchemaProperties+1, diff)
	}
}

// TestS9gDescriptionCap: up to 100 undescribed parameters are each
// listed; past 100, the first 100 are listed and one more finding gives the
// total.
func TestS9gDescriptionCap(t *testing.T) {
	got := s9gCheck(t, `{"type":"object","properties":{`+s9gProps(maxDescriptionFindings, false)+`}}`)
	if n := s9gCodes(got)[CodePropertyNoDescription]; n != maxDescriptionFindings {
		t.Errorf("%d undescribed parameters: %d findings, want one each", maxDescriptionFindings, n)
	}
	for _, f := range got {
		if f.Pointer == "/inputSchema" {
			t.Errorf("%d undescribed parameters: unexpected summary %+v", maxDescriptionFindings, f)
		}
	}

	got = s9gCheck(t, `{"type":"object","properties":{`+s9gProps(maxDescriptionFindings+1, false)+`}}`)
	var listed int
	var summary []Finding
	for _, f := range got {
		switch {
		case f.Code != CodePropertyNoDescription:
			t.Errorf("unexpected %+v", f)
		case f.Pointer == "/inputSchema":
			summary = append(summary, f)
		default:
			listed++
		}
	}
	if listed != maxDescriptionFindings || len(summary) != 1 || summary[0].Value != "101" ||
		!strings.HasPrefix(summary[0].Message, "101 properties of inputSchema have no description; the first 100 are listed") {
		t.Errorf("101 undescribed parameters: %d listed, summary %+v; want 100 listed and one summary of 101", listed, summary)
	}
}

// TestS9gOutputVersionShown: the output root-type finding names the
// negotiated protocol, or says it is unknown.
func TestS9gOutputVersionShown(t *testing.T) {
	for _, tt := range []struct{ version, want string }{
		{"2025-06-18", `in protocol 2025-06-18, found "array"`},
		{"", `in protocol (unknown version), found "array"`},
	} {
		got := NewChecker().checkSchema(tt.version, "tool:list_files", outputSide, json.RawMessage(`{"type":"array","items":{"type":"string"}}`), true)
		if len(got) != 1 || got[0].Code != CodeOutputRootTypeNotObj || !strings.Contains(got[0].Message, tt.want) {
			t.Errorf("version %q: %+v, want one %s saying %q", tt.version, got, CodeOutputRootTypeNotObj, tt.want)
		}
	}
}

// TestS9gCompileErrorMessage: a schema with four keyword values of the
// wrong type is reported once, at the first of them, with the first three
// spelled out and the rest counted, untruncated.
func TestS9gCompileErrorMessage(t *testing.T) {
	schema := `{"type":"object","properties":{` +
		`"limit":{"type":"integer","minimum":"one","description":"Results per page."},` +
		`"query":{"type":"string","maxLength":"200","description":"Search text."},` +
		`"sort":{"type":"string","enum":"asc","description":"Sort order."},` +
		`"page":{"type":"int","description":"Page number."}}}`
	got := s9gCheck(t, schema)
	if len(got) != 1 || got[0].Code != CodeInputCompileFailed {
		t.Fatalf("findings %+v, want one %s", got, CodeInputCompileFailed)
	}
	f := got[0]
	if f.Value != "/properties/limit/minimum" {
		t.Errorf("value %q, want the first offending keyword /properties/limit/minimum", f.Value)
	}
	const head = "inputSchema does not compile: it is not a valid schema of its dialect (at /properties/limit/minimum: expected number, but got string; at /properties/page/type: "
	if !strings.HasPrefix(f.Message, head) || !strings.HasSuffix(f.Message, "; at /properties/query/maxLength: expected integer, but got string; and 1 more)") {
		t.Errorf("message %q\nwant it to start %q and end with the third violation and \"and 1 more)\"", f.Message, head)
	}
}

// TestS9gPropertyCountBounds: minProperties equal to maxProperties, and as
// many required properties as maxProperties, are satisfiable (a point is
// exactly lat and lon); more required properties than maxProperties are
// not.
func TestS9gPropertyCountBounds(t *testing.T) {
	point := `{"type":"object","properties":{"lat":{"type":"number","description":"Latitude."},"lon":{"type":"number","description":"Longitude."}},"required":["lat","lon"],"minProperties":2,"maxProperties":2,"additionalProperties":false}`
	if got := s9gCheck(t, point); len(got) != 0 {
		t.Errorf("point: %v, want no finding", got)
	}
	optional := `{"type":"object","properties":{"lat":{"type":"number","description":"Latitude."},"lon":{"type":"number","description":"Longitude."},"alt":{"type":"number","description":"Altitude."}},"required":["lat"],"maxProperties":2}`
	if got := s9gCheck(t, optional); len(got) != 0 {
		t.Errorf("one required of at most two: %v, want no finding", got)
	}
	three := `{"type":"object","properties":{"lat":{"type":"number","description":"Latitude."},"lon":{"type":"number","description":"Longitude."},"alt":{"type":"number","description":"Altitude."}},"required":["lat","lon","alt"],"maxProperties":2}`
	got := s9gCheck(t, three)
	if diff := cmp.Diff([]string{"schema/input_unsatisfiable /inputSchema/required"}, codePointers(got)); diff != "" {
		t.Fatalf("three required, maxProperties 2 (-want +got):\n%s", diff)
	}
	if !strings.Contains(got[0].Message, "3 properties are required but maxProperties is 2") {
		t.Errorf("message %q", got[0].Message)
	}
}

// TestS9gPatternPropertiesRequired: a required name that no
// patternProperties pattern matches is not defined: unsatisfiable when
// additionalProperties is false, required_not_defined otherwise; a name a
// pattern matches is defined.
func TestS9gPatternPropertiesRequired(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []string
	}{
		{"closed, no match", `{"type":"object","properties":{},"patternProperties":{"^env_[A-Z_]+$":{"type":"string"}},"required":["token"],"additionalProperties":false}`,
			[]string{"schema/input_unsatisfiable /inputSchema/required/0"}},
		{"open, no match", `{"type":"object","properties":{"cwd":{"type":"string","description":"Working directory."}},"patternProperties":{"^env_[A-Z_]+$":{"type":"string"}},"required":["token"]}`,
			[]string{"schema/required_not_defined /inputSchema/required/0"}},
		{"closed, match", `{"type":"object","properties":{},"patternProperties":{"^env_[A-Z_]+$":{"type":"string"}},"required":["env_HOME"],"additionalProperties":false}`,
			[]string{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, codePointers(s9gCheck(t, tt.schema))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestS9gRefThroughArray: a parameter whose $ref points into an array
// (one branch of a definition's anyOf) is described by that branch.
func TestS9gRefThroughArray(t *testing.T) {
	for _, i := range []string{"0", "1"} {
		schema := `{"type":"object","properties":{"unit":{"$ref":"#/$defs/unit/anyOf/` + i + `"}},"$defs":{"unit":{"anyOf":[` +
			`{"type":"string","enum":["metric","imperial"],"description":"Unit system."},` +
			`{"type":"string","enum":["si"],"description":"SI units."}]}}}`
		if got := s9gCheck(t, schema); len(got) != 0 {
			t.Errorf("$ref to anyOf/%s: %v, want no finding", i, got)
		}
	}
}

// s9gDraft7Siblings is a draft-07 schema that puts properties next to a
// $ref, where draft-07 ignores them, so the compiler never resolves their
// own $refs: one points past the end of an array, one to an anchor that
// does not exist.
const s9gDraft7Siblings = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"filter":{"$ref":"#/definitions/Filter",` +
	`"properties":{"field":{"$ref":"#/definitions/Filter/anyOf/2"},"op":{"$ref":"#operator"}}}},` +
	`"definitions":{"Filter":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"A filter."}}}`

// TestS9gUnresolvedRefsIgnoredByDialect: those $refs that do not resolve
// make the two properties undescribed; the scanner does not crash on them.
func TestS9gUnresolvedRefsIgnoredByDialect(t *testing.T) {
	want := []string{
		"schema/property_missing_description /inputSchema/properties/filter/properties/field",
		"schema/property_missing_description /inputSchema/properties/filter/properties/op",
	}
	if diff := cmp.Diff(want, codePointers(s9gCheck(t, s9gDraft7Siblings))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestS9gLookaheadPatternProperties: an environment map whose keys are
// matched by a lookahead pattern is reported as not portable and checked
// without that pattern, not reported as failing to compile.
func TestS9gLookaheadPatternProperties(t *testing.T) {
	schema := `{"type":"object","properties":{"env":{"type":"object","description":"Environment variables.",` +
		`"patternProperties":{"^(?!MCP_)[A-Z_]+$":{"type":"string"},"^MCP_[A-Z]+$":{"type":"string"}},"additionalProperties":false}},"required":["env"]}`
	want := []string{"schema/pattern_not_portable /inputSchema/properties/env/patternProperties/^(?!MCP_)[A-Z_]+$"}
	if diff := cmp.Diff(want, codePointers(s9gCheck(t, schema))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestS9gLookaheadInBranch: a lookahead pattern inside an anyOf branch is
// reported at that branch and left out of the compiled schema.
func TestS9gLookaheadInBranch(t *testing.T) {
	schema := `{"type":"object","properties":{"id":{"description":"Issue id or key.","anyOf":[{"type":"integer"},{"type":"string","pattern":"^(?!0)[0-9]+$"}]}},"required":["id"]}`
	want := []string{"schema/pattern_not_portable /inputSchema/properties/id/anyOf/1/pattern"}
	if diff := cmp.Diff(want, codePointers(s9gCheck(t, schema))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestS9gDynamicAnchorDescribes: in 2020-12 a $dynamicAnchor also names
// its schema for a plain $ref ("#node"), as the compiler resolves it; a
// tree parameter described there is described. Before session 9 the
// scanner looked only at $anchor and reported the parameter as
// undescribed.
func TestS9gDynamicAnchorDescribes(t *testing.T) {
	schema := `{"type":"object","properties":{"tree":{"$ref":"#node"}},"required":["tree"],"$defs":{"node":{"$dynamicAnchor":"node","type":"object","description":"A tree node.",` +
		`"properties":{"label":{"type":"string","description":"The node's label."},"children":{"type":"array","description":"Child nodes.","items":{"$dynamicRef":"#node"}}}}}}`
	if got := s9gCheck(t, schema); len(got) != 0 {
		t.Errorf("%v, want no finding", got)
	}
}
