package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
			// -start-memory 64: the fixture maps 64 MiB before it reads
			// stdin, so it always dies at start (whether the Go runtime's
			// own start fits in 16 MiB varies with threads and load).
			s := launch(t, &vocab.Plan{Key: "h", Name: "h", Transport: vocab.TransportStdio, Command: bin, Args: []string{"-start-memory", "64"}}, opts, "")
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

// TestRlimitsFromTheStart: where rlimits stand in for the cgroups, the
// server runs under them from its first instruction, under every backend.
// Backend none set them with prlimit after the start, while the server
// already ran: a Go server's runtime sometimes started unlimited under a
// 16 MiB RLIMIT_DATA and died later (the flaky TestDataLimitAtStart in
// scan), and a memory bomb at start escaped the limit. A race: on the old
// code this shell, slower than the prlimit, still passed 5 of 5; the test
// guards the order, TestDataLimitAtStart -count=N shows the defect.
func TestRlimitsFromTheStart(t *testing.T) {
	for _, backend := range testBackends(t) {
		t.Run(backend, func(t *testing.T) {
			opts := testOptions(backend)
			opts.NoCgroups = true
			opts.Limits = Limits{MemoryBytes: 64 << 20, Wall: 30 * time.Second}
			s := launch(t, &vocab.Plan{Key: "l", Name: "l", Transport: vocab.TransportStdio, Command: "/bin/sh",
				Args: []string{"-c", `grep "Max data size" /proc/$$/limits >&2`}}, opts, "")
			if _, err := s.Transport().Connect(context.Background()); err != nil {
				t.Fatal(err)
			}
			info := s.Info(10 * time.Second)
			if !strings.Contains(info.StderrTail, "67108864") {
				t.Errorf("the server's own limits say %q, want a data limit of 67108864 from the start (mechanisms %v)", info.StderrTail, info.Mechanisms)
			}
		})
	}
}

// TestCgroupEventsExceeded: the limit events the monitor reads, on cgroup
// v1 and v2, from files laid out as the kernel writes them. The v2 "oom"
// key (an allocation the limit refused without killing anyone, the server
// surviving) counts as the memory limit (issue 22 item 10; it was read
// only as oom_kill before). This host has no v2 controllers, so the v2 rows
// exist only here; TestChildOOMIsTheLimit (scan) runs the v1 one for real.
func TestCgroupEventsExceeded(t *testing.T) {
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		v2    bool
		files map[string]string
		want  string
	}{
		{"v1 nothing", false, map[string]string{"memory/memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n", "pids/pids.events": "max 0\n"}, ""},
		{"v1 oom kill", false, map[string]string{"memory/memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n", "pids/pids.events": "max 0\n"}, LimitMemory},
		{"v1 fork refused", false, map[string]string{"memory/memory.oom_control": "oom_kill 0\n", "pids/pids.events": "max 3\n"}, LimitProcesses},
		{"v2 nothing", true, map[string]string{"memory.events": "low 0\nhigh 0\nmax 12\noom 0\noom_kill 0\noom_group_kill 0\n", "pids.events": "max 0\n"}, ""},
		{"v2 oom kill", true, map[string]string{"memory.events": "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n", "pids.events": "max 0\n"}, LimitMemory},
		{"v2 oom without a kill", true, map[string]string{"memory.events": "low 0\nhigh 0\nmax 12\noom 2\noom_kill 0\noom_group_kill 0\n", "pids.events": "max 0\n"}, LimitMemory},
		{"v2 fork refused", true, map[string]string{"memory.events": "max 0\noom 0\noom_kill 0\n", "pids.events": "max 1\n"}, LimitProcesses},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			cg := &cgroupSet{v1: map[string]string{}}
			if tc.v2 {
				cg.v2 = root
				cg.mechanisms = []string{"cgroup2:memory", "cgroup2:pids"}
			} else {
				for _, c := range []string{"memory", "pids"} {
					cg.v1[c] = filepath.Join(root, c)
					if err := os.Mkdir(cg.v1[c], 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			for name, text := range tc.files {
				write(root, name, text)
			}
			if got := cg.exceeded(0); got != tc.want {
				t.Errorf("exceeded = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCgroupPidsOutsideNamespace: a cgroup.procs line of 0 (a process
// outside this PID namespace, as the kernel lists it) is never a pid to
// kill: kill(0, SIGKILL) would kill this process's own group.
func TestCgroupPidsOutsideNamespace(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte("0\n0\n2147483646\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cg := &cgroupSet{v1: map[string]string{"pids": dir}}
	if got := cg.pids(); !slices.Equal(got, []int{2147483646}) {
		t.Fatalf("pids() = %v, want [2147483646]: a 0 (a process of another PID namespace) must be left out", got)
	}
}
