package scoring

import (
	"regexp"
	"testing"

	"github.com/mcpvet/mcpvet/internal/lazyre"
)

// TestLazyRegexpsCompile: the grader's guarded expressions, compiled on
// first use rather than at package initialisation (issue 25: every
// sandbox launch re-executes the binary and paid for them), all compile,
// as they had to at init before. lazyre.All lists them with those of the
// packages scoring imports.
func TestLazyRegexpsCompile(t *testing.T) {
	all := lazyre.All()
	if len(all) < 20 {
		t.Fatalf("%d lazy expressions registered, want the grader's guards", len(all))
	}
	for _, l := range all {
		if _, err := regexp.Compile(l.String()); err != nil {
			t.Errorf("%q: %v", l.String(), err)
			continue
		}
		if l.Regexp() == nil {
			t.Errorf("%q: not compiled on use", l.String())
		}
	}
}
