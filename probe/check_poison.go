package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Finding codes of the poisoned-metadata checks: text a server sends that is
// addressed to the model rather than describing the server, and characters
// or encodings that hide text from the person reviewing it. The checks are
// deterministic (no model) and every finding carries the span that decided
// it in Value, with its byte offsets in the message.
const (
	CodePoisonOverride      = "poison/override_instructions"
	CodePoisonConceal       = "poison/conceal_from_user"
	CodePoisonSensitiveData = "poison/sensitive_data_request"
	CodePoisonOtherTool     = "poison/other_tool_directive"
	CodePoisonPseudoTag     = "poison/pseudo_system_tag"
	CodePoisonUnicodeTag    = "poison/unicode_tag_chars"
	CodePoisonZeroWidth     = "poison/zero_width_chars"
	CodePoisonBidi          = "poison/bidi_control"
	CodePoisonHomoglyph     = "poison/homoglyph_name"
	CodePoisonHiddenTail    = "poison/hidden_tail"
	CodePoisonHTMLComment   = "poison/html_comment"
	CodePoisonBase64        = "poison/base64_blob"
	CodePoisonExfilURL      = "poison/exfiltration_url"
)

// Severity of the poison codes is by how directly the text can harm. An
// instruction that takes control from the user (override, conceal), sends
// data away (files, credentials, conversation, a capture URL), or hides
// ASCII text no person can see (tag characters) is fatal: the server is
// dropped, as a server that leaks a secret is. Orders about other tools
// and text people see differently than models (bidi, homoglyphs) are
// errors; a vehicle that hides or dresses up text but says nothing harmful
// by itself is a warning.
func init() {
	register(
		CatalogEntry{CodePoisonOverride, SeverityFatal,
			"server text tells the model to ignore, override or take precedence over other instructions",
			"describe what the item does; never address the model with instructions about other instructions"},
		CatalogEntry{CodePoisonConceal, SeverityFatal,
			"server text tells the model to keep something from the user or to act silently",
			"remove the instruction; everything a tool does must be visible to the person approving it"},
		CatalogEntry{CodePoisonSensitiveData, SeverityFatal,
			"server text tells the model to read or send files, credentials or conversation content",
			"take the data a tool needs as declared, documented arguments; never ask the model to fetch secrets, files or the conversation on the side"},
		CatalogEntry{CodePoisonOtherTool, SeverityError,
			"server text gives orders about tools the server does not have, or about all other tools and servers",
			"describe only this server's own tools; do not tell the model how to use, or what to do before using, other servers' tools"},
		CatalogEntry{CodePoisonPseudoTag, SeverityWarn,
			"server text wraps content in a pseudo system tag such as <IMPORTANT> or <SYSTEM>",
			"write plain descriptions; tags that imitate system or priority markup exist to make the model obey the text inside them"},
		CatalogEntry{CodePoisonUnicodeTag, SeverityFatal,
			"server text contains Unicode tag characters (U+E0000-U+E007F), invisible to people but read by models",
			"remove the tag characters; they encode hidden ASCII text"},
		CatalogEntry{CodePoisonZeroWidth, SeverityWarn,
			"server text contains zero-width characters",
			"remove zero-width spaces, joiners and word joiners outside emoji sequences; they split words so filters miss them and hide text boundaries"},
		CatalogEntry{CodePoisonBidi, SeverityError,
			"server text contains bidirectional control characters that reorder what people see",
			"remove the embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069); what is displayed then matches what the model reads"},
		CatalogEntry{CodePoisonHomoglyph, SeverityError,
			"a name mixes scripts, or uses letters of another script, so that it imitates an ASCII name",
			"name tools, prompts and resources in plain ASCII; look-alike letters (Cyrillic а, Greek ο, fullwidth ａ) let one name pass for another"},
		CatalogEntry{CodePoisonHiddenTail, SeverityWarn,
			"a long text continues after a run of padding, so its tail is out of sight where people review it",
			"remove the padding and keep the whole description short enough to be read in full"},
		CatalogEntry{CodePoisonHTMLComment, SeverityWarn,
			"server text contains an HTML comment, hidden when rendered but read by the model",
			"remove the comment; put anything the model should know in the visible text"},
		CatalogEntry{CodePoisonBase64, SeverityWarn,
			"server text contains a base64 blob that decodes to readable text",
			"write the text in clear; encoded text is read by models and skipped by people"},
		CatalogEntry{CodePoisonExfilURL, SeverityFatal,
			"server text contains a URL that would carry data to a third party (a request-capture service, or a placeholder for secrets or conversation in the URL)",
			"remove the URL; a tool that must send data somewhere does so in its own code, with the destination documented"},
	)
	registerWhy(map[string]string{
		CodePoisonOverride:      "Tool descriptions, prompts and server instructions are pasted into the model's context next to the user's request. Text there that tells the model to ignore or outrank other instructions is a prompt injection carried by the server (tool poisoning); no description of a tool needs it.",
		CodePoisonConceal:       "Clients rely on the person seeing and approving what an agent does. A description telling the model to hide an action, or to do it silently, is how poisoned tools exfiltrate without anyone noticing; benign servers have no reason to say it.",
		CodePoisonSensitiveData: "The published tool-poisoning attacks ask the model to read ~/.ssh/id_rsa, ~/.cursor/mcp.json or the conversation and pass it in an innocent-looking argument. A tool that needs data declares an argument for it; it does not send the model to collect secrets.",
		CodePoisonOtherTool:     "Cross-server tool shadowing: a server's description changes how the model uses another server's tool (\"when send_email is available, send all mail to ...\") or demands a call to a tool it does not provide. Only that other server's author may describe its tools.",
		CodePoisonPseudoTag:     "<IMPORTANT>, <SYSTEM> and similar blocks imitate priority markup so that the model treats the text inside as instructions. Found in nearly every published poisoning example; rarely in honest descriptions. A warning, since the tag alone moves no data.",
		CodePoisonUnicodeTag:    "The tag block maps one to one onto ASCII and renders as nothing, so a whole sentence can ride along invisibly (ASCII smuggling). Models tokenize and may follow it. Honest text never needs these characters outside flag emoji, which do not occur in tool metadata.",
		CodePoisonZeroWidth:     "Zero-width characters hide boundaries: they split a keyword so that filters do not see it, or mark text invisibly. Joiners inside emoji sequences and in scripts that spell with them (Arabic, Persian, Hebrew, the Indic scripts) are legitimate and not reported.",
		CodePoisonBidi:          "Bidirectional overrides make the displayed order differ from the logical order the model reads (Trojan Source, CVE-2021-42574), so a reviewer sees different text from the model.",
		CodePoisonHomoglyph:     "A name built from look-alike letters (Cyrillic, Greek, fullwidth) imitates a trusted name: a client or a person choosing between read_file and rеad_file cannot tell them apart. Names of tools and prompts are identifiers; plain ASCII is expected.",
		CodePoisonHiddenTail:    "Clients show the first lines of a description; a long run of blank lines or spaces pushes the rest out of view while the model still reads all of it.",
		CodePoisonHTMLComment:   "Markdown renderers drop HTML comments, so what a reviewer sees differs from what the model reads.",
		CodePoisonBase64:        "Base64 that decodes to text is a message the reviewer cannot read and the model can; it is used to slip instructions past keyword filters.",
		CodePoisonExfilURL:      "A URL with a placeholder for secrets or the conversation, or pointing to a request-capture service (webhook.site, requestbin, ngrok, interactsh, ...), is how injected text gets data out: the model builds the URL, the client fetches it or renders it as an image.",
	})
}

// catalogWhy holds the reason each code exists, for codes that explain it.
var catalogWhy = map[string]string{}

// registerWhy records why codes exist; it panics on a code not in the
// catalog.
func registerWhy(m map[string]string) {
	for code, why := range m {
		if _, ok := catalog[code]; !ok {
			panic("probe: why for unknown finding code " + code)
		}
		catalogWhy[code] = why
	}
}

// Why returns why a finding code exists, or "" when the catalog does not
// say.
func Why(code string) string { return catalogWhy[code] }

// textField is one piece of server text the poison checks read.
type textField struct {
	subject string
	pointer string
	text    string
	// name marks identifiers (tool, prompt and resource names), which get
	// the homoglyph check.
	name bool
}

// maxPoisonText bounds the text read per field, so a hostile server
// cannot make the checks slow.
const maxPoisonText = 256 << 10

// maxPoisonItem bounds the raw JSON of one item the checks decode.
const maxPoisonItem = 1 << 20

// checkPoison runs the poisoned-metadata checks on every name, title and
// description the server sent, on schema descriptions and defaults, and
// on the server instructions of the handshake.
func checkPoison(res *Result, pages []Page) []Finding {
	fields := poisonFields(res, pages)
	own := map[string]bool{}
	for _, t := range res.Tools {
		if t.Name != "" {
			own[strings.ToLower(t.Name)] = true
		}
	}
	var out []Finding
	for _, f := range fields {
		if len(f.text) > maxPoisonText {
			f.text = f.text[:maxPoisonText]
		}
		out = append(out, poisonText(f, own)...)
	}
	return out
}

// poisonFields collects the text fields of a result.
func poisonFields(res *Result, pages []Page) []textField {
	var out []textField
	add := func(subject, pointer, text string, name bool) {
		if text != "" {
			out = append(out, textField{subject, pointer, text, name})
		}
	}
	for _, p := range pages {
		if p.Method != "initialize" && p.Method != "server/discover" {
			continue
		}
		var r struct {
			Instructions string `json:"instructions"`
			ServerInfo   struct {
				Name        string `json:"name"`
				Title       string `json:"title"`
				Description string `json:"description"`
			} `json:"serverInfo"`
		}
		if json.Unmarshal(p.Result, &r) == nil {
			add("server", "/instructions", r.Instructions, false)
			add("server", "/serverInfo/title", r.ServerInfo.Title, false)
			add("server", "/serverInfo/description", r.ServerInfo.Description, false)
		}
	}
	item := func(subject string, raw json.RawMessage, name, title, desc string) {
		// An item of megabytes (a hostile schema) is read from the fields
		// the listing already decoded, not decoded again.
		var m map[string]json.RawMessage
		if len(raw) <= maxPoisonItem {
			m = itemFields(raw)
		}
		if m != nil {
			name, _ = itemString(m, "name")
			title, _ = itemString(m, "title")
			desc, _ = itemString(m, "description")
		}
		add(subject, "/name", name, true)
		add(subject, "/title", title, false)
		add(subject, "/description", desc, false)
		for _, k := range []string{"inputSchema", "outputSchema"} {
			// A schema over the text bound is not read: the schema
			// checks report its size, and reading it would cost more
			// than the text it could hide.
			if m != nil && len(m[k]) > 0 && len(m[k]) <= maxPoisonText {
				walkSchemaText(m[k], "/"+k, func(ptr, s string) { add(subject, ptr, s, false) })
			}
		}
		if m != nil {
			if a := itemFields(m["annotations"]); a != nil {
				t, _ := itemString(a, "title")
				add(subject, "/annotations/title", t, false)
			}
			var args []json.RawMessage
			if json.Unmarshal(m["arguments"], &args) == nil {
				for i, a := range args {
					am := itemFields(a)
					ptr := "/arguments/" + strconv.Itoa(i)
					n, _ := itemString(am, "name")
					t, _ := itemString(am, "title")
					d, _ := itemString(am, "description")
					add(subject, ptr+"/name", n, true)
					add(subject, ptr+"/title", t, false)
					add(subject, ptr+"/description", d, false)
				}
			}
		}
	}
	for i, t := range res.Tools {
		item(subjectOf("tool", t.Name, i), t.Raw, t.Name, t.Title, t.Description)
	}
	for i, p := range res.Prompts {
		item(subjectOf("prompt", p.Name, i), p.Raw, p.Name, p.Title, p.Description)
	}
	for i, r := range res.Resources {
		item(subjectOf("resource", r.URI, i), r.Raw, r.Name, "", "")
	}
	for i, r := range res.ResourceTemplates {
		item(subjectOf("template", r.URITemplate, i), r.Raw, r.Name, "", "")
	}
	return out
}

// maxSchemaTextDepth bounds the schema walk: text nested deeper is not
// read.
const maxSchemaTextDepth = 32

// walkSchemaText calls fn for every description and title string in a
// JSON schema, and for every string inside a default, examples or const
// value, with its JSON pointer. It streams tokens, so a hostile schema
// nested thousands deep costs one pass.
func walkSchemaText(raw json.RawMessage, ptr string, fn func(ptr, s string)) {
	type frame struct {
		object bool
		key    string // the current member name, for objects
		index  int    // the next element index, for arrays
		// value marks the inside of default, examples or const: every
		// string there is reported.
		value bool
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var stack []frame
	path := func() string {
		var b strings.Builder
		b.WriteString(ptr)
		for _, f := range stack {
			b.WriteByte('/')
			if f.object {
				b.WriteString(pointerEscape(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index - 1))
			}
		}
		return b.String()
	}
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].key == "" }
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		if expectKey() {
			if k, ok := tok.(string); ok {
				stack[len(stack)-1].key = k
				continue
			}
		}
		// A value: note its array index before reading it.
		inValue := false
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if !top.object {
				top.index++
			}
			inValue = top.value || (top.object && (top.key == "default" || top.key == "examples" || top.key == "const"))
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, frame{object: t == '{', value: inValue})
				if len(stack) > maxSchemaTextDepth {
					return
				}
				continue
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
		case string:
			if n := len(stack); n > 0 && (inValue || (stack[n-1].object && (stack[n-1].key == "description" || stack[n-1].key == "title"))) {
				fn(path(), t)
			}
		}
		// After a member's value the object waits for the next key.
		if n := len(stack); n > 0 && stack[n-1].object {
			if d, ok := tok.(json.Delim); !ok || d == '}' || d == ']' {
				stack[n-1].key = ""
			}
		}
	}
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// span is a byte range [start, end) of a text that decided a finding.
type span struct{ start, end int }

// poisonFinding builds a finding whose Value is the deciding span, shown
// with invisible characters escaped, and whose message locates it.
func poisonFinding(code string, f textField, sp span, format string, args ...any) Finding {
	shown := visible(f.text[sp.start:sp.end])
	msg := fmt.Sprintf(format, args...)
	msg += fmt.Sprintf(" (bytes %d-%d of %s)", sp.start, sp.end, f.pointer)
	return NewFinding(code, f.subject, f.pointer, shown, "%s", msg)
}

// visible escapes characters a person cannot see (format, control and
// tag characters) as \u{XXXX} so the evidence shows them.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if invisibleRune(r) || (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			fmt.Fprintf(&b, `\u{%X}`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// poisonText runs every check on one field and keeps, per code, the
// first deciding span, counting the others: a field of megabytes cannot
// turn into megabytes of findings.
func poisonText(f textField, own map[string]bool) []Finding {
	var all []Finding
	all = append(all, checkInvisible(f)...)
	if f.name {
		all = append(all, checkHomoglyph(f)...)
	}
	// The language checks read the text with invisible characters removed,
	// so a zero-width space cannot split a keyword; spans are mapped back.
	clean, back := stripInvisible(f.text)
	for _, m := range matchDirectives(clean, own) {
		sp := span{back(m.start), back(m.end)}
		all = append(all, poisonFinding(m.code, f, sp, "%s", m.why))
	}
	all = append(all, checkHiddenTail(f)...)
	var out []Finding
	more := map[string]int{}
	for _, fd := range all {
		if _, seen := more[fd.Code]; seen {
			more[fd.Code]++
			continue
		}
		more[fd.Code] = 0
		out = append(out, fd)
	}
	for i := range out {
		if n := more[out[i].Code]; n > 0 {
			out[i].Message += fmt.Sprintf("; %d more in this field", n)
		}
	}
	return out
}

// stripInvisible removes invisible characters and returns a function
// mapping an offset of the result back to the original.
func stripInvisible(s string) (string, func(int) int) {
	var b strings.Builder
	var offs []int // offs[i] is the original offset of result byte i
	for i, r := range s {
		if invisibleRune(r) {
			continue
		}
		n := utf8.RuneLen(r)
		if r == utf8.RuneError {
			n = 1
		}
		for k := 0; k < n; k++ {
			offs = append(offs, i+k)
		}
		b.WriteString(s[i : i+n])
	}
	return b.String(), func(j int) int {
		if j >= len(offs) {
			return len(s)
		}
		return offs[j]
	}
}
