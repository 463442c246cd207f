package scoring

import (
	"fmt"
	"strings"
)

// Rubric element 9, bounded (docs/rubric.md).

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
		enum = max(enum, k)
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
