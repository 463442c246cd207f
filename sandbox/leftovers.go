package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A run's folder (in the temp dir) and cgroups carry their owner in their
// names: "o<pid>.<start>.<pidns>-", the pid of the mcpvet process that made
// them, its start time in clock ticks since boot (so that a reused pid is
// not mistaken for the owner) and its pid namespace (a pid means nothing
// in another one, such as another container sharing the hierarchy: those
// are never judged). A run that ends normally removes both; after
// a kill -9 they stay, and the next [Launch] (of any mcpvet process)
// removes those whose owner is dead.

// runDirPrefix starts the name of every run folder.
const runDirPrefix = "mcpvet-run-"

var (
	ownerOnce sync.Once
	ownerName string
)

// ownerTag returns this process's owner tag, "o<pid>.<start>.<pidns>".
func ownerTag() string {
	ownerOnce.Do(func() {
		pid := os.Getpid()
		ownerName = fmt.Sprintf("o%d.%d.%d", pid, procStart(pid), pidNS())
	})
	return ownerName
}

// pidNS returns the inode of this process's pid namespace, or 0.
func pidNS() uint64 {
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/pid", &st) != nil {
		return 0
	}
	return st.Ino
}

// procStart returns the start time of pid in clock ticks since boot, or 0.
func procStart(pid int) uint64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0
	}
	// After the command name, field 0 is the state; starttime is 19.
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// parseOwner splits "o<pid>.<start>.<pidns>-rest" and reports whether
// name carries an owner tag.
func parseOwner(name string) (pid int, start, ns uint64, ok bool) {
	tag, _, found := strings.Cut(name, "-")
	if !found || !strings.HasPrefix(tag, "o") {
		return 0, 0, 0, false
	}
	parts := strings.Split(tag[1:], ".")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	pid, err1 := strconv.Atoi(parts[0])
	start, err2 := strconv.ParseUint(parts[1], 10, 64)
	ns, err3 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || pid <= 0 {
		return 0, 0, 0, false
	}
	return pid, start, ns, true
}

// ownerDead reports whether the owner named by name is gone: no such
// process, or a different process under its pid.
func ownerDead(name string) bool {
	pid, start, ns, ok := parseOwner(name)
	if !ok || ns != pidNS() {
		return false // not ours to judge
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); errors.Is(err, os.ErrNotExist) {
		return true
	}
	return procStart(pid) != start
}

var sweepOnce sync.Once

// sweepLeftoversOnce runs [sweepLeftovers] once per process.
func sweepLeftoversOnce() { sweepOnce.Do(func() { sweepLeftovers() }) }

// sweepLeftovers removes the run folders and cgroups of dead owners,
// killing what is left in those cgroups first. It returns what it removed.
func sweepLeftovers() []string {
	var removed []string
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), runDirPrefix+"o*"))
	for _, d := range dirs {
		if ownerDead(strings.TrimPrefix(filepath.Base(d), runDirPrefix)) && os.RemoveAll(d) == nil {
			removed = append(removed, d)
		}
	}
	if cgroupsDisabled {
		return removed
	}
	own := ownCgroups()
	for _, m := range cgroupMounts() {
		bases := map[string]bool{filepath.Join(m.dir, "mcpvet"): true}
		if m.v2 {
			bases[filepath.Join(m.dir, own[""], "mcpvet")] = true
		}
		for _, c := range m.controllers {
			bases[filepath.Join(m.dir, own[c], "mcpvet")] = true
		}
		for base := range bases {
			entries, _ := os.ReadDir(base)
			for _, e := range entries {
				if !e.IsDir() || !ownerDead(e.Name()) {
					continue
				}
				dir := filepath.Join(base, e.Name())
				cg := &cgroupSet{v1: map[string]string{}}
				if m.v2 {
					cg.v2 = dir
				} else {
					cg.v1["leftover"] = dir
				}
				cg.kill(2 * time.Second)
				for range 100 {
					if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
						removed = append(removed, dir)
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
		}
	}
	return removed
}
