package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/mcpvet/mcpvet/internal/atomicfile"
)

// The availability check of an isolating backend (a sandboxed "true", see
// [probeBackend]) costs a whole sandboxed launch, about 0.1–0.15 s on a
// quiet machine, before the first server of every process can start
// (issue 25: probe cost). A passed check is therefore also saved in the
// cache folder, with what it depends on: the boot, the mcpvet binary (and
// bwrap's), the user, the namespaces mcpvet runs in and the kernel
// settings that allow or forbid namespaces. A later process that finds a
// record equal to its own state skips the check. Only a pass is saved;
// a failed check runs again in every process.
//
// A saved pass never weakens the sandbox: it only means that the launch
// is tried without the rehearsal, and a sandbox that no longer builds
// stops its server before it runs (the helper exits before exec). Such a
// launch fails to start; [Recheck] then drops the record so that the
// caller can launch again after a real check, which chooses the backend
// (or fails) exactly as a process without the record would.

// availability is the verdict of one backend's check in this process.
type availability struct {
	mu   sync.Mutex
	done bool
	err  error
	// record is the file the pass was read from, "" when this process
	// ran the check (or there is no verdict yet).
	record string
}

var (
	builtinAvailability availability
	bwrapAvailability   availability
)

// availabilityOf returns the verdict state of the backend named name, nil
// for a backend without a check.
func availabilityOf(name string) *availability {
	switch name {
	case BackendBuiltin:
		return &builtinAvailability
	case BackendBwrap:
		return &bwrapAvailability
	}
	return nil
}

// get returns the verdict, running check (or reading the record in file,
// "" for none) the first time; concurrent callers wait for the first.
func (a *availability) get(file string, check func() error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return a.err
	}
	state, ok := checkState(file)
	if ok && recordMatches(file, state) {
		a.done, a.err, a.record = true, nil, file
		return nil
	}
	a.err, a.done, a.record = check(), true, ""
	if a.err == nil && ok {
		saveRecord(file, state)
	}
	return a.err
}

// forget drops a verdict read from a record, and the record; it reports
// whether there was one.
func (a *availability) forget() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.done || a.record == "" {
		return false
	}
	_ = os.Remove(a.record)
	a.done, a.err, a.record = false, nil, ""
	return true
}

// fromRecord reports whether the verdict was read from a record.
func (a *availability) fromRecord() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.done && a.record != ""
}

// Recheck is called after s failed to start. When s's backend was chosen
// on a pass saved by an earlier process rather than checked by this one,
// it drops that pass (here and on disk) and reports true: the caller
// launches again, and that launch checks the backend first, so a sandbox
// that stopped working since the pass was saved is found and reported
// (or another backend chosen) as without the record. Otherwise it reports
// false and the failure is the server's.
func Recheck(s *Server) bool {
	if s == nil || s.backend == nil {
		return false
	}
	a := availabilityOf(s.backend.name())
	return a != nil && a.forget()
}

// availabilityRecord names the record of backend's pass in cacheDir for
// the mcpvet binary at exe. Each binary has a record of its own: the
// record holds the binary's identity, so with one record for all, two
// binaries that share a cache folder (a CI tool and a local install, two
// builds side by side) each found the other's pass and checked again, a
// whole sandboxed launch, in every process.
func availabilityRecord(cacheDir, backend string, allowNetwork bool, exe string) string {
	if cacheDir == "" || exe == "" {
		return ""
	}
	name := "available-" + backend
	if allowNetwork {
		name += "-network"
	}
	sum := sha256.Sum256([]byte(exe))
	return filepath.Join(cacheDir, "sandbox", name+"-"+hex.EncodeToString(sum[:6])+".json")
}

// thisBinary is the path of the running binary, "" when unknown.
func thisBinary() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// Where checkState reads the boot and the kernel settings (variables for
// the tests).
var (
	bootIDFile     = "/proc/sys/kernel/random/boot_id"
	namespaceFiles = []string{
		"/proc/sys/user/max_user_namespaces", "/proc/sys/user/max_mnt_namespaces",
		"/proc/sys/user/max_pid_namespaces", "/proc/sys/user/max_net_namespaces",
		"/proc/sys/user/max_ipc_namespaces", "/proc/sys/user/max_uts_namespaces",
		"/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
		"/proc/sys/kernel/seccomp/actions_avail", "/proc/sys/kernel/yama/ptrace_scope",
	}
)

// checkState describes what a check's pass depends on, for the record in
// file; ok is false when no record may be used (no file, no boot id, the
// binary cannot be identified).
func checkState(file string) (map[string]string, bool) {
	if file == "" {
		return nil, false
	}
	boot, err := os.ReadFile(bootIDFile)
	if err != nil || len(bytes.TrimSpace(boot)) == 0 {
		return nil, false
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, false
	}
	st := map[string]string{
		"boot": string(bytes.TrimSpace(boot)),
		"uid":  fmt.Sprint(os.Geteuid(), "/", os.Getegid()),
	}
	if !fileIdentity(st, "exe", exe) {
		return nil, false
	}
	if p, err := exec.LookPath("bwrap"); err == nil {
		fileIdentity(st, "bwrap", p)
	}
	for _, ns := range []string{"user", "mnt", "pid", "net", "cgroup"} {
		if l, err := os.Readlink("/proc/self/ns/" + ns); err == nil {
			st["ns/"+ns] = l
		}
	}
	for _, f := range namespaceFiles {
		if b, err := os.ReadFile(f); err == nil {
			st[f] = string(bytes.TrimSpace(b))
		}
	}
	return st, true
}

// fileIdentity records path's device, inode, size and modification time
// under key.
func fileIdentity(st map[string]string, key, path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	st[key] = fmt.Sprintf("%s dev=%d ino=%d size=%d mtime=%d", path, sys.Dev, sys.Ino, fi.Size(), fi.ModTime().UnixNano())
	return true
}

// recordMatches reports whether file holds a pass saved in state.
func recordMatches(file string, state map[string]string) bool {
	b, err := os.ReadFile(file)
	if err != nil || len(b) > 64<<10 {
		return false
	}
	var saved map[string]string
	if json.Unmarshal(b, &saved) != nil || len(saved) != len(state) {
		return false
	}
	for k, v := range state {
		if saved[k] != v {
			return false
		}
	}
	return true
}

// saveRecord writes state to file (owner-only, replaced atomically);
// failing to save only costs the next process a check.
func saveRecord(file string, state map[string]string) {
	b, err := json.Marshal(state)
	if err != nil {
		return
	}
	_ = atomicfile.Write(file, b, 0o700)
}
