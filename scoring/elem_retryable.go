package scoring

import (
	"strings"
)

// Rubric element 6, retryable (docs/rubric.md).

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
