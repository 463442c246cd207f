package scoring

import (
	"fmt"
	"strings"
)

// Rubric element 4, next action (docs/rubric.md).

var (
	reCue = guard(`\b(call|calling|use|using|try|invoke|retry|re-run|rerun|repeat|pass|provide|supply|specify|set|change|include|add|remove|omit|drop|rename|replace|choose|pick|select|send|resend|did you mean|perhaps you meant|instead|make sure|please)\b`, "call", "use", "using", "try", "invoke", "retry", "re-run", "rerun", "repeat", "pass", "provide", "supply",
		"specify", "set", "change", "include", "add", "remove", "omit", "drop", "rename", "replace", "choose", "pick", "select", "send",
		"did you mean", "perhaps you meant", "instead", "make sure", "please")
	// reHuman marks a sentence whose action the agent cannot execute: a
	// terminal command, a person to contact, a settings page to open.
	reHuman = lazy(`\b(terminal|command line|command-line|shell|console|npx|npm|pip|pipx|uvx|gcloud|kubectl|brew|sudo|aws configure|az login|gh auth|contact|administrator|admin|support team|help ?desk|open (a|an) (ticket|issue)|check (the|your) (logs|configuration|config|documentation|docs)|settings\s*>|browser|dashboard|log ?in again in)\b|\bexport [a-z_]+=|\$ [a-z]`)
	// reSetEnv is an environment variable to set: the user's configuration,
	// not a call ("Set GOOGLE_DRIVE_OAUTH_CREDENTIALS to the path ...",
	// errors-v12).
	reSetEnv      = lazy(`\b(?:[Ss]et|SET|[Ee]xport|[Dd]efine)\s+[A-Z][A-Z0-9]*_[A-Z0-9_]+\b`)
	reValueTarget = lazy(`\b(did you mean|perhaps you meant|use one of|one of)\b\s*:?\s*\S|\b(set|change|update)\b[^.\n]*?\bto\s+["'` + "`" + `]?[\w.-]+|\b(use|try|pass|send)\s+["'` + "`" + `][^"'` + "`" + `]+["'` + "`" + `]`)
	// reListCall is a listing method named as the call to make: "Request
	// tools/list without a cursor", "call prompts/list". Compiled on first
	// use (lazyRE), like the guarded expressions.
	reListCall = lazy(`\b(call|request|send|use|invoke|retry|repeat|re-request)\s+(the\s+)?[` + "`" + `'"]?(tools|prompts|resources)/list\b`)
	reWaitFor  = guard(`\b(wait|retry after|try again in|try again after|call again in|call again after|retry in)\b[^.\n]*?\b\d+(\.\d+)?\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b`, "wait", "retry after", "try again in", "try again after", "call again in", "call again after", "retry in")
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
	i = min(i, len(s))
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

func hasCue(low string) bool { return hasCueExcept(low, nil) }

// hasCueExcept is hasCue where the words in names (the called tool's name,
// the server's tool and argument names) are never cues: "Invalid arguments
// for tool add" names the tool add, it does not say to add anything.
func hasCueExcept(low string, names map[string]bool) bool {
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
		// After a subordinator it opens a condition, not an instruction:
		// "When using projectSlug, a branch must also be specified".
		cue := cueWords[w] && !determiners[prev1] && !subordinators[prev1] && !names[w] || w == "sure" && prev1 == "make" || w == "mean" && prev1 == "you" && prev2 == "did" || w == "meant" && prev1 == "you" && prev2 == "perhaps"
		if cue && !negatedAt(low, i) {
			return true
		}
		prev2, prev1 = prev1, w
		i = j
	}
	return false
}

// objectOfCue reports whether the argument name, an ordinary word or not,
// is the object of an instruction in the sentence low: right after the cue
// word, or after "with" or a determiner that follows it ("Provide query as
// a non-empty string", "Retry with limit between 1 and 100", "Omit the
// cursor", "provide each PMID separately").
func objectOfCue(low, name string) bool {
	name = strings.ToLower(name)
	for from := 0; ; {
		i := findToken(low, name, from)
		if i < 0 {
			return false
		}
		from = i + 1
		if inIdentifier(low, i, i+len(name)) {
			continue
		}
		w := prevWord(low, i)
		at := i
		if w == "with" || determiners[w] {
			at = strings.LastIndex(low[:at], w)
			w = prevWord(low, at)
		} else if w != "" && !cueWords[w] && !negators[w] {
			// One noun between the determiner and the name: "Pass the
			// issue number, e.g. 3".
			at2 := strings.LastIndex(low[:at], w)
			if d := prevWord(low, at2); d == "the" || d == "a" || d == "an" {
				at = strings.LastIndex(low[:at2], d)
				w = prevWord(low, at)
			}
		}
		if cueWords[w] && w != "instead" && !negatedAt(low, at-len(w)-1) && !subordinators[prevWord(low, at-len(w)-1)] {
			return true
		}
		// "Make sure the content is passed as a string" (errors-v11).
		if w == "sure" && prevWord(low, at-len(w)-1) == "make" {
			return true
		}
	}
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

// subordinators open a clause in which the next cue word is a condition:
// "when using", "if calling", "before calling" (errors-v9).
var subordinators = map[string]bool{
	"when": true, "whenever": true, "while": true, "if": true, "unless": true, "before": true, "after": true, "since": true,
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

// ownNames returns, lower-cased, the names a response may mention without
// instructing: the called tool's name and the server's tool and argument
// names (issue 25 item 1).
func (in *input) ownNames() map[string]bool {
	if in.names != nil {
		return in.names
	}
	in.names = map[string]bool{}
	for _, list := range [][]string{in.c.ToolNames, in.c.ParamNames, {in.r.Tool}} {
		for _, n := range list {
			if n != "" {
				in.names[asciiLower(n)] = true
			}
		}
	}
	return in.names
}

// listCall finds a listing method named as the next call in the sentence
// low, not negated, of a feature the server has: tools/list always (it
// serves tools), prompts/list and resources/list when it declared them or
// its capabilities are unknown.
func (in *input) listCall(low string) []int {
	if !strings.Contains(low, "s/list") {
		return nil
	}
	for _, m := range reListCall.FindAllStringSubmatchIndex(low, 4) {
		if negatedAt(low, m[0]) {
			continue
		}
		if feature := low[m[6]:m[7]]; feature != "tools" {
			if yes, known := in.c.declares(feature); known && !yes {
				continue
			}
		}
		return m[:2]
	}
	return nil
}

func gradeNextAction(in *input) (bool, string) {
	var rejected string
	for _, seg := range in.text {
		if !reCue.hit(seg.lower, seg.hints) && !reWaitFor.hit(seg.lower, seg.hints) && !strings.Contains(seg.lower, "s/list") {
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
			list := in.listCall(low)
			if t := in.pleaseTool(low); t != "" {
				// "Please login first." with a login tool: the call to
				// make (errors-v11).
				return true, span(seg, se[0], se[1])
			}
			if wait == nil && list == nil && !hasCueExcept(low, in.ownNames()) {
				continue
			}
			if loc := reHuman.FindStringIndex(low); loc != nil || reSetEnv.MatchString(s) {
				if rejected == "" {
					rejected = fmt.Sprintf("; not executable by the agent: %s", span(seg, se[0], se[1]))
				}
				continue
			}
			if wait != nil {
				return true, span(seg, se[0]+wait[0], se[0]+wait[1])
			}
			if list != nil {
				return true, span(seg, se[0]+list[0], se[0]+list[1])
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
				if _, _, ok := findName(s, p); ok || objectOfCue(low, p) {
					return true, span(seg, se[0], se[1])
				}
			}
			// The probed argument, or the cursor of a listing, as the
			// object of the instruction: "Omit the cursor to start from
			// the first page".
			if in.r.Param != "" && objectOfCue(low, in.r.Param) {
				return true, span(seg, se[0], se[1])
			}
			for _, loc := range reValueTarget.FindAllStringIndex(low, 4) {
				// "one of these methods", "one of the following": a
				// reference, not a value (errors-v12).
				if m := low[loc[0]:]; strings.Contains(m[:min(len(m), 16)], "one of") {
					rest := strings.TrimLeft(low[loc[0]+strings.Index(m, "one of")+len("one of"):], " :")
					if strings.HasPrefix(rest, "these") || strings.HasPrefix(rest, "those") || strings.HasPrefix(rest, "the following") || strings.HasPrefix(rest, "them") {
						continue
					}
				}
				return true, span(seg, se[0], se[1])
			}
		}
	}
	return false, "no executable next action (a tool of this server, an argument to change, a value to use)" + rejected
}

// pleaseTool returns the tool of this server (other than the one called)
// named as the verb of a request in the sentence low: "Please login first"
// when the server has a login tool. It returns "" otherwise.
func (in *input) pleaseTool(low string) string {
	for from := 0; ; {
		i := findToken(low, "please", from)
		if i < 0 {
			return ""
		}
		from = i + 1
		j := i + len("please")
		for j < len(low) && low[j] == ' ' {
			j++
		}
		k := j
		for k < len(low) && (isIdent(low[k])) {
			k++
		}
		w := low[j:k]
		if len(w) < 3 || negatedAt(low, i) {
			continue
		}
		for _, t := range in.c.ToolNames {
			if t != in.r.Tool && asciiLower(t) == w {
				return t
			}
		}
	}
}
