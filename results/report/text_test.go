package report

import (
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/results"
)

// TestUnitsLineEntriesWithoutPlans: the units line names the registry
// entries with nothing to launch.
func TestUnitsLineEntriesWithoutPlans(t *testing.T) {
	c := &results.Census{Entries: 1068, EntriesLive: results.Prop(27, 1068), EntriesWithoutPlans: 40}
	if got := unitsLine(c); !strings.Contains(got, "A further 40 registry entries list neither a package nor a remote") {
		t.Errorf("units line does not name the entries without plans: %q", got)
	}
}
