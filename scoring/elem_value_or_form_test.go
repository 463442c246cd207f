package scoring

import (
	"regexp"
	"testing"
)

// TestPhraseFinders checks the string-search forms of reEnumForm and
// rePattern against the regexps they replace.
func TestPhraseFinders(t *testing.T) {
	texts := []string{
		"", "must match ^[a-z]+$", "the format is wrong", "formats vary", "reformat it", "invalid url: x", "invalid urls",
		"expected one of: a, b", "expected 'a' | 'b'", "value must be one of a or b; expected 'x', got y",
		"someone of us", "use any of them", "doesn't match the pattern", "regexes", "a regular expression", "invalid_uuid",
		"valid values are a, b", "x one of y pattern z", "expected 'a', expected 'b' or c",
		"must be between 1 and 10", "up to 5 items", "up to 50 items", "limit >= 2", "x<=-3", "no more than 3", "it exceeds the maximum",
		"exceeded", "too long by far", "at least one; at most two", "the minimum", "out of range: 9", "more than", "between a and b",
	}
	for _, s := range texts {
		low := asciiLower(s)
		check := func(name string, re *regexp.Regexp, i, j int, ok bool) {
			loc := re.FindStringIndex(low)
			if (loc != nil) != ok || ok && (loc[0] != i || loc[1] != j) {
				t.Errorf("%s(%q) = %d, %d, %v; regexp says %v", name, s, i, j, ok, loc)
			}
		}
		i, j, ok := patternPhrases.find(low)
		check("pattern", rePattern.re.Regexp(), i, j, ok)
		i, j, ok = findEnumForm(low)
		check("enum", reEnumForm.re.Regexp(), i, j, ok)
		i, j, ok = findRange(low)
		check("range", reRange.re.Regexp(), i, j, ok)
	}
}
