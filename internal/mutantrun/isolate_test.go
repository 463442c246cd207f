package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testenv"
)

// TestIsolation: as root, a test binary run by the runner is pid 1 of a
// PID namespace of its own and sees no process of the machine, so a
// mutant that kills "every other process" kills none of them; off runs it
// as before; a mode that is no mode is refused.
func TestIsolation(t *testing.T) {
	if _, err := isolation("sideways", nil); err == nil {
		t.Error(`-isolate "sideways" accepted`)
	}
	if p, err := isolation("off", nil); p != nil || err != nil {
		t.Errorf("off: %v, %v; want no prefix", p, err)
	}
	var said []string
	logf := func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }
	prefix, err := isolation("auto", logf)
	if os.Geteuid() != 0 {
		if prefix != nil || err != nil || len(said) != 1 {
			t.Errorf("auto as a user: %v, %v, said %q; want none, said once", prefix, err, said)
		}
		if _, err := isolation("on", logf); err == nil {
			t.Error("on as a user: no error")
		}
		return
	}
	if err != nil || prefix == nil {
		testenv.Need(t, fmt.Sprintf("no PID namespace for the tests here: %v (said %q)", err, said))
		return
	}
	r := &runner{isolate: prefix}
	out, err := r.testCommand("/bin/sh", "-c", `echo $$; ls /proc`).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 || lines[0] != "1" {
		t.Fatalf("the test ran as pid %q, want 1 (its own namespace)", lines)
	}
	var pids []int
	for _, l := range lines[1:] {
		if n, err := strconv.Atoi(l); err == nil {
			pids = append(pids, n)
		}
	}
	if slices.Contains(pids, os.Getpid()) || len(pids) > 3 {
		t.Errorf("inside the namespace /proc shows pids %v (this test is %d): the machine's processes are visible", pids, os.Getpid())
	}
	// Its exit status is the test's: a failing test still kills the mutant.
	if err := r.testCommand("/bin/sh", "-c", "exit 3").Run(); err == nil {
		t.Error("a test that failed (exit 3) ran as passed")
	}
	if p := (&runner{}).testCommand("/bin/true"); p.Path != "/bin/true" || len(p.Args) != 1 {
		t.Errorf("without isolation: %v, want /bin/true alone", p.Args)
	}
}

// TestKillZeroStaysInGroup: a test binary's kill(0, SIGKILL) reaches only
// its own process group, with isolation or without (a PID namespace does
// not stop it). The check runs in a child of this test, in a group of its
// own: were the group shared, the kill would take the child down, not go
// test and everything that shares its group.
func TestKillZeroStaysInGroup(t *testing.T) {
	if os.Getenv("MUTANTRUN_KILL0_CHILD") == "1" {
		prefix, _ := isolation("auto", func(string, ...any) {})
		for _, r := range []*runner{{isolate: prefix}, {}} {
			if err := r.testCommand("/bin/sh", "-c", "kill -KILL 0; sleep 5").Run(); err == nil {
				fmt.Printf("isolate %q: sh survived its own kill -KILL 0\n", r.isolate)
			}
		}
		fmt.Println("runner survived")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillZeroStaysInGroup$", "-test.v")
	cmd.Env = append(os.Environ(), "MUTANTRUN_KILL0_CHILD=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "runner survived") || strings.Contains(string(out), "survived its own") {
		t.Fatalf("the runner's child did not survive its test's kill(0): %v\n%s", err, out)
	}
}
