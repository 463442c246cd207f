package main

import (
	"fmt"
	"os"
	"os/exec"
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
// prefix when there is one.
func (r *runner) testCommand(bin string, args ...string) *exec.Cmd {
	if len(r.isolate) == 0 {
		return exec.Command(bin, args...)
	}
	return exec.Command(r.isolate[0], append(append(r.isolate[1:len(r.isolate):len(r.isolate)], bin), args...)...)
}
