package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The parent-death signal belongs to one thread: the one that exec'd the
// fake, which is its first thread, and a thread the Go runtime starts
// later has none. The main goroutine runs on the first thread during init
// but may move to another one afterwards (it did under load in a full
// -race run: the fake printed 0 though the stage had set 9), so the
// "pdeathsig" fake locks it there before init ends.
func init() {
	if len(os.Args) >= 3 && os.Args[1] == fakeArg && os.Args[2] == "pdeathsig" {
		runtime.LockOSThread()
	}
}

// runPdeathsig is the "pdeathsig" fake: it prints the parent-death signal
// of its first thread (0 for none); see the init above.
func runPdeathsig() int {
	var sig int32
	if err := unix.Prctl(unix.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&sig)), 0, 0, 0); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println(sig)
	return 0
}

// TestBwrapStageKeepsParentDeathSignal: as root, bwrap is exec'd by the
// stage helper after it drops to the run's uid; that change of uid clears
// the parent-death signal, which the helper must set again, or bwrap (and
// the server in it) outlives a killed mcpvet until bwrap's own
// --die-with-parent is in force, and forever when mcpvet dies in between.
// The program the helper execs reports its signal: SIGKILL (9), not 0.
func TestBwrapStageKeepsParentDeathSignal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the bwrap stage helper runs only when mcpvet runs as root; as a user bwrap is started directly with the parent-death signal")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The run's uid must reach the staging folder (t.TempDir is 0700).
	stage, err := os.MkdirTemp("", "mcpvet-stage-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stage) })
	if err := os.Chmod(stage, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{
		Path: "/proc/self/exe",
		Args: []string{bwrapStageArgv0, stageIdentity(runUID(newRunID()), nil), stage, "1", exe,
			filepath.Join(stage, "0"), fakeArg, "pdeathsig"},
		SysProcAttr: &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL},
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("stage helper: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "9" {
		t.Errorf("parent-death signal after the stage helper = %s, want 9 (SIGKILL)", got)
	}
}

// runSpinHolder is the "holdspin" fake: mcpvet in the middle of a probe of
// a server that burns CPU and never answers. It launches the spin fake
// tagged with args[2] under backend args[0] (without cgroups when args[3]
// is "nocg"), writes args[1] once the server runs, and waits to be killed.
func runSpinHolder(args []string) int {
	backend, out, marker := args[0], args[1], args[2]
	exitOnRequest()
	cgroupsDisabled = args[3] == "nocg"
	if _, err := launchFake(backend, "spin", marker); err != nil {
		return 1
	}
	for deadline := time.Now().Add(10 * time.Second); len(markedProcesses(marker)) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	_ = os.WriteFile(out, []byte("running"), 0o600)
	time.Sleep(time.Minute)
	return 0
}

// TestSpinLeavesNothing: after a probe of a server that spins on the CPU
// and never answers, nothing of it is left running, under every backend,
// with and without cgroups: when the probe closes the server, and when the
// scanner itself is killed with SIGKILL mid-probe (then bwrap's
// --die-with-parent, the parent-death signal of the other backends, or the
// sandbox's pid 1 must end it; the next run's sweep is not waited for).
// A bwrap server outlived its killed test binary for 30 minutes in an
// earlier session (issue 22).
func TestSpinLeavesNothing(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, backend := range testBackends(t) {
		for _, cg := range []string{"cg", "nocg"} {
			t.Run(backend+"/"+cg+"/close", func(t *testing.T) {
				if cg == "nocg" {
					cgroupsDisabled = true
					defer func() { cgroupsDisabled = false }()
				}
				plan, marker := fakePlan(t, "spin")
				s, err := Launch(context.Background(), plan, testOptions(backend))
				if err != nil {
					t.Fatal(err)
				}
				connect(t, s)
				for deadline := time.Now().Add(10 * time.Second); len(markedProcesses(marker)) == 0 && time.Now().Before(deadline); {
					time.Sleep(10 * time.Millisecond)
				}
				if len(markedProcesses(marker)) == 0 {
					t.Fatal("the spin server never ran")
				}
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
				assertNoProcess(t, marker)
			})
			t.Run(backend+"/"+cg+"/scanner-killed", func(t *testing.T) {
				_, marker := fakePlan(t, "spin")
				out := filepath.Join(t.TempDir(), "running")
				cmd := exec.Command(exe, fakeArg, "holdspin", backend, out, marker, cg)
				cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					if _, err := os.Stat(out); err == nil {
						break
					}
				}
				running := len(markedProcesses(marker)) > 0
				killHolder(cmd)
				if !running {
					t.Fatal("the spin server never ran")
				}
				assertNoProcess(t, marker)
				// Whatever assertNoProcess found is killed here, so that
				// a failure leaves nothing spinning on the machine.
				for _, pid := range markedProcesses(marker) {
					if p, err := os.FindProcess(pid); err == nil {
						_ = p.Kill()
					}
				}
			})
		}
	}
}

// runLimitOffThread is the "limitoffthread" fake: backend none's limit
// stage (args: the stage's own argv after its argv[0]) run from a thread
// that is not the process's first one, which is where a Go program's main
// goroutine can be by the time sandbox.Main runs. A thread made by clone
// has no parent-death signal, and the thread that execs becomes the
// process: the one fork set is left behind with the first thread.
func runLimitOffThread(args []string) int {
	runtime.LockOSThread()
	stage := func() int {
		os.Args = append([]string{limitExecArgv0}, args...)
		return runLimitExec()
	}
	if unix.Gettid() != unix.Getpid() {
		return stage()
	}
	// On the first thread and locked to it: a goroutine that locks its
	// own thread is on another one.
	done := make(chan int)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			fmt.Println("error: still on the first thread")
			done <- 1
			return
		}
		done <- stage()
	}()
	return <-done
}

// TestLimitStageKeepsParentDeathSignal: backend none's limit stage sets
// the rlimits and execs the server; the server must still be killed when
// mcpvet dies, whichever thread of the stage execs. The CI run of stop 30
// left a spinning server of TestSpinLeavesNothing/none/nocg/scanner-killed
// running with parent 1: the stage had exec'd from a thread of its own,
// whose parent-death signal was 0. The program the stage execs reports its
// signal: SIGKILL (9), not 0.
func TestLimitStageKeepsParentDeathSignal(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(exe, fakeArg, "limitoffthread",
		stageIdentity(0, map[int]uint64{unix.RLIMIT_NOFILE: 256}), exe, exe, fakeArg, "pdeathsig")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	w.Close()
	if err != nil {
		msg, _ := io.ReadAll(r)
		t.Fatalf("limit stage: %v\n%s%s", err, out, msg)
	}
	if got := strings.TrimSpace(string(out)); got != "9" {
		t.Errorf("parent-death signal after the limit stage = %s, want 9 (SIGKILL)", got)
	}
}
