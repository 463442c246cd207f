package probe

import (
	"testing"

	"github.com/mcpvet/mcpvet/internal/lazyre"
)

// TestLazyRegexpsCompile compiles every expression the probe package
// defers to first use (internal/lazyre), so a broken one fails here
// rather than in the middle of a probe.
func TestLazyRegexpsCompile(t *testing.T) {
	all := lazyre.All()
	if len(all) < 30 {
		t.Fatalf("%d lazy expressions, want the probe package's 30 or more", len(all))
	}
	for _, r := range all {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: %v", r, p)
				}
			}()
			r.Regexp()
		}()
	}
}
