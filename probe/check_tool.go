package probe

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpvet/mcpvet/vocab"
)

// Finding codes of the tool name, description and title checks.
const (
	CodeToolNameMissing        = "tool/name_missing"
	CodeToolNameInvalid        = "tool/name_invalid"
	CodeToolNameDuplicate      = "tool/name_duplicate"
	CodeToolDescriptionMissing = "tool/description_missing"
	CodeToolDescriptionIsName  = "tool/description_repeats_name"
	CodeToolTitleMissing       = "tool/title_missing"
)

// maxToolNameLength is the 2025-11-25 limit on tool names.
const maxToolNameLength = 128

func init() {
	register(
		CatalogEntry{CodeToolNameMissing, SeverityFatal,
			"a tool has no name, so it cannot be called",
			"give every tool a non-empty name; tools/call addresses tools by name"},
		CatalogEntry{CodeToolNameInvalid, SeverityWarn,
			"a tool name breaks the 2025-11-25 naming rule (1-128 characters of A-Z a-z 0-9 _ - .)",
			"rename the tool using only ASCII letters, digits, underscore, hyphen and dot, at most 128 characters; clients and model APIs reject other names"},
		CatalogEntry{CodeToolNameDuplicate, SeverityError,
			"two tools share a name, so only one of them can be called",
			"give every tool of the server a unique name"},
		CatalogEntry{CodeToolDescriptionMissing, SeverityWarn,
			"a tool has no description",
			"describe what the tool does, when to use it and what it returns; the model chooses tools from their descriptions"},
		CatalogEntry{CodeToolDescriptionIsName, SeverityWarn,
			"a tool's description only repeats its name or title",
			"write a description that adds what the name cannot say: effects, inputs, outputs and when to use the tool"},
		CatalogEntry{CodeToolTitleMissing, SeverityInfo,
			"a tool has no human-readable title",
			"set title (protocol 2025-06-18 and later) or annotations.title (2025-03-26) for display in clients"},
	)
}

// toolView is a tool as the server sent it, read from Tool.Raw when
// present so that absent, null and mistyped fields can be told apart.
type toolView struct {
	index       int
	name        string
	title       string
	annTitle    string
	description string
	hasDesc     bool
	input       json.RawMessage
	hasInput    bool
	output      json.RawMessage
	hasOutput   bool
	annotations json.RawMessage
	hasAnn      bool
}

func (t toolView) subject() string { return subjectOf("tool", t.name, t.index) }

// viewTool builds the view of tool number i.
func viewTool(i int, t Tool) toolView {
	v := toolView{index: i}
	var raw map[string]json.RawMessage
	if json.Unmarshal(t.Raw, &raw) == nil && raw != nil {
		str := func(k string) (string, bool) {
			r, ok := raw[k]
			if !ok {
				return "", false
			}
			var s string
			if json.Unmarshal(r, &s) != nil {
				return "", false
			}
			return s, true
		}
		v.name, _ = str("name")
		v.title, _ = str("title")
		v.description, v.hasDesc = str("description")
		v.input, v.hasInput = raw["inputSchema"]
		v.output, v.hasOutput = raw["outputSchema"]
		v.annotations, v.hasAnn = raw["annotations"]
	} else {
		v.name, v.title = t.Name, t.Title
		v.description, v.hasDesc = t.Description, t.Description != ""
		v.input, v.hasInput = t.InputSchema, len(t.InputSchema) > 0
		v.output, v.hasOutput = t.OutputSchema, len(t.OutputSchema) > 0
		v.annotations, v.hasAnn = t.Annotations, len(t.Annotations) > 0
	}
	// An explicit null is the same as absent for every optional field.
	if isJSONNull(v.output) {
		v.hasOutput = false
	}
	if isJSONNull(v.annotations) {
		v.hasAnn = false
	}
	if v.hasAnn {
		var a struct {
			Title string `json:"title"`
		}
		_ = json.Unmarshal(v.annotations, &a)
		v.annTitle = a.Title
	}
	return v
}

func isJSONNull(raw json.RawMessage) bool { return strings.TrimSpace(string(raw)) == "null" }

// checkTools runs the schema, name and annotation checks on every tool.
func (c *Checker) checkTools(version string, tools []Tool) []Finding {
	var out []Finding
	views := make([]toolView, len(tools))
	first := map[string]int{}
	for i, t := range tools {
		v := viewTool(i, t)
		views[i] = v
		out = append(out, checkToolText(version, v)...)
		if v.name != "" {
			if j, dup := first[v.name]; dup {
				out = append(out, NewFinding(CodeToolNameDuplicate, v.subject(), "/name", v.name,
					"tools #%d and #%d are both named %q; tools/call can reach only one of them, so give each a unique name", j, i, v.name))
			} else {
				first[v.name] = i
			}
		}
		out = append(out, c.checkSchema(version, v.subject(), inputSide, v.input, v.hasInput)...)
		out = append(out, c.checkSchema(version, v.subject(), outputSide, v.output, v.hasOutput)...)
		out = append(out, checkAnnotations(version, v)...)
	}
	if version == vocab.Protocol20241105 && len(tools) > 0 {
		out = append(out, NewFinding(CodeAnnotationsNotInVersion, "server", "", version,
			"the server negotiated protocol %s, before tool annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint) were introduced in 2025-03-26; missing hints are not counted against its %d tools, and clients get no safety hints from it",
			version, len(tools)))
	}
	return out
}

// checkToolText checks the name, the description and the title.
func checkToolText(version string, v toolView) []Finding {
	var out []Finding
	subj := v.subject()
	if v.name == "" {
		out = append(out, NewFinding(CodeToolNameMissing, subj, "/name", "",
			"tool #%d has no name (or a name that is not a string); it cannot be called", v.index))
	} else if why := toolNameProblem(v.name); why != "" {
		out = append(out, NewFinding(CodeToolNameInvalid, subj, "/name", v.name,
			"tool name %q %s; names should be 1-%d characters of A-Z a-z 0-9 _ - . (protocol 2025-11-25)", v.name, why, maxToolNameLength))
	}
	switch {
	case strings.TrimSpace(v.description) == "":
		out = append(out, NewFinding(CodeToolDescriptionMissing, subj, "/description", v.description,
			"the tool has no description; say what it does, when to use it and what it returns"))
	case v.name != "" && sameWords(v.description, v.name), v.title != "" && sameWords(v.description, v.title):
		out = append(out, NewFinding(CodeToolDescriptionIsName, subj, "/description", v.description,
			"the description %q only repeats the tool's name; say what the tool does, when to use it and what it returns", v.description))
	}
	if needsTitle(version) && strings.TrimSpace(v.title) == "" && strings.TrimSpace(v.annTitle) == "" {
		field := "/title"
		if version == vocab.Protocol20250326 {
			field = "/annotations/title"
		}
		out = append(out, NewFinding(CodeToolTitleMissing, subj, field, "",
			"the tool has no title; set %s to a short human-readable name for display", strings.TrimPrefix(strings.ReplaceAll(field, "/", "."), ".")))
	}
	return out
}

// needsTitle reports whether the protocol version has a tool title field.
func needsTitle(version string) bool { return version >= vocab.Protocol20250326 }

// toolNameProblem says how name breaks the 2025-11-25 naming rule, or "".
func toolNameProblem(name string) string {
	if n := utf8.RuneCountInString(name); n > maxToolNameLength {
		return fmt.Sprintf("is %d characters long", n)
	}
	var bad []string
	seen := map[rune]bool{}
	for _, r := range name {
		if r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			continue
		}
		if !seen[r] {
			seen[r] = true
			bad = append(bad, fmt.Sprintf("%q", r))
		}
	}
	if len(bad) > 0 {
		return "contains " + strings.Join(bad, ", ")
	}
	return ""
}

// sameWords reports whether a and b are the same words, ignoring case,
// punctuation and separators ("get_user" and "Get user." are).
func sameWords(a, b string) bool {
	// Separators and case change little of a text's length: texts of
	// very different lengths are not the same words (and a 1 MiB
	// description is not split into runes to find that out).
	if len(a) > 4*len(b)+64 || len(b) > 4*len(a)+64 {
		return false
	}
	wa, wb := identWords(a), identWords(b)
	if len(wa) == 0 || len(wa) != len(wb) {
		return false
	}
	for i := range wa {
		if wa[i] != wb[i] {
			return false
		}
	}
	return true
}

// identWords splits an identifier or a phrase into lower-case words:
// snake_case, kebab-case, dotted, camelCase and spaces all split.
func identWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && len(cur) > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return words
}
