package scoring

import (
	"testing"

	"github.com/mcpvet/mcpvet/internal/inittrace"
)

// TestInitAllocatesLittle: the grader's package initialisation compiles
// no expression (issue 25, probe cost: every mcpvet process pays every
// package's init before main; the expressions, internal/lazyre, are
// compiled on first use, when the answers are graded while the server
// shuts down). Before: 235 kB (the binary's init: 234,712 bytes, 2.0 ms;
// now 51,320 bytes, 0.66 ms).
func TestInitAllocatesLittle(t *testing.T) {
	inittrace.CheckAllocs(t, map[string]int{"github.com/mcpvet/mcpvet/scoring": 120 << 10})
}
