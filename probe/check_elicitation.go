package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"unicode/utf8"
)

// The shape of a server's elicitation/create request beyond what the
// schema checks: the schema gives each property's default a type, but not
// that the default is one of the property's own values. A form whose
// default its own schema refuses is pre-filled with an answer the server
// then rejects (SEP-1034 defaults, SEP-1330 enums).

// CodeElicitSchemaInconsistent: an elicitation form schema contradicts
// itself.
const CodeElicitSchemaInconsistent = "elicitation/schema_inconsistent"

const specElicitDefaults = `"All primitive types support optional default values to provide sensible starting points. Clients that support defaults SHOULD pre-populate form fields with these values." (2025-11-25, Client Features, Elicitation, Requested Schema)`

func init() {
	register(CatalogEntry{CodeElicitSchemaInconsistent, SeverityWarn,
		"an elicitation/create form schema contradicts itself: a default its own property refuses (not one of the enum values, outside the length or range), legacy enumNames that do not pair with enum, a lower bound above the upper one, or a required field that is not a property",
		"give each default a value of its own property (one of enum or oneOf's const, within minLength/maxLength, minimum/maximum, minItems/maxItems), one enumNames entry per enum value, and list in required only properties of the form"})
	registerWhy(map[string]string{
		CodeElicitSchemaInconsistent: "the schema only types a default; " + specElicitDefaults + ", so a default the property refuses pre-fills an answer the server then rejects (SEP-1034 defaults, SEP-1330 enums). Checked on every elicitation/create mcpvet receives (--exercise calls provoke them).",
	})
}

// checkElicitRequest checks the form schema of one elicitation/create
// request (the whole JSON-RPC message).
func checkElicitRequest(raw json.RawMessage) []Finding {
	var msg struct {
		Params struct {
			Mode   string          `json:"mode"`
			Schema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &msg) != nil || len(msg.Params.Schema) == 0 || (msg.Params.Mode != "" && msg.Params.Mode != "form") {
		return nil
	}
	var form struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(msg.Params.Schema, &form) != nil {
		return nil
	}
	const base = "elicitation/create/params/requestedSchema"
	var out []Finding
	add := func(pointer, value, format string, args ...any) {
		out = append(out, NewFinding(CodeElicitSchemaInconsistent, "server", pointer, value,
			format+"; the spec says %s", append(args, specElicitDefaults)...))
	}
	for _, r := range form.Required {
		if _, ok := form.Properties[r]; !ok {
			add(base+"/required", r, "the form requires %q, which is not one of its properties", r)
		}
	}
	names := make([]string, 0, len(form.Properties))
	for n := range form.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ptr := base + "/properties/" + escapeToken(n)
		for _, p := range elicitPropertyProblems(form.Properties[n]) {
			add(ptr+p.at, p.value, "property %q: %s", n, p.why)
		}
	}
	return out
}

type elicitProblem struct{ at, value, why string }

// elicitPropertyProblems lists what contradicts itself in one property
// of a form.
func elicitPropertyProblems(raw json.RawMessage) []elicitProblem {
	var p struct {
		Type      string                   `json:"type"`
		Default   json.RawMessage          `json:"default"`
		Enum      []string                 `json:"enum"`
		EnumNames []string                 `json:"enumNames"`
		OneOf     []struct{ Const string } `json:"oneOf"`
		MinLength *int                     `json:"minLength"`
		MaxLength *int                     `json:"maxLength"`
		Minimum   *float64                 `json:"minimum"`
		Maximum   *float64                 `json:"maximum"`
		MinItems  *int                     `json:"minItems"`
		MaxItems  *int                     `json:"maxItems"`
		Items     *struct {
			Enum  []string                 `json:"enum"`
			AnyOf []struct{ Const string } `json:"anyOf"`
		} `json:"items"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	var out []elicitProblem
	bad := func(at, value, format string, args ...any) {
		out = append(out, elicitProblem{at, value, fmt.Sprintf(format, args...)})
	}
	if p.EnumNames != nil && p.Enum != nil && len(p.EnumNames) != len(p.Enum) {
		bad("/enumNames", fmt.Sprint(len(p.EnumNames)), "%d enumNames for %d enum values", len(p.EnumNames), len(p.Enum))
	}
	if p.MinLength != nil && p.MaxLength != nil && *p.MinLength > *p.MaxLength {
		bad("/minLength", fmt.Sprint(*p.MinLength), "minLength %d is above maxLength %d", *p.MinLength, *p.MaxLength)
	}
	if p.Minimum != nil && p.Maximum != nil && *p.Minimum > *p.Maximum {
		bad("/minimum", fmt.Sprint(*p.Minimum), "minimum %v is above maximum %v", *p.Minimum, *p.Maximum)
	}
	if p.MinItems != nil && p.MaxItems != nil && *p.MinItems > *p.MaxItems {
		bad("/minItems", fmt.Sprint(*p.MinItems), "minItems %d is above maxItems %d", *p.MinItems, *p.MaxItems)
	}
	d := bytes.TrimSpace(p.Default)
	if len(d) == 0 || bytes.Equal(d, []byte("null")) {
		return out
	}
	values := p.Enum
	for _, o := range p.OneOf {
		values = append(values, o.Const)
	}
	switch p.Type {
	case "string":
		var s string
		if json.Unmarshal(d, &s) != nil {
			return out // a default of another type is a schema violation
		}
		n := utf8.RuneCountInString(s)
		switch {
		case (p.Enum != nil || p.OneOf != nil) && !slices.Contains(values, s):
			bad("/default", s, "the default %q is not one of its values %q", s, values)
		case p.MinLength != nil && n < *p.MinLength:
			bad("/default", s, "the default %q is shorter than minLength %d", s, *p.MinLength)
		case p.MaxLength != nil && n > *p.MaxLength:
			bad("/default", s, "the default %q is longer than maxLength %d", s, *p.MaxLength)
		}
	case "number", "integer":
		var f float64
		if json.Unmarshal(d, &f) != nil {
			return out
		}
		switch {
		case p.Type == "integer" && f != math.Trunc(f):
			bad("/default", string(d), "the default %s of an integer is not a whole number", d)
		case p.Minimum != nil && f < *p.Minimum:
			bad("/default", string(d), "the default %s is below minimum %v", d, *p.Minimum)
		case p.Maximum != nil && f > *p.Maximum:
			bad("/default", string(d), "the default %s is above maximum %v", d, *p.Maximum)
		}
	case "array":
		var sel []string
		if json.Unmarshal(d, &sel) != nil || p.Items == nil {
			return out
		}
		allowed := p.Items.Enum
		for _, o := range p.Items.AnyOf {
			allowed = append(allowed, o.Const)
		}
		for _, s := range sel {
			if !slices.Contains(allowed, s) {
				bad("/default", s, "the default selection holds %q, which is not one of its values %q", s, allowed)
				return out
			}
		}
		switch {
		case p.MinItems != nil && len(sel) < *p.MinItems:
			bad("/default", string(d), "the default selects %d, fewer than minItems %d", len(sel), *p.MinItems)
		case p.MaxItems != nil && len(sel) > *p.MaxItems:
			bad("/default", string(d), "the default selects %d, more than maxItems %d", len(sel), *p.MaxItems)
		}
	}
	return out
}
