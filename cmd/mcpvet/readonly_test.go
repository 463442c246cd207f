package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testenv"

	"github.com/mcpvet/mcpvet/internal/testfixture"
)

// readableCopy copies this test binary and a fresh database with one probe
// run into a folder every user may read but only root may write, and
// returns the binary and database paths.
func readableCopy(t *testing.T) (bin, db string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpvet-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db = filepath.Join(dir, "r.db")
	if code, _, stderr := runCLI("probe", "--db", db, "--sandbox", "none", "--no-inject", "--", testfixture.Path(t, "wellbehaved")); code != 0 {
		t.Fatalf("probe: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI("probe", "--db", db, "--sandbox", "none", "--no-inject", "--", testfixture.Path(t, "wellbehaved")); code != 0 {
		t.Fatalf("probe: exit %d: %s", code, stderr)
	}
	// Readable by everyone, writable by nobody but root; as the database
	// was closed, no -wal or -shm file is left.
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "mcpvet.test")
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin, db
}

// readCommands are the commands that only read a database db; merged is
// a path the merge may write.
func readCommands(db, merged string) [][]string {
	return [][]string{
		{"report", "--db", db, "--format", "json"},
		{"report", "--db", db, "--format", "md"},
		{"diff", "--db", db, "1", "2"},
		{"diff", db, db},
		{"results", "merge", merged, db},
	}
}

// mergeTarget is a path in the world-writable /tmp for a merge output.
func mergeTarget(t *testing.T) string {
	t.Helper()
	f, err := os.CreateTemp("/tmp", "mcpvet-merged-*.db")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Remove(f.Name())
	t.Cleanup(func() { os.Remove(f.Name()) })
	return f.Name()
}

// TestReadOnlyCommandsOnReadableFile: report and diff work on a database
// the user may read but not write (issue 11, item 7: "attempt to write a
// readonly database"). The commands run as an unprivileged user in a
// helper process, since the tests run as root.
func TestReadOnlyCommandsOnReadableFile(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Need(t, "dropping privileges needs root")
	}
	bin, db := readableCopy(t)
	before, _ := os.ReadFile(db)
	for _, args := range readCommands(db, mergeTarget(t)) {
		t.Run(strings.Join(args[:1], " ")+" "+args[len(args)-1], func(t *testing.T) {
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "MCPVET_TEST_MAIN=1", "HOME=/tmp")
			cmd.Dir = "/"
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			out, err := cmd.Output()
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			if err != nil || (len(out) == 0 && args[0] != "results") {
				t.Fatalf("%v as nobody: %v, %q", args, err, stderr)
			}
		})
	}
	after, _ := os.ReadFile(db)
	if string(before) != string(after) {
		t.Error("a read-only command changed the database")
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(db + ext); err == nil {
			t.Errorf("a read-only command left %s behind", ext)
		}
	}
}

// TestReadOnlyCommandsOnReadOnlyMount: report and diff work on a database
// on a read-only mount (issue 11, item 7: "unable to open database file").
func TestReadOnlyCommandsOnReadOnlyMount(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		testenv.Need(t, "needs root and unshare(1) to make a read-only mount")
	}
	bin, db := readableCopy(t)
	dir := filepath.Dir(db)
	if out, err := exec.Command(unshare, "-m", "true").CombinedOutput(); err != nil {
		testenv.Need(t, fmt.Sprintf("cannot make a mount namespace here: %v %s", err, out))
	}
	for _, args := range readCommands(db, mergeTarget(t)) {
		t.Run(strings.Join(args[:1], " ")+" "+args[len(args)-1], func(t *testing.T) {
			script := `mount --bind -o ro "$1" "$1" && shift && exec "$@"`
			cmd := exec.Command(unshare, append([]string{"-m", "sh", "-c", script, "sh", dir, bin}, args...)...)
			cmd.Env = append(os.Environ(), "MCPVET_TEST_MAIN=1")
			out, err := cmd.Output()
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			if err != nil || (len(out) == 0 && args[0] != "results") {
				t.Fatalf("%v on a read-only mount: %v, %q", args, err, stderr)
			}
		})
	}
}

// TestProbeRefusesDeepCorruption: probe on a database whose pages deep in
// the file are corrupt exits 3 naming the file, before writing anything
// (issue 11, item 6: it committed a scan row with status running first).
func TestProbeRefusesDeepCorruption(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	bin := testfixture.Path(t, "wellbehaved")
	for range 4 {
		if code, _, stderr := runCLI("probe", "--db", db, "--sandbox", "none", "--", bin); code != 0 {
			t.Fatalf("probe: exit %d: %s", code, stderr)
		}
	}
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	n := len(b) / page
	if n < 12 {
		t.Fatalf("database has only %d pages", n)
	}
	for k := n * 2 / 3; k < n*2/3+2; k++ {
		for i := range 64 {
			b[k*page+i] = 0xA5
		}
	}
	if err := os.WriteFile(db, b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("probe", "--db", db, "--sandbox", "none", "--", bin)
	if code != 3 || stdout != "" || !strings.Contains(stderr, "r.db") || !strings.Contains(stderr, "corrupt") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 3 naming the corrupt file", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(db); string(after) != string(b) {
		t.Error("the corrupt database was modified")
	}
}
