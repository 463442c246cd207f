package probe

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/vocab"
)

// The MCP JSON schemas, one per protocol revision, copied byte for byte
// from github.com/modelcontextprotocol/modelcontextprotocol (see
// spec/SOURCE.md). Embedding them keeps the scanner offline.
//
//go:embed spec/schema-*.json
var specFiles embed.FS

// Finding codes of the protocol-message check.
const (
	CodeSchemaViolation   = "protocol/schema_violation"
	CodePageNotValidated  = "protocol/page_not_validated"
	maxViolationsPerPage  = 20
	maxCheckedPageBytes   = 8 << 20
	maxCheckedPageDepth   = 1000
	specBaseURL           = "https://mcpvet.invalid/spec/"
	specDefinitionsMarker = "$defs"
)

func init() {
	register(
		CatalogEntry{CodeSchemaViolation, SeverityError,
			"a protocol result does not match the MCP schema of the negotiated version",
			"send results that validate against the official schema of the protocol version the server answered initialize (or server/discover) with; the message names the revision the result does match, if any"},
		CatalogEntry{CodePageNotValidated, SeverityInfo,
			"a protocol result was too large or too deeply nested to validate",
			"keep list pages small (a few hundred KiB) and schemas shallow; page long lists with nextCursor"},
	)
}

// specResultType maps a method to the name of its result definition.
var specResultType = map[string]string{
	"initialize":               "InitializeResult",
	"server/discover":          "DiscoverResult",
	"tools/list":               "ListToolsResult",
	"prompts/list":             "ListPromptsResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
}

// specSchema is the compiled schema of one revision. Its compiler is not
// safe for concurrent use, so mu guards it and the definition map.
type specSchema struct {
	mu       sync.Mutex
	version  string
	compiler *jsonschema.Compiler
	defsKey  string // "definitions" or "$defs"
	defs     map[string]*jsonschema.Schema
	initErr  error
}

var specSchemas = func() map[string]*specSchema {
	m := make(map[string]*specSchema, len(vocab.ProtocolVersions))
	for _, v := range vocab.ProtocolVersions {
		m[v] = &specSchema{version: v}
	}
	return m
}()

// errSpecNoDefinition means the revision has no result type for a method
// (for example initialize in 2026-07-28, which replaced it).
var errSpecNoDefinition = errors.New("no result type in this revision")

// definition returns the compiled result definition for method, compiling
// it on first use.
func (s *specSchema) definition(method string) (*jsonschema.Schema, string, error) {
	name, ok := specResultType[method]
	if !ok {
		return nil, "", errSpecNoDefinition
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.compiler == nil && s.initErr == nil {
		s.initErr = s.load()
	}
	if s.initErr != nil {
		return nil, name, s.initErr
	}
	if sch, ok := s.defs[name]; ok {
		return sch, name, nil
	}
	sch, err := s.compiler.Compile(specBaseURL + s.version + ".json#/" + s.defsKey + "/" + name)
	if err != nil && specAlias[name] != "" {
		sch, err = s.compiler.Compile(specBaseURL + s.version + ".json#/" + s.defsKey + "/" + specAlias[name])
	}
	if err != nil {
		// A missing definition is expected across revisions; anything else
		// is a broken embedded file.
		if strings.Contains(err.Error(), "not found") {
			return nil, name, errSpecNoDefinition
		}
		return nil, name, fmt.Errorf("compiling %s schema %s: %w", s.version, name, err)
	}
	s.defs[name] = sch
	return sch, name, nil
}

// warmSpec compiles, in the caller's goroutine, the schema of version
// and the definition the run's pages check first: the compiler validates
// the whole embedded schema against its draft's meta-schema on first use
// (about 0.1 s of CPU), which otherwise falls inside the listing phase of
// every probe (issue 25: probe cost). The definitions compiled are the
// same ones a check would compile, so nothing a check reports changes.
func warmSpec(version string) {
	spec, ok := specSchemas[version]
	if !ok {
		return
	}
	for _, m := range []string{"tools/list", "initialize", "server/discover"} {
		if _, _, err := spec.definition(m); err == nil {
			return
		}
	}
}

func (s *specSchema) load() error {
	data, err := specFiles.ReadFile("spec/schema-" + s.version + ".json")
	if err != nil {
		return fmt.Errorf("reading embedded %s schema: %w", s.version, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("decoding embedded %s schema: %w", s.version, err)
	}
	s.defsKey = "definitions"
	if _, ok := top[specDefinitionsMarker]; ok {
		s.defsKey = specDefinitionsMarker
	}
	if data, err = pruneSpec(top, s.defsKey); err != nil {
		return fmt.Errorf("decoding embedded %s schema: %w", s.version, err)
	}
	c, err := specCompiler(s.version, data)
	if err != nil {
		return err
	}
	s.compiler = c
	s.defs = map[string]*jsonschema.Schema{}
	return nil
}

// specCompiler returns a compiler holding doc as version's schema.
func specCompiler(version string, doc []byte) (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	c.LoadURL = refuseLoad(nil)
	// Formats are judged by the dedicated resource and template checks,
	// with their own codes; draft-07 revisions would otherwise assert them
	// and 2020-12 revisions would not, so the same URI would be a protocol
	// violation in one revision and not in the next.
	c.Formats["uri"] = func(any) bool { return true }
	c.Formats["uri-template"] = func(any) bool { return true }
	if err := c.AddResource(specBaseURL+version+".json", bytes.NewReader(doc)); err != nil {
		return nil, fmt.Errorf("loading embedded %s schema: %w", version, err)
	}
	return c, nil
}

// pruneSpec returns the schema top with only the definitions a check can
// ask for (the values of specResultType and specAlias) and those they
// reference, directly or not. The compiler validates the whole document
// it is given against its draft's meta-schema before it compiles anything:
// over a whole revision that took about 50 ms of CPU in every probe, while
// the server was starting, for the four fifths of the file (requests,
// notifications, sampling, elicitation types) that no check reads.
// Compiling a definition resolves every reference it holds, so a
// definition the pruned document lacked would fail to compile;
// TestPruneSpecKeepsEveryDefinition compiles each one from the pruned and
// the whole document and compares.
func pruneSpec(top map[string]json.RawMessage, defsKey string) ([]byte, error) {
	var defs map[string]json.RawMessage
	if err := json.Unmarshal(top[defsKey], &defs); err != nil {
		return nil, err
	}
	ref := []byte(`"#/` + defsKey + `/`)
	keep := map[string]json.RawMessage{}
	var todo []string
	for _, name := range specResultType {
		todo = append(todo, name)
	}
	for _, name := range specAlias {
		todo = append(todo, name)
	}
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		def, ok := defs[name]
		if _, done := keep[name]; done || !ok {
			continue
		}
		keep[name] = def
		for rest := []byte(def); ; {
			i := bytes.Index(rest, ref)
			if i < 0 {
				break
			}
			rest = rest[i+len(ref):]
			end := bytes.IndexAny(rest, `/"`)
			if end < 0 {
				break
			}
			todo = append(todo, string(rest[:end]))
		}
	}
	pruned, err := json.Marshal(keep)
	if err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(top))
	maps.Copy(out, top)
	out[defsKey] = pruned
	return json.Marshal(out)
}

// refusedLoadError is returned by the compilers' LoadURL: the scanner never
// fetches a schema over the network or from disk.
type refusedLoadError struct{ url string }

func (e *refusedLoadError) Error() string {
	return "not loading " + e.url + ": remote references are not fetched"
}

// refuseLoad returns a LoadURL function that loads nothing. When seen is
// not nil it records each URL and stands in an empty schema (which accepts
// everything), so that the rest of the schema can still be compiled and
// checked.
func refuseLoad(seen *[]string) func(string) (io.ReadCloser, error) {
	return func(u string) (io.ReadCloser, error) {
		if seen == nil {
			return nil, &refusedLoadError{u}
		}
		*seen = append(*seen, u)
		return io.NopCloser(strings.NewReader("{}")), nil
	}
}

// checkVersion is the protocol version of the run: the one the probe
// recorded, or else the one the handshake result names.
func checkVersion(res *Result, pages []Page) string {
	if res != nil && res.Liveness.ProtocolVersion != "" {
		return res.Liveness.ProtocolVersion
	}
	for _, p := range pages {
		if p.Method == "initialize" {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(p.Result, &r) == nil {
				return r.ProtocolVersion
			}
		}
	}
	return ""
}

// checkPages validates every raw page against the result definition of the
// negotiated version. A version without an embedded schema is not checked
// here: the probe runner reports it as protocol/unknown_version.
func checkPages(version string, pages []Page) []Finding {
	spec, ok := specSchemas[version]
	if !ok {
		return nil
	}
	var out []Finding
	for _, p := range pages {
		out = append(out, checkMessagePage(spec, p)...)
	}
	return out
}

func checkPage(spec *specSchema, p Page) []Finding {
	if _, ok := specResultType[p.Method]; !ok {
		// Not a page this check knows (a caller's choice, not a server
		// defect).
		return nil
	}
	if len(p.Result) > maxCheckedPageBytes {
		return []Finding{NewFinding(CodePageNotValidated, "server", p.Method, strconv.Itoa(len(p.Result)),
			"the %s result is %d bytes, over the scanner's %d-byte validation limit; it was not validated against the MCP %s schema",
			p.Method, len(p.Result), maxCheckedPageBytes, spec.version)}
	}
	if d := nestingDepth(p.Result); d > maxCheckedPageDepth {
		return []Finding{NewFinding(CodePageNotValidated, "server", p.Method, strconv.Itoa(d),
			"the %s result nests %d levels deep, over the scanner's limit of %d; it was not validated against the MCP %s schema",
			p.Method, d, maxCheckedPageDepth, spec.version)}
	}
	sch, defName, err := spec.definition(p.Method)
	if isInputRequired(p.Result) {
		// A 2026-07-28 result asking for input (SEP-2322) has its own
		// definition; an earlier revision has none and keeps the method's.
		if isch, iname, ierr := spec.definition(msgInputRequired); ierr == nil {
			sch, defName, err = isch, iname, nil
		}
	}
	if errors.Is(err, errSpecNoDefinition) {
		return nil
	}
	if err != nil {
		// The embedded schemas are compiled in tests; this is unreachable
		// unless the binary is broken, and it is not the server's fault.
		return nil
	}
	doc, err := decodeExact(p.Result)
	if err != nil {
		return []Finding{NewFinding(CodeSchemaViolation, "server", p.Method, string(p.Result),
			"the %s result is not valid JSON (%v); the MCP %s schema requires a %s object", p.Method, err, spec.version, defName)}
	}
	verr := sch.Validate(doc)
	if verr == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return []Finding{NewFinding(CodeSchemaViolation, "server", p.Method, "",
			"the %s result could not be validated against the MCP %s schema %s: %v", p.Method, spec.version, defName, verr)}
	}
	leaves := validationLeaves(ve)
	suffix := ""
	if onlyMissingProperties(leaves) {
		// Later revisions add required fields (resultType, ttlMs, ...); a
		// result that lacks only those and validates against an earlier
		// revision is that revision's answer. Type errors are not compared:
		// earlier revisions accept unknown fields of any type, so they would
		// "match" for the wrong reason.
		if also := otherMatchingVersions(spec.version, p.Method, doc); len(also) > 0 {
			suffix = fmt.Sprintf(" (the result matches the %s schema: the server answers in an earlier revision than the one it negotiated)", also[len(also)-1])
		}
	}
	var out []Finding
	for i, l := range leaves {
		if i == maxViolationsPerPage {
			break
		}
		subject, ptr := pageSubject(p.Method, doc, l.InstanceLocation)
		more := ""
		if i == maxViolationsPerPage-1 && len(leaves) > maxViolationsPerPage {
			more = fmt.Sprintf(" (%d more violations in this result are not listed)", len(leaves)-maxViolationsPerPage)
		}
		out = append(out, NewFinding(CodeSchemaViolation, subject, ptr, valueAtPointer(doc, l.InstanceLocation),
			"%s result at %q violates the MCP %s schema (%s, rule %s): %s%s%s",
			p.Method, shownPointer(l.InstanceLocation), spec.version, defName, l.KeywordLocation, leafMessage(l), suffix, more))
	}
	return out
}

// onlyMissingProperties reports whether every violation is a missing
// required property.
func onlyMissingProperties(leaves []*jsonschema.ValidationError) bool {
	for _, l := range leaves {
		if !strings.HasSuffix(l.KeywordLocation, "/required") {
			return false
		}
	}
	return len(leaves) > 0
}

// otherMatchingVersions lists the revisions older than version whose
// schema doc validates against, oldest first.
func otherMatchingVersions(version, method string, doc any) []string {
	var out []string
	for _, v := range slices.Backward(vocab.ProtocolVersions) {
		if v >= version {
			continue
		}
		sch, _, err := specSchemas[v].definition(method)
		if err != nil {
			continue
		}
		if sch.Validate(doc) == nil {
			out = append(out, v)
		}
	}
	return out
}

// validationLeaves flattens a validation error to its most specific
// causes, sorted by instance and keyword location (the validator walks
// maps in random order). An anyOf/oneOf failure is kept whole: listing
// why each alternative failed says little about what was meant.
func validationLeaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		kl := e.KeywordLocation
		if len(e.Causes) == 0 || strings.HasSuffix(kl, "/anyOf") || strings.HasSuffix(kl, "/oneOf") {
			out = append(out, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.SortStableFunc(out, func(a, b *jsonschema.ValidationError) int {
		return cmp.Or(strings.Compare(a.InstanceLocation, b.InstanceLocation), strings.Compare(a.KeywordLocation, b.KeywordLocation),
			strings.Compare(a.Message, b.Message))
	})
	return out
}

// leafMessage is the validator's message for one violation; for an
// anyOf/oneOf failure it lists why the alternatives failed.
func leafMessage(l *jsonschema.ValidationError) string {
	kl := l.KeywordLocation
	if len(l.Causes) == 0 || !(strings.HasSuffix(kl, "/anyOf") || strings.HasSuffix(kl, "/oneOf")) {
		return l.Message
	}
	var parts []string
	for _, c := range l.Causes {
		for _, cl := range validationLeaves(c) {
			if len(parts) == 3 {
				break
			}
			parts = append(parts, cl.Message)
		}
	}
	return "matches none of the alternatives (" + strings.Join(parts, "; ") + ")"
}

// pageSubject turns an instance location inside a list result into the
// finding's subject and pointer: /tools/3/inputSchema becomes subject
// "tool:NAME" and pointer "/inputSchema". Locations outside an item belong
// to the server, with the method as the pointer's first segment
// ("tools/list/nextCursor"), as the probe runner writes them.
func pageSubject(method string, doc any, loc string) (subject, pointer string) {
	kinds := map[string]string{"tools": "tool", "prompts": "prompt", "resources": "resource", "resourceTemplates": "template"}
	keys := map[string]string{"tools": "name", "prompts": "name", "resources": "uri", "resourceTemplates": "uriTemplate"}
	toks := pointerTokens(loc)
	if len(toks) >= 2 {
		if kind, ok := kinds[toks[0]]; ok {
			if idx, err := strconv.Atoi(toks[1]); err == nil {
				if m, ok := doc.(map[string]any); ok {
					if items, ok := m[toks[0]].([]any); ok && idx >= 0 && idx < len(items) {
						id := ""
						if item, ok := items[idx].(map[string]any); ok {
							id, _ = item[keys[toks[0]]].(string)
						}
						return subjectOf(kind, id, idx), pointerFromTokens(toks[2:])
					}
				}
			}
		}
	}
	return "server", method + loc
}

// subjectOf names a listed item; an item without its identifying field
// is named by its position ("tool:#3").
func subjectOf(kind, id string, index int) string {
	if id == "" {
		return kind + ":#" + strconv.Itoa(index)
	}
	return kind + ":" + id
}

func shownPointer(loc string) string {
	if loc == "" {
		return "/"
	}
	return loc
}

// valueAtPointer returns the JSON of the value at loc, bounded.
func valueAtPointer(doc any, loc string) string {
	v := doc
	for _, t := range pointerTokens(loc) {
		switch n := v.(type) {
		case map[string]any:
			v = n[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(n) {
				return ""
			}
			v = n[i]
		default:
			return ""
		}
	}
	return evidenceJSON(v)
}

// evidenceJSON encodes v for evidence, cut to [MaxEvidence].
func evidenceJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return safe.Truncate(strings.TrimSuffix(buf.String(), "\n"), MaxEvidence, safe.Ellipsis)
}

// pointerTokens splits a JSON pointer into unescaped tokens.
func pointerTokens(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range toks {
		toks[i] = pointerUnescaper.Replace(t)
	}
	return toks
}

// pointerFromTokens builds a JSON pointer from unescaped tokens.
func pointerFromTokens(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(t))
	}
	return b.String()
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// decodeExact decodes data keeping numbers exact, as the validator needs.
func decodeExact(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// nestingDepth returns the maximum nesting depth of objects and arrays in
// data without decoding it, in one pass and no allocation, so that hostile
// documents can be measured before anything recursive touches them.
func nestingDepth(data []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// isInputRequired reports whether a result says resultType
// "input_required".
func isInputRequired(result json.RawMessage) bool {
	if !bytes.Contains(result, []byte("input_required")) {
		return false
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(result, &r) == nil && r.ResultType == "input_required"
}
