package scoring

import (
	"fmt"
	"strings"

	"github.com/mcpvet/mcpvet/internal/tokens"
)

// Rubric element 9, bounded (docs/rubric.md).

// maxTokenBytes is the most of a response counted token by token; the rest
// is estimated at the rate of the counted part. 64 KiB is over a hundred
// times the token budget, so the estimate never decides bounded, and a
// 10 MB response costs one 64 KiB count.
const maxTokenBytes = 64 << 10

// countTokens returns the o200k_base tokens of the payloads as the model
// sees them (text, error message and data, structured content), and
// whether part was estimated. A payload of at most MaxErrorTokens bytes
// cannot be over the budget (a token is at least one byte) but is counted
// all the same: the count is reported.
func countTokens(in *input) (n int, estimated bool) {
	for _, seg := range in.raw {
		s := seg.s
		if len(s) > maxTokenBytes {
			cut := maxTokenBytes
			for cut > 0 && s[cut]&0xC0 == 0x80 {
				cut--
			}
			k, _ := tokens.Count(s[:cut])
			n += k + int(float64(k)*float64(len(s)-cut)/float64(cut)+0.5)
			estimated = true
			continue
		}
		k, est := tokens.Count(s)
		n += k
		estimated = estimated || est
	}
	return n, estimated
}

// measure returns the token count and the largest enumeration.
func measure(in *input) (n, enum int) {
	n, _ = countTokens(in)
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
	return n, enum
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

func gradeBounded(n, enum int) (bool, string) {
	switch {
	case n > MaxErrorTokens:
		return false, fmt.Sprintf("%d %s tokens, over the %d-token budget", n, tokens.Encoding, MaxErrorTokens)
	case enum > MaxEnumeration:
		return false, fmt.Sprintf("enumerates %d items (more than %d); return the nearest few instead", enum, MaxEnumeration)
	}
	return true, fmt.Sprintf("%d %s tokens, largest enumeration %d", n, tokens.Encoding, enum)
}
