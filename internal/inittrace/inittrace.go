// Package inittrace lets a test bound what packages allocate in their
// initialisation. Every mcpvet process pays every linked package's init
// before main (issue 25, probe cost), so an expression or table built at
// init instead of on first use shows up as allocations here: a count, not
// a time, steady on a loaded machine.
package inittrace

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// childEnv marks the test binary started again by [CheckAllocs].
const childEnv = "MCPVET_INIT_CHILD"

var line = regexp.MustCompile(`(?m)^init (\S+) @.* ([0-9]+) bytes, [0-9]+ allocs$`)

// CheckAllocs starts the test binary again with GODEBUG=inittrace=1,
// running only t's test, and fails t when a package of limits allocates
// more bytes in its init than its limit, or has no inittrace line. In that
// second run it returns at once.
func CheckAllocs(t *testing.T, limits map[string]int) {
	t.Helper()
	if os.Getenv(childEnv) != "" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
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
