package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// Each test binary runs in a PID namespace of its own (and a /proc that
// shows only it): a mutant of code that kills processes can then kill
// only the test's own. Session 9 found why: sandbox/server.go :769:10
// (`q == root` -> `!=` in the walk that finds a server's descendants)
// makes the "kill what the server left" sweep kill every process that is
// NOT under the server, and one run of it killed every process of the
// machine's session, the other shards and the shell that started them
// included.
//
// isolation returns the command prefix for mode: "off" none; "on" the
// unshare prefix, or an error when it does not work here; "auto" the
// prefix when it works (as root: a user namespace would change the uid the
// tests see), else none, said in the log.
func isolation(mode string, log func(format string, args ...any)) ([]string, error) {
	prefix := []string{"unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "--"}
	switch mode {
	case "off":
		return nil, nil
	case "on", "auto":
	default:
		return nil, fmt.Errorf("-isolate %q: want auto, on or off", mode)
	}
	err := func() error {
		if os.Geteuid() != 0 {
			return fmt.Errorf("not root")
		}
		if out, err := exec.Command(prefix[0], append(prefix[1:], "true")...).CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}()
	switch {
	case err == nil:
		return prefix, nil
	case mode == "on":
		return nil, fmt.Errorf("-isolate on: a PID namespace for the tests: %v", err)
	}
	log("isolation: off (%v): a mutant that kills processes can reach this machine's others\n", err)
	return nil, nil
}

// testCommand is exec.Command of a test binary, inside the isolation
// prefix when there is one, and in a process group of its own either way:
// a PID namespace does not stop kill(0, sig), which signals the caller's
// process group wherever its members are. Session 10 found it: a mutant of
// sandbox's leftover sweep listed another namespace's cgroup, read its
// processes as pid 0, and its kill(0, SIGKILL) killed the runner and the
// timeout(1) above it (bash: "Killed", the shard lost). The test binary
// also dies with the runner (Pdeathsig), as it did when it shared its
// group.
func (r *runner) testCommand(bin string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if len(r.isolate) == 0 {
		cmd = exec.Command(bin, args...)
	} else {
		cmd = exec.Command(r.isolate[0], append(append(r.isolate[1:len(r.isolate):len(r.isolate)], bin), args...)...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}
