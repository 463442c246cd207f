package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestS10POCIReference: the image mcpvet pulls for an OCI entry. The
// entry's version becomes the tag unless the identifier already carries a
// tag or a digest; an official image has no slash ("alpine"), and the
// colon of a registry's port is not a tag (install_oci.go:28 the index
// after the last slash made one less: a slash-less image panicked). A
// reference of up to 512 characters is pulled, a longer one is refused
// (:31 `> 512` → `>=`). The fake docker answers every pull with "manifest
// unknown", so the error names the reference pulled.
func TestS10POCIReference(t *testing.T) {
	tools := fakeToolDir(t)
	log := filepath.Join(t.TempDir(), "docker.log")
	writeScript(t, filepath.Join(tools, "docker"), `
echo "$@" >> `+log+`
case "$1" in
info) echo 27.0.0 ;;
pull) echo "Error response from daemon: manifest for $3 not found: manifest unknown: manifest unknown" >&2; exit 1 ;;
esac
`)
	digest := "@sha256:" + strings.Repeat("ab", 32)
	long := "acme/" + strings.Repeat("a", 507)
	tests := []struct {
		name, id, version string
		want              vocab.Status
		detail            string
	}{
		{name: "official image", id: "alpine", version: "3.19", want: vocab.StatusVersionNotFound, detail: "image alpine:3.19: tag not found"},
		{name: "registry with a port", id: "registry.example.com:5000/acme/server", version: "1.0", want: vocab.StatusVersionNotFound,
			detail: "image registry.example.com:5000/acme/server:1.0: tag not found"},
		{name: "tag kept", id: "acme/server:2.0", version: "1.0", want: vocab.StatusVersionNotFound, detail: "image acme/server:2.0: tag not found"},
		{name: "digest kept", id: "acme/server" + digest, version: "1.0", want: vocab.StatusVersionNotFound, detail: "image acme/server" + digest + ": tag not found"},
		{name: "no version", id: "ghcr.io/acme/server", want: vocab.StatusVersionNotFound, detail: "image ghcr.io/acme/server: tag not found"},
		{name: "512 characters", id: long, want: vocab.StatusVersionNotFound, detail: "image " + long + ": tag not found"},
		{name: "513 characters", id: long + "a", want: vocab.StatusInvalidPlan, detail: "invalid OCI image reference"},
		{name: "512 characters with the version", id: long[:508], version: "1.0", want: vocab.StatusVersionNotFound, detail: "image " + long[:508] + ":1.0: tag not found"},
		{name: "513 characters with the version", id: long[:509], version: "1.0", want: vocab.StatusInvalidPlan, detail: "invalid OCI image reference"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "oci", Identifier: tc.id, Version: tc.version}}
			_, err := Launch(context.Background(), plan, testOptions(BackendAuto))
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != tc.want || !strings.Contains(le.Detail, tc.detail) {
				t.Fatalf("Launch error = %v, want %s naming %q", err, tc.want, tc.detail)
			}
		})
	}
}

// TestS10POCIGracefulStop: a containerised server that ignores the end of
// its input is stopped with `docker kill --signal SIGTERM` on the
// container (the group signal would only reach the docker client) before
// it is killed (install_oci.go:128 the 10 s bound of that call turned into
// 0: the signal never went out and the server died of SIGKILL). The fake
// docker runs the "silent" fake and relays kill to it.
func TestS10POCIGracefulStop(t *testing.T) {
	exe, _ := os.Executable()
	tools := fakeToolDir(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "docker.log")
	pid := filepath.Join(dir, "pid")
	writeScript(t, filepath.Join(tools, "docker"), `
echo "$@" >> `+log+`
case "$1" in
info) echo 27.0.0 ;;
run) echo $$ > `+pid+`.tmp; mv `+pid+`.tmp `+pid+`; exec `+exe+` mcpvet-fake silent ;;
kill) while [ ! -s `+pid+` ]; do sleep 0.01; done; kill -s "${3#SIG}" "$(cat `+pid+`)" ;;
esac
`)
	plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "oci", Identifier: "ghcr.io/acme/silent", Version: "1"}}
	s := launch(t, plan, testOptions(BackendAuto), "")
	connect(t, s)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	info := s.Info(5 * time.Second)
	if !info.Exited || info.Signal != "SIGTERM" {
		t.Errorf("Exited=%v Signal=%q, want true SIGTERM", info.Exited, info.Signal)
	}
	data, _ := os.ReadFile(log)
	if want := "kill --signal SIGTERM mcpvet-" + s.runID; !strings.Contains(string(data), want) {
		t.Errorf("docker calls lack %q:\n%s", want, data)
	}
}

// procPIDNS returns the inode of this process's pid namespace as
// `ls -l /proc/self/ns/pid` shows it ("pid:[4026531836]").
func procPIDNS(t *testing.T) uint64 {
	t.Helper()
	link, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		t.Skipf("no pid namespace link: %v", err)
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "pid:["), "]"), 10, 64)
	if err != nil {
		t.Fatalf("pid namespace link %q: %v", link, err)
	}
	return n
}

// procStartTicks returns field 22 of /proc/PID/stat (the start time in
// clock ticks since boot) of a process whose command name has no space.
func procStartTicks(t *testing.T, pid int) uint64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data))
	n, err := strconv.ParseUint(f[21], 10, 64)
	if err != nil || n == 0 {
		t.Fatalf("start time of %d in %q: %v", pid, data, err)
	}
	return n
}

// TestS10POwnerTag: the owner tag of this process's run folders and
// cgroups is its pid, its start time in clock ticks since boot and the
// inode of its pid namespace, as /proc shows them (leftovers.go:46 the
// Stat error test inverted: the namespace was always 0; :55 the read
// error test inverted, :59 the ")" test inverted, :63 the fields taken
// from one byte before ")", :64 the field count test inverted: the start
// time was always 0).
func TestS10POwnerTag(t *testing.T) {
	pid := os.Getpid()
	want := fmt.Sprintf("o%d.%d.%d", pid, procStartTicks(t, pid), procPIDNS(t))
	if got := ownerTag(); got != want {
		t.Errorf("ownerTag() = %q, want %q", got, want)
	}
}

// TestS10PSweepJudgesLiveOwners: the sweep judges an owner by its pid and
// its start time: the folder of a live process started when the tag says
// stays, the folder naming a live pid with another start time (the pid
// was reused by a new process) goes. A tag with pid 0 names no process
// and one from pid namespace 0 (a process that could not read its own)
// is not this namespace's: both stay (leftovers.go:85 `pid <= 0` → `<`;
// :46 and :55, which made every namespace 0 and every start time 0).
// It returns what it removed (:115 the RemoveAll error test inverted
// returned nothing). Folders only: cgroups are left out so that the sweep
// cannot touch other runs on this machine.
func TestS10PSweepJudgesLiveOwners(t *testing.T) {
	cgroupsDisabled = true
	defer func() { cgroupsDisabled = false }()
	t.Setenv("TMPDIR", t.TempDir())
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	ns := procPIDNS(t)
	lp := live.Process.Pid
	start := procStartTicks(t, lp)
	tests := []struct {
		name, tag string
		kept      bool
	}{
		{"live owner", fmt.Sprintf("o%d.%d.%d", lp, start, ns), true},
		{"reused pid", fmt.Sprintf("o%d.%d.%d", lp, start+1, ns), false},
		{"reused pid, no start time", fmt.Sprintf("o%d.0.%d", lp, ns), false},
		{"dead owner", fmt.Sprintf("o%d.%d.%d", dead.Process.Pid, start, ns), false},
		{"pid 0", fmt.Sprintf("o0.%d.%d", start, ns), true},
		{"namespace 0", fmt.Sprintf("o%d.%d.0", dead.Process.Pid, start), true},
	}
	dirs := map[string]string{}
	for _, tc := range tests {
		d := filepath.Join(os.TempDir(), runDirPrefix+tc.tag+"-x")
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		dirs[tc.name] = d
	}
	removed := sweepLeftovers()
	var want []string
	for _, tc := range tests {
		_, err := os.Stat(dirs[tc.name])
		if kept := err == nil; kept != tc.kept {
			t.Errorf("%s (%s): kept=%v, want %v", tc.name, tc.tag, kept, tc.kept)
		}
		if !tc.kept {
			want = append(want, dirs[tc.name])
		}
	}
	slices.Sort(want)
	slices.Sort(removed)
	if diff := cmp.Diff(want, removed); diff != "" {
		t.Errorf("sweepLeftovers() removed (-want +got):\n%s", diff)
	}
}

// listenUnix makes a Unix socket at p, closed at the end of the test.
func listenUnix(t *testing.T, p string) {
	t.Helper()
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
}

// TestS10PMaskHostFiles: what the walk of the exposed folders masks. The
// results database is found by device and inode, so a hard link to it in
// an exposed folder is masked even when it is not yet an SQLite file
// (mask.go:35 the Stat error test inverted: no hidden file was compared).
// A folder exposed through a symlink is walked at its real path
// (:42 the EvalSymlinks error test inverted: the link was walked, which
// WalkDir does not follow). The scan budget counts every entry, the
// folder included: a budget of exactly the entries checks them all
// without a warning (:49 `budget < 0` → `<=`: the last entry was not
// checked; :78 `budget < 0` → `<=` warned of it), one fewer leaves the
// last unchecked and says so (:49 `budget--` → `++`: the budget never ran
// out; :78 inverted warned when it did not). The results database itself
// is masked by its real path before the walk, past the budget too, also
// in a folder exposed through a symlink (:115 and :119 the EvalSymlinks
// error tests inverted: only the walk found it). An SQLite file of one
// 512-byte page is a database (:96 `< 512` → `<=`).
func TestS10PMaskHostFiles(t *testing.T) {
	root := t.TempDir()
	p := func(rel string) string { return filepath.Join(root, rel) }
	for _, d := range []string{"outside", "proj", "sockets"} {
		if err := os.Mkdir(p(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	db := p("outside/results.db")
	if err := os.WriteFile(db, []byte("not yet a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(db, p("proj/copy.db")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p("proj/notes.txt"), []byte("notes"), 0o644)
	os.WriteFile(p("sockets/a.txt"), nil, 0o644)
	os.WriteFile(p("sockets/b.txt"), nil, 0o644)
	listenUnix(t, p("sockets/z.sock"))
	if err := os.Symlink(p("sockets"), p("sockets-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p("work"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p("work/a.txt"), nil, 0o644)
	results := p("work/mcpvet.db")
	os.WriteFile(results, mcpvetDBBytes(mcpvetApplicationID, "ROWS"), 0o644)
	if err := os.Symlink(p("work"), p("work-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p("old/one-page.db"), mcpvetDBBytes(mcpvetApplicationID, "")[:512], 0o644)
	over := func(n int) string {
		return fmt.Sprintf("the exposed folders hold more than %d entries: those past it were not checked for sockets and databases to mask; expose a smaller folder", n)
	}
	tests := []struct {
		name     string
		expose   string
		hidden   string // default: a database outside the exposed folders
		budget   int
		masked   []string
		warnings []string
	}{
		{name: "hard link to the results database", expose: p("proj"), masked: []string{p("proj/copy.db")}},
		{name: "folder exposed through a symlink", expose: p("sockets-link"), masked: []string{p("sockets/z.sock")}},
		{name: "budget of exactly the entries", expose: p("sockets"), budget: 4, masked: []string{p("sockets/z.sock")}},
		{name: "one entry over the budget", expose: p("sockets"), budget: 3, warnings: []string{over(3)}},
		{name: "results database past the budget", expose: p("work"), hidden: results, budget: 1,
			masked: []string{results}, warnings: []string{over(1)}},
		{name: "results database past the budget, folder through a symlink", expose: p("work-link"), hidden: p("work-link/mcpvet.db"), budget: 1,
			masked: []string{results}, warnings: []string{over(1)}},
		{name: "one-page database", expose: p("old"), masked: []string{p("old/one-page.db")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.budget > 0 {
				old := maskScanBudget
				maskScanBudget = tc.budget
				defer func() { maskScanBudget = old }()
			}
			plan := vocab.Plan{Command: "node"}
			hidden := tc.hidden
			if hidden == "" {
				hidden = db
			}
			s := &Server{plan: &plan, opts: Options{WorkDir: WorkDirNone, Expose: []string{tc.expose}, Hidden: []string{hidden}}, argv: []string{"node"}}
			s.planExposure()
			if len(s.exposed) != 1 {
				t.Fatalf("exposed %v, want %s", s.exposed, tc.expose)
			}
			if diff := cmp.Diff(tc.masked, s.masked); diff != "" {
				t.Errorf("masked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.warnings, s.warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestS10PSweepBusyCgroup: a leftover cgroup of a dead owner that cannot
// be removed (it holds a group of its own: rmdir says EBUSY) stays and is
// not among what the sweep reports removed, after the sweep tried again
// for a while; an empty one beside it is removed (leftovers.go:146 the
// Remove error test inverted: the busy group was reported removed at the
// first failure). Only groups of a pid of this test's namespace that has
// exited are judged, as at every launch.
func TestS10PSweepBusyCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making cgroups needs root")
	}
	t.Setenv("TMPDIR", t.TempDir())
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	var mount cgroupMount
	for _, m := range cgroupMounts() {
		if !m.v2 && slices.Contains(m.controllers, "pids") {
			mount = m
		}
	}
	if mount.dir == "" {
		t.Skip("no cgroup v1 pids hierarchy")
	}
	own := ownCgroups()["pids"]
	tag := fmt.Sprintf("o%d.1.%d", dead.Process.Pid, procPIDNS(t))
	busy, err := mkRunDir(mount.dir, own, tag+"-busy")
	if err != nil {
		t.Skipf("cannot make a cgroup: %v", err)
	}
	defer os.Remove(busy)
	sub := filepath.Join(busy, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(sub)
	empty, err := mkRunDir(mount.dir, own, tag+"-empty")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(empty)
	removed := sweepLeftovers()
	if _, err := os.Stat(busy); err != nil {
		t.Fatalf("the busy cgroup %s is gone (%v): nothing to test", busy, err)
	}
	if slices.Contains(removed, busy) {
		t.Errorf("sweepLeftovers() reports %s removed; it is still there", busy)
	}
	if _, err := os.Stat(empty); err == nil || !slices.Contains(removed, empty) {
		t.Errorf("the empty cgroup %s: stat %v, reported removed %v; want it removed", empty, err, slices.Contains(removed, empty))
	}
}
