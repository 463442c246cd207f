package probe

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// A prefilter for the slots of the intent grammar: the lower-case
// literals of which every match of a slot contains at least one, found
// from the expression's syntax tree (a small version of RE2's prefilter).
// A sentence without any of them is not run through the expression:
// most sentences of honest text fail every rule on this check alone.

// prefilter is the literal set of one expression; nil means no literal
// is certain and the expression must always run.
type prefilter []string

func newPrefilter(re *regexp.Regexp) prefilter {
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	return requiredLiterals(t.Simplify())
}

// requiredLiterals returns literals one of which every match contains,
// or nil when there is no such set of literals of at least two bytes.
func requiredLiterals(t *syntax.Regexp) prefilter {
	switch t.Op {
	case syntax.OpLiteral:
		s := strings.ToLower(string(t.Rune))
		if len(s) < 2 {
			return nil
		}
		return prefilter{s}
	case syntax.OpCharClass:
		// A small class of characters of other scripts (an alternation
		// of one-character words such as 把|将) is a set of literals.
		var out prefilter
		for i := 0; i+1 < len(t.Rune); i += 2 {
			if t.Rune[i] < 0x80 || t.Rune[i+1]-t.Rune[i] > 16 {
				return nil
			}
			for r := t.Rune[i]; r <= t.Rune[i+1]; r++ {
				out = append(out, strings.ToLower(string(r)))
			}
		}
		return out
	case syntax.OpCapture:
		return requiredLiterals(t.Sub[0])
	case syntax.OpPlus:
		return requiredLiterals(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return requiredLiterals(t.Sub[0])
		}
		return nil
	case syntax.OpConcat:
		return bestOf(t.Sub)
	case syntax.OpAlternate:
		var out prefilter
		for _, s := range t.Sub {
			p := requiredLiterals(s)
			if p == nil {
				return nil
			}
			out = append(out, p...)
		}
		return out
	}
	return nil
}

// bestOf picks, among the parts of a concatenation, the literal set
// whose shortest literal is longest: the most selective one.
func bestOf(subs []*syntax.Regexp) prefilter {
	var best prefilter
	bestLen := 0
	for _, s := range subs {
		p := requiredLiterals(s)
		if p == nil {
			continue
		}
		short := len(p[0])
		for _, l := range p {
			short = min(short, len(l))
		}
		if best == nil || short > bestLen {
			best, bestLen = p, short
		}
	}
	return best
}

// admits reports whether lower (a lower-cased text) may match.
func (p prefilter) admits(lower string) bool {
	if p == nil {
		return true
	}
	for _, l := range p {
		if strings.Contains(lower, l) {
			return true
		}
	}
	return false
}
