package scoring

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestInitAllocatesLittle: the grader's package initialisation compiles
// no expression (issue 25, probe cost: every mcpvet process pays every
// package's init before main; the expressions, internal/lazyre, are
// compiled on first use, when the answers are graded while the server
// shuts down). It reads the allocations GODEBUG=inittrace=1 reports for
// this test binary started again: a count, not a time. Before: 235 kB
// (the binary's init: 234,712 bytes, 2.0 ms; now 51,320 bytes, 0.66 ms).
func TestInitAllocatesLittle(t *testing.T) {
	if os.Getenv("MCPVET_INIT_CHILD") != "" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInitAllocatesLittle$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "MCPVET_INIT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	limits := map[string]int{
		"github.com/mcpvet/mcpvet/scoring": 120 << 10,
	}
	line := regexp.MustCompile(`(?m)^init (\S+) @.* ([0-9]+) bytes, [0-9]+ allocs$`)
	seen := map[string]bool{}
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		limit, ok := limits[m[1]]
		if !ok {
			continue
		}
		seen[m[1]] = true
		if n, _ := strconv.Atoi(m[2]); n > limit {
			t.Errorf("init of %s allocates %d bytes, want at most %d: something is compiled at init again", m[1], n, limit)
		}
	}
	for pkg := range limits {
		if !seen[pkg] {
			t.Errorf("no inittrace line for %s in:\n%s", pkg, out)
		}
	}
}
