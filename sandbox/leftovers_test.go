package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// runHolder is the "hold" fake: mcpvet in the middle of a probe. It
// launches the "mcp" fake under backend args[0], connects, writes its run
// folder and cgroups to args[1] and waits to be killed.
func runHolder(args []string) int {
	backend, out, marker := args[0], args[1], args[2]
	exitOnRequest()
	s, err := launchFake(backend, "mcp", marker)
	if err != nil {
		return 1
	}
	data, _ := json.Marshal(append([]string{s.runDir}, s.cg.dirs()...))
	_ = os.WriteFile(out+".tmp", data, 0o600)
	_ = os.Rename(out+".tmp", out)
	time.Sleep(time.Minute)
	return 0
}

// launchFake is what the fakes that stand for mcpvet do first: launch the
// fake server mode (tagged with args) under backend, as a child of this
// process, and connect to it.
func launchFake(backend, mode string, args ...string) (*Server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	plan := &vocab.Plan{Transport: vocab.TransportStdio, Command: exe, Args: append([]string{fakeArg, mode}, args...),
		Env: map[string]string{"GORACE": "atexit_sleep_ms=0"}}
	s, err := Launch(context.Background(), plan, testOptions(backend))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Transport().Connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// runNext is the "next" fake: the next mcpvet run. It launches and closes
// the "mcp" fake under backend args[0].
func runNext(args []string) int {
	s, err := launchFake(args[0], "mcp")
	if err != nil {
		return 1
	}
	s.Close()
	return 0
}

// TestLeftoversSwept kills mcpvet (the holder fake) with SIGKILL in the
// middle of a run, checks that its run folder and cgroups stay and name
// their owner, then starts the next mcpvet run (the "next" fake) and
// checks that it removed them, and that nothing of the server is left.
func TestLeftoversSwept(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, backend := range testBackends(t) {
		t.Run(backend, func(t *testing.T) {
			marker := "mcpvet-test-marker-" + newRunID()
			out := filepath.Join(t.TempDir(), "dirs.json")
			cmd := exec.Command(exe, fakeArg, "hold", backend, out, marker)
			cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var dirs []string
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if data, err := os.ReadFile(out); err == nil {
					_ = json.Unmarshal(data, &dirs)
					break
				}
			}
			killHolder(cmd)
			if len(dirs) == 0 {
				t.Fatal("the holder did not start a server")
			}
			t.Logf("left by the killed run: %v", dirs)
			for _, d := range dirs {
				if _, err := os.Stat(d); err != nil {
					t.Fatalf("%s is gone before the next run (%v): nothing to test", d, err)
				}
				if !strings.Contains(filepath.Base(d), "o"+strconv.Itoa(cmd.Process.Pid)+".") {
					t.Errorf("%s does not name its owner (pid %d)", d, cmd.Process.Pid)
				}
			}
			next := exec.Command(exe, fakeArg, "next", backend)
			next.Env = cmd.Env
			if out, err := next.CombinedOutput(); err != nil {
				t.Fatalf("next run: %v\n%s", err, out)
			}
			for _, d := range dirs {
				if _, err := os.Stat(d); err == nil {
					t.Errorf("%s survived the next run", d)
				}
			}
			assertNoProcess(t, marker)
		})
	}
}

// TestSweepJudgesOwners: the sweep removes the folders of a dead owner in
// this pid namespace, and leaves those of a live owner (this process), of
// another pid namespace (a pid means nothing there) and without an owner.
func TestSweepJudgesOwners(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	pid := dead.Process.Pid
	mk := func(tag string) string {
		d, err := os.MkdirTemp("", runDirPrefix+tag)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	gone := mk(fmt.Sprintf("o%d.1.%d-", pid, pidNS()))
	keep := []string{
		mk(ownerTag() + "-"),
		mk(fmt.Sprintf("o%d.1.%d-", pid, pidNS()+1)),
		mk(""),
	}
	sweepLeftovers()
	if _, err := os.Stat(gone); err == nil {
		t.Errorf("sweep left %s, whose owner is dead", gone)
	}
	for _, d := range keep {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("sweep removed %s: %v", d, err)
		}
	}
}
