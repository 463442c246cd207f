// Package timeline prints where one run spends its time, for measuring
// the probe's cost (issue 25). It is off unless MCPVET_TIMELINE is set in
// the environment; then each [Mark] writes one line to stderr:
//
//	timeline   41.3 ms  db open
//
// The times count from this package's initialisation, which runs before
// the packages that import it, so it is close to the Go process start
// (the exec and the runtime start are before it: time the whole command
// from the shell to see them). A mark costs one atomic load when off.
package timeline

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

var (
	start   = time.Now()
	enabled = os.Getenv("MCPVET_TIMELINE") != ""
	mu      sync.Mutex
	out     io.Writer = os.Stderr
)

// Enabled reports whether marks are printed.
func Enabled() bool { return enabled }

// Mark prints what happened and when, if the timeline is on.
func Mark(what string) {
	if !enabled {
		return
	}
	d := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(out, "timeline %7.1f ms  %s\n", float64(d.Microseconds())/1000, what)
}
