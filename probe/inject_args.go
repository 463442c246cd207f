package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Probe kinds: what a failure-injection request got wrong on purpose
// (ProbeCall.Kind).
const (
	KindMissingRequired  = "missing_required"
	KindWrongType        = "wrong_type"
	KindEnumViolation    = "enum_violation"
	KindOutOfRange       = "out_of_range"
	KindPatternViolation = "pattern_violation"
	KindFormatViolation  = "format_violation"
	KindMaxLength        = "max_length"
	KindUnknownProperty  = "unknown_property"
	KindEmptyArguments   = "empty_arguments"
	KindAbsentArguments  = "absent_arguments"
	KindUnknownTool      = "unknown_tool"
	KindUnknownMethod    = "unknown_method"
	KindUnknownResource  = "unknown_resource"
	KindUnknownPrompt    = "unknown_prompt"
	KindBadCursor        = "bad_cursor"
)

// argKindOrder is the order in which argument probe kinds are taken when a
// tool's cap is smaller than what its schema allows: one probe of each kind
// before a second of any, the kinds most likely to break a handler first.
var argKindOrder = []string{
	KindMissingRequired, KindWrongType, KindAbsentArguments, KindEnumViolation, KindOutOfRange,
	KindPatternViolation, KindUnknownProperty, KindMaxLength, KindFormatViolation, KindEmptyArguments,
}

// argProbe is one invalid arguments object for a tool.
type argProbe struct {
	Kind string
	// Param is the top-level argument made invalid, if any.
	Param string
	// Args is the arguments object; nil leaves the member out of the call.
	Args json.RawMessage
}

// Limits on what the generator reads and writes.
const (
	// maxSchemaBytes: larger input schemas are not probed.
	maxSchemaBytes = 1 << 20
	// maxLongString caps the string sent to break a maxLength; a larger
	// maxLength is not probed.
	maxLongString = 64 << 10
	// unknownPropertyName is the extra argument of unknown_property probes.
	unknownPropertyName = "mcpvet_unexpected_argument"
	// placeholder is the value of arguments the generator cannot shape: a
	// string that names no real entity.
	placeholder = "mcpvet-probe"
)

// invalidArguments returns the invalid calls the input schema raw allows
// the probe to send: a required argument missing, each argument with the
// wrong JSON type, a value outside an enum, a number outside its bounds, a
// string breaking its pattern, format or maxLength, an unknown argument
// when additionalProperties is false, and empty and absent arguments.
//
// Only the top-level keywords of the schema and of its properties are read,
// and every generated object is then validated against the whole schema
// (with $ref, allOf, oneOf and the rest resolved): an object the schema
// does not reject is dropped, so no valid call is ever returned. Absent
// arguments are validated as {}. A schema that does not compile (remote
// $ref, unknown draft, a pattern Go cannot parse) yields no probes and an
// error.
//
// The other required arguments of each probe carry harmless values that
// satisfy their own keywords where the generator can tell (an enum's first
// member, a number inside the bounds, "mcpvet-probe"), so that the one
// defect is what the server reports.
//
// An unknown property is the one defect a lenient server silently drops
// (the TypeScript SDK's zod schemas strip unknown keys while publishing
// additionalProperties: false), which would turn the probe into a valid
// call of the tool. So the unknown_property probe is generated only when
// the arguments stay invalid without the extra key, or when runnable says
// the tool is safe to run anyway (annotated read-only and closed-world).
func invalidArguments(raw json.RawMessage, runnable bool) ([]argProbe, error) {
	sch, root, err := loadInputSchema(raw)
	if err != nil || root == nil {
		return nil, err
	}
	props, _ := root["properties"].(map[string]any)
	required := stringList(root["required"])
	g := argGen{props: props, base: requiredBase(props, required)}
	for _, r := range required {
		g.missing(r)
	}
	for _, name := range propertyOrder(raw, props) {
		if ps, ok := props[name].(map[string]any); ok {
			g.propertyDefects(name, ps)
		}
	}
	if root["additionalProperties"] == false || root["unevaluatedProperties"] == false {
		g.unknownProperty(sch, runnable)
	}
	g.cands = append(g.cands, argProbe{Kind: KindEmptyArguments, Args: json.RawMessage(`{}`)},
		argProbe{Kind: KindAbsentArguments})
	return rejectedOnly(sch, g.cands), nil
}

// loadInputSchema compiles a tool's input schema and decodes it; root is
// nil for a boolean schema (nothing to break key by key).
func loadInputSchema(raw json.RawMessage) (*jsonschema.Schema, map[string]any, error) {
	if len(raw) > maxSchemaBytes {
		return nil, nil, fmt.Errorf("input schema of %d bytes exceeds %d", len(raw), maxSchemaBytes)
	}
	sch, err := compileInputSchema(raw)
	if err != nil {
		return nil, nil, err
	}
	var doc any
	if err := decodeNumbers(raw, &doc); err != nil {
		return nil, nil, fmt.Errorf("decoding input schema: %w", err)
	}
	root, _ := doc.(map[string]any)
	return sch, root, nil
}

// requiredBase gives every required argument a harmless value: a sample
// of its own schema, or the placeholder when it has no property.
func requiredBase(props map[string]any, required []string) map[string]any {
	base := map[string]any{}
	for _, r := range required {
		if ps, ok := props[r].(map[string]any); ok {
			base[r] = sample(ps, 0)
		} else {
			base[r] = placeholder
		}
	}
	return base
}

// argGen collects the candidate probes of one schema, each the harmless
// base with one defect.
type argGen struct {
	props map[string]any
	base  map[string]any
	cands []argProbe
}

// with returns a copy of the base with name set to v.
func (g *argGen) with(name string, v any) map[string]any {
	m := make(map[string]any, len(g.base)+1)
	maps.Copy(m, g.base)
	m[name] = v
	return m
}

func (g *argGen) add(kind, param string, args map[string]any) {
	b, err := json.Marshal(args)
	if err != nil {
		return
	}
	g.cands = append(g.cands, argProbe{Kind: kind, Param: param, Args: b})
}

// missing adds the base without the required argument r.
func (g *argGen) missing(r string) {
	if _, ok := g.base[r]; !ok {
		return
	}
	m := g.with(r, nil)
	delete(m, r)
	g.add(KindMissingRequired, r, m)
}

// propertyDefects adds one probe per keyword of the property the
// generator can break: type, enum, bounds, pattern, format, maxLength.
func (g *argGen) propertyDefects(name string, ps map[string]any) {
	if v, ok := wrongTypeValue(ps); ok {
		g.add(KindWrongType, name, g.with(name, v))
	}
	if v, ok := enumViolation(ps); ok {
		g.add(KindEnumViolation, name, g.with(name, v))
	}
	for _, v := range outOfRange(ps) {
		g.add(KindOutOfRange, name, g.with(name, v))
	}
	if v, ok := patternViolation(ps); ok {
		g.add(KindPatternViolation, name, g.with(name, v))
	}
	if v, ok := formatViolation(ps); ok {
		g.add(KindFormatViolation, name, g.with(name, v))
	}
	if v, ok := tooLong(ps); ok {
		g.add(KindMaxLength, name, g.with(name, v))
	}
}

// unknownProperty adds the base with an extra key of a closed object, when
// the base without it is already invalid or runnable says the tool is safe
// to run (see [invalidArguments]).
func (g *argGen) unknownProperty(sch *jsonschema.Schema, runnable bool) {
	baseJSON, err := json.Marshal(g.base)
	if err != nil || !(runnable || rejects(sch, baseJSON)) {
		return
	}
	extra := unknownPropertyName
	for g.props[extra] != nil {
		extra += "_"
	}
	g.add(KindUnknownProperty, extra, g.with(extra, placeholder))
}

// rejectedOnly keeps the candidates the schema rejects, each arguments
// object once: no valid call is ever returned.
func rejectedOnly(sch *jsonschema.Schema, cands []argProbe) []argProbe {
	var out []argProbe
	seen := map[string]bool{}
	for _, c := range cands {
		key := string(c.Args)
		if c.Args == nil {
			key = "<absent>"
		}
		if seen[key] || !rejects(sch, c.Args) {
			continue
		}
		seen[key] = true
		out = append(out, c)
	}
	return out
}

// pickProbes keeps at most limit probes, taking them round-robin over
// [argKindOrder] so that a small cap still covers every kind once.
func pickProbes(all []argProbe, limit int) []argProbe {
	byKind := map[string][]argProbe{}
	for _, p := range all {
		byKind[p.Kind] = append(byKind[p.Kind], p)
	}
	var out []argProbe
	for round := 0; len(out) < limit; round++ {
		took := false
		for _, k := range argKindOrder {
			if round < len(byKind[k]) && len(out) < limit {
				out = append(out, byKind[k][round])
				took = true
			}
		}
		if !took {
			break
		}
	}
	return out
}

// errNoRemoteRefs is returned for any schema reference outside the schema
// itself: the probe never fetches URLs or reads files a server names.
var errNoRemoteRefs = errors.New("remote schema references are not loaded")

// inputSchemaURL is the base URL the input schema is compiled under.
const inputSchemaURL = "mcpvet:///tool/inputSchema.json"

// compileInputSchema compiles a tool's input schema for validation. A
// schema without $schema is read as draft 2020-12 (the MCP default), and
// formats are asserted so that format probes can be proven invalid.
func compileInputSchema(raw json.RawMessage) (sch *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			sch, err = nil, fmt.Errorf("compiling input schema: %v", r)
		}
	}()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("%w: %s", errNoRemoteRefs, u)
	}
	if err := c.AddResource(inputSchemaURL, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("compiling input schema: %w", err)
	}
	sch, err = c.Compile(inputSchemaURL)
	if err != nil {
		return nil, fmt.Errorf("compiling input schema: %w", err)
	}
	return sch, nil
}

// rejects reports whether sch proves args invalid. Absent arguments (nil)
// are validated as {}. Anything short of a validation error (a decoding
// problem, a validator failure) counts as not proven.
func rejects(sch *jsonschema.Schema, args json.RawMessage) (rejected bool) {
	defer func() {
		if recover() != nil {
			rejected = false
		}
	}()
	if args == nil {
		args = json.RawMessage(`{}`)
	}
	var v any
	if decodeNumbers(args, &v) != nil {
		return false
	}
	var verr *jsonschema.ValidationError
	return errors.As(sch.Validate(v), &verr)
}

func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after JSON value")
	}
	return nil
}

// propertyOrder returns the property names in the order the schema
// declares them (map decoding loses it), falling back to props' keys.
func propertyOrder(raw json.RawMessage, props map[string]any) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) == nil {
		if keys, err := objectKeys(top["properties"]); err == nil && len(keys) == len(props) {
			return keys
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

// objectKeys returns the keys of a JSON object in document order.
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys, nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func stringList(v any) []string {
	arr, _ := v.([]any)
	var out []string
	seen := map[string]bool{}
	for _, e := range arr {
		if s, ok := e.(string); ok && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// schemaTypes returns the declared JSON types of s ("type" as a string or
// an array), or nil when s declares none.
func schemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		return stringList(t)
	}
	return nil
}

func hasType(types []string, t string) bool {
	return slices.ContainsFunc(types, func(x string) bool { return x == t || (t == "integer" && x == "number") })
}

// primaryType is the first declared type other than null, or "".
func primaryType(s map[string]any) string {
	for _, t := range schemaTypes(s) {
		if t != "null" {
			return t
		}
	}
	if len(schemaTypes(s)) > 0 {
		return "null"
	}
	return ""
}

// sample returns a harmless value that satisfies s's own keywords where
// that is easy to tell; the caller never relies on it being valid.
func sample(s map[string]any, depth int) any {
	if v, ok := s["const"]; ok {
		return v
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch primaryType(s) {
	case "string":
		return sampleString(s)
	case "integer":
		return sampleNumber(s, true)
	case "number":
		return sampleNumber(s, false)
	case "boolean":
		return false
	case "null":
		return nil
	case "array":
		n, _ := intKeyword(s, "minItems")
		items, _ := s["items"].(map[string]any)
		arr := []any{}
		for i := 0; i < n && i < 16; i++ {
			if items != nil && depth < 3 {
				arr = append(arr, sample(items, depth+1))
			} else {
				arr = append(arr, placeholder)
			}
		}
		return arr
	case "object":
		obj := map[string]any{}
		if depth >= 3 {
			return obj
		}
		props, _ := s["properties"].(map[string]any)
		for _, r := range stringList(s["required"]) {
			if ps, ok := props[r].(map[string]any); ok {
				obj[r] = sample(ps, depth+1)
			} else {
				obj[r] = placeholder
			}
		}
		return obj
	}
	return placeholder
}

// formatSamples are valid, inert values for common formats: reserved
// documentation names and addresses that reach nobody.
var formatSamples = map[string]string{
	"date-time": "2000-01-01T00:00:00Z",
	"date":      "2000-01-01",
	"time":      "00:00:00Z",
	"email":     "probe@mcpvet.invalid",
	"hostname":  "mcpvet.invalid",
	"ipv4":      "192.0.2.1",
	"ipv6":      "2001:db8::1",
	"uri":       "https://mcpvet.invalid/probe",
	"url":       "https://mcpvet.invalid/probe",
	"uuid":      "00000000-0000-4000-8000-000000000000",
}

func sampleString(s map[string]any) string {
	v := placeholder
	if f, ok := s["format"].(string); ok && formatSamples[f] != "" {
		v = formatSamples[f]
	}
	lo, _ := intKeyword(s, "minLength")
	hi, hasHi := intKeyword(s, "maxLength")
	fit := func(c string) string {
		n := utf8.RuneCountInString(c)
		if n < lo && lo <= maxLongString {
			c += strings.Repeat("x", lo-n)
		}
		if hasHi && utf8.RuneCountInString(c) > hi {
			c = string([]rune(c)[:hi])
		}
		return c
	}
	pat, _ := s["pattern"].(string)
	if pat == "" {
		return fit(v)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return fit(v)
	}
	cands := []string{v}
	for _, e := range asList(s["examples"]) {
		if str, ok := e.(string); ok {
			cands = append(cands, str)
		}
	}
	if g, ok := regexSample(pat); ok {
		cands = append(cands, g)
	}
	cands = append(cands, "mcpvet", "probe", "x", "a", "A", "0", "1", "mcpvet_1", "mcpvet-1", "abc123")
	for _, c := range cands {
		if c = fit(c); re.MatchString(c) {
			return c
		}
	}
	return fit(v)
}

// regexSample returns a short string matching pat, built from its syntax
// tree: the first character of each class, the first branch of each
// alternation, each repetition at its minimum (once for + and {1,}). The
// caller checks the match: anchors in the middle or a class the walk reads
// wrongly just make the sample useless.
func regexSample(pat string) (string, bool) {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var walk func(r *syntax.Regexp, depth int) bool
	walk = func(r *syntax.Regexp, depth int) bool {
		if depth > 50 || b.Len() > 256 {
			return false
		}
		switch r.Op {
		case syntax.OpLiteral:
			b.WriteString(string(r.Rune))
		case syntax.OpCharClass:
			if len(r.Rune) < 2 {
				return false
			}
			c := r.Rune[0]
			// Prefer a letter or digit inside the class: sample values read
			// better and separators are often special.
			for i := 0; i+1 < len(r.Rune); i += 2 {
				if lo, hi := r.Rune[i], r.Rune[i+1]; lo <= 'a' && 'a' <= hi {
					c = 'a'
					break
				} else if lo <= '0' && '0' <= hi {
					c = '0'
				}
			}
			b.WriteRune(c)
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
		case syntax.OpCapture:
			return walk(r.Sub[0], depth+1)
		case syntax.OpConcat:
			for _, s := range r.Sub {
				if !walk(s, depth+1) {
					return false
				}
			}
		case syntax.OpAlternate:
			return walk(r.Sub[0], depth+1)
		case syntax.OpPlus:
			return walk(r.Sub[0], depth+1)
		case syntax.OpRepeat:
			for i := 0; i < r.Min; i++ {
				if !walk(r.Sub[0], depth+1) {
					return false
				}
			}
		case syntax.OpStar, syntax.OpQuest, syntax.OpEmptyMatch,
			syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		default:
			return false
		}
		return true
	}
	if !walk(re, 0) {
		return "", false
	}
	return b.String(), true
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// bounds reads the numeric bounds of s, with draft-4 boolean
// exclusiveMinimum/exclusiveMaximum and the later numeric forms.
type bounds struct {
	lo, hi         float64
	hasLo, hasHi   bool
	exclLo, exclHi bool
}

func numericBounds(s map[string]any) bounds {
	var b bounds
	if v, ok := number(s["minimum"]); ok {
		b.lo, b.hasLo = v, true
		b.exclLo = s["exclusiveMinimum"] == true
	}
	if v, ok := number(s["exclusiveMinimum"]); ok && (!b.hasLo || v >= b.lo) {
		b.lo, b.hasLo, b.exclLo = v, true, true
	}
	if v, ok := number(s["maximum"]); ok {
		b.hi, b.hasHi = v, true
		b.exclHi = s["exclusiveMaximum"] == true
	}
	if v, ok := number(s["exclusiveMaximum"]); ok && (!b.hasHi || v <= b.hi) {
		b.hi, b.hasHi, b.exclHi = v, true, true
	}
	return b
}

func sampleNumber(s map[string]any, integer bool) json.Number {
	b := numericBounds(s)
	v := 0.0
	if b.hasLo && (v < b.lo || (b.exclLo && v <= b.lo)) {
		v = b.lo
		if b.exclLo {
			if integer {
				v = math.Floor(b.lo) + 1
			} else {
				v = b.lo + 1
			}
		}
	}
	if b.hasHi && (v > b.hi || (b.exclHi && v >= b.hi)) {
		v = b.hi
		if b.exclHi {
			if integer {
				v = math.Ceil(b.hi) - 1
			} else {
				v = b.hi - 1
			}
		}
	}
	// The step of 1 inside one exclusive bound lands past the other when
	// the bounds are closer than that (pydantic's gt=0, lt=1 for a ratio):
	// the midpoint lies inside.
	if !integer && b.hasLo && b.hasHi && (v < b.lo || (b.exclLo && v <= b.lo)) {
		v = b.lo + (b.hi-b.lo)/2
	}
	if integer {
		v = math.Trunc(v)
	}
	return formatNumber(v)
}

func formatNumber(v float64) json.Number {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return json.Number(strconv.FormatInt(int64(v), 10))
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func intKeyword(s map[string]any, key string) (int, bool) {
	f, ok := number(s[key])
	if !ok || f < 0 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// wrongTypeValue returns a value of a JSON type s does not allow, chosen to
// be one no lenient server coerces into the right type (no "12" for a
// number). A schema without "type" gets none.
func wrongTypeValue(s map[string]any) (any, bool) {
	types := schemaTypes(s)
	if len(types) == 0 {
		return nil, false
	}
	preferred := map[string]any{
		"string":  json.Number("12345"),
		"number":  "not-a-number",
		"integer": "not-an-integer",
		"boolean": "not-a-boolean",
		"array":   "not-an-array",
		"object":  "not-an-object",
		"null":    "not-null",
	}
	cands := []any{preferred[primaryType(s)], "mcpvet-wrong-type", json.Number("12345"), true, map[string]any{}, []any{}}
	for _, c := range cands {
		if c != nil && !hasType(types, jsonTypeOf(c)) {
			return c, true
		}
	}
	return nil, false
}

func jsonTypeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// enumViolation returns a near miss of the first string member (one edit
// away, so a server can offer the closest match), or for a numeric enum
// one more than its largest member.
func enumViolation(s map[string]any) (any, bool) {
	enum, ok := s["enum"].([]any)
	if !ok || len(enum) == 0 {
		return nil, false
	}
	in := func(v any) bool {
		b, _ := json.Marshal(v)
		return slices.ContainsFunc(enum, func(e any) bool {
			eb, _ := json.Marshal(e)
			return bytes.Equal(b, eb)
		})
	}
	for _, e := range enum {
		if str, ok := e.(string); ok {
			for _, c := range []string{str + "x", str + "_x", "mcpvet-not-in-enum"} {
				if !in(c) {
					return c, true
				}
			}
		}
	}
	maxv, found := 0.0, false
	for _, e := range enum {
		if f, ok := number(e); ok && (!found || f > maxv) {
			maxv, found = f, true
		}
	}
	if found && !in(formatNumber(maxv+1)) {
		return formatNumber(maxv + 1), true
	}
	return nil, false
}

// outOfRange returns one value below the lower bound and one above the
// upper bound of a numeric schema.
func outOfRange(s map[string]any) []any {
	types := schemaTypes(s)
	if len(types) > 0 && !hasType(types, "number") && !hasType(types, "integer") {
		return nil
	}
	b := numericBounds(s)
	var out []any
	if b.hasLo {
		out = append(out, formatNumber(math.Floor(b.lo)-1))
	}
	if b.hasHi {
		out = append(out, formatNumber(math.Ceil(b.hi)+1))
	}
	return out
}

// patternViolation returns a string that does not match s's pattern and
// still respects its length bounds, so the pattern is the one defect.
func patternViolation(s map[string]any) (any, bool) {
	pat, ok := s["pattern"].(string)
	if !ok {
		return nil, false
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, false
	}
	lo, _ := intKeyword(s, "minLength")
	hi, hasHi := intKeyword(s, "maxLength")
	for _, c := range []string{"not valid!", "!", "", " ", "0", "a", "-", "mcpvet"} {
		n := utf8.RuneCountInString(c)
		if n >= lo && (!hasHi || n <= hi) && !re.MatchString(c) {
			return c, true
		}
	}
	return nil, false
}

// formatViolations are values each format rejects.
var formatViolations = map[string]string{
	"regex":        "(unclosed",
	"uri-template": "{unclosed",
	"json-pointer": "no-leading-slash",
}

// formatViolation returns a string the format of s rejects, for the formats
// the validator asserts.
func formatViolation(s map[string]any) (any, bool) {
	f, ok := s["format"].(string)
	if !ok || jsonschema.Formats[f] == nil {
		return nil, false
	}
	if v, ok := formatViolations[f]; ok {
		return v, true
	}
	return "not a valid " + f, true
}

// tooLong returns a string one character longer than s's maxLength: a
// valid-looking sample padded when one matches the pattern, otherwise x's.
func tooLong(s map[string]any) (any, bool) {
	n, ok := intKeyword(s, "maxLength")
	if !ok || n+1 > maxLongString {
		return nil, false
	}
	long := strings.Repeat("x", n+1)
	if pat, ok := s["pattern"].(string); ok {
		if re, err := regexp.Compile(pat); err == nil {
			if str := sampleString(s); str != "" && re.MatchString(str) {
				r := []rune(str)
				padded := str + strings.Repeat(string(r[len(r)-1]), n+1-len(r))
				if re.MatchString(padded) {
					long = padded
				}
			}
		}
	}
	return long, true
}
