package sandbox

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHelperIsNotGo checks that the builtin backend's pid 1 is the C helper
// of init_helper.c, run by the constructor before the Go runtime starts:
// one thread (a Go program has its runtime's threads too) and no exec
// stage between it and the server (the server is its direct child).
// Before the move to C, the helper had 5 or more threads.
func TestHelperIsNotGo(t *testing.T) {
	if !slicesContains(testBackends(t), BackendBuiltin) {
		t.Skip("builtin backend unavailable")
	}
	plan, marker := fakePlan(t, "silent")
	opts := testOptions(BackendBuiltin)
	// Rlimits (the cgroup stands in for them when it can): the Go helper
	// started an exec stage only when there were some.
	opts.Limits = Limits{Processes: 64, CPUTime: time.Minute}
	s := launch(t, plan, opts, marker)
	connect(t, s)
	helper := s.proc.cmd.Process.Pid
	status, err := os.ReadFile("/proc/" + strconv.Itoa(helper) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if threads := statusField(string(status), "Threads"); threads != "1" {
		t.Errorf("helper has %s threads, want 1 (the C helper, no Go runtime)", threads)
	}
	child := firstChild(helper)
	if child <= 0 {
		t.Fatalf("helper %d has no child", helper)
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	if args := strings.Split(string(cmdline), "\x00"); len(args) < 3 || args[1] != fakeArg || args[2] != "silent" {
		t.Errorf("helper's child runs %q, want the server itself", args)
	}
}

func statusField(status, key string) string {
	for line := range strings.SplitSeq(status, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// TestHelperConfigErrors runs the helper outside any namespace with a
// configuration it must refuse before it touches a mount: each answer is
// one setup_error event and exit status 125.
func TestHelperConfigErrors(t *testing.T) {
	good, err := (&initConfig{Root: "/nonexistent-root", Argv: []string{"true"}}).encode(nil, 40)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		config []byte
		want   string
	}{
		{"empty", nil, "reading sandbox configuration: malformed"},
		{"truncated", good[:len(good)-3], "reading sandbox configuration: malformed"},
		{"unknown record", append(append([]byte{}, good...), 'Z', 0), "reading sandbox configuration: malformed"},
		{"no command", good[:2+4+len("/nonexistent-root")], "reading sandbox configuration: malformed"},
		{"NUL in a string", []byte("r\x01\x03\x00\x00\x00a\x00b"), "reading sandbox configuration: malformed"},
		// A well-formed configuration gets as far as the first mount,
		// which fails here: no mount namespace of its own.
		{"good", good, "making mounts private"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "good" && os.Geteuid() == 0 {
				t.Skip("as root the first mount would succeed on the host's own namespace")
			}
			events, code := runHelper(t, tc.config)
			if code != 125 || !strings.HasPrefix(events, `{"event":"setup_error","error":"`+tc.want) || strings.Count(events, "\n") != 1 {
				t.Errorf("helper exit %d, events %q; want 125 and one setup_error starting %q", code, events, tc.want)
			}
		})
	}
}

// runHelper starts this binary as the init helper, outside any namespace,
// with config on its configuration descriptor; it returns the events and
// the exit status.
func runHelper(t *testing.T, config []byte) (string, int) {
	t.Helper()
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{initArgv0}, Env: []string{initEnv + "=1"},
		ExtraFiles: []*os.File{cfgR, statusW}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cfgR.Close()
	statusW.Close()
	cfgW.Write(config)
	cfgW.Close()
	var events bytes.Buffer
	io.Copy(&events, io.LimitReader(statusR, 1<<20))
	statusR.Close()
	cmd.Wait()
	return events.String(), cmd.ProcessState.ExitCode()
}

// TestEncodeRefusesNUL checks that a string with a NUL byte, which the
// helper would cut short, is refused before launch.
func TestEncodeRefusesNUL(t *testing.T) {
	for _, c := range []initConfig{
		{Root: "/r", Argv: []string{"a\x00b"}},
		{Root: "/r", Argv: []string{"a"}, Env: []string{"K=v\x00w"}},
		{Root: "/r", Argv: []string{"a"}, Dir: "/x\x00"},
		{Root: "/r"},
	} {
		if _, err := c.encode(nil, 40); err == nil {
			t.Errorf("encode(%+v) succeeded, want an error", c)
		}
	}
}
