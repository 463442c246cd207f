package scoring

import (
	"encoding/json"
	"strings"
)

// A success result whose text reports the failure (errors-v9, issue 25).
//
// A tools/call result without isError: true is success to the client, so
// a server that writes "Unknown tool: x" or {"error": "..."} into one has
// put its failure on the wrong channel. But the model reads the text: the
// background text's "It sees whatever the client turned the response into"
// is the content block, and "whatever the server knew at the moment of
// failure ... is discarded unless it was written into that text". Such a
// text was written, so the grader reads it like any error's: the channel
// fails (×[WrongChannelFactor], as for a JSON-RPC error the model may not
// be shown), and param, value_or_form, next_action, code, retryable and
// closest_matches are judged on what it says. A success result whose text
// does not read as a failure is still `accepted` and scores 0 (the gate):
// "Echo: hi" for an unknown property is the tool working, not an error.

// failureStatus matches a "status" (or "state", "result") value that names
// a failure: "error", "failed", or a lower_snake code with such a word
// ("task_not_found", "permission_denied").
var failureStatus = lazy(`^(error|errors|failed|failure|fail|not_found|notfound)$|(^|_)(error|failed|failure|not_found|invalid|denied|forbidden|unauthorized)(_|$)`)

// failureHead matches the head of a plain text that reports a failure:
// "Error: ...", "Failed to ...", "Unknown tool: x", "Missing required
// arguments: ...", "Invalid primitives: ...", "Command failed: ...",
// "No SOURCE_MAP.json found for ..." (errors-v10: any "Invalid X", and "No
// X found").
var failureHead = lazy(`^(?:[*>\s]*)(?:(?:mcp )?error\b|failed\b|failure\b|command failed\b|unknown (?:tool|prompt|resource|method|argument|parameter)s?\b|missing required\b|invalid [a-z]|could not\b|cannot\b|unable to\b|no [^\n]{1,60}?\b(?:found|exists?)\b)`)

// failureSentence matches a first sentence that reports a failure
// anywhere in it (errors-v10): 'Path "docs/x" not found', 'Migration "v9"
// does not exist', "You need to register for the course first".
var failureSentence = lazy(`\b(?:not found|does not exist|do not exist|no such)\b|\b(?:you need to|you must|please)\b[^.\n]{0,80}\bfirst\b`)

// reportsFailure reports whether r, a success result, says in its text that
// the call failed: a JSON object with a non-empty "error" (or "errors"), a
// "status" naming a failure, or "success"/"ok" false; or a text whose first
// line begins like an error.
func reportsFailure(r *Response) bool {
	if r.Class != ClassAccepted || r.Method != "tools/call" {
		return false
	}
	t := strings.TrimSpace(r.Text)
	if t == "" || len(t) > maxParseBytes {
		return false
	}
	if t[0] == '{' {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(t), &obj) != nil {
			return false
		}
		return failureObject(obj)
	}
	line := firstContentLine(t)
	low := asciiLower(line)
	if failureHead.Regexp().MatchString(low) {
		return true
	}
	sentence, _, _ := strings.Cut(low, ". ")
	return failureSentence.Regexp().MatchString(sentence)
}

// firstContentLine is the first line of t that is neither blank nor a
// Markdown heading: a server that answers in Markdown puts the name of
// what was asked for in a heading and the failure under it ("## docs/x",
// then 'Path "docs/x" not found.').
func firstContentLine(t string) string {
	for rest := t; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		return line
	}
	return ""
}

// failureObject reports whether a JSON object's own members report a
// failure.
func failureObject(obj map[string]json.RawMessage) bool {
	for k, raw := range obj {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		switch normKey(k) {
		case "error", "errors", "errormessage":
			switch x := v.(type) {
			case string:
				if strings.TrimSpace(x) != "" {
					return true
				}
			case map[string]any:
				if len(x) > 0 {
					return true
				}
			case []any:
				if len(x) > 0 {
					return true
				}
			case bool:
				if x {
					return true
				}
			}
		case "status", "state", "result":
			if s, ok := v.(string); ok && failureStatus.Regexp().MatchString(asciiLower(strings.TrimSpace(s))) {
				return true
			}
		case "success", "ok":
			if b, ok := v.(bool); ok && !b {
				return true
			}
		}
	}
	return false
}
