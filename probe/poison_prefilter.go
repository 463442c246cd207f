package probe

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// A prefilter for the slots of the intent grammar: groups of lower-case
// literals, found from an expression's syntax tree (a small version of
// RE2's prefilter), such that every match contains a literal of each
// group. A sentence that lacks one group is not run through the
// expression: most sentences of honest text fail every rule on this
// check alone.

// prefilter is the groups of one expression; nil means no literal is
// certain and the expression must always run.
type prefilter [][]string

func newPrefilter(re *regexp.Regexp) prefilter { return prefilterOf(re.String()) }

// prefilterOf is the prefilter of the expression expr.
func prefilterOf(expr string) prefilter {
	t, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	return requiredLiterals(t.Simplify())
}

// requiredLiterals returns the literal groups every match satisfies, or
// nil when there are none of literals of at least two bytes.
func requiredLiterals(t *syntax.Regexp) prefilter {
	switch t.Op {
	case syntax.OpLiteral:
		s := strings.ToLower(string(t.Rune))
		if len(s) < 2 {
			return nil
		}
		return prefilter{{s}}
	case syntax.OpCharClass:
		return classLiterals(t.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return requiredLiterals(t.Sub[0])
		}
	case syntax.OpConcat:
		var out prefilter
		for _, s := range t.Sub {
			out = append(out, requiredLiterals(s)...)
		}
		return out
	case syntax.OpAlternate:
		var group []string
		for _, s := range t.Sub {
			g := requiredLiterals(s).best()
			if g == nil {
				return nil
			}
			group = append(group, g...)
		}
		return prefilter{group}
	}
	return nil
}

// classLiterals: a small class of characters of other scripts (an
// alternation of one-character words such as 把|将) is a group.
func classLiterals(rs []rune) prefilter {
	var group []string
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] < 0x80 || rs[i+1]-rs[i] > 16 {
			return nil
		}
		for r := rs[i]; r <= rs[i+1]; r++ {
			group = append(group, strings.ToLower(string(r)))
		}
	}
	return prefilter{group}
}

// best is the most selective group: the one whose shortest literal is
// longest.
func (p prefilter) best() []string {
	var best []string
	bestLen := 0
	for _, g := range p {
		short := len(g[0])
		for _, l := range g {
			short = min(short, len(l))
		}
		if best == nil || short > bestLen {
			best, bestLen = g, short
		}
	}
	return best
}

// admits reports whether lower (a lower-cased text) may match: it holds
// a literal of every group.
func (p prefilter) admits(lower string) bool {
	for _, g := range p {
		found := false
		for _, l := range g {
			if strings.Contains(lower, l) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
