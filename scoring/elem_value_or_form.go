package scoring

import (
	"slices"
	"strings"
)

// Rubric element 3, value or form (docs/rubric.md).

var (
	reTypeForm  = guard(`\b(expected|expecting|expects|must be|should be|needs to be|has to be|want|wants|required to be|not a valid|is not an?|invalid|as an?|a valid)\s+(an?\s+)?["'`+"`"+`]?(string|number|integer|int|float|boolean|bool|array|list|object|null|uri|url|date|datetime|date-time|email|uuid|json)\b`, "expect", "must be", "should be", "needs to be", "has to be", "want", "required to be", "not a valid", "is not a", "invalid", "as a", "a valid")
	reRecvType  = guard(`\b(received|got|given|found|has type|is of type)\s+(an?\s+)?["'`+"`"+`]?(string|number|integer|boolean|array|object|null|undefined|float|int|bool|list)\b`, "received", "got", "given", "found", "has type", "is of type")
	reEnumForm  = guard(`\b(one of|any of|must be either|valid values|allowed values|possible values|valid options|allowed options|supported values|accepted values|permitted values)\b|expected\s+['"`+"`"+`][^'"`+"`"+`]+?['"`+"`"+`]\s*(\||,|or)`, "one of", "any of", "either", "valid values", "allowed values", "possible values", "valid options", "allowed options", "supported values", "accepted values", "permitted values", "expected")
	reRange     = guard(`\b(less than|greater than|more than|fewer than|at least|at most|no more than|no less than|not exceed|exceeds?|between -?\d+(\.\d+)? and|maximum|minimum|up to -?\d|too (large|small|big|long|short|many|few)|out of range)\b|[<>]=\s*-?\d`, "less than", "greater than", "more than", "fewer than", "at least", "at most", "no more than", "no less than", "exceed", "between", "maximum", "minimum", "up to", "too ", "out of range", ">=", "<=")
	rePattern   = guard(`\b(pattern|regular expression|regex|must match|does not match|doesn't match|format|invalid (url|uri|email|date|uuid|path|identifier))\b`, "pattern", "regular expression", "regex", "match", "format", "invalid")
	reLength    = guard(`\b(\d+ (characters?|code points|chars|bytes)|too long|too short|length)\b`, "character", "code point", "chars", "bytes", "too long", "too short", "length")
	reConstr    = guard(`\b(cannot specify both|mutually exclusive|only one of|cannot be combined|not both|outside (the )?allowed|not within|must be (within|inside|under))\b`, "both", "mutually exclusive", "only one of", "cannot be combined", "outside", "not within", "must be")
	reMissing   = guard(`\b(required|missing|not provided|must be (provided|specified|present|supplied|set)|is absent|no value)\b`, "required", "missing", "not provided", "must be", "absent", "no value")
	reUnknProp  = guard(`\b(unrecognized|unrecognised|unexpected|unknown|additional|extra|not allowed|not permitted|invalid)\s+(key|keys|property|properties|field|fields|param|parameter|parameters|argument|arguments|option|options)\b|\b(key|property|field|argument|parameter)s?\b[^.\n]*?\b(is |are )?(not allowed|not permitted|unrecognized|unexpected|unknown|not supported)\b`, "unrecognized", "unrecognised", "unexpected", "unknown", "additional", "extra", "not allowed", "not permitted", "invalid", "not supported")
	reCountForm = guard(`\b(expected|expecting|must have|should have|requires|got)\s+(at least |at most |exactly )?\d+\b`, "expect", "must have", "should have", "requires", "got ")
	// reStatedForm: a permitted form stated in words rather than by type,
	// enum, range or pattern: "Only .drawio and .xml files are supported",
	// "Path '12345' is not absolute", "must start with /" (issue 25 item 3),
	// "must be a numeric identifier", a quoted example ("e.g. \"13054692\"").
	reStatedForm = guard(`\bonly\b[^\n]{1,80}?\b(are|is)\s+(supported|allowed|accepted|permitted|valid)\b|\b(is not|isn't|must be|should be|needs to be)\s+(an?\s+)?(absolute|relative)\b|\b(must|should) (start|begin|end) with\b|\b(supported|allowed|accepted|valid) (file )?(types|extensions|formats)\b|\b(must|should|needs to) be (an? )?(numeric|alphanumeric|positive|non-negative|nonnegative|negative|whole|non-empty|nonempty|lowercase|lower-case|uppercase|upper-case|hexadecimal|hex|decimal|ascii)\b|(\be\.g\.|\bfor example)\s*[:,]?\s*["'`+"`"+`]\S|\bexample\s*:\s*\S|\b(must|should) (be|come) from\b`, "example", "be from", "come from", "only", "absolute", "relative", "start with", "begin with", "end with", "types", "extensions", "formats", "numeric", "positive", "negative", "whole", "empty", "lowercase", "lower-case", "uppercase", "upper-case", "hex", "decimal", "ascii", "e.g.", "for example")
	reNameList   = guard(`\b(available|valid|known|supported|existing) (tools|prompts|resources|methods|names|ids|values|uris)\b|\b(available|valid|known|supported|allowed|accepted) [a-z]+ (are|is) ?:|\bavailable ?:`, "available", "valid", "known", "supported", "existing", "allowed", "accepted")
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
	reExpectedList = lazy(`expected\s+['"` + "`" + `][^'"` + "`" + `]+?['"` + "`" + `]\s*(\||,|or)`)
)

// rangePhrases are reRange's whole-word alternatives; reRangeRest holds
// the ones with numbers.
var (
	rangePhrases = phrases{"less than", "greater than", "more than", "fewer than", "at least", "at most", "no more than", "no less than",
		"not exceed", "exceed", "exceeds", "maximum", "minimum", "too large", "too small", "too big", "too long", "too short",
		"too many", "too few", "out of range"}
	reRangeRest = lazy(`\b(between -?\d+(\.\d+)? and|up to -?\d)\b|[<>]=\s*-?\d`)
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
	if ev, ok := firstMatchOutside(in.text, reRecvType, reRuntimePanic); ok {
		return ev, true
	}
	if missingKinds[in.r.Kind] {
		// For a missing argument "required" states the received value:
		// nothing, and so does "address=undefined" (JavaScript's
		// rendering of an absent value, errors-v11).
		if ev, ok := in.undefinedArg(); ok {
			return ev, true
		}
		if ev, ok := in.missingStated(); ok {
			return ev, true
		}
	}
	return "", false
}

// notArgRequired precede "required" or "missing" when what is missing is
// not an argument: "Authentication required", "credentials missing".
var notArgRequired = map[string]bool{
	"authentication": true, "authorization": true, "login": true, "credentials": true, "credential": true,
	"permission": true, "permissions": true, "subscription": true, "payment": true, "token": true, "key": true, "scope": true,
}

// missingStated finds "required" or "missing" said of the argument the
// call left out (errors-v12): not of authentication ("Authentication
// required"), and not in a sentence that names another argument of the
// tool and none of the missing ones ("Missing or invalid boardId" to a
// call that left out name).
func (in *input) missingStated() (string, bool) {
	names, _ := paramCandidates(in.r, in.c)
	for _, seg := range in.text {
		if !reMissing.hit(seg.lower, seg.hints) || reRuntimePanic.hit(seg.lower, seg.hints) {
			continue
		}
		for _, se := range sentences(seg.s) {
			low := seg.lower[se[0]:se[1]]
			loc := reMissing.re.FindStringIndex(low)
			if loc == nil {
				continue
			}
			if w := prevWord(low, loc[0]); notArgRequired[w] {
				continue
			}
			if in.namesOtherParam(seg.s[se[0]:se[1]], names) {
				continue
			}
			return span(seg, se[0]+loc[0], se[0]+loc[1]), true
		}
	}
	return "", false
}

// namesOtherParam reports whether the sentence s names an argument of the
// tool other than names, and none of names.
func (in *input) namesOtherParam(s string, names []string) bool {
	for _, n := range names {
		if _, _, ok := findName(s, n); ok {
			return false
		}
		if in.listedWithParam(s, n) >= 0 {
			return false
		}
	}
	for _, p := range in.c.ParamNames {
		if slices.Contains(names, p) || len(p) < 3 {
			continue
		}
		if _, _, ok := findName(s, p); ok && distinctive(p) {
			return true
		}
	}
	return false
}

func formStated(in *input) (string, bool) {
	if ev, ok := filledField(in, formKeys...); ok {
		return ev, true
	}
	// Cheapest first: the first that matches decides. The enum and pattern
	// expressions are mostly whole-word phrases, found by string search;
	// as regexps they cost ten times the others.
	res := []guarded{reTypeForm, reNameList, reLength, reConstr, reCountForm, reStatedForm}
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

// undefinedArg finds the missing argument rendered as absent next to its
// name: "address=undefined" in an upstream URL, "address: undefined"
// (JavaScript's rendering of a value never given; errors-v11).
func (in *input) undefinedArg() (string, bool) {
	names, _ := paramCandidates(in.r, in.c)
	for _, seg := range in.text {
		if !strings.Contains(seg.lower, "undefined") {
			continue
		}
		for _, n := range names {
			for _, sep := range []string{"=", ": ", ":"} {
				pat := asciiLower(n) + sep + "undefined"
				if i := findToken(seg.lower, pat, 0); i >= 0 {
					return span(seg, i, i+len(pat)), true
				}
			}
		}
	}
	return "", false
}
