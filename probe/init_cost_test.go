package probe

import (
	"testing"

	"github.com/mcpvet/mcpvet/internal/inittrace"
)

// TestInitAllocatesLittle: the package initialisation of the probe
// compiles nothing (issue 25, probe cost: every mcpvet process pays every
// package's init before main). The expressions (internal/lazyre) are
// compiled on first use. Before: 642 kB. (jsonschema/v5's init still
// compiles its five draft meta-schemas, about 1 MB and 8.5 ms a process:
// the library is one of the modules the product design fixes, used as
// published.)
func TestInitAllocatesLittle(t *testing.T) {
	inittrace.CheckAllocs(t, map[string]int{"github.com/mcpvet/mcpvet/probe": 200 << 10})
}
