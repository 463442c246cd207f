package probe

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// maxSchemaTextDepth bounds the schema walk: text nested deeper is not
// read.
const maxSchemaTextDepth = 32

// schemaKeywords are the member names of JSON Schema (2020-12 and
// draft-07) and of tool annotations. Any other member name of a schema
// object is text the model reads: a parameter name, or an unknown key.
var schemaKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "description": true, "title": true, "default": true,
	"examples": true, "enum": true, "const": true, "items": true, "additionalProperties": true, "$schema": true,
	"$id": true, "$ref": true, "$defs": true, "definitions": true, "anyOf": true, "oneOf": true, "allOf": true,
	"not": true, "format": true, "pattern": true, "minLength": true, "maxLength": true, "minimum": true,
	"maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true, "minItems": true,
	"maxItems": true, "uniqueItems": true, "minProperties": true, "maxProperties": true, "patternProperties": true,
	"propertyNames": true, "dependentRequired": true, "dependentSchemas": true, "dependencies": true, "if": true,
	"then": true, "else": true, "contains": true, "minContains": true, "maxContains": true, "prefixItems": true,
	"unevaluatedProperties": true, "unevaluatedItems": true, "contentEncoding": true, "contentMediaType": true,
	"contentSchema": true, "deprecated": true, "readOnly": true, "writeOnly": true, "nullable": true, "$comment": true,
	"$anchor": true, "$dynamicRef": true, "$dynamicAnchor": true, "$vocabulary": true, "additionalItems": true,
	"readOnlyHint": true, "destructiveHint": true, "idempotentHint": true, "openWorldHint": true,
}

// machineKeys hold strings for programs, not prose: their values are not
// read.
var machineKeys = map[string]bool{"$schema": true, "$id": true, "$ref": true, "format": true, "pattern": true,
	"contentEncoding": true, "contentMediaType": true, "$anchor": true, "$dynamicRef": true, "$dynamicAnchor": true}

// nameMaps are the schema members whose member names are names the
// model reads (parameters, definitions).
var nameMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}

// schemaFrame is one open object or array of the walk.
type schemaFrame struct {
	object bool
	key    string // the current member name, for objects
	index  int    // the next element index, for arrays
	names  bool   // an object whose member names are parameter names
	data   bool   // inside default, examples, const or enum: values, not schemas
}

// schemaWalk streams the tokens of a schema and reports its text.
type schemaWalk struct {
	ptr   string
	stack []schemaFrame
	fn    func(ptr, s string, ident bool)
}

// walkSchemaText calls fn for every string of a JSON schema the model
// reads, with its JSON pointer: every string value (descriptions, titles,
// enum, const, default, examples, required[] entries, type, $comment and
// the values of unknown keys), except the machine strings ($ref, format,
// pattern, ...), and every member name that is not a JSON Schema keyword
// (parameter names, unknown keys), reported with ident set, as are
// required[] entries. It streams tokens, so a hostile schema nested
// thousands deep costs one pass.
func walkSchemaText(raw json.RawMessage, ptr string, fn func(ptr, s string, ident bool)) {
	w := &schemaWalk{ptr: ptr, fn: fn}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil || !w.token(tok) {
			return
		}
	}
}

// token handles one token; it reports false when the walk must stop.
func (w *schemaWalk) token(tok json.Token) bool {
	if w.expectKey() {
		if k, ok := tok.(string); ok {
			w.memberName(k)
			return true
		}
	}
	parentKey, data := w.beginValue()
	switch t := tok.(type) {
	case json.Delim:
		return w.delim(t, parentKey, data)
	case string:
		w.stringValue(t, parentKey, data)
	}
	w.endValue()
	return true
}

func (w *schemaWalk) expectKey() bool {
	n := len(w.stack)
	return n > 0 && w.stack[n-1].object && w.stack[n-1].key == ""
}

// memberName records a member name, reporting it when the model reads it
// as a name.
func (w *schemaWalk) memberName(k string) {
	top := &w.stack[len(w.stack)-1]
	top.key = k
	if top.data {
		return
	}
	if top.names || !schemaKeywords[k] {
		w.fn(w.path(), k, true)
	}
}

// beginValue notes an array element's index and returns the member name
// the value belongs to and whether it is data rather than schema.
func (w *schemaWalk) beginValue() (string, bool) {
	n := len(w.stack)
	if n == 0 {
		return "", false
	}
	top := &w.stack[n-1]
	if !top.object {
		top.index++
		return "", top.data
	}
	k := top.key
	return k, top.data || k == "default" || k == "examples" || k == "const" || k == "enum"
}

func (w *schemaWalk) delim(d json.Delim, parentKey string, data bool) bool {
	switch d {
	case '{', '[':
		names := !data && nameMaps[parentKey]
		w.stack = append(w.stack, schemaFrame{object: d == '{', names: names, data: data, key: ""})
		if parentKey == "required" {
			w.stack[len(w.stack)-1].key = "required"
		}
		return len(w.stack) <= maxSchemaTextDepth
	default:
		if len(w.stack) > 0 {
			w.stack = w.stack[:len(w.stack)-1]
		}
		w.endValue()
		return true
	}
}

func (w *schemaWalk) stringValue(s, parentKey string, data bool) {
	n := len(w.stack)
	if n == 0 {
		return
	}
	top := w.stack[n-1]
	if !top.object {
		// An element of required[] is a parameter name.
		w.fn(w.path(), s, top.key == "required" && !data)
		return
	}
	if !data && machineKeys[parentKey] {
		return
	}
	w.fn(w.path(), s, false)
}

// endValue: after a member's value the object waits for the next key.
func (w *schemaWalk) endValue() {
	if n := len(w.stack); n > 0 && w.stack[n-1].object {
		w.stack[n-1].key = ""
	}
}

func (w *schemaWalk) path() string {
	var b strings.Builder
	b.WriteString(w.ptr)
	for _, f := range w.stack {
		b.WriteByte('/')
		if f.object {
			b.WriteString(pointerEscape(f.key))
		} else {
			b.WriteString(strconv.Itoa(f.index - 1))
		}
	}
	return b.String()
}
