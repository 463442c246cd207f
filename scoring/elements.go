package scoring

import (
	"fmt"
	"regexp"
	"strings"
)

// ---- 1. channel -------------------------------------------------------------

// JSON-RPC error codes the channel rule reads.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	// codeResourceNotFound is the resources page's "Resource not found"
	// code before SEP-2164 moved it to -32602.
	codeResourceNotFound = -32002
)

// gradeChannel judges the channel by kind, class, error code and protocol
// revision (docs/rubric.md quotes the revision's text for each row).
func gradeChannel(in *input) (bool, string) {
	r := in.r
	pv := r.ProtocolVersion
	var at string
	switch r.Class {
	case ClassProtocolError:
		at = "JSON-RPC error"
		if r.ErrorCode != nil {
			at = fmt.Sprintf("JSON-RPC error %d", *r.ErrorCode)
		}
	case ClassToolError:
		at = "result.isError=true"
	case ClassAccepted:
		return false, "success result for invalid input (accepted)"
	case ClassCrash:
		return false, "server crashed on invalid input"
	case ClassHang:
		return false, "no answer before the deadline (hang)"
	default:
		return false, fmt.Sprintf("unknown class %q", r.Class)
	}
	switch {
	case validationKinds[r.Kind]:
		if r.Class == ClassToolError {
			return true, at + " for an input validation error"
		}
		if pv != "" && pv >= ChannelCutover {
			return false, fmt.Sprintf("%s for an input validation error; since %s it belongs in a tool execution error (isError: true) the model can read (negotiated %s)", at, ChannelCutover, pv)
		}
		if ok, why := protocolCode(r, []int64{codeInvalidParams}, "invalid arguments are -32602 (invalid params)"); !ok {
			return false, at + " for an input validation error; " + why
		}
		return true, fmt.Sprintf("%s for an input validation error; either channel is acceptable before %s (negotiated %q)", at, ChannelCutover, pv)
	case r.Kind == KindUnknownTool:
		if r.Class != ClassProtocolError {
			return false, at + " for an unknown tool; an unknown tool is a protocol error (JSON-RPC error -32602)"
		}
		if ok, why := protocolCode(r, []int64{codeInvalidParams}, "an unknown tool is -32602 (invalid params)"); !ok {
			return false, at + " for an unknown tool; " + why
		}
		return true, at + " for an unknown tool"
	case r.Kind == KindUnknownID || r.Kind == KindRuntime:
		if r.Method == "tools/call" && r.Class != ClassToolError {
			return false, at + " for an error that originates in the tool; it belongs in a tool execution error (isError: true)"
		}
		return true, at
	}
	// unknown_method, unknown_resource, unknown_prompt, bad_cursor: no tool
	// result exists for these methods, so a JSON-RPC error it is, with the
	// code that says what went wrong.
	if r.Class != ClassProtocolError {
		return false, at + "; " + r.Kind + " is a protocol error (JSON-RPC error)"
	}
	var want []int64
	var rule string
	switch r.Kind {
	case KindUnknownMethod:
		want, rule = []int64{codeMethodNotFound}, "an unknown method is -32601 (method not found)"
	case KindUnknownResource:
		want, rule = []int64{codeResourceNotFound, codeInvalidParams}, "an unknown resource is -32002 (resource not found) or, since SEP-2164, -32602"
		if !in.declares("resources") {
			want = append(want, codeMethodNotFound)
		}
	case KindUnknownPrompt:
		want, rule = []int64{codeInvalidParams}, "an unknown prompt is -32602 (invalid params)"
		if !in.declares("prompts") {
			want = append(want, codeMethodNotFound)
		}
	case KindBadCursor:
		want, rule = []int64{codeInvalidParams}, "an invalid cursor is -32602 (invalid params)"
	}
	if ok, why := protocolCode(r, want, rule); !ok {
		return false, at + "; " + why
	}
	return true, at
}

// declares reports whether the server declared capability name; when that
// is unknown the server gets the benefit of the doubt.
func (in *input) declares(name string) bool {
	yes, known := in.c.declares(name)
	return yes || !known
}

// protocolCode checks a protocol error's code. The standard codes that
// mean something else fail: -32603 tells the client the server broke,
// -32601 that the method does not exist, -32700 and -32600 that the
// request was malformed. A code in want passes; any other code (a
// server-defined one) passes too, since it says nothing false.
func protocolCode(r *Response, want []int64, rule string) (bool, string) {
	if r.Class != ClassProtocolError || r.ErrorCode == nil {
		return true, ""
	}
	c := *r.ErrorCode
	for _, w := range want {
		if c == w {
			return true, ""
		}
	}
	switch c {
	case codeInternalError:
		return false, "-32603 (internal error) says the server broke, not that the request was wrong; " + rule
	case codeMethodNotFound:
		return false, "-32601 (method not found) says the method does not exist; " + rule
	case codeParseError, codeInvalidRequest:
		return false, fmt.Sprintf("%d says the JSON-RPC message was malformed; %s", c, rule)
	case codeInvalidParams:
		return false, "-32602 (invalid params); " + rule
	}
	return true, ""
}

// ---- 2. param ----------------------------------------------------------------

// paramCandidates returns the names whose mention satisfies the param
// element, and whether the element applies at all.
func paramCandidates(r *Response, c *Context) ([]string, bool) {
	switch r.Kind {
	case KindUnknownMethod:
		return nil, false
	case KindUnknownTool, KindUnknownPrompt:
		return []string{"name"}, true
	case KindUnknownResource:
		return []string{"uri"}, true
	case KindBadCursor:
		return []string{"cursor"}, true
	}
	if r.Param != "" {
		leaf := leafName(r.Param)
		if leaf != r.Param {
			return []string{leaf, r.Param}, true
		}
		return []string{leaf}, true
	}
	if missingKinds[r.Kind] && len(c.Required) > 0 {
		return c.Required, true
	}
	return nil, false
}

// paramKeys are JSON keys whose value names the field at fault.
var paramKeys = []string{"field", "param", "parameter", "argument", "arg", "property", "key", "path", "pointer", "loc", "location", "name", "fields", "params", "parameters", "missing", "invalid"}

func gradeParam(in *input, names []string) (bool, string) {
	for _, f := range in.fieldsWithKey(paramKeys...) {
		vals := f.items
		if s, ok := f.val.(string); ok {
			vals = []string{s}
		}
		for _, v := range vals {
			for _, n := range names {
				if v == n || leafName(v) == n {
					return true, fieldEvidence(f)
				}
			}
		}
	}
	for _, seg := range in.text {
		for _, n := range names {
			if i, j, ok := findName(seg.s, n); ok {
				return true, span(seg, i, j)
			}
			// A common word counts next to the value it received:
			// "path ... /etc/passwd".
			if i := findToken(seg.s, n, 0); i >= 0 && in.sentIn(seg) {
				return true, span(seg, i, i+len(n))
			}
		}
	}
	// For an unknown name, id or a runtime refusal of a value, the received
	// value itself identifies the input at fault: "Tool ech not found",
	// "ENOTDIR: not a directory, scandir '/srv/a.txt'".
	echoes := nameKinds[in.r.Kind] || in.r.Kind == KindBadCursor ||
		in.r.Kind == KindRuntime && in.sentType == 's' && len(in.sent) >= 3
	if echoes {
		if ev, ok := findSent(in); ok {
			return true, ev
		}
	}
	return false, "no mention of " + quoteList(names)
}

func quoteList(names []string) string {
	q := quoteAll(names)
	if len(q) > 4 {
		q = append(q[:4], "…")
	}
	return strings.Join(q, " or ")
}

// sentIn reports whether the received value appears in seg.
func (in *input) sentIn(seg segment) bool {
	switch in.sentType {
	case 's':
		_, _, ok := quotedValue(seg.s, in.sent)
		return ok
	case 'n':
		_, _, ok := findNumber(seg.s, in.sent)
		return ok
	}
	return false
}

// findSent finds the received value in the text.
func findSent(in *input) (string, bool) {
	if in.sent == "" {
		return "", false
	}
	for _, seg := range in.text {
		var i, j int
		var ok bool
		switch in.sentType {
		case 's':
			i, j, ok = quotedValue(seg.s, in.sent)
		case 'n':
			i, j, ok = findNumber(seg.s, in.sent)
		case 'b':
			i, j, ok = findBool(seg, in.sent)
		}
		if ok {
			return span(seg, i, j), true
		}
	}
	return "", false
}

// findSentPart finds a quoted part of a received string: "Invalid minute:
// \"99\"" for the cron expression "99 * * * *", "Invalid digit 'z'" for
// "zz".
func findSentPart(in *input) (string, bool) {
	if in.sentType != 's' || in.sent == "" {
		return "", false
	}
	for _, seg := range in.text {
		s := seg.s
		for i := 0; i < len(s); i++ {
			q := s[i]
			if q != '\'' && q != '"' && q != '`' {
				continue
			}
			j := strings.IndexByte(s[i+1:], q)
			if j <= 0 {
				continue
			}
			part := s[i+1 : i+1+j]
			if len(part) <= len(in.sent) && strings.Contains(in.sent, part) {
				return span(seg, i+1, i+1+j), true
			}
			i += j
		}
	}
	return "", false
}

var boolContext = regexp.MustCompile(`\b(received|got|given|value|was|is)\s*:?\s*["'` + "`" + `]?(true|false)\b`)

func findBool(seg segment, v string) (int, int, bool) {
	for _, loc := range boolContext.FindAllStringSubmatchIndex(seg.lower, -1) {
		if seg.lower[loc[4]:loc[5]] == v {
			return loc[4], loc[5], true
		}
	}
	return 0, 0, false
}

// ---- 3. value or form ----------------------------------------------------

var (
	reTypeForm  = guard(`\b(expected|expecting|expects|must be|should be|needs to be|has to be|want|wants|required to be|not a valid|is not an?|invalid)\s+(an?\s+)?["'`+"`"+`]?(string|number|integer|int|float|boolean|bool|array|list|object|null|uri|url|date|datetime|date-time|email|uuid|json)\b`, "expect", "must be", "should be", "needs to be", "has to be", "want", "required to be", "not a valid", "is not a", "invalid")
	reRecvType  = guard(`\b(received|got|given|found|has type|is of type)\s+(an?\s+)?["'`+"`"+`]?(string|number|integer|boolean|array|object|null|undefined|float|int|bool|list)\b`, "received", "got", "given", "found", "has type", "is of type")
	reEnumForm  = guard(`\b(one of|any of|must be either|valid values|allowed values|possible values|valid options|allowed options|supported values|accepted values|permitted values)\b|expected\s+['"`+"`"+`][^'"`+"`"+`]+?['"`+"`"+`]\s*(\||,|or)`, "one of", "any of", "either", "valid values", "allowed values", "possible values", "valid options", "allowed options", "supported values", "accepted values", "permitted values", "expected")
	reRange     = guard(`\b(less than|greater than|more than|fewer than|at least|at most|no more than|no less than|not exceed|exceeds?|between -?\d+(\.\d+)? and|maximum|minimum|up to -?\d|too (large|small|big|long|short|many|few)|out of range)\b|[<>]=\s*-?\d`, "less than", "greater than", "more than", "fewer than", "at least", "at most", "no more than", "no less than", "exceed", "between", "maximum", "minimum", "up to", "too ", "out of range", ">=", "<=")
	rePattern   = guard(`\b(pattern|regular expression|regex|must match|does not match|doesn't match|format|invalid (url|uri|email|date|uuid|path|identifier))\b`, "pattern", "regular expression", "regex", "match", "format", "invalid")
	reLength    = guard(`\b(\d+ (characters?|code points|chars|bytes)|too long|too short|length)\b`, "character", "code point", "chars", "bytes", "too long", "too short", "length")
	reConstr    = guard(`\b(cannot specify both|mutually exclusive|only one of|cannot be combined|not both|outside (the )?allowed|not within|must be (within|inside|under))\b`, "both", "mutually exclusive", "only one of", "cannot be combined", "outside", "not within", "must be")
	reMissing   = guard(`\b(required|missing|not provided|must be (provided|specified|present|supplied|set)|is absent|no value)\b`, "required", "missing", "not provided", "must be", "absent", "no value")
	reUnknProp  = guard(`\b(unrecognized|unrecognised|unexpected|unknown|additional|extra|not allowed|not permitted|invalid)\s+(key|keys|property|properties|field|fields|param|parameter|parameters|argument|arguments|option|options)\b|\b(key|property|field|argument|parameter)s?\b[^.\n]*?\b(is |are )?(not allowed|not permitted|unrecognized|unexpected|unknown|not supported)\b`, "unrecognized", "unrecognised", "unexpected", "unknown", "additional", "extra", "not allowed", "not permitted", "invalid", "not supported")
	reCountForm = guard(`\b(expected|expecting|must have|should have|requires|got)\s+(at least |at most |exactly )?\d+\b`, "expect", "must have", "should have", "requires", "got ")
	reNameList  = guard(`\b(available|valid|known|supported|existing) (tools|prompts|resources|methods|names|ids|values|uris)\b`, "available", "valid", "known", "supported", "existing")
)

// phrases are lowercase phrases that count only as whole words.
type phrases []string

// find returns the leftmost phrase standing as whole words in low (an
// ASCII-lowered text), the first listed on a tie: what `\b(a|b|c)\b`
// matches, without running a regexp from every position.
func (p phrases) find(low string) (int, int, bool) {
	best, end := -1, 0
	for _, ph := range p {
		for from := 0; from < len(low); {
			k := strings.Index(low[from:], ph)
			if k < 0 {
				break
			}
			i, j := from+k, from+k+len(ph)
			if best >= 0 && i >= best {
				break
			}
			if (i == 0 || !isRegexpWord(low[i-1])) && (j == len(low) || !isRegexpWord(low[j])) {
				best, end = i, j
				break
			}
			from = i + 1
		}
	}
	return best, end, best >= 0
}

// isRegexpWord is \b's notion of a word byte.
func isRegexpWord(c byte) bool { return isDigitOrLetter(c) || c == '_' }

// patternPhrases are rePattern's alternatives.
var patternPhrases = phrases{"pattern", "regular expression", "regex", "must match", "does not match", "doesn't match", "format",
	"invalid url", "invalid uri", "invalid email", "invalid date", "invalid uuid", "invalid path", "invalid identifier"}

// enumPhrases are reEnumForm's whole-word alternatives; reExpectedList is
// its other one, a quoted value followed by a list separator.
var (
	enumPhrases = phrases{"one of", "any of", "must be either", "valid values", "allowed values", "possible values", "valid options",
		"allowed options", "supported values", "accepted values", "permitted values"}
	reExpectedList = regexp.MustCompile(`expected\s+['"` + "`" + `][^'"` + "`" + `]+?['"` + "`" + `]\s*(\||,|or)`)
)

// rangePhrases are reRange's whole-word alternatives; reRangeRest holds
// the ones with numbers.
var (
	rangePhrases = phrases{"less than", "greater than", "more than", "fewer than", "at least", "at most", "no more than", "no less than",
		"not exceed", "exceed", "exceeds", "maximum", "minimum", "too large", "too small", "too big", "too long", "too short",
		"too many", "too few", "out of range"}
	reRangeRest = regexp.MustCompile(`\b(between -?\d+(\.\d+)? and|up to -?\d)\b|[<>]=\s*-?\d`)
)

// findRange is reRange by phrase search, with the regexp only where a
// number may follow "between", "up to", ">=" or "<=".
func findRange(low string) (int, int, bool) {
	i, j, ok := rangePhrases.find(low)
	if strings.Contains(low, "between") || strings.Contains(low, "up to") || strings.Contains(low, "=") {
		if loc := reRangeRest.FindStringIndex(low); loc != nil && (!ok || loc[0] < i) {
			return loc[0], loc[1], true
		}
	}
	return i, j, ok
}

// findEnumForm is reEnumForm by phrase search, with the regexp only for
// "expected 'a' | ...".
func findEnumForm(low string) (int, int, bool) {
	i, j, ok := enumPhrases.find(low)
	if strings.Contains(low, "expected") {
		if loc := reExpectedList.FindStringIndex(low); loc != nil && (!ok || loc[0] < i) {
			return loc[0], loc[1], true
		}
	}
	return i, j, ok
}

// formKeys are JSON keys that carry the received value or permitted form.
var formKeys = []string{
	"expected", "allowed", "allowedvalues", "options", "values", "validation",
	"enum", "validvalues", "permitted", "pattern", "format", "minimum", "maximum", "min", "max",
	"minlength", "maxlength", "expectedtype", "constraint", "oneof",
}

func valueOrFormApplies(r *Response, c *Context) bool {
	if validationKinds[r.Kind] {
		_, ok := paramCandidates(r, c)
		return ok
	}
	switch r.Kind {
	case KindUnknownTool, KindUnknownMethod, KindUnknownResource, KindUnknownPrompt, KindUnknownID, KindBadCursor:
		return true
	}
	return r.Param != ""
}

// valueKeys are JSON keys that carry the received value.
var valueKeys = []string{"received", "got", "given", "actual", "input", "inputvalue", "value"}

// gradeValueOrForm passes when the response states the received value or
// the permitted form, and gives full credit only when it states both: "Tool
// ech not found" tells the agent what it sent, "Expected 'Text' | 'Blob',
// received 'Image'" also what would work.
func gradeValueOrForm(in *input) (bool, float64, string) {
	value, vok := valueStated(in)
	form, fok := formStated(in)
	switch {
	case vok && fok:
		if value == form {
			return true, 1, value
		}
		return true, 1, value + "; " + form
	case vok:
		return true, 0.5, value + " (half credit: the received value without the permitted form)"
	case fok:
		return true, 0.5, form + " (half credit: the permitted form without the received value)"
	}
	return false, 0, "neither the received value nor the permitted form is stated"
}

// filledField returns the evidence of the first payload field with one of
// keys that holds a value (not null, not "").
func filledField(in *input, keys ...string) (string, bool) {
	for _, f := range in.fieldsWithKey(keys...) {
		if f.val == nil {
			continue
		}
		if s, ok := f.val.(string); ok && s == "" {
			continue
		}
		return fieldEvidence(f), true
	}
	return "", false
}

func valueStated(in *input) (string, bool) {
	if ev, ok := filledField(in, valueKeys...); ok {
		return ev, true
	}
	if ev, ok := findSent(in); ok {
		return ev, true
	}
	if ev, ok := findSentPart(in); ok {
		return ev, true
	}
	res := []guarded{reRecvType}
	if missingKinds[in.r.Kind] {
		// For a missing argument "required" states the received value:
		// nothing.
		res = append(res, reMissing)
	}
	for _, re := range res {
		if ev, ok := firstMatchOutside(in.text, re, reRuntimePanic); ok {
			return ev, true
		}
	}
	return "", false
}

func formStated(in *input) (string, bool) {
	if ev, ok := filledField(in, formKeys...); ok {
		return ev, true
	}
	// Cheapest first: the first that matches decides. The enum and pattern
	// expressions are mostly whole-word phrases, found by string search;
	// as regexps they cost ten times the others.
	res := []guarded{reTypeForm, reNameList, reLength, reConstr, reCountForm}
	if in.r.Kind == KindUnknownProperty {
		res = append(res, reUnknProp)
	}
	for _, re := range res {
		if ev, ok := firstMatchOutside(in.text, re, reRuntimePanic); ok {
			return ev, true
		}
	}
	for _, f := range []struct {
		g    guarded
		fast func(low string) (int, int, bool)
	}{
		{reRange, findRange},
		{reEnumForm, findEnumForm},
		{rePattern, patternPhrases.find},
	} {
		for _, seg := range in.text {
			if !f.g.hit(seg.lower, seg.hints) {
				continue
			}
			if reRuntimePanic.hit(seg.lower, seg.hints) {
				if ev, ok := firstMatchOutside([]segment{seg}, f.g, reRuntimePanic); ok {
					return ev, true
				}
				continue
			}
			if i, j, ok := f.fast(seg.lower); ok {
				return span(seg, i, j), true
			}
		}
	}
	if nameKinds[in.r.Kind] {
		if ev, ok := realNameMention(in); ok {
			return ev, true
		}
		for _, f := range in.fields {
			if isMatchKey(f.key) {
				if n, ok := f.val.(int); ok && n > 0 {
					return fieldEvidence(f), true
				}
			}
		}
	}
	return "", false
}

// reRuntimePanic matches runtime messages about the server's own data, not
// the argument: Go's "index out of range [3] with length 3", JavaScript's
// "RangeError: Maximum call stack size exceeded".
var reRuntimePanic = guard(`\bindex out of range \[[^\]]*\]( with length \d+)?|slice bounds out of range|maximum call stack size exceeded|rangeerror: invalid array length`, "index out of range", "slice bounds", "maximum call stack", "invalid array length")

// firstMatchOutside is firstMatch skipping matches inside a match of skip.
func firstMatchOutside(segs []segment, re, skip guarded) (string, bool) {
	for _, seg := range segs {
		if !re.hit(seg.lower, seg.hints) {
			continue
		}
		if !skip.hit(seg.lower, seg.hints) {
			if loc := re.re.FindStringIndex(seg.lower); loc != nil {
				return span(seg, loc[0], loc[1]), true
			}
			continue
		}
		bad := skip.re.FindAllStringIndex(seg.lower, -1)
		for _, loc := range re.re.FindAllStringIndex(seg.lower, -1) {
			if !inRanges(loc, bad) {
				return span(seg, loc[0], loc[1]), true
			}
		}
	}
	return "", false
}

// ---- 4. next action --------------------------------------------------------

var (
	reCue = guard(`\b(call|calling|use|using|try|invoke|retry|re-run|rerun|repeat|pass|provide|supply|specify|set|change|include|add|remove|omit|drop|rename|replace|choose|pick|select|send|resend|did you mean|perhaps you meant|instead)\b`, "call", "use", "using", "try", "invoke", "retry", "re-run", "rerun", "repeat", "pass", "provide", "supply",
		"specify", "set", "change", "include", "add", "remove", "omit", "drop", "rename", "replace", "choose", "pick", "select", "send",
		"did you mean", "perhaps you meant", "instead")
	// reHuman marks a sentence whose action the agent cannot execute: a
	// terminal command, a person to contact, a settings page to open.
	reHuman       = regexp.MustCompile(`\b(terminal|command line|command-line|shell|console|npx|npm|pip|pipx|uvx|gcloud|kubectl|brew|sudo|aws configure|az login|gh auth|contact|administrator|admin|support team|help ?desk|open (a|an) (ticket|issue)|check (the|your) (logs|configuration|config|documentation|docs)|settings\s*>|browser|dashboard|log ?in again in)\b|\bexport [a-z_]+=|\$ [a-z]`)
	reValueTarget = regexp.MustCompile(`\b(did you mean|perhaps you meant|use one of|one of)\b\s*:?\s*\S|\b(set|change|update)\b[^.\n]*?\bto\s+["'` + "`" + `]?[\w.-]+|\b(use|try|pass|send)\s+["'` + "`" + `][^"'` + "`" + `]+["'` + "`" + `]`)
	reWaitFor     = guard(`\b(wait|retry after|try again in|try again after|call again in|call again after|retry in)\b[^.\n]*?\b\d+(\.\d+)?\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b`, "wait", "retry after", "try again in", "try again after", "call again in", "call again after", "retry in")
)

// negators precede a cue word that is not an instruction: "Cannot specify
// both head and tail".
var negators = map[string]bool{
	"cannot": true, "can't": true, "not": true, "never": true, "don't": true, "doesn't": true,
	"couldn't": true, "won't": true, "shouldn't": true, "mustn't": true,
}

// negatedAt reports whether the cue at low[i:] follows a negation: "cannot
// use", "unable to call", "failed to pass".
func negatedAt(low string, i int) bool {
	w1 := prevWordApos(low, i)
	if negators[w1] {
		return true
	}
	if w1 == "to" {
		w2 := prevWordApos(low, i-len(w1)-1)
		return w2 == "unable" || w2 == "failed"
	}
	return false
}

// prevWordApos is prevWord allowing an apostrophe inside the word.
func prevWordApos(s string, i int) string {
	if i > len(s) {
		i = len(s)
	}
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	k := j
	for k > 0 && (isIdent(s[k-1]) || s[k-1] == '\'') {
		k--
	}
	return s[k:j]
}

func hasCue(low string) bool {
	if !reCue.possible(low) {
		return false
	}
	prev1, prev2 := "", ""
	for i := 0; i < len(low); {
		if !isWordByte(low[i]) {
			i++
			continue
		}
		j := i
		for j < len(low) && isWordByte(low[j]) {
			j++
		}
		w := low[i:j]
		if inIdentifier(low, i, j) {
			// "pick" in git_cherry_pick, "include" in include_hidden,
			// "set" in config.set: part of a name, not an instruction.
			prev2, prev1 = prev1, ""
			i = j
			for i < len(low) && (isWordByte(low[i]) || low[i] == '_') {
				i++
			}
			continue
		}
		// After a determiner a cue word is a noun: "this call", "the
		// pick", "a retry".
		cue := cueWords[w] && !determiners[prev1] || w == "mean" && prev1 == "you" && prev2 == "did" || w == "meant" && prev1 == "you" && prev2 == "perhaps"
		if cue && !negatedAt(low, i) {
			return true
		}
		prev2, prev1 = prev1, w
		i = j
	}
	return false
}

// inIdentifier reports whether the word low[i:j] is part of an identifier:
// joined to another word by '_', '.', '/' or ':', or to a digit.
func inIdentifier(low string, i, j int) bool {
	joined := func(k int) bool {
		c := low[k]
		return c == '_' || c == '/' || (c == '.' || c == ':') && k+1 < len(low) && k > 0 && isDigitOrLetter(low[k+1]) && isDigitOrLetter(low[k-1])
	}
	if i > 0 && joined(i-1) {
		return true
	}
	return j < len(low) && joined(j)
}

// determiners make the word after them a noun.
var determiners = map[string]bool{
	"the": true, "this": true, "that": true, "a": true, "an": true, "each": true, "every": true, "your": true,
	"my": true, "our": true, "its": true, "next": true, "same": true, "previous": true, "last": true, "first": true, "any": true,
}

// cueWords are the one-word instructions of reCue.
var cueWords = map[string]bool{
	"call": true, "calling": true, "use": true, "using": true, "try": true, "invoke": true, "retry": true,
	"re-run": true, "rerun": true, "repeat": true, "pass": true, "provide": true, "supply": true, "specify": true,
	"set": true, "change": true, "include": true, "add": true, "remove": true, "omit": true, "drop": true,
	"rename": true, "replace": true, "choose": true, "pick": true, "select": true, "send": true, "resend": true,
	"instead": true,
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '\''
}

// sentences splits a segment at sentence ends, newlines and semicolons,
// returning [start, end) offsets.
func sentences(s string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		end := false
		switch c {
		case '\n', ';':
			end = true
		case '.', '!', '?':
			end = i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' || s[i+1] == '\t'
		}
		if end {
			out = appendSentence(out, s, start, i)
			start = i + 1
		}
	}
	return appendSentence(out, s, start, len(s))
}

// appendSentence appends s[i:j] without its surrounding white space.
func appendSentence(out [][2]int, s string, i, j int) [][2]int {
	for i < j && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\r') {
		j--
	}
	if j > i {
		out = append(out, [2]int{i, j})
	}
	return out
}

func gradeNextAction(in *input) (bool, string) {
	var rejected string
	for _, seg := range in.text {
		if !reCue.hit(seg.lower, seg.hints) && !reWaitFor.hit(seg.lower, seg.hints) {
			continue
		}
		for _, se := range sentences(seg.s) {
			s, low := seg.s[se[0]:se[1]], seg.lower[se[0]:se[1]]
			if !strings.ContainsAny(low, "0123456789abcdefghijklmnopqrstuvwxyz") {
				continue
			}
			var wait []int
			if reWaitFor.possible(low) {
				for _, loc := range reWaitFor.re.FindAllStringIndex(low, 4) {
					if !waitIsNoun(low, loc) {
						wait = loc
						break
					}
				}
			}
			if wait == nil && !hasCue(low) {
				continue
			}
			if loc := reHuman.FindStringIndex(low); loc != nil {
				if rejected == "" {
					rejected = fmt.Sprintf("; not executable by the agent: %s", span(seg, se[0], se[1]))
				}
				continue
			}
			if wait != nil {
				return true, span(seg, se[0]+wait[0], se[0]+wait[1])
			}
			for _, t := range in.c.ToolNames {
				if len(t) < 2 {
					continue
				}
				if i := findToken(s, t, 0); i >= 0 {
					return true, span(seg, se[0], se[1])
				}
			}
			for _, p := range in.c.ParamNames {
				if _, _, ok := findName(s, p); ok {
					return true, span(seg, se[0], se[1])
				}
			}
			if loc := reValueTarget.FindStringIndex(low); loc != nil {
				return true, span(seg, se[0], se[1])
			}
		}
	}
	return false, "no executable next action (a tool of this server, an argument to change, a value to use)" + rejected
}

// ---- 5. code ---------------------------------------------------------------

var (
	errnoCodes = map[string]bool{}
	// envSuffixes mark an UPPER_SNAKE token as an environment variable name
	// rather than an error code.
	envSuffixes = []string{"_KEY", "_TOKEN", "_SECRET", "_URL", "_URI", "_PATH", "_DIR", "_HOST", "_PORT", "_ID", "_PASSWORD", "_USER", "_HOME", "_FILE", "_ENDPOINT", "_REGION", "_PROFILE"}
)

func init() {
	for _, c := range strings.Fields(`ENOENT ENOTDIR EISDIR EACCES EPERM EEXIST ENOTEMPTY ETIMEDOUT
		ECONNREFUSED ECONNRESET ECONNABORTED EHOSTUNREACH ENETUNREACH ENOSPC EMFILE EBUSY EINVAL EAI_AGAIN
		ENOTFOUND EPIPE EROFS ELOOP ENAMETOOLONG EXDEV`) {
		errnoCodes[c] = true
	}
}

// codeKeys are JSON keys that carry an error code.
var codeKeys = []string{"code", "errorcode", "errcode", "errortype"}

func gradeCode(in *input) (bool, string) {
	for _, f := range in.fieldsWithKey(codeKeys...) {
		switch v := f.val.(type) {
		case string:
			if v != "" && len(v) <= 64 && !strings.ContainsAny(v, " \t\n") {
				return true, fieldEvidence(f)
			}
		case float64:
			if !jsonrpcReserved(int64(v)) {
				return true, fieldEvidence(f)
			}
		}
	}
	if c := in.r.ErrorCode; c != nil && !jsonrpcReserved(*c) {
		return true, fmt.Sprintf("error.code = %d", *c)
	}
	for _, seg := range in.text {
		underscore := strings.IndexByte(seg.s, '_') >= 0
		if !underscore && !maybeErrno(seg.s) {
			continue
		}
		if !underscore {
			if ev, ok := findErrno(seg); ok {
				return true, ev
			}
			continue
		}
		if i, j, ok := in.findCodeToken(seg); ok {
			return true, span(seg, i, j)
		}
	}
	for _, seg := range in.text {
		if i, j, ok := pydanticType(seg.s); ok {
			return true, span(seg, i, j)
		}
	}
	return false, "no stable machine-readable code"
}

// pydanticType finds the error type of a pydantic validation error, the
// stable code its documentation is keyed by: "Field required
// [type=missing, input_value={...}, input_type=dict]" (the Python SDK's and
// FastMCP's argument errors).
func pydanticType(s string) (int, int, bool) {
	const key = "[type="
	for from := 0; from < len(s); {
		k := strings.Index(s[from:], key)
		if k < 0 {
			return 0, 0, false
		}
		i := from + k + len(key)
		j := i
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] == '_') {
			j++
		}
		if j > i && j < len(s) && (s[j] == ',' || s[j] == ']') {
			return i, j, true
		}
		from = i
	}
	return 0, 0, false
}

// maybeErrno reports whether s has an 'E' followed by three capitals, the
// shape of every errno name.
func maybeErrno(s string) bool {
	for i := strings.IndexByte(s, 'E'); i >= 0 && i+3 < len(s); {
		if isUpper(s[i+1]) && isUpper(s[i+2]) && isUpper(s[i+3]) {
			return true
		}
		j := strings.IndexByte(s[i+1:], 'E')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// findErrno finds a POSIX errno name (ENOENT, ECONNREFUSED) as a token.
func findErrno(seg segment) (string, bool) {
	if !maybeErrno(seg.s) {
		return "", false
	}
	best := -1
	var code string
	for c := range errnoCodes {
		if i := findToken(seg.s, c, 0); i >= 0 && (best < 0 || i < best) {
			best, code = i, c
		}
	}
	if best < 0 {
		return "", false
	}
	return span(seg, best, best+len(code)), true
}

// codeKeywords precede a lower-snake code: "code: unknown_project",
// "error=rate_limited".
var codeKeywords = map[string]bool{"code": true, "error": true, "err": true, "reason": true, "type": true}

// findCodeToken finds a code-shaped token in seg: an UPPER_SNAKE token that
// is not an environment variable name, a POSIX errno name, a namespaced
// "auth/expired_token", or a lower_snake token in code position (at the
// start, after '[', or after code/error/err/reason/type). Names of the
// server's tools and parameters and the value sent are not codes.
func (in *input) findCodeToken(seg segment) (int, int, bool) {
	s, low := seg.s, seg.lower
	var lowerHits [][2]int
	for i := 0; i < len(s); {
		c := s[i]
		if !isSnakeByte(c) {
			i++
			continue
		}
		j := i
		under := false
		for j < len(s) && isSnakeByte(s[j]) {
			under = under || s[j] == '_'
			j++
		}
		tok := s[i:j]
		start := i
		i = j
		if !under || !isLetter(tok[0]) || !wellFormedSnake(low[start:j]) {
			continue
		}
		switch {
		case isUpperSnake(tok):
			if !in.isName(tok) && !hasEnvSuffix(tok) {
				return start, j, true
			}
		case isLowerSnake(low[start:j]):
			lowerHits = append(lowerHits, [2]int{start, j})
		}
	}
	if ev, ok := errnoAt(seg); ok {
		return ev[0], ev[1], true
	}
	for _, h := range lowerHits {
		i, j := h[0], h[1]
		tok := s[i:j]
		if in.isName(tok) || in.isName(low[i:j]) {
			continue
		}
		if k := nsStart(low, i); k >= 0 {
			return k, j, true
		}
		if codePosition(low, i) {
			return i, j, true
		}
	}
	return 0, 0, false
}

func isSnakeByte(c byte) bool { return isDigitOrLetter(c) || c == '_' }
func isLetter(c byte) bool    { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// wellFormedSnake reports whether every '_' in a lowercased token sits
// between two letters or digits.
func wellFormedSnake(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] == '_' && (i == 0 || i+1 == len(t) || t[i-1] == '_' || t[i+1] == '_') {
			return false
		}
	}
	return true
}

func isUpperSnake(t string) bool {
	for i := 0; i < len(t); i++ {
		if c := t[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func isLowerSnake(t string) bool {
	for i := 0; i < len(t); i++ {
		if c := t[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// nsStart returns where a namespaced code "area/name_x" starts when the
// token at i is its name part, or -1: "auth/expired_token", but not a path
// segment such as "/srv/app_data".
func nsStart(low string, i int) int {
	if i < 2 || low[i-1] != '/' {
		return -1
	}
	k := i - 1
	for k > 0 && (low[k-1] >= 'a' && low[k-1] <= 'z' || low[k-1] >= '0' && low[k-1] <= '9') {
		k--
	}
	if k == i-1 || !(low[k] >= 'a' && low[k] <= 'z') {
		return -1
	}
	if k > 0 {
		switch c := low[k-1]; {
		case c == '/' || c == '.' || c == '-' || c == '_' || isDigitOrLetter(c):
			return -1
		}
	}
	return k
}

// codePosition reports whether the token at i stands where a code does: at
// the start of the text (after an optional quote or bracket), right after
// '[', or after a code keyword and an optional ':' or '='.
func codePosition(low string, i int) bool {
	p := i
	if p > 0 && strings.IndexByte("\"'[(", low[p-1]) >= 0 {
		if low[p-1] == '[' {
			return true
		}
		p--
	}
	q := p
	for q > 0 && (low[q-1] == ' ' || low[q-1] == '\t' || low[q-1] == '\n') {
		q--
	}
	if q == 0 {
		return true
	}
	if low[q-1] == ':' || low[q-1] == '=' {
		q--
		for q > 0 && (low[q-1] == ' ' || low[q-1] == '\t') {
			q--
		}
		// A quoted key: "code": "invalid_type" in JSON the grader could
		// not parse (cut off, or embedded mid-text).
		if q > 0 && low[q-1] == '"' {
			q--
		}
	}
	k := q
	for k > 0 && low[k-1] >= 'a' && low[k-1] <= 'z' {
		k--
	}
	if k > 0 && isSnakeByte(low[k-1]) {
		return false
	}
	return codeKeywords[low[k:q]]
}

// errnoAt finds an errno name in seg.
func errnoAt(seg segment) ([2]int, bool) {
	if !maybeErrno(seg.s) {
		return [2]int{}, false
	}
	best := -1
	var code string
	for c := range errnoCodes {
		if i := findToken(seg.s, c, 0); i >= 0 && (best < 0 || i < best) {
			best, code = i, c
		}
	}
	if best < 0 {
		return [2]int{}, false
	}
	return [2]int{best, best + len(code)}, true
}

// jsonrpcReserved reports whether code is in the JSON-RPC reserved range
// (-32768 to -32000): generic transport codes every error carries.
func jsonrpcReserved(code int64) bool { return code >= -32768 && code <= -32000 }

func hasEnvSuffix(tok string) bool {
	for _, s := range envSuffixes {
		if strings.HasSuffix(tok, s) {
			return true
		}
	}
	return false
}

// isName reports whether tok is a name that looks like a code but is not:
// one of the server's tools or parameters, the called tool, the value
// sent, a secret variable's name.
func (in *input) isName(tok string) bool {
	if tok == in.r.Tool || tok == in.r.Param || in.sentType == 's' && tok == in.sent {
		return true
	}
	if in.r.Param != "" && tok == leafName(in.r.Param) {
		return true
	}
	for _, l := range [][]string{in.c.ToolNames, in.c.ParamNames, in.c.Required, in.c.PromptNames} {
		for _, n := range l {
			if n == tok {
				return true
			}
		}
	}
	_, ok := in.c.Canaries[tok]
	return ok
}

// ---- 6. retryable ----------------------------------------------------------

var (
	reNever = guard(`\b(do not|don't|never|must not|should not)\s+(retry|re-try|repeat|try again)\b|\bretry(ing)?\b[^.\n]*?\b(not|never|won't|can't|cannot)\b[^.\n]*?\b(help|succeed|work|fix|change)|\b(not|non)[- ]retr[iy]able\b|\bno (arguments?|retry|retries)\b[^.\n]*?\b(can|will|would)\b|\bwill (always )?fail again\b|\bpermanent (error|failure)\b`, "retry", "retri", "re-try", "repeat", "try again", "permanent", "fail again", "no arg")
	reDelay = guard(`\b(retry|retrying|try again|wait|call again|resets?|available again|back off|backoff|retry-after)\b[^.\n]*?\b\d+(\.\d+)?\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b|\bretry-after:\s*\d+`, "retry", "try again", "wait", "call again", "reset", "available again", "back off", "backoff")
	reDiff  = guard(`\b(retry|try again|call again|call it again|repeat the call|resend|re-send)\b[^.\n]*?\b(with|using)\b|\b(correct|fix|change|adjust|update)\b[^.\n]*?\b(and|then)\b[^.\n]*?\b(retry|try again|call again|resend|repeat)\b|\bcall \S+ again with\b`, "retry", "try again", "call again", "call it again", "repeat", "resend", "re-send", "again with")
)

// firstMatchWhere is firstMatch taking only matches ok accepts (all when
// ok is nil).
func firstMatchWhere(segs []segment, re guarded, ok func(low string, loc []int) bool) (string, bool) {
	for _, seg := range segs {
		if !re.hit(seg.lower, seg.hints) {
			continue
		}
		if ok == nil {
			if loc := re.re.FindStringIndex(seg.lower); loc != nil {
				return span(seg, loc[0], loc[1]), true
			}
			continue
		}
		for _, loc := range re.re.FindAllStringIndex(seg.lower, 4) {
			if ok(seg.lower, loc) {
				return span(seg, loc[0], loc[1]), true
			}
		}
	}
	return "", false
}

// waitIsNoun reports whether a match starting with "wait" uses it as a
// noun ("wait time 5 seconds", "the average wait is 30 s"): a fact, not
// an instruction to wait.
func waitIsNoun(low string, loc []int) bool {
	if !strings.HasPrefix(low[loc[0]:], "wait") {
		return false
	}
	next := nextWord(low, loc[0]+len("wait"))
	switch next {
	case "time", "times", "period", "list", "queue", "state", "status", "duration":
		return true
	}
	switch prevWordApos(low, loc[0]) {
	case "the", "a", "an", "your", "our", "average", "estimated", "expected", "current", "long", "short", "no", "typical":
		return true
	}
	return false
}

// nextWord returns the word starting at the first letter at or after i.
func nextWord(s string, i int) string {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := i
	for j < len(s) && (isIdent(s[j]) || s[j] == '\'') {
		j++
	}
	return s[i:j]
}

// neverAddressed reports whether a "do not retry"/"never retry" match
// tells the agent about this call: not when the server describes its own
// policy ("We never retry failed charges") or the object is something
// other than the call ("do not retry the payment").
func neverAddressed(low string, loc []int) bool {
	m := low[loc[0]:loc[1]]
	neg := false
	for _, p := range []string{"do not ", "don't ", "never ", "must not ", "should not "} {
		if strings.HasPrefix(m, p) {
			neg = true
		}
	}
	if !neg {
		return true
	}
	switch prevWordApos(low, loc[0]) {
	case "we", "i", "they", "server", "system", "service", "it", "which", "that", "who":
		return false
	}
	i := loc[1]
	for i < len(low) && (low[i] == ' ' || low[i] == '\t') {
		i++
	}
	if i == len(low) || strings.IndexByte(".,;:!)-\n", low[i]) >= 0 {
		return true
	}
	w := nextWord(low, i)
	switch w {
	case "it", "again", "later", "with", "until", "unless", "automatically", "immediately", "now", "before", "after", "blindly", "without", "or", "and", "as", "because", "since", "if", "when":
		return true
	case "the", "this", "that":
		switch nextWord(low, i+len(w)) {
		case "call", "request", "tool", "operation", "query", "command", "same", "action", "invocation", "":
			return true
		}
	}
	return false
}

// retryValues are the accepted values of a "retryable" field.
var retryValues = map[string]bool{
	"never": true, "no": true, "false": true, "none": true,
	"after_delay": true, "afterdelay": true, "later": true, "after-delay": true,
	"with_different_arguments": true, "with-different-arguments": true, "withdifferentarguments": true,
	"different_arguments": true, "with_changes": true, "yes_after_delay": true,
}

func gradeRetryable(in *input) (bool, string) {
	hasDelay := ""
	for _, f := range in.fieldsWithKey("retryafterseconds", "retryafter", "retryafterms", "retryinseconds", "retryin", "retryafters", "waitseconds", "resetseconds", "resetafterseconds") {
		if _, ok := f.val.(float64); ok {
			hasDelay = fieldEvidence(f)
			break
		}
	}
	for _, f := range in.fieldsWithKey("retryable", "retriable", "isretryable", "canretry", "retry") {
		switch v := f.val.(type) {
		case string:
			if retryValues[strings.ToLower(v)] {
				return true, fieldEvidence(f)
			}
		case bool:
			if !v {
				return true, fieldEvidence(f)
			}
			if hasDelay != "" {
				return true, fieldEvidence(f) + " with " + hasDelay
			}
		}
	}
	if hasDelay != "" {
		return true, hasDelay
	}
	checks := []struct {
		re guarded
		ok func(low string, loc []int) bool
	}{
		{reNever, neverAddressed},
		{reDelay, func(low string, loc []int) bool { return !waitIsNoun(low, loc) }},
		{reDiff, nil},
	}
	for _, c := range checks {
		if ev, ok := firstMatchWhere(in.text, c.re, c.ok); ok {
			return true, ev
		}
	}
	return false, "does not say whether retrying can help (never / after a stated delay / with different arguments)"
}

// ---- 7. closest matches ----------------------------------------------------

var (
	matchKeys  = []string{"closestmatches", "closest", "suggestions", "suggestion", "didyoumean", "similar", "similarnames", "candidates", "alternatives", "availabletools", "available", "nearest", "matches"}
	reSuggests = guard(`\b(did you mean|perhaps you meant|similar|closest|nearest match|available (tools|prompts|resources|methods|names|ids|projects)|valid (tools|names|ids|options|prompts)|known (tools|names|ids|prompts)|(supported|available|valid|known|allowed|existing) [a-z]+ ?:)\s*[:\-]?\s*["'`+"`"+`\[]?\w`, "did you mean", "perhaps you meant", "similar", "closest", "nearest match", "available", "valid", "known", "supported", "allowed", "existing")
)

// isMatchKey reports whether a JSON key carries alternatives to an unknown
// name: closest_matches, suggestions, valid_ids, available_tools, ...
func isMatchKey(k string) bool {
	for _, m := range matchKeys {
		if k == m {
			return true
		}
	}
	for _, p := range []string{"valid", "available", "supported", "known", "allowed", "existing"} {
		if strings.HasPrefix(k, p) && len(k) > len(p) {
			return true
		}
	}
	return false
}

// mcpMethods are the request methods a client may send; a response to an
// unknown method that names one offers a match.
var mcpMethods = []string{
	"initialize", "ping", "tools/list", "tools/call", "prompts/list", "prompts/get",
	"resources/list", "resources/read", "resources/templates/list", "resources/subscribe",
	"resources/unsubscribe", "completion/complete", "logging/setLevel", "server/discover",
	"tasks/get", "tasks/list", "tasks/cancel", "tasks/result",
}

func gradeClosestMatches(in *input) (bool, string) {
	for _, f := range in.fields {
		if !isMatchKey(f.key) {
			continue
		}
		switch v := f.val.(type) {
		case string:
			if v != "" {
				return true, fieldEvidence(f)
			}
		case int:
			if v > 0 {
				return true, fieldEvidence(f)
			}
		}
	}
	for _, seg := range in.text {
		if !reSuggests.hit(seg.lower, seg.hints) {
			continue
		}
		if loc := reSuggests.re.FindStringIndex(seg.lower); loc != nil {
			return true, span(seg, loc[0], sentenceEnd(seg.s, loc[1]))
		}
	}
	if ev, ok := realNameMention(in); ok {
		return true, ev
	}
	return false, "offers no closest matches"
}

// sentenceEnd returns the end of the sentence containing index i, at most
// 80 bytes on.
func sentenceEnd(s string, i int) int {
	for _, se := range sentences(s) {
		if se[0] < i && i <= se[1] {
			if se[1]-i > 80 {
				return i + 80
			}
			return se[1]
		}
	}
	return i
}

// realNameMention finds a name the server really has, other than the one
// sent, in an error about an unknown name.
func realNameMention(in *input) (string, bool) {
	var names []string
	switch in.r.Kind {
	case KindUnknownTool:
		names = in.c.ToolNames
	case KindUnknownPrompt:
		names = in.c.PromptNames
	case KindUnknownResource:
		names = in.c.ResourceURIs
	case KindUnknownMethod:
		names = mcpMethods
	default:
		return "", false
	}
	for _, seg := range in.text {
		for _, n := range names {
			if n == "" || n == in.sent {
				continue
			}
			if i := findToken(seg.s, n, 0); i >= 0 {
				return span(seg, i, i+len(n)), true
			}
		}
	}
	return "", false
}

// ---- 9. bounded ------------------------------------------------------------

// measure returns the token estimate and the largest enumeration.
func measure(in *input) (tokens, enum int) {
	n := 0
	for _, seg := range in.raw {
		n += len(seg.s)
	}
	tokens = (n + BytesPerToken - 1) / BytesPerToken
	enum = in.maxArray
	for i, seg := range in.raw {
		// A parsed JSON payload enumerates its arrays (counted in
		// maxArray); its lines are layout: pretty-printed, three
		// alternatives take fifteen lines.
		if i < len(in.rawJSON) && in.rawJSON[i] {
			continue
		}
		if k := itemLines(seg.s); k > enum {
			enum = k
		}
	}
	for _, seg := range in.text {
		if k := longestCommaList(seg.s); k > enum {
			enum = k
		}
	}
	var names []string
	switch in.r.Kind {
	case KindUnknownPrompt:
		names = in.c.PromptNames
	case KindUnknownResource:
		names = in.c.ResourceURIs
	default:
		names = in.c.ToolNames
	}
	if len(names) > MaxEnumeration && len(names) > enum {
		k := 0
		for _, nm := range names {
			for _, seg := range in.text {
				if findToken(seg.s, nm, 0) >= 0 {
					k++
					break
				}
			}
		}
		if k > enum {
			enum = k
		}
	}
	return tokens, enum
}

// itemLines counts the non-empty lines of s that can be list items, when
// there are more than MaxEnumeration lines at all: a line holding only JSON
// punctuation ("{", "],") or a "key": value member of JSON the grader could
// not parse is layout, not an item. It reads at most maxScanBytes, without
// allocating: a 10 MB response is over the token budget anyway, and its
// first 64 KiB say whether it enumerates.
func itemLines(s string) int {
	if len(s) > maxScanBytes {
		s = s[:maxScanBytes]
	}
	if strings.Count(s, "\n") < MaxEnumeration {
		return 0
	}
	k := 0
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if isItemLine(strings.TrimSpace(line)) {
			k++
		}
	}
	return k
}

func isItemLine(l string) bool {
	if l == "" {
		return false
	}
	if strings.Trim(l, "{}[],") == "" {
		return false
	}
	if l[0] == '"' {
		if j := strings.IndexByte(l[1:], '"'); j >= 0 && strings.HasPrefix(strings.TrimLeft(l[j+2:], " \t"), ":") {
			return false
		}
	}
	return true
}

// longestCommaList counts the items of the longest comma-separated list in
// one line of s ("Supported units: m, km, cm, ...").
func longestCommaList(s string) int {
	best := 0
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		// Fewer than six items is prose, not an enumeration.
		if k := strings.Count(line, ",") + 1; k > 5 && k > best {
			best = k
		}
	}
	return best
}

func gradeBounded(tokens, enum int) (bool, string) {
	switch {
	case tokens > MaxErrorTokens:
		return false, fmt.Sprintf("~%d tokens, over the %d-token budget", tokens, MaxErrorTokens)
	case enum > MaxEnumeration:
		return false, fmt.Sprintf("enumerates %d items (more than %d); return the nearest few instead", enum, MaxEnumeration)
	}
	return true, fmt.Sprintf("~%d tokens, largest enumeration %d", tokens, enum)
}
