package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestOutOfMemorySigns: the allocation failures runtimes print when
// RLIMIT_DATA refuses them, at start or later, are read as the memory limit
// (the Go runtime's start-up failure was not: "cannot allocate memory" in
// lower case, seen as a user under a 64 MiB limit).
func TestOutOfMemorySigns(t *testing.T) {
	for _, tc := range []struct {
		stderr string
		want   bool
	}{
		{"fatal error: runtime: cannot allocate memory\n\nruntime stack:\nruntime.throw(", true}, // Go at start (runtime init)
		{"fatal error: out of memory allocating heap arena map\n", true},                         // Go at start, lower limit
		{"fatal error: pageAlloc: out of memory\n", true},
		{"\n<--- Last few GCs --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n", true},
		{"FATAL ERROR: Zone Allocation failed - process out of memory\n", true},
		{"#\n# Fatal process out of memory: Failed to reserve virtual memory for CodeRange\n#\n", true},
		{"Traceback (most recent call last):\n  File \"<frozen importlib._bootstrap>\"\nMemoryError\n", true},
		{"mmap: Cannot allocate memory\n", true},
		{"listening on stdio\n", false},
		{"Error: API_KEY is not set\n", false},
	} {
		if got := outOfMemory(tc.stderr); got != tc.want {
			t.Errorf("outOfMemory(%q) = %v, want %v", tc.stderr, got, tc.want)
		}
	}
}

// TestDataLimitAtStartInfo: without a cgroup (NoCgroups: as a user without
// a delegated cgroup) a Go server cannot start under 16 MiB of RLIMIT_DATA.
// Info says the memory limit ended it and that it died at start under the
// data limit, under every backend. About 1 s.
func TestDataLimitAtStartInfo(t *testing.T) {
	bin := testfixture.Path(t, "hostile-listing")
	for _, backend := range testBackends(t) {
		t.Run(backend, func(t *testing.T) {
			opts := testOptions(backend)
			opts.NoCgroups = true
			opts.Limits = Limits{MemoryBytes: 16 << 20, Wall: 30 * time.Second}
			s := launch(t, &vocab.Plan{Key: "h", Name: "h", Transport: vocab.TransportStdio, Command: bin}, opts, "")
			if _, err := s.Transport().Connect(context.Background()); err != nil {
				t.Fatal(err)
			}
			info := s.Info(10 * time.Second)
			if info.LimitExceeded != LimitMemory || info.LimitDetail != DataLimitAtStart(16<<20) || !info.Exited {
				t.Errorf("LimitExceeded=%q LimitDetail=%q Exited=%v, want memory, died at start (mechanisms %v, stderr %.200q)",
					info.LimitExceeded, info.LimitDetail, info.Exited, info.Mechanisms, info.StderrTail)
			}
			if !strings.Contains(strings.Join(info.Mechanisms, " "), "rlimit:data") {
				t.Errorf("mechanisms %v, want rlimit:data", info.Mechanisms)
			}
		})
	}
}
