package scoring

import (
	"regexp"
	"testing"
)

// TestLazyRegexpsCompile: the grader's guarded expressions, compiled on
// first use rather than at package initialisation (issue 25: every
// sandbox launch re-executes the binary and paid for them), all compile,
// as they had to at init before.
func TestLazyRegexpsCompile(t *testing.T) {
	if len(lazyREs) < 20 {
		t.Fatalf("%d lazy expressions registered, want the grader's guards", len(lazyREs))
	}
	for _, l := range lazyREs {
		if _, err := regexp.Compile(l.expr); err != nil {
			t.Errorf("%q: %v", l.expr, err)
		}
		if l.get() == nil {
			t.Errorf("%q: not compiled on use", l.expr)
		}
	}
}
