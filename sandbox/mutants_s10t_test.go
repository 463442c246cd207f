package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestS10TDefaultLimits: a run with no limits set gets the defaults its
// documentation promises (1 GiB, 256 processes, 60s of CPU time, 5m of
// wall time, 64 MiB of stdout, 1 MiB of stderr kept, 16 MiB per
// message), in the words a report shows for the limit that ended a
// server. options.go:45 and :46 `*` → `/` made the CPU and wall defaults
// 0, which leaves a server with neither limit.
func TestS10TDefaultLimits(t *testing.T) {
	l := (*Options)(nil).resolve().Limits
	for _, tc := range []struct{ limit, want string }{
		{LimitMemory, "1073741824 bytes"},
		{LimitProcesses, "256 processes"},
		{LimitCPUTime, "1m0s of CPU time"},
		{LimitWallTime, "5m0s of wall time"},
		{LimitStdoutBytes, "67108864 bytes of stdout"},
		{LimitMessageSize, "16777216 bytes per message"},
	} {
		t.Run(tc.limit, func(t *testing.T) {
			if got := (Info{Limits: l, LimitExceeded: tc.limit}).LimitValue(); got != tc.want {
				t.Errorf("LimitValue() of the default limits = %q, want %q", got, tc.want)
			}
		})
	}
	if l.StderrBytes != 1<<20 {
		t.Errorf("default StderrBytes = %d, want %d", l.StderrBytes, 1<<20)
	}
	if l.CPUTime <= 0 || l.Wall <= 0 {
		t.Errorf("default CPUTime, Wall = %v, %v; a default run would have no CPU or wall limit", l.CPUTime, l.Wall)
	}
}

// s10tV1Mounts returns the mount points of the cgroup v1 hierarchies that
// hold memory and pids, read from /proc/self/mountinfo here rather than
// with cgroupMounts, which is under test.
func s10tV1Mounts(t *testing.T) map[string]string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Skipf("no mountinfo: %v", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, _ := strings.Cut(sc.Text(), " - ")
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 || qf[0] != "cgroup" {
			continue
		}
		for _, c := range strings.Split(qf[2], ",") {
			if c == "memory" || c == "pids" {
				out[c] = pf[4]
			}
		}
	}
	return out
}

// s10tProcCgroups returns the v1 controller → path lines of
// /proc/<pid>/cgroup ("self" for this process).
func s10tProcCgroups(t *testing.T, pid string) map[string]string {
	data, err := os.ReadFile("/proc/" + pid + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || parts[1] == "" {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out
}

// TestS10TCgroupsBelowOwn: where cgroup v1 memory and pids hierarchies are
// writable (as root), a run gets a group in each, made below mcpvet's own
// group (mcpvet/<run>) so that the limits of the group mcpvet was started
// in still bound its servers; the limits are written there and a process
// attached to the set lands in those groups. Each check compares with
// what /proc says of this process, not with ownCgroups.
//
// Mutants it kills: cgroup.go:77 `len(ctrl) > 0` → `<=` dropped the
// memory, pids and cpuacct hierarchies (the memory limit fell back to
// RLIMIT_DATA, and nothing tracked a server's processes where there is no
// cgroup2); :88 and :94 inverted made ownCgroups find no own group, so the
// run's groups went to the hierarchy's root, out from under the limits
// mcpvet runs under. The last two need an own group other than the root,
// as in a container or a systemd service.
func TestS10TCgroupsBelowOwn(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making cgroups needs root")
	}
	mounts := s10tV1Mounts(t)
	if mounts["memory"] == "" || mounts["pids"] == "" {
		t.Skipf("no cgroup v1 memory and pids hierarchies (%v)", mounts)
	}
	own := s10tProcCgroups(t, "self")
	run := ownerTag() + "-s10t-" + newRunID()
	lim := Limits{MemoryBytes: 64 << 20, Processes: 32}
	cg := newCgroupSet(run, lim)
	defer func() {
		if err := cg.remove(); err != nil {
			t.Errorf("remove: %v", err)
		}
	}()
	if !cg.limitsMemory() || !cg.limitsProcesses() {
		t.Errorf("limitsMemory, limitsProcesses = %v, %v; want both (mechanisms %v)", cg.limitsMemory(), cg.limitsProcesses(), cg.mechanisms)
	}
	files := map[string]string{"memory": "memory.limit_in_bytes", "pids": "pids.max"}
	values := map[string]string{"memory": fmt.Sprint(lim.MemoryBytes), "pids": fmt.Sprint(lim.Processes)}
	for _, c := range []string{"memory", "pids"} {
		want := filepath.Join(mounts[c], own[c], "mcpvet", run)
		if got := cg.v1[c]; got != want {
			t.Errorf("%s group %q, want %q (below this process's %q)", c, got, want, own[c])
			continue
		}
		data, err := os.ReadFile(filepath.Join(want, files[c]))
		if got := strings.TrimSpace(string(data)); err != nil || got != values[c] {
			t.Errorf("%s: %q, %v; want %q", files[c], got, err, values[c])
		}
		if !slices.Contains(cg.mechanisms, "cgroup1:"+c) {
			t.Errorf("mechanisms %v lack cgroup1:%s", cg.mechanisms, c)
		}
	}

	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = child.Process.Kill()
		_ = child.Wait()
	}()
	if err := cg.attach(child.Process.Pid, false); err != nil {
		t.Fatal(err)
	}
	in := s10tProcCgroups(t, fmt.Sprint(child.Process.Pid))
	for _, c := range []string{"memory", "pids"} {
		if want := filepath.Join(own[c], "mcpvet", run); in[c] != want {
			t.Errorf("the attached process is in %s group %q, want %q", c, in[c], want)
		}
	}
}
