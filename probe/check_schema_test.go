package probe

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// codePointers renders findings as "code pointer" lines for comparison.
func codePointers(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, strings.TrimSpace(f.Code+" "+f.Pointer))
	}
	return out
}

// Schemas recorded from the pinned npm reference servers
// (testdata/check/*.pages.json).
const (
	memoryCreateEntities   = `{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","description":"The name of the entity"},"entityType":{"type":"string","description":"The type of the entity"},"observations":{"type":"array","items":{"type":"string"},"description":"An array of observation contents associated with the entity"}},"required":["name","entityType","observations"],"additionalProperties":false}}},"required":["entities"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`
	everythingGetEnv       = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{}}`
	everythingResourceRef  = `{"type":"object","properties":{"resourceType":{"type":"string","enum":["Text","Blob"],"default":"Text"},"resourceId":{"type":"number","default":1,"description":"ID of the text resource to fetch"}},"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`
	everythingStructuredIn = `{"type":"object","properties":{"location":{"type":"string","enum":["New York","Chicago","Los Angeles"],"description":"Choose city"}},"required":["location"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`
	everythingStructuredOu = `{"type":"object","properties":{"temperature":{"type":"number","description":"Temperature in celsius"},"conditions":{"type":"string","description":"Weather conditions description"},"humidity":{"type":"number","description":"Humidity percentage"}},"required":["temperature","conditions","humidity"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`
)

func TestCheckInputSchema(t *testing.T) {
	tests := []struct {
		name   string
		schema string // "" means absent
		want   []string
	}{
		// Passing inputs, among them schemas of real servers.
		{"memory create_entities", memoryCreateEntities, []string{"schema/property_missing_description /inputSchema/properties/entities"}},
		{"everything get-env", everythingGetEnv, []string{"schema/empty_params_not_closed /inputSchema"}},
		{"everything get-resource-reference", everythingResourceRef, []string{"schema/property_missing_description /inputSchema/properties/resourceType"}},
		{"everything get-structured-content", everythingStructuredIn, []string{}},
		{"recommended empty", `{"type":"object","additionalProperties":false}`, []string{}},
		{"described at an anchor", `{"type":"object","properties":{"a":{"$ref":"#aa"}},"$defs":{"A":{"$anchor":"aa","type":"string","description":"A."}}}`, []string{}},
		{"described with ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string","description":"An a."}}}`, []string{}},
		{"draft-04 exclusiveMinimum boolean", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true,"description":"N."}}}`, []string{}},
		{"2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"n":{"type":"integer","description":"N."}}}`, []string{}},
		{"required via allOf branch", `{"type":"object","allOf":[{"properties":{"a":{"type":"string","description":"A."}}}],"required":["a"]}`, []string{}},
		{"required matched by patternProperties", `{"type":"object","patternProperties":{"^x_":{"type":"string"}},"required":["x_a"],"additionalProperties":false}`, []string{}},
		{"recursive ref is fine", `{"type":"object","properties":{"node":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","description":"A tree node.","properties":{"kids":{"type":"array","description":"Children.","items":{"$ref":"#/$defs/node"}}}}}}`, []string{}},

		// Fatal.
		{"missing", "", []string{"schema/input_missing /inputSchema"}},
		{"null", `null`, []string{"schema/input_not_object /inputSchema"}},
		{"array", `[{"type":"object"}]`, []string{"schema/input_not_object /inputSchema"}},
		{"boolean schema", `true`, []string{"schema/input_not_object /inputSchema"}},
		{"root type string", `{"type":"string"}`, []string{"schema/input_root_type_not_object /inputSchema/type"}},
		{"root type list without object", `{"type":["string","null"]}`, []string{"schema/input_root_type_not_object /inputSchema/type"}},
		{"unknown type keyword", `{"type":"object","properties":{"a":{"type":"text","description":"A."}}}`, []string{"schema/input_compile_failed /inputSchema"}},
		{"bad regex", `{"type":"object","properties":{"a":{"type":"string","pattern":"(abc","description":"A."}}}`, []string{"schema/input_compile_failed /inputSchema"}},
		{"unresolved local ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing","description":"A."}}}`, []string{"schema/input_compile_failed /inputSchema"}},
		{"ref cycle", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x","description":"A."}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`, []string{"schema/input_compile_failed /inputSchema"}},
		{"required property false", `{"type":"object","properties":{"a":false},"required":["a"]}`, []string{"schema/input_unsatisfiable /inputSchema/properties/a", "schema/property_missing_description /inputSchema/properties/a"}},
		{"required but forbidden", `{"type":"object","properties":{"a":{"type":"string","description":"A."}},"required":["a","b"],"additionalProperties":false}`, []string{"schema/input_unsatisfiable /inputSchema/required/1"}},
		{"nested required but forbidden", `{"type":"object","properties":{"o":{"type":"object","description":"O.","properties":{},"required":["x"],"additionalProperties":false}},"required":["o"]}`, []string{"schema/input_unsatisfiable /inputSchema/properties/o/required/0"}},
		{"minProperties over maxProperties", `{"type":"object","minProperties":3,"maxProperties":1}`, []string{"schema/input_unsatisfiable /inputSchema/minProperties"}},
		{"not everything", `{"type":"object","not":{}}`, []string{"schema/input_unsatisfiable /inputSchema/not"}},

		// Soft.
		{"no root type", `{"properties":{"a":{"type":"string","description":"A."}}}`, []string{"schema/input_root_type_missing /inputSchema/type"}},
		{"root type union", `{"type":["object","null"],"properties":{"a":{"type":"string","description":"A."}}}`, []string{"schema/input_root_type_union /inputSchema/type"}},
		{"unknown dialect", `{"$schema":"https://example.com/dialect","type":"object","additionalProperties":false}`, []string{"schema/unknown_dialect /inputSchema/$schema"}},
		{"draft-03 is unknown", `{"$schema":"http://json-schema.org/draft-03/schema#","type":"object","additionalProperties":false}`, []string{"schema/unknown_dialect /inputSchema/$schema"}},
		{"$schema not a string", `{"$schema":7,"type":"object","additionalProperties":false}`, []string{"schema/unknown_dialect /inputSchema/$schema"}},
		{"remote ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json","description":"A."}}}`, []string{"schema/remote_ref /inputSchema"}},
		{"relative ref is remote", `{"type":"object","properties":{"a":{"$ref":"a.json","description":"A."}}}`, []string{"schema/remote_ref /inputSchema"}},
		{"required undefined", `{"type":"object","properties":{"a":{"type":"string","description":"A."}},"required":["a","b"]}`, []string{"schema/required_not_defined /inputSchema/required/1"}},
		{"nested required undefined", `{"type":"object","properties":{"l":{"type":"array","description":"L.","items":{"type":"object","properties":{},"required":["id"]}}}}`, []string{"schema/required_not_defined /inputSchema/properties/l/items/required/0"}},
		{"ref to an undescribed definition", `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`, []string{"schema/property_missing_description /inputSchema/properties/a"}},
		{"nested missing descriptions", `{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"string"}}}}}`, []string{"schema/property_missing_description /inputSchema/properties/o", "schema/property_missing_description /inputSchema/properties/o/properties/x"}},
		{"blank description", `{"type":"object","properties":{"a":{"type":"string","description":"  "}}}`, []string{"schema/property_missing_description /inputSchema/properties/a"}},
		{"open empty", `{"type":"object"}`, []string{"schema/empty_params_not_closed /inputSchema"}},
		{"lookahead pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"^(?!x)","description":"A."}}}`, []string{"schema/pattern_not_portable /inputSchema/properties/a/pattern"}},
		{"unicode escape", `{"type":"object","properties":{"a":{"type":"string","pattern":"^caf\\u00e9$","description":"A."}}}`, []string{"schema/pattern_not_portable /inputSchema/properties/a/pattern"}},
		{"punctuation escape is fine", `{"type":"object","properties":{"a":{"type":"string","pattern":"^a\\_b\\/c$","description":"A."}}}`, []string{}},
	}
	c := NewChecker()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sortUniqueFindings(c.checkSchema("2025-11-25", "tool:t", inputSide, json.RawMessage(tt.schema), tt.schema != ""))
			if diff := cmp.Diff(tt.want, codePointers(got)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, got)
			}
			for _, f := range got {
				if f.Subject != "tool:t" || f.Message == "" {
					t.Errorf("finding without subject or message: %+v", f)
				}
			}
		})
	}
}

func TestCheckOutputSchema(t *testing.T) {
	tests := []struct {
		name, version, schema string
		want                  []string
	}{
		{"everything get-structured-content", "2025-11-25", everythingStructuredOu, []string{}},
		{"absent", "2025-11-25", "", []string{}},
		{"not an object", "2025-11-25", `"object"`, []string{"schema/output_not_object /outputSchema"}},
		{"root type array", "2025-06-18", `{"type":"array"}`, []string{"schema/output_root_type_not_object /outputSchema/type"}},
		{"no root type", "2025-11-25", `{"properties":{}}`, []string{"schema/output_root_type_not_object /outputSchema/type"}},
		{"array allowed in 2026-07-28", "2026-07-28", `{"type":"array","items":{"type":"string"}}`, []string{}},
		{"not in 2025-03-26", "2025-03-26", `{"type":"array"}`, []string{}},
		{"does not compile", "2025-11-25", `{"type":"object","properties":{"n":{"minimum":"zero"}}}`, []string{"schema/output_compile_failed /outputSchema"}},
		{"required undefined", "2025-11-25", `{"type":"object","properties":{},"required":["n"]}`, []string{"schema/required_not_defined /outputSchema/required/0"}},
		{"no descriptions needed", "2025-11-25", `{"type":"object","properties":{"n":{"type":"integer"}}}`, []string{}},
	}
	c := NewChecker()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sortUniqueFindings(c.checkSchema(tt.version, "tool:t", outputSide, json.RawMessage(tt.schema), tt.schema != ""))
			if diff := cmp.Diff(tt.want, codePointers(got)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, got)
			}
		})
	}
}

// TestFatalSplit checks the promise behind the fatal severity: a schema
// with a fatal finding admits no call a client can build, and the real
// servers' schemas have none.
func TestFatalSplit(t *testing.T) {
	c := NewChecker()
	for _, name := range []string{"everything", "memory", "filesystem", "sequential-thinking"} {
		pages := loadRecorded(t, name)
		res := resultFromPages(t, pages)
		for _, f := range c.Check(res, pages) {
			if f.Severity == SeverityFatal {
				t.Errorf("%s: unexpected fatal finding %+v", name, f)
			}
		}
	}
}

func TestNonRE2(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{`^[a-z]+$`, ""},
		{`^(?!tmp)`, "lookahead (?!"},
		{`(?<=a)b`, "lookbehind (?<="},
		{`(a)\1`, `backreference \1`},
		{`^a\_b$`, ""},
		{`^caf\u00e9$`, "ECMA-262 escape syntax (\\uXXXX, \\cX, [^] or a letter escape)"},
		{`^\u{1F600}$`, "ECMA-262 escape syntax (\\uXXXX, \\cX, [^] or a letter escape)"},
		{`^[^]*$`, "ECMA-262 escape syntax (\\uXXXX, \\cX, [^] or a letter escape)"},
		{`\p{Extended_Pictographic}`, "a Unicode property escape"},
		{`(unbalanced`, ""},
		{`[unclosed`, ""},
		{`a**`, ""},
	}
	for _, tt := range tests {
		if got := nonRE2(tt.pattern); got != tt.want {
			t.Errorf("nonRE2(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}
