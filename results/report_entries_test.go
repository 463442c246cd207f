package results

import (
	"testing"
)

// TestEntriesWithoutPlans: the registry entries with nothing to launch are
// reported only for a whole crawl, where the crawl's count is about the
// scan's entries.
func TestEntriesWithoutPlans(t *testing.T) {
	for _, tc := range []struct {
		name, options string
		want          int
	}{
		{"whole crawl", `{"sourceStats":{"noTargets":40}}`, 40},
		{"sample", `{"sample":200,"sourceStats":{"noTargets":40}}`, 0},
		{"limit", `{"limit":10,"sourceStats":{"noTargets":40}}`, 0},
		{"registry type", `{"registryType":"npm","sourceStats":{"noTargets":40}}`, 0},
		{"shard flag", `{"flags":{"shard":"0/2"},"sourceStats":{"noTargets":40}}`, 0},
		{"no stats", `{}`, 0},
		{"not JSON", `x`, 0},
	} {
		if got := entriesWithoutPlans([]byte(tc.options)); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
