package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpvet/mcpvet/internal/lazyre"
	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/vocab"
)

// Finding codes of the tool schema checks. The fatal ones mean a client
// cannot build a valid call; the others are defects a client can live with.
const (
	CodeInputMissing          = "schema/input_missing"
	CodeInputNotObject        = "schema/input_not_object"
	CodeInputRootTypeNotObj   = "schema/input_root_type_not_object"
	CodeInputRootTypeMissing  = "schema/input_root_type_missing"
	CodeInputRootTypeUnion    = "schema/input_root_type_union"
	CodeInputCompileFailed    = "schema/input_compile_failed"
	CodeInputUnsatisfiable    = "schema/input_unsatisfiable"
	CodeOutputNotObject       = "schema/output_not_object"
	CodeOutputRootTypeNotObj  = "schema/output_root_type_not_object"
	CodeOutputCompileFailed   = "schema/output_compile_failed"
	CodeUnknownDialect        = "schema/unknown_dialect"
	CodeRemoteRef             = "schema/remote_ref"
	CodePatternNotPortable    = "schema/pattern_not_portable"
	CodeSchemaTooLarge        = "schema/too_large"
	CodeSchemaTooDeep         = "schema/too_deep"
	CodeSchemaTooManyProps    = "schema/too_many_properties"
	CodeRequiredNotDefined    = "schema/required_not_defined"
	CodePropertyNoDescription = "schema/property_missing_description"
	CodeEmptyParamsNotClosed  = "schema/empty_params_not_closed"
)

// Limits applied to every tool schema before anything recursive touches
// it. Schemas past them are reported and not compiled.
const (
	// maxToolSchemaBytes bounds one schema's JSON text.
	maxToolSchemaBytes = 1 << 20
	// maxToolSchemaDepth bounds the nesting of objects and arrays (about half
	// as many schema levels).
	maxToolSchemaDepth = 128
	// maxToolSchemaProperties bounds the entries of all "properties" objects.
	maxToolSchemaProperties = 1000
	// maxDescriptionFindings bounds property_missing_description per schema.
	maxDescriptionFindings = 100
	// maxStructuredBytes bounds structuredContent validated against a schema.
	maxStructuredBytes = 4 << 20
	// compiledSchemaURL is the base URL compiled schemas live at; nothing is ever
	// loaded from it.
	compiledSchemaURL = "mem:///schema.json"
)

func init() {
	register(
		CatalogEntry{CodeInputMissing, SeverityFatal,
			"a tool has no inputSchema",
			`give every tool an inputSchema; a tool without parameters uses {"type":"object","additionalProperties":false}`},
		CatalogEntry{CodeInputNotObject, SeverityFatal,
			"a tool's inputSchema is not a JSON object",
			`make inputSchema a JSON Schema object with "type": "object" at the root`},
		CatalogEntry{CodeInputRootTypeNotObj, SeverityFatal,
			`a tool's inputSchema root type excludes "object", so no arguments object can be valid`,
			`set "type": "object" at the root of inputSchema: tool arguments are always a JSON object`},
		CatalogEntry{CodeInputRootTypeMissing, SeverityError,
			`a tool's inputSchema has no root "type"`,
			`add "type": "object" at the root of inputSchema; the specification requires it`},
		CatalogEntry{CodeInputRootTypeUnion, SeverityError,
			`a tool's inputSchema root type is a list of types rather than "object"`,
			`set the root type to the string "object"; arguments are never null or an array`},
		CatalogEntry{CodeInputCompileFailed, SeverityFatal,
			"a tool's inputSchema does not compile under its JSON Schema dialect",
			"fix the schema so it validates against its dialect's meta-schema (2020-12 when $schema is absent) and every local $ref resolves without a cycle"},
		CatalogEntry{CodeInputUnsatisfiable, SeverityFatal,
			"a tool's inputSchema accepts no value at all",
			"remove the contradiction (a required property whose schema is false, a required property additionalProperties forbids, minProperties above maxProperties, not {})"},
		CatalogEntry{CodeOutputNotObject, SeverityError,
			"a tool's outputSchema is not a JSON object",
			`make outputSchema a JSON Schema object, or leave it out`},
		CatalogEntry{CodeOutputRootTypeNotObj, SeverityError,
			`a tool's outputSchema root type is not "object" (required in protocols 2025-06-18 and 2025-11-25)`,
			`set "type": "object" at the root of outputSchema; structuredContent is a JSON object in this protocol version`},
		CatalogEntry{CodeOutputCompileFailed, SeverityError,
			"a tool's outputSchema does not compile under its JSON Schema dialect",
			"fix the schema so clients can validate structuredContent against it (2020-12 when $schema is absent)"},
		CatalogEntry{CodeUnknownDialect, SeverityError,
			"a tool schema declares a $schema dialect validators do not know",
			"declare one of draft-04, draft-06, draft-07, 2019-09 or 2020-12, or omit $schema for 2020-12; clients must refuse dialects they do not support"},
		CatalogEntry{CodeRemoteRef, SeverityWarn,
			"a tool schema refers to a remote document with $ref",
			"inline the referenced definitions under $defs: clients do not fetch remote schemas, so the referenced part goes unchecked"},
		CatalogEntry{CodePatternNotPortable, SeverityInfo,
			"a pattern uses ECMA-262 features (lookaround, backreferences) that RE2-based validators reject",
			"prefer patterns in the common subset of ECMA-262 and RE2 so validators in Go, Rust and Python accept them"},
		CatalogEntry{CodeSchemaTooLarge, SeverityWarn,
			"a tool schema is over 1 MiB and was not checked",
			"keep tool schemas small: every byte is sent to the model with the tool list"},
		CatalogEntry{CodeSchemaTooDeep, SeverityWarn,
			"a tool schema nests more than 128 levels and was not checked",
			"flatten the schema; deep nesting defeats recursive validators and models alike"},
		CatalogEntry{CodeSchemaTooManyProps, SeverityWarn,
			"a tool schema defines more than 1000 properties and was not checked",
			"split the tool or reduce its parameters to what a model can fill in"},
		CatalogEntry{CodeRequiredNotDefined, SeverityWarn,
			"required names a property the schema does not define",
			"define every required property under properties (with a type and a description), or drop it from required"},
		CatalogEntry{CodePropertyNoDescription, SeverityWarn,
			"a tool parameter has no description",
			"describe every property: what it means, its format and an example; the model fills arguments from these descriptions"},
		CatalogEntry{CodeEmptyParamsNotClosed, SeverityInfo,
			`a tool without parameters does not use the recommended {"type":"object","additionalProperties":false}`,
			`declare a parameterless tool's inputSchema as {"type":"object","additionalProperties":false}`},
	)
}

// schemaSide says which of a tool's schemas is checked.
type schemaSide struct {
	field string // "inputSchema" or "outputSchema"
	input bool
}

var (
	inputSide  = schemaSide{"inputSchema", true}
	outputSide = schemaSide{"outputSchema", false}
)

// preparedSchema is a schema that passed the limits, decoded and made ready
// to compile.
type preparedSchema struct {
	doc map[string]any
	// canonical is the JSON compiled and hashed: keys sorted, an unknown
	// $schema removed, patterns RE2 cannot compile removed.
	canonical []byte
}

// prepareSchema applies the limits and the dialect and pattern checks to
// raw. It returns nil when the schema cannot be compiled; the findings say
// why.
func prepareSchema(subject string, side schemaSide, raw json.RawMessage) (*preparedSchema, []Finding) {
	ptr := "/" + side.field
	notObject := func(value string) []Finding {
		if side.input {
			return []Finding{NewFinding(CodeInputNotObject, subject, ptr, value,
				`inputSchema is %s; it must be a JSON Schema object with "type": "object" at the root`, jsonKindOf(raw))}
		}
		return []Finding{NewFinding(CodeOutputNotObject, subject, ptr, value,
			"outputSchema is %s; it must be a JSON Schema object", jsonKindOf(raw))}
	}
	if len(raw) > maxToolSchemaBytes {
		return nil, []Finding{NewFinding(CodeSchemaTooLarge, subject, ptr, strconv.Itoa(len(raw)),
			"%s is %d bytes, over the scanner's %d-byte limit; it was not compiled or checked", side.field, len(raw), maxToolSchemaBytes)}
	}
	if firstNonSpace(raw) != '{' {
		return nil, notObject(safe.Truncate(string(raw), MaxEvidence, safe.Ellipsis))
	}
	if d := nestingDepth(raw); d > maxToolSchemaDepth {
		return nil, []Finding{NewFinding(CodeSchemaTooDeep, subject, ptr, strconv.Itoa(d),
			"%s nests %d levels deep, over the scanner's limit of %d; it was not compiled or checked", side.field, d, maxToolSchemaDepth)}
	}
	v, err := decodeExact(raw)
	if err != nil {
		return nil, notObject(safe.Truncate(string(raw), MaxEvidence, safe.Ellipsis))
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, notObject(safe.Truncate(string(raw), MaxEvidence, safe.Ellipsis))
	}
	if n := countProperties(doc); n > maxToolSchemaProperties {
		return nil, []Finding{NewFinding(CodeSchemaTooManyProps, subject, ptr, strconv.Itoa(n),
			"%s defines %d properties, over the scanner's limit of %d; it was not compiled or checked", side.field, n, maxToolSchemaProperties)}
	}

	var out []Finding
	compileDoc := doc
	if s, has := doc["$schema"]; has {
		if uri, ok := s.(string); !ok || !knownDialect(uri) {
			out = append(out, NewFinding(CodeUnknownDialect, subject, ptr+"/$schema", evidenceJSON(s),
				"%s declares $schema %s, which is not a JSON Schema dialect validators know (draft-04, draft-06, draft-07, 2019-09, 2020-12); it was checked as 2020-12",
				side.field, evidenceJSON(s)))
			compileDoc = withoutKey(doc, "$schema")
		}
	}
	var patterns []portablePattern
	compileDoc, patterns = withoutNonRE2Patterns(compileDoc, "")
	for _, p := range patterns {
		out = append(out, NewFinding(CodePatternNotPortable, subject, ptr+p.pointer, p.pattern,
			"%s pattern %q uses %s, which RE2-based validators reject; the scanner left it out of the compiled schema", side.field, p.pattern, p.reason))
	}
	canonical, err := json.Marshal(compileDoc)
	if err != nil {
		return nil, append(out, notObject(safe.Truncate(string(raw), MaxEvidence, safe.Ellipsis))...)
	}
	return &preparedSchema{doc: doc, canonical: canonical}, out
}

// compileSchema compiles canonical schema bytes offline: remote references
// are recorded and stand in as the empty schema.
func compileSchema(canonical []byte) *compiledSchema {
	cs := &compiledSchema{size: len(canonical)}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = refuseLoad(&cs.remote)
	if err := c.AddResource(compiledSchemaURL, bytes.NewReader(canonical)); err != nil {
		cs.err = err
		return cs
	}
	cs.schema, cs.err = c.Compile(compiledSchemaURL)
	slices.Sort(cs.remote)
	cs.remote = slices.Compact(cs.remote)
	return cs
}

// checkSchema runs every check on one of a tool's schemas.
func (c *Checker) checkSchema(version, subject string, side schemaSide, raw json.RawMessage, present bool) []Finding {
	ptr := "/" + side.field
	if !present {
		if side.input {
			return []Finding{NewFinding(CodeInputMissing, subject, ptr, "",
				`the tool has no inputSchema; every tool needs one, {"type":"object","additionalProperties":false} when it takes no arguments`)}
		}
		return nil
	}
	prep, out := prepareSchema(subject, side, raw)
	if prep == nil {
		return out
	}
	out = append(out, rootTypeFindings(version, subject, side, prep.doc)...)

	cs := c.compiled(prep.canonical)
	for _, u := range cs.remote {
		out = append(out, NewFinding(CodeRemoteRef, subject, ptr, u,
			"%s refers to %s, which clients do not fetch; inline it under $defs", side.field, u))
	}
	if cs.err != nil {
		code := CodeOutputCompileFailed
		if side.input {
			code = CodeInputCompileFailed
		}
		out = append(out, NewFinding(code, subject, ptr, compileErrorPointer(cs.err),
			"%s does not compile: %s", side.field, compileErrorText(cs.err)))
		// The structural checks below still apply to a schema that does
		// not compile, but an invalid schema makes their findings noise.
		return out
	}
	if side.input {
		p, reason := unsatisfiable(prep.doc, "")
		if reason != "" {
			out = append(out, NewFinding(CodeInputUnsatisfiable, subject, ptr+p, valueAtPointer(prep.doc, p),
				"no arguments can satisfy inputSchema: %s", reason))
		}
		if t, has := prep.doc["type"]; reason == "" && (!has || t == "object") && isEmptyNotClosed(prep.doc) {
			out = append(out, NewFinding(CodeEmptyParamsNotClosed, subject, ptr, evidenceJSON(prep.doc),
				`the tool takes no parameters; declare that as {"type":"object","additionalProperties":false} so a client knows to send {}`))
		}
	}
	w := &schemaWalker{subject: subject, field: side.field, root: prep.doc, descriptions: side.input}
	w.walk(prep.doc, "", true, 0)
	out = append(out, w.out...)
	if w.missing > maxDescriptionFindings {
		out = append(out, NewFinding(CodePropertyNoDescription, subject, ptr, strconv.Itoa(w.missing),
			"%d properties of %s have no description; the first %d are listed", w.missing, side.field, maxDescriptionFindings))
	}
	return out
}

// rootTypeFindings checks the root "type" of a schema.
func rootTypeFindings(version, subject string, side schemaSide, doc map[string]any) []Finding {
	ptr := "/" + side.field + "/type"
	t, has := doc["type"]
	if !side.input {
		// outputSchema came with 2025-06-18; until 2025-11-25
		// structuredContent is an object and outputSchema must say so;
		// 2026-07-28 allows any JSON value.
		if version != "" && (version < vocab.Protocol20250618 || version >= vocab.Protocol20260728) {
			return nil
		}
		if s, ok := t.(string); ok && s == "object" {
			return nil
		}
		value := ""
		if has {
			value = evidenceJSON(t)
		}
		return []Finding{NewFinding(CodeOutputRootTypeNotObj, subject, ptr, value,
			`outputSchema must have "type": "object" at the root in protocol %s, found %s`, shownVersion(version), typeText(t, has))}
	}
	if !has {
		return []Finding{NewFinding(CodeInputRootTypeMissing, subject, ptr, "",
			`inputSchema has no root type; the specification requires "type": "object" (tool arguments are always an object)`)}
	}
	switch tv := t.(type) {
	case string:
		if tv == "object" {
			return nil
		}
	case []any:
		for _, e := range tv {
			if e == "object" {
				return []Finding{NewFinding(CodeInputRootTypeUnion, subject, ptr, evidenceJSON(t),
					`inputSchema root type is %s; the specification requires exactly "object"`, evidenceJSON(t))}
			}
		}
	}
	return []Finding{NewFinding(CodeInputRootTypeNotObj, subject, ptr, evidenceJSON(t),
		`inputSchema root type is %s, so no arguments object is valid; set "type": "object"`, evidenceJSON(t))}
}

func typeText(t any, has bool) string {
	if !has {
		return "no type"
	}
	return evidenceJSON(t)
}

func shownVersion(v string) string {
	if v == "" {
		return "(unknown version)"
	}
	return v
}

// knownDialect reports whether uri names a dialect the validator supports.
func knownDialect(uri string) bool {
	u := strings.TrimPrefix(strings.TrimPrefix(uri, "https://"), "http://")
	u = strings.TrimSuffix(strings.TrimSuffix(u, "#"), "#/")
	u = strings.TrimSuffix(u, "#")
	switch u {
	case "json-schema.org/draft-04/schema", "json-schema.org/draft-06/schema", "json-schema.org/draft-07/schema",
		"json-schema.org/draft/2019-09/schema", "json-schema.org/draft/2020-12/schema":
		return true
	}
	return false
}

// compileErrorText is the compiler's message without the synthetic URL the
// schema was compiled at.
func compileErrorText(err error) string {
	var loop jsonschema.InfiniteLoopError
	if errors.As(err, &loop) {
		return "$ref cycle: " + strings.TrimPrefix(string(loop), compiledSchemaURL) + " refers back to itself without consuming any input"
	}
	msg := err.Error()
	var se *jsonschema.SchemaError
	if errors.As(err, &se) && se.Err != nil {
		msg = se.Err.Error()
		var ve *jsonschema.ValidationError
		if errors.As(se.Err, &ve) {
			leaves := validationLeaves(ve)
			var parts []string
			for i, l := range leaves {
				if i == 3 {
					parts = append(parts, fmt.Sprintf("and %d more", len(leaves)-3))
					break
				}
				parts = append(parts, fmt.Sprintf("at %s: %s", shownPointer(l.InstanceLocation), leafMessage(l)))
			}
			msg = "it is not a valid schema of its dialect (" + strings.Join(parts, "; ") + ")"
		}
	}
	msg = strings.ReplaceAll(msg, compiledSchemaURL, "")
	msg = strings.TrimPrefix(msg, "jsonschema: ")
	return safe.Truncate(msg, 2*MaxEvidence, safe.Ellipsis)
}

// compileErrorPointer is the location in the schema the compiler blamed,
// as evidence.
func compileErrorPointer(err error) string {
	var loop jsonschema.InfiniteLoopError
	if errors.As(err, &loop) {
		return strings.TrimPrefix(string(loop), compiledSchemaURL)
	}
	var se *jsonschema.SchemaError
	if errors.As(err, &se) {
		var ve *jsonschema.ValidationError
		if errors.As(se.Err, &ve) {
			if leaves := validationLeaves(ve); len(leaves) > 0 {
				return shownPointer(leaves[0].InstanceLocation)
			}
		}
	}
	return ""
}

// countProperties counts the entries of every "properties" object in the
// schema, iteratively.
func countProperties(doc any) int {
	n := 0
	stack := []any{doc}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch t := v.(type) {
		case map[string]any:
			if p, ok := t["properties"].(map[string]any); ok {
				n += len(p)
			}
			for _, c := range t {
				stack = append(stack, c)
			}
		case []any:
			stack = append(stack, t...)
		}
	}
	return n
}

// unsatisfiable looks for a contradiction that makes the schema at ptr
// reject every value, following required properties (which must be
// present, so their schemas must be satisfiable too). It is conservative:
// it reports only what it can prove without resolving $ref.
func unsatisfiable(s any, ptr string) (string, string) {
	switch v := s.(type) {
	case bool:
		if !v {
			return ptr, "the schema is false"
		}
		return "", ""
	case map[string]any:
		if schemaAcceptsAll(v["not"]) && v["not"] != nil {
			return ptr + "/not", "\"not\" negates a schema that accepts everything"
		}
		if e, ok := v["enum"].([]any); ok && len(e) == 0 {
			return ptr + "/enum", "enum is empty"
		}
		minP, hasMin := schemaNumber(v["minProperties"])
		maxP, hasMax := schemaNumber(v["maxProperties"])
		if hasMin && hasMax && minP > maxP {
			return ptr + "/minProperties", fmt.Sprintf("minProperties %v is above maxProperties %v", minP, maxP)
		}
		req := schemaStrings(v["required"])
		if hasMax && float64(len(slices.Compact(slices.Sorted(slices.Values(req))))) > maxP {
			return ptr + "/required", fmt.Sprintf("%d properties are required but maxProperties is %v", len(slices.Compact(slices.Sorted(slices.Values(req)))), maxP)
		}
		props, _ := v["properties"].(map[string]any)
		for i, name := range req {
			if ps, ok := props[name]; ok {
				if p, reason := unsatisfiable(ps, ptr+"/properties/"+escapeToken(name)); reason != "" {
					return p, fmt.Sprintf("required property %q: %s", name, reason)
				}
				continue
			}
			if ap, ok := v["additionalProperties"].(bool); ok && !ap && !matchesPatternProperties(v, name) {
				return ptr + "/required/" + strconv.Itoa(i),
					fmt.Sprintf("property %q is required but not defined under properties, and additionalProperties is false", name)
			}
		}
	}
	return "", ""
}

// schemaAcceptsAll reports whether s is a schema that accepts every value: true
// or {}.
func schemaAcceptsAll(s any) bool {
	switch v := s.(type) {
	case bool:
		return v
	case map[string]any:
		return len(v) == 0
	}
	return false
}

func schemaNumber(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func schemaStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func matchesPatternProperties(schema map[string]any, name string) bool {
	pp, _ := schema["patternProperties"].(map[string]any)
	for pat := range pp {
		re, err := regexp.Compile(pat)
		if err != nil || re.MatchString(name) {
			// A pattern RE2 cannot read may well match: assume it does.
			return true
		}
	}
	return false
}

// isEmptyNotClosed reports whether a schema declares no parameters and
// still accepts any: no properties, no patternProperties, no composition,
// and additionalProperties not false.
func isEmptyNotClosed(doc map[string]any) bool {
	if p, ok := doc["properties"].(map[string]any); ok && len(p) > 0 {
		return false
	}
	for _, k := range []string{"patternProperties", "allOf", "anyOf", "oneOf", "$ref", "if", "not", "dependentSchemas", "propertyNames", "unevaluatedProperties"} {
		if _, ok := doc[k]; ok {
			return false
		}
	}
	if ap, ok := doc["additionalProperties"]; ok {
		if b, isBool := ap.(bool); !isBool || !b {
			// false is the recommendation; a schema for additional
			// properties declares parameters of a kind.
			return false
		}
	}
	return true
}

// schemaWalker visits the object schemas reachable through properties,
// items and additionalProperties, checking required names and (for input
// schemas) property descriptions.
type schemaWalker struct {
	subject      string
	field        string
	root         map[string]any
	descriptions bool
	missing      int
	out          []Finding
}

// walk visits s at ptr. onChain is true when s must be present in every
// valid instance (the root, and required properties of such schemas): an
// undefined required name there is reported as unsatisfiable instead.
func (w *schemaWalker) walk(s any, ptr string, onChain bool, depth int) {
	m, ok := s.(map[string]any)
	if !ok || depth > maxToolSchemaDepth {
		return
	}
	props, _ := m["properties"].(map[string]any)
	required := schemaStrings(m["required"])
	closed := false
	if ap, ok := m["additionalProperties"].(bool); ok && !ap {
		closed = true
	}
	if !hasComposition(m) {
		for i, name := range required {
			if _, ok := props[name]; ok || matchesPatternProperties(m, name) || branchesDefine(m, name) {
				continue
			}
			if closed && onChain {
				continue
			}
			w.out = append(w.out, NewFinding(CodeRequiredNotDefined, w.subject, "/"+w.field+ptr+"/required/"+strconv.Itoa(i), name,
				"%s lists %q as required but does not define it under properties; define it with a type and a description", w.field, name))
		}
	}
	names := slices.Sorted(maps.Keys(props))
	isReq := map[string]bool{}
	for _, r := range required {
		isReq[r] = true
	}
	for _, n := range names {
		pptr := ptr + "/properties/" + escapeToken(n)
		if w.descriptions && !w.described(props[n]) {
			w.missing++
			if w.missing <= maxDescriptionFindings {
				w.out = append(w.out, NewFinding(CodePropertyNoDescription, w.subject, "/"+w.field+pptr, n,
					"parameter %q has no description; say what it means, its format and an example", n))
			}
		}
		w.walk(props[n], pptr, onChain && isReq[n], depth+1)
	}
	switch items := m["items"].(type) {
	case map[string]any:
		w.walk(items, ptr+"/items", false, depth+1)
	case []any:
		for i, it := range items {
			w.walk(it, ptr+"/items/"+strconv.Itoa(i), false, depth+1)
		}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok {
		w.walk(ap, ptr+"/additionalProperties", false, depth+1)
	}
}

// described reports whether a property schema carries a description,
// directly or at the local definition it refers to.
func (w *schemaWalker) described(s any) bool {
	m, ok := s.(map[string]any)
	if !ok {
		return false
	}
	if d, ok := m["description"].(string); ok && strings.TrimSpace(d) != "" {
		return true
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
		if t, ok := resolveLocalRef(w.root, ref).(map[string]any); ok {
			if d, ok := t["description"].(string); ok && strings.TrimSpace(d) != "" {
				return true
			}
		}
	}
	return false
}

// hasComposition reports whether properties may be defined elsewhere than
// under properties, in a way this check does not follow.
func hasComposition(m map[string]any) bool {
	for _, k := range []string{"$ref", "$dynamicRef", "if", "dependentSchemas", "dependencies"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// branchesDefine reports whether an allOf/anyOf/oneOf branch defines name.
func branchesDefine(m map[string]any, name string) bool {
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		bs, _ := m[k].([]any)
		for _, b := range bs {
			bm, _ := b.(map[string]any)
			if bm == nil {
				continue
			}
			if _, ok := bm["$ref"]; ok {
				return true
			}
			if p, ok := bm["properties"].(map[string]any); ok {
				if _, ok := p[name]; ok {
					return true
				}
			}
		}
	}
	return false
}

// resolveLocalRef resolves a "#/a/b" pointer or a "#name" anchor ($anchor
// in 2019-09 and later, $dynamicAnchor in 2020-12, an "#name" $id or id
// before) inside root; nil if it does not resolve.
func resolveLocalRef(root map[string]any, ref string) any {
	frag := strings.TrimPrefix(ref, "#")
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return findAnchor(root, frag)
	}
	var v any = root
	for _, t := range pointerTokens(frag) {
		switch n := v.(type) {
		case map[string]any:
			v = n[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(n) {
				return nil
			}
			v = n[i]
		default:
			return nil
		}
	}
	return v
}

// findAnchor returns the subschema of root named by anchor, iteratively.
func findAnchor(root map[string]any, anchor string) any {
	stack := []any{root}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch t := v.(type) {
		case map[string]any:
			if t["$anchor"] == anchor || t["$dynamicAnchor"] == anchor || t["$id"] == "#"+anchor || t["id"] == "#"+anchor {
				return t
			}
			for _, c := range t {
				stack = append(stack, c)
			}
		case []any:
			stack = append(stack, t...)
		}
	}
	return nil
}

func escapeToken(t string) string { return pointerEscaper.Replace(t) }

// portablePattern is a pattern RE2 rejects.
type portablePattern struct {
	pointer, pattern, reason string
}

// ecmaOnly matches the ECMA-262 regular expression features RE2 lacks.
var ecmaOnly = lazyre.New(`\(\?[=!]|\(\?<[=!]|\\[1-9]|\\k<`)

// withoutNonRE2Patterns returns doc with every "pattern" and
// "patternProperties" key that Go's RE2 cannot compile but that looks like
// a valid ECMA-262 expression removed, and the list of them. Patterns that
// are broken in any dialect (unbalanced brackets) stay, so that the
// compiler reports them. Only the branches that change are copied.
func withoutNonRE2Patterns(v map[string]any, ptr string) (map[string]any, []portablePattern) {
	var found []portablePattern
	var walk func(v any, ptr string) (any, bool)
	walk = func(v any, ptr string) (any, bool) {
		switch t := v.(type) {
		case map[string]any:
			var out map[string]any
			copyOnce := func() {
				if out == nil {
					out = make(map[string]any, len(t))
					maps.Copy(out, t)
				}
			}
			keys := slices.Sorted(maps.Keys(t))
			for _, k := range keys {
				e := t[k]
				if k == "pattern" {
					if p, ok := e.(string); ok {
						if reason := nonRE2(p); reason != "" {
							found = append(found, portablePattern{ptr + "/pattern", p, reason})
							copyOnce()
							delete(out, k)
							continue
						}
					}
				}
				if k == "patternProperties" {
					if pp, ok := e.(map[string]any); ok {
						var npp map[string]any
						for pat := range pp {
							if reason := nonRE2(pat); reason != "" {
								found = append(found, portablePattern{ptr + "/patternProperties/" + escapeToken(pat), pat, reason})
								if npp == nil {
									npp = make(map[string]any, len(pp))
									maps.Copy(npp, pp)
								}
								delete(npp, pat)
							}
						}
						if npp != nil {
							copyOnce()
							out[k] = npp
							e = npp
						}
					}
				}
				if ne, changed := walk(e, ptr+"/"+escapeToken(k)); changed {
					copyOnce()
					out[k] = ne
				}
			}
			if out != nil {
				return out, true
			}
			return t, false
		case []any:
			var out []any
			for i, e := range t {
				if ne, changed := walk(e, ptr+"/"+strconv.Itoa(i)); changed {
					if out == nil {
						out = append([]any(nil), t...)
					}
					out[i] = ne
				}
			}
			if out != nil {
				return out, true
			}
		}
		return v, false
	}
	nv, _ := walk(v, ptr)
	slices.SortStableFunc(found, func(a, b portablePattern) int { return strings.Compare(a.pointer, b.pointer) })
	return nv.(map[string]any), found
}

// nonRE2 returns why RE2 rejects p when p uses ECMA-262-only features and
// is otherwise well formed, and "" when RE2 accepts it or it is broken in
// every dialect.
func nonRE2(p string) string {
	if _, err := regexp.Compile(p); err == nil {
		return ""
	}
	if !regexBalanced(p) {
		return ""
	}
	if m := ecmaOnly.FindString(p); m != "" {
		switch {
		case strings.HasPrefix(m, "(?<"):
			return "lookbehind " + m
		case strings.HasPrefix(m, "(?"):
			return "lookahead " + m
		default:
			return "backreference " + m
		}
	}
	if strings.Contains(p, `\p{`) || strings.Contains(p, `\P{`) {
		// Unicode property names differ between the two (RE2 has no
		// Extended_Pictographic, for one).
		return "a Unicode property escape"
	}
	if _, err := regexp.Compile(ecmaToRE2(p)); err == nil {
		return "ECMA-262 escape syntax (\\uXXXX, \\cX, [^] or a letter escape)"
	}
	return ""
}

// ecmaToRE2 rewrites the ECMA-262 escapes RE2 spells differently:
// \uXXXX and \u{X...} to \x{...}, \cX to the control character, [^] to
// [\s\S], and identity escapes of letters RE2 does not know to the letter.
func ecmaToRE2(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '[' && strings.HasPrefix(p[i:], "[^]") {
			b.WriteString(`[\s\S]`)
			i += 2
			continue
		}
		if c != '\\' || i+1 >= len(p) {
			b.WriteByte(c)
			continue
		}
		n := p[i+1]
		switch {
		case n == 'u' && i+2 < len(p) && p[i+2] == '{':
			if end := strings.IndexByte(p[i:], '}'); end > 0 {
				b.WriteString(`\x{` + p[i+3:i+end] + `}`)
				i += end
				continue
			}
		case n == 'u' && i+5 < len(p) && isHexString(p[i+2:i+6]):
			b.WriteString(`\x{` + p[i+2:i+6] + `}`)
			i += 5
			continue
		case n == 'c' && i+2 < len(p) && (p[i+2]|0x20 >= 'a' && p[i+2]|0x20 <= 'z'):
			b.WriteString(fmt.Sprintf(`\x{%02x}`, p[i+2]%32))
			i += 2
			continue
		case n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z':
			if !strings.ContainsRune("afnrtvbBdDsSwWpPxAzQE", rune(n)) && !(n >= '0' && n <= '9') {
				b.WriteByte(n)
				i++
				continue
			}
		}
		b.WriteByte(c)
		b.WriteByte(n)
		i++
	}
	return b.String()
}

func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// regexBalanced reports whether the parentheses and brackets of a regular
// expression pair up, honouring escapes and character classes.
func regexBalanced(p string) bool {
	depth := 0
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0 && !inClass
}

// withoutKey copies m without key.
func withoutKey(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// jsonKindOf names the JSON type of raw for messages.
func jsonKindOf(raw []byte) string {
	switch firstNonSpace(raw) {
	case 0:
		return "empty"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
