package probe

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/vocab"
)

// Finding codes of the annotation checks. The four missing_* codes are
// emitted once per tool and hint, so a report can say on what share of
// tools each hint is omitted.
const (
	CodeMissingReadOnlyHint      = "annotations/missing_read_only_hint"
	CodeMissingDestructiveHint   = "annotations/missing_destructive_hint"
	CodeMissingIdempotentHint    = "annotations/missing_idempotent_hint"
	CodeMissingOpenWorldHint     = "annotations/missing_open_world_hint"
	CodeAnnotationsNotInVersion  = "annotations/not_in_version"
	CodeAnnotationsNotObject     = "annotations/not_object"
	CodeHintNotBoolean           = "annotations/hint_not_boolean"
	CodeReadOnlyAndDestructive   = "annotations/read_only_and_destructive"
	CodeReadOnlyOnMutatingTool   = "annotations/read_only_on_mutating_tool"
	CodeReaderWithoutReadOnly    = "annotations/reader_without_read_only_hint"
	CodeNotDestructiveOnDeleting = "annotations/not_destructive_on_deleting_tool"
)

func init() {
	register(
		CatalogEntry{CodeMissingReadOnlyHint, SeverityInfo,
			"a tool does not say whether it is read-only (readOnlyHint)",
			"set annotations.readOnlyHint: true for tools that only read, false for tools that change anything"},
		CatalogEntry{CodeMissingDestructiveHint, SeverityInfo,
			"a tool that may write does not say whether it is destructive (destructiveHint, default true)",
			"set annotations.destructiveHint: false for tools that only add, true for tools that delete or overwrite"},
		CatalogEntry{CodeMissingIdempotentHint, SeverityInfo,
			"a tool that may write does not say whether repeating a call is harmless (idempotentHint, default false)",
			"set annotations.idempotentHint: true when repeating a call with the same arguments has no further effect"},
		CatalogEntry{CodeMissingOpenWorldHint, SeverityInfo,
			"a tool does not say whether it reaches outside systems (openWorldHint, default true)",
			"set annotations.openWorldHint: false for tools confined to the server's own data, true for web, email, third-party APIs"},
		CatalogEntry{CodeAnnotationsNotInVersion, SeverityInfo,
			"the server speaks protocol 2024-11-05, which has no tool annotations",
			"move to protocol 2025-03-26 or later and annotate tools with readOnlyHint, destructiveHint, idempotentHint and openWorldHint"},
		CatalogEntry{CodeAnnotationsNotObject, SeverityError,
			"a tool's annotations field is not an object",
			`send annotations as an object such as {"readOnlyHint": true, "openWorldHint": false}`},
		CatalogEntry{CodeHintNotBoolean, SeverityError,
			"an annotation hint is not a boolean",
			"send readOnlyHint, destructiveHint, idempotentHint and openWorldHint as JSON true or false"},
		CatalogEntry{CodeReadOnlyAndDestructive, SeverityWarn,
			"a tool is marked both read-only and destructive",
			"decide which is true: a read-only tool changes nothing, so it cannot be destructive"},
		CatalogEntry{CodeReadOnlyOnMutatingTool, SeverityWarn,
			"a tool marked read-only is named or described as changing something",
			"set readOnlyHint: false on tools that create, write, delete or send, so clients ask before calling them"},
		CatalogEntry{CodeReaderWithoutReadOnly, SeverityWarn,
			"a tool named as a reader (get_, list_, search_, ...) is not marked read-only",
			"set readOnlyHint: true on tools that only read, so clients can call them without asking"},
		CatalogEntry{CodeNotDestructiveOnDeleting, SeverityWarn,
			"a tool marked non-destructive is named or described as deleting or overwriting",
			"set destructiveHint: true on tools that delete, drop or overwrite data"},
	)
}

// hintSpec names one annotation hint and its missing-hint code.
type hintSpec struct {
	key, code string
	// writeOnly is true for the hints that only mean something when
	// readOnlyHint is false (the specification says so for both).
	writeOnly bool
	what      string
}

var hintSpecs = []hintSpec{
	{"readOnlyHint", CodeMissingReadOnlyHint, false, "whether it only reads"},
	{"destructiveHint", CodeMissingDestructiveHint, true, "whether its changes are destructive (clients assume true)"},
	{"idempotentHint", CodeMissingIdempotentHint, true, "whether repeating a call is harmless (clients assume false)"},
	{"openWorldHint", CodeMissingOpenWorldHint, false, "whether it reaches outside systems (clients assume true)"},
}

// readerVerbs start the names of tools that only read.
var readerVerbs = verbSet("get", "list", "read", "search", "find", "fetch", "query", "describe", "show", "view",
	"lookup", "count", "retrieve", "browse", "inspect", "explain")

// mutatingVerbs start the names of tools that change something.
var mutatingVerbs = verbSet("create", "write", "update", "insert", "set", "put", "post", "patch", "send", "add", "edit",
	"modify", "move", "rename", "upload", "append", "replace", "reset", "clear", "revoke", "cancel", "publish",
	"deploy", "execute", "exec", "run", "push", "merge", "commit", "archive", "restore", "install", "uninstall",
	"stop", "start", "restart", "enable", "disable", "grant", "assign", "approve", "reject", "close", "save",
	"store", "apply", "transfer", "pay", "submit", "schedule", "book", "invite", "register", "subscribe",
	"unsubscribe", "import", "sync", "toggle", "delete", "remove", "drop", "destroy", "erase", "purge",
	"truncate", "wipe", "kill", "terminate", "overwrite", "upsert", "mutate", "change", "make")

// destructiveWords mark a tool as destructive wherever they appear in its
// name.
var destructiveWords = verbSet("delete", "remove", "drop", "destroy", "erase", "purge", "truncate", "wipe",
	"kill", "overwrite", "terminate")

func verbSet(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// checkAnnotations checks a tool's annotations: presence of each hint,
// types, contradictions, and agreement with the tool's name and
// description.
func checkAnnotations(version string, v toolView) []Finding {
	subj := v.subject()
	var ann map[string]json.RawMessage
	if v.hasAnn && json.Unmarshal(v.annotations, &ann) != nil {
		return []Finding{NewFinding(CodeAnnotationsNotObject, subj, "/annotations", safe.Truncate(string(v.annotations), MaxEvidence, safe.Ellipsis),
			"annotations is %s; it must be an object of hints", jsonKindOf(v.annotations))}
	}
	out, hs := readHints(subj, ann)
	legacy := version == vocab.Protocol20241105
	if !legacy {
		out = append(out, missingHints(subj, hs)...)
	}
	readOnly := hs.isTrue("readOnlyHint")
	if readOnly && hs.isTrue("destructiveHint") {
		out = append(out, NewFinding(CodeReadOnlyAndDestructive, subj, "/annotations", safe.Truncate(string(v.annotations), MaxEvidence, safe.Ellipsis),
			"readOnlyHint and destructiveHint are both true; a read-only tool changes nothing, so set one of them to false"))
	}
	return append(out, intentFindings(subj, v, hs, legacy)...)
}

// toolHints are the hints a tool's annotations carry.
type toolHints struct {
	value   map[string]bool // hint values that are booleans
	present map[string]bool // hints sent at all (not null)
}

// isTrue reports whether the hint is the boolean true.
func (hs toolHints) isTrue(key string) bool { b, ok := hs.value[key]; return ok && b }

// readHints reads the hints of ann, with a finding for each that is not a
// boolean.
func readHints(subj string, ann map[string]json.RawMessage) ([]Finding, toolHints) {
	var out []Finding
	hs := toolHints{value: map[string]bool{}, present: map[string]bool{}}
	for _, h := range hintSpecs {
		raw, ok := ann[h.key]
		if !ok || isJSONNull(raw) {
			continue
		}
		hs.present[h.key] = true
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			out = append(out, NewFinding(CodeHintNotBoolean, subj, "/annotations/"+h.key, safe.Truncate(string(raw), MaxEvidence, safe.Ellipsis),
				"annotations.%s is %s; it must be true or false", h.key, jsonKindOf(raw)))
			continue
		}
		hs.value[h.key] = b
	}
	return out, hs
}

// missingHints reports each hint the tool does not set; the hints about
// writing do not apply to a tool that says it is read-only.
func missingHints(subj string, hs toolHints) []Finding {
	var out []Finding
	readOnly := hs.isTrue("readOnlyHint")
	for _, h := range hintSpecs {
		if hs.present[h.key] || (h.writeOnly && readOnly) {
			continue
		}
		out = append(out, NewFinding(h.code, subj, "/annotations/"+h.key, "",
			"the tool does not set annotations.%s, so clients cannot tell %s", h.key, h.what))
	}
	return out
}

// intentFindings compares the hints with what the tool's name and
// description say it does: a read-only hint on a tool that writes, a
// reader without the read-only hint (not before 2025-03-26), a tool that
// deletes marked not destructive.
func intentFindings(subj string, v toolView, hs toolHints, legacy bool) []Finding {
	var out []Finding
	readOnly := hs.isTrue("readOnlyHint")
	_, roKnown := hs.value["readOnlyHint"]
	mutating, deleting, reader := nameIntent(v.name, v.description)
	switch {
	case readOnly && mutating != "":
		out = append(out, NewFinding(CodeReadOnlyOnMutatingTool, subj, "/annotations/readOnlyHint", mutating,
			"readOnlyHint is true but the tool's %s; set readOnlyHint: false if the tool changes anything", mutating))
	case reader != "" && mutating == "" && !readOnly && !legacy:
		state := "is not set"
		if roKnown {
			state = "is false"
		}
		out = append(out, NewFinding(CodeReaderWithoutReadOnly, subj, "/annotations/readOnlyHint", reader,
			"the tool's %s, but readOnlyHint %s; set readOnlyHint: true if it only reads", reader, state))
	}
	if destructive, dKnown := hs.value["destructiveHint"]; dKnown && !destructive && deleting != "" && !readOnly {
		out = append(out, NewFinding(CodeNotDestructiveOnDeleting, subj, "/annotations/destructiveHint", deleting,
			"destructiveHint is false but the tool's %s; set destructiveHint: true if it deletes or overwrites data", deleting))
	}
	return out
}

// nameIntent reads what a tool's name and the first word of its
// description say it does. Each result is the evidence ("name starts with
// \"delete\"") or "".
func nameIntent(name, description string) (mutating, deleting, reader string) {
	words := identWords(name)
	if len(words) > 0 {
		if mutatingVerbs[words[0]] {
			mutating = fmt.Sprintf("name starts with %q", words[0])
		}
		if readerVerbs[words[0]] {
			reader = fmt.Sprintf("name starts with %q", words[0])
		}
		// get_or_create_x reads and writes: not a pure reader.
		for _, w := range words[1:] {
			if mutatingVerbs[w] {
				reader = ""
			}
		}
	}
	for _, w := range words {
		if destructiveWords[w] {
			deleting = fmt.Sprintf("name contains %q", w)
			if mutating == "" {
				mutating = deleting
			}
			break
		}
	}
	if d := descriptionVerb(description); d != "" {
		stem := verbStem(d)
		if mutating == "" && mutatingVerbs[stem] {
			mutating = fmt.Sprintf("description starts with %q", d)
		}
		if deleting == "" && destructiveWords[stem] {
			deleting = fmt.Sprintf("description starts with %q", d)
		}
	}
	return mutating, deleting, reader
}

// descriptionVerb returns the first word of s, as written.
func descriptionVerb(s string) string {
	s = strings.TrimSpace(s)
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if end < 0 {
		end = len(s)
	}
	return s[:end]
}

// verbStem lower-cases a verb and strips a third-person "s" or "es"
// ("Deletes" -> "delete", "Pushes" -> "push").
func verbStem(w string) string {
	w = strings.ToLower(w)
	if mutatingVerbs[w] || readerVerbs[w] {
		return w
	}
	if strings.HasSuffix(w, "es") && (mutatingVerbs[w[:len(w)-2]] || readerVerbs[w[:len(w)-2]]) {
		return w[:len(w)-2]
	}
	if strings.HasSuffix(w, "s") {
		return w[:len(w)-1]
	}
	return w
}
