package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/vocab"
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
// hold memory, pids and cpuacct, read from /proc/self/mountinfo here rather than
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
			if c == "memory" || c == "pids" || c == "cpuacct" {
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

// TestS10TCacheDirDefault: without --cache-dir, installed packages go to
// $XDG_CACHE_HOME/mcpvet, else $HOME/.cache/mcpvet, else (no home) a
// folder in the temp dir, as [Options.CacheDir] says (options.go:193 and
// :196 the tests inverted: the XDG folder was ignored when set, and the
// home folder used only when there is none).
func TestS10TCacheDirDefault(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct{ name, xdg, home, want string }{
		{"XDG_CACHE_HOME wins", "/xdg/cache", "/home/u", "/xdg/cache/mcpvet"},
		{"HOME without XDG_CACHE_HOME", "", "/home/u", "/home/u/.cache/mcpvet"},
		{"neither", "", "", filepath.Join(tmp, "mcpvet-cache")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", tc.xdg)
			t.Setenv("HOME", tc.home)
			t.Setenv("TMPDIR", tmp)
			if got := (*Options)(nil).resolve().CacheDir; got != tc.want {
				t.Errorf("CacheDir = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestS10TResolverOption: the host name of an untrusted remote target is
// looked up with [Options.Resolver] when one is set: a name it resolves to
// a private address is refused, naming that address (options.go:156 the
// nil test inverted: the given resolver was ignored for the system's).
func TestS10TResolverOption(t *testing.T) {
	plan := &vocab.Plan{Key: "r", Name: "r", Source: "registry", Transport: vocab.TransportStreamable,
		URL: "https://s10t.mcpvet-test.example/mcp"}
	err := CheckRemote(context.Background(), plan, &Options{Resolver: testfixture.Resolver(testfixture.DNS(t, func(q uint16) (byte, net.IP) {
		if q == testfixture.DNSTypeA {
			return testfixture.DNSNoError, net.IPv4(10, 1, 2, 3)
		}
		return testfixture.DNSNoError, nil
	}))})
	var le *LaunchError
	if !errors.As(err, &le) || le.Status != vocab.StatusInvalidPlan || !strings.Contains(err.Error(), "10.1.2.3") {
		t.Errorf("CheckRemote = %v; want invalid_plan naming 10.1.2.3, the address the resolver gave", err)
	}
}

// s10tV2Mount returns the mount point of the cgroup2 hierarchy, read from
// /proc/self/mountinfo, or "".
func s10tV2Mount(t *testing.T) string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Skipf("no mountinfo: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		pre, post, _ := strings.Cut(line, " - ")
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) >= 5 && len(qf) >= 1 && qf[0] == "cgroup2" {
			return pf[4]
		}
	}
	return ""
}

// TestS10TCgroup2Group: where a cgroup2 hierarchy is writable (as root), a
// run gets a group there below mcpvet's own (mcpvet/<run>), which tracks
// every process of the server, and a descriptor of it that starts a
// process straight inside it (CLONE_INTO_CGROUP, so not even the first
// instructions of a server run outside). Where mcpvet's own group
// delegates memory and pids, the group also holds those limits.
// cgroup.go:142 `cg.v2 != ""` inverted skipped every cgroup2 hierarchy;
// :157 the Open error test inverted left no descriptor, so servers were
// moved into the group only after they had started.
func TestS10TCgroup2Group(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making cgroups needs root")
	}
	mount := s10tV2Mount(t)
	if mount == "" {
		t.Skip("no cgroup2 hierarchy")
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	var own string
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			own = p
		}
	}
	run := ownerTag() + "-s10t-" + newRunID()
	lim := Limits{MemoryBytes: 64 << 20, Processes: 32}
	cg := newCgroupSet(run, lim)
	defer func() {
		if err := cg.remove(); err != nil {
			t.Errorf("remove: %v", err)
		}
	}()
	if want := filepath.Join(mount, own, "mcpvet", run); cg.v2 != want || !cg.has("cgroup2") || !cg.tracks() {
		t.Fatalf("cgroup2 group %q (mechanisms %v, tracks %v), want %q", cg.v2, cg.mechanisms, cg.tracks(), want)
	}
	if cg.v1["cpuacct"] != "" || !cg.measuresCPU() {
		t.Errorf("cpuacct group %q, measuresCPU %v: cgroup2's cpu.stat measures CPU time, a cpuacct group adds nothing", cg.v1["cpuacct"], cg.measuresCPU())
	}
	delegated, _ := os.ReadFile(filepath.Join(mount, own, "cgroup.subtree_control"))
	for _, c := range []struct{ ctrl, file, value string }{
		{"memory", "memory.max", fmt.Sprint(lim.MemoryBytes)},
		{"pids", "pids.max", fmt.Sprint(lim.Processes)},
	} {
		if !slices.Contains(strings.Fields(string(delegated)), c.ctrl) {
			continue
		}
		got, err := os.ReadFile(filepath.Join(cg.v2, c.file))
		if !cg.has("cgroup2:"+c.ctrl) || err != nil || strings.TrimSpace(string(got)) != c.value {
			t.Errorf("%s is delegated: mechanisms %v, %s %q (%v); want cgroup2:%s and %s", c.ctrl, cg.mechanisms, c.file, got, err, c.ctrl, c.value)
		}
	}

	fd := cg.cloneFD()
	if fd < 0 {
		t.Fatal("cloneFD() = -1: no descriptor to start a server inside its group")
	}
	child := exec.Command("sleep", "60")
	child.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if err := child.Start(); err != nil {
		t.Fatalf("starting a process into the group: %v", err)
	}
	defer func() {
		_ = child.Process.Kill()
		_ = child.Wait()
	}()
	in, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", child.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	want := "0::" + filepath.Join(own, "mcpvet", run)
	if !slices.Contains(strings.Split(strings.TrimSpace(string(in)), "\n"), want) {
		t.Errorf("the process started with the descriptor is in\n%s\nwant the line %q", in, want)
	}
	if !slices.Contains(cg.pids(), child.Process.Pid) {
		t.Errorf("pids() = %v, want it to hold %d", cg.pids(), child.Process.Pid)
	}
	s10tKillAll(t, cg, child)
	s10tAttachGone(t, cg)
	dirs := cg.dirs()
	if err := cg.remove(); err != nil {
		t.Errorf("remove: %v", err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("group %s after remove: %v, want it gone", d, err)
		}
	}
	// One descriptor per run: a scan of thousands must not keep them.
	if err := cg.v2fd.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the cgroup2 descriptor after remove: Close() = %v, want it closed already", err)
	}
}

// TestS10TCgroupRemoveBusy: a group that cannot be deleted (here it holds
// a group of its own, so rmdir says EBUSY) is reported by remove after
// it tried for a while, and is still there; remove again once it can be
// deleted succeeds.
func TestS10TCgroupRemoveBusy(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making cgroups needs root")
	}
	run := ownerTag() + "-s10t-" + newRunID()
	// No limits: one group (cgroup2, or v1 pids without it), one second
	// of retries.
	cg := newCgroupSet(run, Limits{MemoryBytes: -1, Processes: -1, CPUTime: -1})
	dirs := cg.dirs()
	if len(dirs) == 0 {
		t.Skip("no writable cgroup")
	}
	var subs []string
	for _, d := range dirs {
		sub := filepath.Join(d, "sub")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		subs = append(subs, sub)
	}
	err := cg.remove()
	for _, d := range dirs {
		if err == nil || !strings.Contains(err.Error(), d) {
			t.Errorf("remove() = %v; want it to name the busy group %s", err, d)
		}
		if _, serr := os.Stat(d); serr != nil {
			t.Errorf("the busy group %s: %v", d, serr)
		}
	}
	for _, sub := range subs {
		if err := os.Remove(sub); err != nil {
			t.Error(err)
		}
	}
	if err := cg.remove(); err != nil {
		t.Errorf("remove() once the groups are empty: %v", err)
	}
}

// TestS10TNoCgroupWarning: a server run without a cgroup that finds its
// processes (NoCgroups, as a user without a delegated cgroup) carries a
// warning that processes leaving the process group may outlive the run;
// where cgroups track the run (here, as root) it does not.
func TestS10TNoCgroupWarning(t *testing.T) {
	const warning = "no cgroup available: processes that leave the process group may outlive the run"
	for _, tc := range []struct {
		name      string
		noCgroups bool
		want      bool
	}{
		{"NoCgroups", true, true},
		{"cgroups", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.noCgroups && os.Geteuid() != 0 {
				t.Skip("making cgroups needs root")
			}
			opts := testOptions(BackendNone)
			opts.NoCgroups = tc.noCgroups
			s := launch(t, &vocab.Plan{Key: "w", Name: "w", Transport: vocab.TransportStdio, Command: "/bin/sh", Args: []string{"-c", "exit 0"}}, opts, "")
			if _, err := s.Transport().Connect(context.Background()); err != nil {
				t.Fatal(err)
			}
			info := s.Info(10 * time.Second)
			if got := slices.Contains(info.Warnings, warning); got != tc.want {
				t.Errorf("warning %q in %q: %v, want %v (mechanisms %v)", warning, info.Warnings, got, tc.want, info.Mechanisms)
			}
		})
	}
}

// s10tBlockCgroup2 makes newCgroupSet find no usable cgroup2 hierarchy for
// run, as on a machine with cgroup v1 only: it makes the run's cgroup2
// folders beforehand, so that creating them fails with EEXIST.
func s10tBlockCgroup2(t *testing.T, run string) {
	mount := s10tV2Mount(t)
	if mount == "" {
		return
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	own := "/"
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			own = p
		}
	}
	for _, base := range []string{filepath.Join(mount, own), mount} {
		dir := filepath.Join(base, "mcpvet", run)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Skipf("cannot make %s: %v", dir, err)
		}
		t.Cleanup(func() { os.Remove(dir) })
	}
}

// TestS10TCgroupV1Only: without cgroup2, a run gets the v1 groups that
// limit what is limited (memory, pids) and measure CPU time (cpuacct),
// below mcpvet's own groups. The pids group is also what finds every
// descendant of a server (a daemon that left the process group included),
// so a run gets one even when its process limit is disabled (negative,
// see [Limits]); it then has no limit ("max"). Before pidsMax, pids.max
// was written "-1", which the kernel refuses, and such a run was not
// tracked at all.
func TestS10TCgroupV1Only(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making cgroups needs root")
	}
	mounts := s10tV1Mounts(t)
	if mounts["pids"] == "" || mounts["memory"] == "" || mounts["cpuacct"] == "" {
		t.Skipf("no cgroup v1 memory, pids and cpuacct hierarchies (%v)", mounts)
	}
	own := s10tProcCgroups(t, "self")
	for _, tc := range []struct {
		name    string
		lim     Limits
		want    []string // controllers with a group
		pidsMax string
	}{
		{"limits off", Limits{MemoryBytes: -1, Processes: -1, CPUTime: -1}, []string{"pids"}, "max"},
		{"limits on", Limits{MemoryBytes: 64 << 20, Processes: 32, CPUTime: time.Second}, []string{"cpuacct", "memory", "pids"}, "32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := ownerTag() + "-s10t-" + newRunID()
			s10tBlockCgroup2(t, run)
			cg := newCgroupSet(run, tc.lim)
			defer func() {
				if err := cg.remove(); err != nil {
					t.Errorf("remove: %v", err)
				}
			}()
			if cg.v2 != "" {
				t.Fatalf("cgroup2 group %q: the test could not make cgroup2 unusable", cg.v2)
			}
			want := map[string]string{}
			for _, c := range tc.want {
				want[c] = filepath.Join(mounts[c], own[c], "mcpvet", run)
			}
			if diff := cmp.Diff(want, cg.v1); diff != "" {
				t.Fatalf("v1 groups (-want +got):\n%s", diff)
			}
			if !cg.tracks() || cg.measuresCPU() != (tc.lim.CPUTime > 0) {
				t.Errorf("tracks, measuresCPU = %v, %v; want true, %v", cg.tracks(), cg.measuresCPU(), tc.lim.CPUTime > 0)
			}
			if data, err := os.ReadFile(filepath.Join(want["pids"], "pids.max")); strings.TrimSpace(string(data)) != tc.pidsMax {
				t.Errorf("pids.max = %q (%v), want %s", data, err, tc.pidsMax)
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
			if !slices.Contains(cg.pids(), child.Process.Pid) {
				t.Errorf("pids() = %v, want it to hold %d", cg.pids(), child.Process.Pid)
			}
			if fd := cg.cloneFD(); fd != -1 {
				t.Errorf("cloneFD() = %d without a cgroup2 group, want -1", fd)
			}
			// Without cgroup2 there is no cgroup.kill to write: kill writes
			// nothing, in the working directory least of all.
			wd := t.TempDir()
			t.Chdir(wd)
			s10tKillAll(t, cg, child)
			if entries, _ := os.ReadDir(wd); len(entries) > 0 {
				t.Errorf("kill() left %v in the working directory", entries)
			}
			s10tAttachGone(t, cg)
		})
	}
}

// s10tKillAll checks that cg.kill kills child, a member of cg, and
// reports the set empty.
func s10tKillAll(t *testing.T, cg *cgroupSet, child *exec.Cmd) {
	t.Helper()
	if !cg.kill(5 * time.Second) {
		t.Errorf("kill() = false: processes %v left", cg.pids())
	}
	if pids := cg.pids(); len(pids) > 0 {
		t.Errorf("after kill() the set holds %v", pids)
		return
	}
	err := child.Wait()
	if ws, ok := child.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the member ended with %v, want SIGKILL", err)
	}
}

// s10tAttachGone checks that attaching a pid that no longer exists fails,
// naming every group it could not be written to.
func s10tAttachGone(t *testing.T, cg *cgroupSet) {
	t.Helper()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	err := cg.attach(gone.Process.Pid, false)
	if err == nil {
		t.Fatalf("attach(%d), a pid that is gone: no error", gone.Process.Pid)
	}
	for _, dir := range cg.dirs() {
		if !strings.Contains(err.Error(), filepath.Join(dir, "cgroup.procs")) {
			t.Errorf("attach(%d): %v; want it to name %s", gone.Process.Pid, err, dir)
		}
	}
}

// TestS10TCgroupCPUExceeded: the CPU time a run's cgroups measured (cgroup2
// cpu.stat usage_usec, or cgroup v1 cpuacct.usage in nanoseconds) ends it
// for cpu_time once it is more than the budget; a disabled budget
// (negative) never does. Files laid out as the kernel writes them.
func TestS10TCgroupCPUExceeded(t *testing.T) {
	for _, tc := range []struct {
		name       string
		v2         bool
		file, text string
		used       time.Duration
		budget     time.Duration
		want       string
	}{
		{"v2 over", true, "cpu.stat", "usage_usec 1500000\nuser_usec 1400000\nsystem_usec 100000\n", 1500 * time.Millisecond, time.Second, LimitCPUTime},
		{"v2 under", true, "cpu.stat", "usage_usec 1500000\nuser_usec 1400000\nsystem_usec 100000\n", 1500 * time.Millisecond, 2 * time.Second, ""},
		{"v2 exactly the budget", true, "cpu.stat", "usage_usec 1000000\n", time.Second, time.Second, ""},
		{"v2 budget disabled", true, "cpu.stat", "usage_usec 1500000\n", 1500 * time.Millisecond, -1, ""},
		{"v1 over", false, "cpuacct.usage", "1500000000\n", 1500 * time.Millisecond, time.Second, LimitCPUTime},
		{"v1 under", false, "cpuacct.usage", "1500000000\n", 1500 * time.Millisecond, 2 * time.Second, ""},
		{"v1 budget disabled", false, "cpuacct.usage", "1500000000\n", 1500 * time.Millisecond, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cg := &cgroupSet{v1: map[string]string{}}
			if tc.v2 {
				cg.v2 = dir
			} else {
				cg.v1["cpuacct"] = dir
			}
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			if used, ok := cg.cpuUsed(); !ok || used != tc.used {
				t.Errorf("cpuUsed() = %v, %v; want %v, true", used, ok, tc.used)
			}
			if got := cg.exceeded(tc.budget); got != tc.want {
				t.Errorf("exceeded(%v) = %q, want %q", tc.budget, got, tc.want)
			}
		})
	}
}

// TestS10TCgroup2Limits: on a cgroup2 hierarchy that offers memory and
// pids (a pure cgroup2 machine; this one binds both to v1, so a folder
// stands in for the hierarchy), a run asks its mcpvet parent to delegate
// them, then gets memory.max (with no swap) and pids.max, and reports
// both limits as cgroup2's; a disabled limit writes neither. In the
// folder each write of cgroup.subtree_control replaces the last one (the
// kernel adds them up), so "+pids" is what shows.
func TestS10TCgroup2Limits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lim   Limits
		files map[string]string // in the run's group
		mechs []string
	}{
		{"limits", Limits{MemoryBytes: 64 << 20, Processes: 32}, map[string]string{"memory.max": "67108864", "memory.swap.max": "0", "pids.max": "32"}, []string{"cgroup2", "cgroup2:memory", "cgroup2:pids"}},
		{"limits off", Limits{MemoryBytes: -1, Processes: -1}, map[string]string{}, []string{"cgroup2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			cgroupLayoutForTest = func() (map[string]string, []cgroupMount) {
				return map[string]string{"": "/own"}, []cgroupMount{{dir: root, v2: true}}
			}
			defer func() { cgroupLayoutForTest = nil }()
			cg := newCgroupSet("run", tc.lim)
			defer cg.v2fd.Close()
			if want := filepath.Join(root, "own", "mcpvet", "run"); cg.v2 != want {
				t.Fatalf("cgroup2 group %q, want %q", cg.v2, want)
			}
			if diff := cmp.Diff(tc.mechs, cg.mechanisms); diff != "" {
				t.Errorf("mechanisms (-want +got):\n%s", diff)
			}
			got := map[string]string{}
			entries, err := os.ReadDir(cg.v2)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				data, _ := os.ReadFile(filepath.Join(cg.v2, e.Name()))
				got[e.Name()] = string(data)
			}
			if diff := cmp.Diff(tc.files, got); diff != "" {
				t.Errorf("files of the run's group (-want +got):\n%s", diff)
			}
			if data, err := os.ReadFile(filepath.Join(root, "own", "mcpvet", "cgroup.subtree_control")); string(data) != "+pids" {
				t.Errorf("the mcpvet parent's cgroup.subtree_control: %q, %v; want memory and pids asked for", data, err)
			}
		})
	}
}
