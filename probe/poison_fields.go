package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"github.com/mcpvet/mcpvet/internal/lazyre"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Identifiers the model reads as words: a parameter named
// content_from_reading_ssh_id_rsa asks for the key as plainly as a
// sentence would (CyberArk, full-schema poisoning). A name fires when it
// names a secret (a key file, credentials, the environment's secrets, the
// conversation) together with a word that makes it an errand: reading,
// contents, appending, the current user's.
var (
	identSecret = lazyre.New(`(?i)\b(?:ssh|id rsa|id ed25519|private keys?|credentials?|dotenv|env secrets?|secrets|system prompt|chat history|conversation history|conversation|api keys|session token|auth token|access token|passwords?|netrc|env file)\b`)
	identErrand = lazyre.New(`(?i)\b(?:read|reading|contents?|paste|append|copy|dump|entire|full|verbatim|current user|here|first|required|for audit)\b`)
)

// matchIdentifier reads a split identifier (words separated by spaces).
func matchIdentifier(s string) []directiveMatch {
	if strings.Count(strings.TrimSpace(s), " ") < 2 {
		return nil
	}
	sec := identSecret.FindStringIndex(s)
	if sec == nil || !identErrand.MatchString(s) {
		return nil
	}
	return []directiveMatch{{CodePoisonSensitiveData, 0, len(s), "the name asks the model for " + strings.ToLower(s[sec[0]:sec[1]]) + " as an argument"}}
}

// crossFieldObject: a parameter description that is only a noun phrase
// naming a secret or the conversation ("The full conversation history so
// far, verbatim.") asks for it when the tool description orders every
// parameter filled.
var (
	crossFieldObject = conversation.with(append(append([]string{}, secretFile.src...),
		`\b(?:your|the\s+user'?s)\s+(?:api\s+keys?|tokens?|session\s+tokens?|passwords?|credentials|secrets)\b`,
		`\bcontents?\s+of\s+(?:the\s+)?(?:project'?s\s+)?\.env\b`)...)
	fillOrder = or(`\b(?:fill|complete|populate|pass|provide|put|include)\b[^.]{0,60}\b(?:every|all|each|the\s+\w+)\s+(?:parameters?|arguments?|fields?)\b`, `\b(?:parameter|argument|field)s?\s+(?:is|are)\s+(?:mandatory|required)\b`, `\b(?:always|must)\s+(?:complete|fill|populate)\b`, `\bmust\s+be\s+filled\b`)
)

// crossFieldFindings reads a tool's description together with its
// parameters' descriptions: one instruction split across them.
func crossFieldFindings(subject string, raw json.RawMessage) []Finding {
	if len(raw) > maxPoisonItem {
		return nil
	}
	var t struct {
		Description string `json:"description"`
		InputSchema struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	if json.Unmarshal(raw, &t) != nil || t.Description == "" {
		return nil
	}
	desc := normalize(t.Description, false).text
	if !fillOrder.MatchString(desc) {
		return nil
	}
	names := make([]string, 0, len(t.InputSchema.Properties))
	for k := range t.InputSchema.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		d := t.InputSchema.Properties[k].Description
		v := normalize(d, false)
		if loc := crossFieldObject.FindStringIndex(v.text); loc != nil {
			a, b := v.origin(loc[0], loc[1])
			f := textField{subject: subject, pointer: "/inputSchema/properties/" + pointerEscape(k) + "/description", text: d}
			return []Finding{poisonFinding(CodePoisonSensitiveData, f, span{a, b},
				"the tool description orders its parameters filled, and this parameter asks for %s", strings.ToLower(v.text[loc[0]:loc[1]]))}
		}
	}
	return nil
}

// answerMethods are the answers whose text the model reads, with the
// kind of subject their name belongs to.
var answerMethods = map[string]string{"tools/call": "tool", "prompts/get": "prompt", "resources/read": "resource", "completion/complete": "completion"}

// answerFields collects the text of the answers the probe received:
// tool results and error texts (of injected probes and --exercise calls),
// prompts/get messages and resources/read contents, every string in
// them, within maxAnswerText for the run.
func answerFields(msgs []Message) []textField {
	var out []textField
	budget := maxAnswerText
	for _, m := range msgs {
		kind, ok := answerMethods[m.Method]
		if !ok || (m.Kind != "result" && m.Kind != "error") || budget <= 0 {
			continue
		}
		subject := kind + ":" + m.Name
		add := func(ptr, s string) {
			if s == "" || budget <= 0 {
				return
			}
			if len(s) > maxPoisonText {
				s = s[:maxPoisonText]
			}
			budget -= len(s)
			out = append(out, textField{subject: subject, pointer: ptr, text: s})
		}
		if m.Kind == "error" {
			add(m.Method+"/error/message", m.ErrorMessage)
			walkJSONStrings(m.ErrorData, m.Method+"/error/data", add)
			continue
		}
		walkJSONStrings(m.Body, m.Method+"/result", add)
	}
	return out
}

// walkJSONStrings calls fn for every string in raw (skipping base64 blob
// contents of resources and images), bounded in depth.
func walkJSONStrings(raw json.RawMessage, ptr string, fn func(ptr, s string)) {
	if len(raw) == 0 || len(raw) > maxPoisonItem*4 {
		return
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	var walk func(v any, ptr string, depth int)
	walk = func(v any, ptr string, depth int) {
		if depth > maxSchemaTextDepth {
			return
		}
		switch x := v.(type) {
		case string:
			fn(ptr, x)
		case []any:
			for i, c := range x {
				walk(c, ptr+"/"+strconv.Itoa(i), depth+1)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				if k != "blob" && k != "data" && k != "mimeType" && k != "uri" && k != "type" {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(x[k], ptr+"/"+pointerEscape(k), depth+1)
			}
		}
	}
	walk(v, ptr, 0)
}

// checkRugPull compares the tool list listed again after the calls of
// --exercise with the first one: a tool whose description, schema or
// annotations changed within the session, or that appeared or went away,
// is a rug pull, and the new text is read by every other poison check.
func checkRugPull(res *Result, own map[string]bool) []Finding {
	if res.Relisted == nil {
		return nil
	}
	before := map[string]Tool{}
	for _, t := range res.Tools {
		before[t.Name] = t
	}
	var out []Finding
	seen := map[string]bool{}
	c := &fieldCollector{}
	for i, t := range res.Relisted {
		seen[t.Name] = true
		old, ok := before[t.Name]
		subject := subjectOf("tool", t.Name, i)
		if !ok {
			out = append(out, NewFinding(CodePoisonRugPull, subject, "/", t.Name,
				"tools/list listed again after the first calls has a tool %q the first listing did not have", t.Name))
		} else if changed := changedFields(old.Raw, t.Raw); len(changed) > 0 {
			was, now := memberText(old.Raw, changed[0]), memberText(t.Raw, changed[0])
			f := textField{subject: subject, pointer: "/" + changed[0], text: now}
			out = append(out, poisonFinding(CodePoisonRugPull, f, diffSpan(was, now),
				"tools/list listed again after the first calls changed %s of tool %q (digest %s, was %s)",
				strings.Join(changed, ", "), t.Name, toolDigest(t.Raw), toolDigest(old.Raw)))
		} else {
			continue
		}
		c.item(subject+" (listed again)", t.Raw, t.Name, t.Title, t.Description)
	}
	for i, t := range res.Tools {
		if !seen[t.Name] {
			out = append(out, NewFinding(CodePoisonRugPull, subjectOf("tool", t.Name, i), "/", t.Name,
				"tools/list listed again after the first calls no longer has tool %q", t.Name))
		}
	}
	for _, f := range c.out {
		out = append(out, poisonText(f, own)...)
	}
	return out
}

// changedFields names the top-level members of two tool definitions that
// differ, compared as canonical JSON.
func changedFields(a, b json.RawMessage) []string {
	ma, mb := itemFields(a), itemFields(b)
	var out []string
	keys := map[string]bool{}
	for k := range ma {
		keys[k] = true
	}
	for k := range mb {
		keys[k] = true
	}
	for k := range keys {
		if canonicalJSON(ma[k]) != canonicalJSON(mb[k]) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func canonicalJSON(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// memberText is a member of a tool definition as text: the string
// itself, or its canonical JSON.
func memberText(raw json.RawMessage, key string) string {
	m := itemFields(raw)
	if s, ok := itemString(m, key); ok {
		return s
	}
	return canonicalJSON(m[key])
}

// diffSpan is the span of now that differs from was: between their
// common prefix and common suffix, on rune boundaries.
func diffSpan(was, now string) span {
	a := 0
	for a < len(was) && a < len(now) && was[a] == now[a] {
		a++
	}
	z := 0
	for z < len(was)-a && z < len(now)-a && was[len(was)-1-z] == now[len(now)-1-z] {
		z++
	}
	for a > 0 && a < len(now) && !utf8.RuneStart(now[a]) {
		a--
	}
	b := len(now) - z
	for b < len(now) && !utf8.RuneStart(now[b]) {
		b++
	}
	if b <= a {
		return span{0, len(now)}
	}
	return span{a, b}
}

// toolDigest is the short SHA-256 of a tool's canonical JSON.
func toolDigest(raw json.RawMessage) string {
	sum := sha256.Sum256([]byte(canonicalJSON(raw)))
	return hex.EncodeToString(sum[:6])
}
