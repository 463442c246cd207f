package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A cgroupSet is the set of control groups one run lives in. It serves two
// purposes: tracking (every descendant, even a daemonized one that left the
// process group, stays in the group and can be killed) and limits (memory,
// process count, CPU time across the whole tree).
//
// Layouts differ between machines, so each part is optional and detected:
//   - a cgroup2 hierarchy (pure v2 at /sys/fs/cgroup or the hybrid
//     /sys/fs/cgroup/unified): tracking, cgroup.kill, cpu.stat, and memory
//     and pids limits when those controllers can be delegated;
//   - cgroup v1 memory, pids and cpuacct hierarchies when writable.
//
// Directories are created below mcpvet's own cgroup (so its parent's limits
// still apply) as .../mcpvet/<run>.
type cgroupSet struct {
	v2   string   // run directory in the cgroup2 hierarchy, or ""
	v2fd *os.File // open v2 directory, for CLONE_INTO_CGROUP
	v1   map[string]string
	// attachAfterStart lists the directories a pid must be written to
	// after fork (v1, and v2 when it could not be opened).
	mechanisms []string
}

// cgroupsDisabled makes newCgroupSet return an empty set; tests use it to
// exercise the rlimit fallbacks.
var cgroupsDisabled bool

type cgroupMount struct {
	dir         string
	v2          bool
	controllers []string
}

// cgroupMounts parses /proc/self/mountinfo.
func cgroupMounts() []cgroupMount {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []cgroupMount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 {
			continue
		}
		switch qf[0] {
		case "cgroup2":
			out = append(out, cgroupMount{dir: pf[4], v2: true})
		case "cgroup":
			var ctrl []string
			for o := range strings.SplitSeq(qf[2], ",") {
				switch o {
				case "memory", "pids", "cpuacct":
					ctrl = append(ctrl, o)
				}
			}
			if len(ctrl) > 0 {
				out = append(out, cgroupMount{dir: pf[4], controllers: ctrl})
			}
		}
	}
	return out
}

// ownCgroups maps "" (v2) and v1 controller names to this process's path.
func ownCgroups() map[string]string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	own := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			own[""] = parts[2]
			continue
		}
		for c := range strings.SplitSeq(parts[1], ",") {
			own[c] = parts[2]
		}
	}
	return own
}

// mkRunDir creates base/mcpvet/run below mount+own, falling back to the
// hierarchy root. It returns the run directory.
func mkRunDir(mount, own, run string) (string, error) {
	var errs []error
	for _, base := range []string{filepath.Join(mount, own), mount} {
		parent := filepath.Join(base, "mcpvet")
		if err := os.MkdirAll(parent, 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		dir := filepath.Join(parent, run)
		if err := os.Mkdir(dir, 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		return dir, nil
	}
	return "", errors.Join(errs...)
}

func writeCgroupFile(dir, name, value string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(value), 0)
}

// newCgroupSet creates the run's groups and applies lim. It never fails:
// what does not work is simply absent, and mechanisms says what does.
func newCgroupSet(run string, lim Limits) *cgroupSet {
	cg := &cgroupSet{v1: map[string]string{}}
	if cgroupsDisabled {
		return cg
	}
	own, mounts := cgroupLayout()
	for _, m := range mounts {
		if !m.v2 || cg.v2 != "" {
			continue
		}
		// Try to delegate memory and pids to the mcpvet parent; this only
		// works where our own group has them in subtree_control.
		parent := filepath.Join(m.dir, own[""], "mcpvet")
		if err := os.MkdirAll(parent, 0o755); err == nil {
			_ = writeCgroupFile(parent, "cgroup.subtree_control", "+memory")
			_ = writeCgroupFile(parent, "cgroup.subtree_control", "+pids")
		}
		dir, err := mkRunDir(m.dir, own[""], run)
		if err != nil {
			continue
		}
		cg.v2 = dir
		if f, err := os.Open(dir); err == nil {
			cg.v2fd = f
		}
		cg.mechanisms = append(cg.mechanisms, "cgroup2")
		if lim.MemoryBytes > 0 && writeCgroupFile(dir, "memory.max", strconv.FormatInt(lim.MemoryBytes, 10)) == nil {
			_ = writeCgroupFile(dir, "memory.swap.max", "0")
			cg.mechanisms = append(cg.mechanisms, "cgroup2:memory")
		}
		if lim.Processes > 0 && writeCgroupFile(dir, "pids.max", strconv.Itoa(lim.Processes)) == nil {
			cg.mechanisms = append(cg.mechanisms, "cgroup2:pids")
		}
	}
	for _, m := range mounts {
		if m.v2 {
			continue
		}
		for _, c := range m.controllers {
			if _, done := cg.v1[c]; done || !cg.wantV1(c, lim) {
				continue
			}
			dir, err := mkRunDir(m.dir, own[c], run)
			if err != nil {
				continue
			}
			var werr error
			switch c {
			case "memory":
				werr = writeCgroupFile(dir, "memory.limit_in_bytes", strconv.FormatInt(lim.MemoryBytes, 10))
				// Without this, the limit only bounds RAM and the rest swaps.
				_ = writeCgroupFile(dir, "memory.memsw.limit_in_bytes", strconv.FormatInt(lim.MemoryBytes, 10))
			case "pids":
				werr = writeCgroupFile(dir, "pids.max", pidsMax(lim.Processes))
			}
			if werr != nil {
				_ = os.Remove(dir)
				continue
			}
			cg.v1[c] = dir
			cg.mechanisms = append(cg.mechanisms, "cgroup1:"+c)
		}
	}
	return cg
}

// wantV1 reports whether a v1 group for controller c adds anything.
func (cg *cgroupSet) wantV1(c string, lim Limits) bool {
	switch c {
	case "memory":
		return lim.MemoryBytes > 0 && !cg.has("cgroup2:memory")
	case "pids":
		// The pids group also tracks processes when there is no cgroup2.
		return (lim.Processes > 0 && !cg.has("cgroup2:pids")) || cg.v2 == ""
	case "cpuacct":
		return lim.CPUTime > 0 && cg.v2 == ""
	}
	return false
}

func (cg *cgroupSet) has(mech string) bool {
	return slices.Contains(cg.mechanisms, mech)
}

// tracks reports whether the set can find every descendant.
func (cg *cgroupSet) tracks() bool {
	return cg.v2 != "" || cg.v1["pids"] != ""
}

// limitsMemory and limitsProcesses report whether the tree-wide limits are
// enforced by cgroups (otherwise rlimits stand in).
func (cg *cgroupSet) limitsMemory() bool {
	return cg.has("cgroup2:memory") || cg.v1["memory"] != ""
}
func (cg *cgroupSet) limitsProcesses() bool { return cg.has("cgroup2:pids") || cg.v1["pids"] != "" }
func (cg *cgroupSet) measuresCPU() bool     { return cg.v2 != "" || cg.v1["cpuacct"] != "" }

// cloneFD returns the cgroup2 directory descriptor for CLONE_INTO_CGROUP,
// or -1.
func (cg *cgroupSet) cloneFD() int {
	if cg.v2fd == nil {
		return -1
	}
	return int(cg.v2fd.Fd())
}

// attach writes pid into every group it is not already in. skipV2 is set
// when the process was cloned straight into the cgroup2 group.
func (cg *cgroupSet) attach(pid int, skipV2 bool) error {
	var errs []error
	p := strconv.Itoa(pid)
	if cg.v2 != "" && !skipV2 {
		if err := writeCgroupFile(cg.v2, "cgroup.procs", p); err != nil {
			errs = append(errs, err)
		}
	}
	for _, dir := range cg.v1 {
		if err := writeCgroupFile(dir, "cgroup.procs", p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("attaching pid %d to cgroups: %w", pid, err)
	}
	return nil
}

func (cg *cgroupSet) dirs() []string {
	var out []string
	if cg.v2 != "" {
		out = append(out, cg.v2)
	}
	for _, d := range cg.v1 {
		out = append(out, d)
	}
	return out
}

// pids lists the processes in the set that this process can name. A
// process outside this PID namespace is listed by the kernel as 0; it is
// left out, since kill(0) would signal this process's own group (a
// mutant of the leftover sweep that judged other namespaces' cgroups
// killed its own test runner that way).
func (cg *cgroupSet) pids() []int {
	seen := map[int]bool{}
	var out []int
	for _, dir := range cg.dirs() {
		data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			continue
		}
		for f := range strings.FieldsSeq(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 && !seen[pid] {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	return out
}

// kill SIGKILLs every process in the set until it is empty or timeout
// passes. It reports whether the set is empty.
func (cg *cgroupSet) kill(timeout time.Duration) bool {
	if cg.v2 != "" {
		_ = writeCgroupFile(cg.v2, "cgroup.kill", "1")
	}
	deadline := time.Now().Add(timeout)
	for {
		pids := cg.pids()
		if len(pids) == 0 {
			return true
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// readKeyed returns the value of key in a "key value" per line file.
func readKeyed(path, key string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && k == key {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// exceeded reports which limit the set has hit, if any, given the CPU
// budget.
func (cg *cgroupSet) exceeded(cpu time.Duration) string {
	if d := cg.v1["memory"]; d != "" {
		if n, ok := readKeyed(filepath.Join(d, "memory.oom_control"), "oom_kill"); ok && n > 0 {
			return LimitMemory
		}
	}
	if cg.has("cgroup2:memory") {
		// "oom" counts allocations the limit refused even when no process
		// was killed for them (the server survives, failing or stalling):
		// the limit fired all the same (issue 22 item 10).
		for _, key := range []string{"oom_kill", "oom"} {
			if n, ok := readKeyed(filepath.Join(cg.v2, "memory.events"), key); ok && n > 0 {
				return LimitMemory
			}
		}
	}
	if d := cg.v1["pids"]; d != "" {
		if n, ok := readKeyed(filepath.Join(d, "pids.events"), "max"); ok && n > 0 {
			return LimitProcesses
		}
	}
	if cg.has("cgroup2:pids") {
		if n, ok := readKeyed(filepath.Join(cg.v2, "pids.events"), "max"); ok && n > 0 {
			return LimitProcesses
		}
	}
	if cpu > 0 {
		if used, ok := cg.cpuUsed(); ok && used > cpu {
			return LimitCPUTime
		}
	}
	return ""
}

// cpuUsed returns the CPU time the set has consumed.
func (cg *cgroupSet) cpuUsed() (time.Duration, bool) {
	if cg.v2 != "" {
		if n, ok := readKeyed(filepath.Join(cg.v2, "cpu.stat"), "usage_usec"); ok {
			return time.Duration(n) * time.Microsecond, true
		}
	}
	if d := cg.v1["cpuacct"]; d != "" {
		data, err := os.ReadFile(filepath.Join(d, "cpuacct.usage"))
		if err == nil {
			n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
			return time.Duration(n), err == nil
		}
	}
	return 0, false
}

// remove kills what is left and deletes the groups.
func (cg *cgroupSet) remove() error {
	cg.kill(2 * time.Second)
	if cg.v2fd != nil {
		cg.v2fd.Close()
	}
	var errs []error
	for _, dir := range cg.dirs() {
		var err error
		// rmdir fails with EBUSY until the last zombie is reaped.
		for range 200 {
			if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// pidsMax is the pids.max of a process limit n. A disabled limit (n <= 0)
// is "max": the kernel refuses a negative number, and the group is still
// wanted to track the server's processes where there is no cgroup2.
func pidsMax(n int) string {
	if n > 0 {
		return strconv.Itoa(n)
	}
	return "max"
}

// cgroupLayoutForTest, when set, replaces this process's groups and the
// cgroup mounts newCgroupSet works with: tests point it at a folder to see
// what a layout this machine lacks (a cgroup2 hierarchy with memory and
// pids) would be given.
var cgroupLayoutForTest func() (own map[string]string, mounts []cgroupMount)

// cgroupLayout returns this process's groups and the cgroup mounts, or
// the test's layout.
func cgroupLayout() (own map[string]string, mounts []cgroupMount) {
	if cgroupLayoutForTest != nil {
		return cgroupLayoutForTest()
	}
	return ownCgroups(), cgroupMounts()
}
