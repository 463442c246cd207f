package scoring

import (
	"slices"
	"strings"
)

// Rubric element 7, closest matches (docs/rubric.md).

var (
	matchKeys  = []string{"closestmatches", "closest", "suggestions", "suggestion", "didyoumean", "similar", "similarnames", "candidates", "alternatives", "availabletools", "available", "nearest", "matches"}
	reSuggests = guard(`\b(did you mean|perhaps you meant|similar|closest|nearest match|available (tools|prompts|resources|methods|names|ids|projects)|valid (tools|names|ids|options|prompts)|known (tools|names|ids|prompts)|(supported|available|valid|known|allowed|existing) [a-z]+( [a-z]+)? ?:|available ?:|(supported|available|valid|known|allowed|existing) [a-z]+ (are|is|in "?[\w./-]+"?) ?:|(might|may) be relevant\b[^:\n]{0,40}:)\s*[:\-]?\s*["'`+"`"+`\[]?\w`, "did you mean", "perhaps you meant", "similar", "closest", "nearest match", "available", "valid", "known", "supported", "allowed", "existing", "relevant")
)

// isMatchKey reports whether a JSON key carries alternatives to an unknown
// name: closest_matches, suggestions, valid_ids, available_tools, ...
func isMatchKey(k string) bool {
	if slices.Contains(matchKeys, k) {
		return true
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

// ToolMentionCredit is the share of closest_matches' weight earned by an
// answer to an unknown id that names another tool of the server instead of
// the ids themselves ("Call the list-connections tool to see the active
// connections"): the way to the alternatives costs the agent a call, and
// perhaps a full enumeration, where two closest matches cost ~25 tokens.
const ToolMentionCredit = 0.5

// gradeClosestMatches grades element 7 and returns the share of its weight
// earned: 1 for alternatives offered, [ToolMentionCredit] for an unknown
// id answered with another tool of the server.
func gradeClosestMatches(in *input) (bool, float64, string) {
	pass, ev := offersMatches(in)
	if pass {
		return true, 1, ev
	}
	if in.r.Kind == KindUnknownID {
		for _, seg := range in.text {
			for _, n := range in.c.ToolNames {
				if n == "" || n == in.r.Tool {
					continue
				}
				if i := findToken(seg.s, n, 0); i >= 0 {
					return true, ToolMentionCredit, span(seg, i, i+len(n)) + " (a tool to find the ids, not the ids)"
				}
			}
		}
	}
	return false, 0, ev
}

func offersMatches(in *input) (bool, string) {
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
