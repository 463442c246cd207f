package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testenv"

	"github.com/creack/pty"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/vocab"
)

// launchResult is what the "launch" fake writes for the containment test.
type launchResult struct {
	Report     string            `json:"report"`
	Mechanisms []string          `json:"mechanisms"`
	Canaries   map[string]string `json:"canaries"`
	Error      string            `json:"error,omitempty"`
}

// runLauncher is the "launch" fake: it stands for mcpvet started from a
// terminal with descriptors it inherited. It launches args[1] under
// backend args[0] with the --env value in $MCPVET_TEST_USER_TOKEN, calls its "report" tool,
// holds the server for a moment (so /proc can be scanned) and writes a
// launchResult to args[2].
func runLauncher(args []string) int {
	backend, bin, out, marker := args[0], args[1], args[2], args[3]
	secret := os.Getenv("MCPVET_TEST_USER_TOKEN")
	cgroupsDisabled = os.Getenv("MCPVET_TEST_NO_CGROUPS") == "1"
	res := launchResult{}
	defer func() {
		data, _ := json.Marshal(res)
		_ = os.WriteFile(out, data, 0o600)
	}()
	plan := &vocab.Plan{Transport: vocab.TransportStdio, Command: bin, Args: []string{marker}, Secrets: []string{"CANARY_KEY"}}
	opts := testOptions(backend)
	opts.Env = map[string]string{"USER_TOKEN": secret}
	s, err := Launch(context.Background(), plan, opts)
	if err != nil {
		res.Error = err.Error()
		return 1
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, s.Transport(), nil)
	if err != nil {
		res.Error = fmt.Sprintf("connect: %v (%+v)", err, s.Info(time.Second))
		return 1
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "report"})
	if err != nil || len(r.Content) == 0 {
		res.Error = fmt.Sprintf("report: %v", err)
		return 1
	}
	if tc, ok := r.Content[0].(*mcp.TextContent); ok {
		res.Report = tc.Text
	}
	time.Sleep(300 * time.Millisecond)
	info := s.Info(0)
	res.Mechanisms, res.Canaries = info.Mechanisms, info.Canaries
	cs.Close()
	return 0
}

// TestContainment runs mcpvet (the launcher fake) on a pseudo-terminal,
// with a secret file and a writable file open on inherited descriptors,
// and an --env value and a canary for the server, under every backend.
// The hostile-escape server tries TIOCSTI on the terminal, reads and
// writes every descriptor and calls what the filter refuses, while the
// test scans every /proc/*/cmdline for the secret values.
func TestContainment(t *testing.T) {
	bin := testfixture.Build(t, "hostile-escape")["hostile-escape"]
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, backend := range testBackends(t) {
		// mcpvet's output on the terminal, and redirected to files (the
		// terminal stays its controlling terminal either way).
		modes := []string{"terminal", "redirected"}
		if backend == BackendBuiltin {
			// Without cgroups, rlimits stand in and the server starts
			// through the exec stage, which confines itself.
			modes = append(modes, "rlimits")
		}
		for _, mode := range modes {
			redirected := mode == "redirected"
			t.Run(backend+"/"+mode, func(t *testing.T) {
				marker := "mcpvet-test-marker-" + newRunID()
				dir := t.TempDir()
				secretPath := filepath.Join(dir, "secret")
				secretText := "SECRET-ON-INHERITED-FD-" + marker
				if err := os.WriteFile(secretPath, []byte(secretText), 0o600); err != nil {
					t.Fatal(err)
				}
				writable := filepath.Join(dir, "log")
				if err := os.WriteFile(writable, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				secretFD, err := os.Open(secretPath)
				if err != nil {
					t.Fatal(err)
				}
				defer secretFD.Close()
				logFD, err := os.OpenFile(writable, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer logFD.Close()

				ptmx, tty, err := pty.Open()
				if err != nil {
					testenv.Need(t, fmt.Sprintf("no pseudo-terminal: %v", err))
				}
				defer ptmx.Close()
				defer tty.Close()
				var screen bytes.Buffer
				var screenMu sync.Mutex
				readDone := make(chan struct{})
				go func() {
					defer close(readDone)
					buf := make([]byte, 4096)
					for {
						n, err := ptmx.Read(buf)
						screenMu.Lock()
						screen.Write(buf[:n])
						screenMu.Unlock()
						if err != nil {
							return
						}
					}
				}()

				userSecret := "USER-TOKEN-VALUE-" + newRunID()
				out := filepath.Join(dir, "result.json")
				cmd := exec.Command(exe, fakeArg, "launch", backend, bin, out, marker)
				cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0", "MCPVET_TEST_USER_TOKEN="+userSecret)
				if mode == "rlimits" {
					cmd.Env = append(cmd.Env, "MCPVET_TEST_NO_CGROUPS=1")
				}
				cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
				if redirected {
					logs, err := os.Create(filepath.Join(dir, "mcpvet.log"))
					if err != nil {
						t.Fatal(err)
					}
					defer logs.Close()
					cmd.Stdout, cmd.Stderr = logs, logs
				}
				// mcpvet inherited these from its parent: fds 7 and 8 (above
				// the descriptors a backend passes on purpose, which would
				// otherwise replace them).
				cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, secretFD, logFD}
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}

				cmdlines := map[string]bool{}
				stopScan := make(chan struct{})
				scanDone := make(chan struct{})
				go func() {
					defer close(scanDone)
					for {
						entries, _ := os.ReadDir("/proc")
						for _, e := range entries {
							if data, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && len(cmdlines) < 10000 {
								cmdlines[string(data)] = true
							}
						}
						select {
						case <-stopScan:
							return
						case <-time.After(10 * time.Millisecond):
						}
					}
				}()
				if err := cmd.Run(); err != nil {
					t.Logf("launcher: %v", err)
				}
				close(stopScan)
				<-scanDone

				var res launchResult
				data, err := os.ReadFile(out)
				if err != nil || json.Unmarshal(data, &res) != nil {
					t.Fatalf("no launcher result (%v)", err)
				}
				if res.Error != "" {
					t.Fatalf("launcher: %s", res.Error)
				}
				t.Logf("report:\n%s\nmechanisms: %v", res.Report, res.Mechanisms)

				// 1. Nothing reached the terminal.
				queued, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
				if err != nil {
					t.Fatal(err)
				}
				if queued != 0 {
					buf := make([]byte, queued)
					n, _ := unix.Read(int(tty.Fd()), buf)
					t.Errorf("%d bytes were pushed into the terminal's input: %q", queued, buf[:n])
				}
				tty.Close()
				time.Sleep(50 * time.Millisecond)
				screenMu.Lock()
				shown := screen.String()
				screenMu.Unlock()
				if strings.Contains(shown, "hostile-escape-"+marker) {
					t.Errorf("the pushed command was echoed on the terminal:\n%s", shown)
				}
				for line := range strings.SplitSeq(res.Report, "\n") {
					if strings.HasPrefix(line, "tiocsti") && strings.Contains(line, "pushed") {
						t.Errorf("TIOCSTI went through: %s", line)
					}
				}
				if _, err := os.Stat("/tmp/hostile-escape-" + marker); err == nil {
					os.Remove("/tmp/hostile-escape-" + marker)
					t.Error("the pushed command ran")
				}

				// 2. The inherited descriptors were closed.
				if strings.Contains(res.Report, secretText) {
					t.Error("the server read the secret file through an inherited descriptor")
				}
				for line := range strings.SplitSeq(res.Report, "\n") {
					if strings.HasPrefix(line, "fd ") && (strings.Contains(line, secretPath) || strings.Contains(line, writable)) {
						t.Errorf("inherited descriptor open in the server: %s", line)
					}
					// Any other descriptor above stderr is one mcpvet did not
					// mean to pass, except the server's own (its Go runtime
					// reads its cgroup's CPU quota without a sandbox).
					if rest, ok := strings.CutPrefix(line, "fd "); ok {
						if _, target, _ := strings.Cut(rest, "("); !strings.HasPrefix(target, "/sys/fs/cgroup/") {
							t.Errorf("descriptor open in the server: %s", line)
						}
					}
				}
				if got, _ := os.ReadFile(writable); len(got) != 0 {
					t.Errorf("the server wrote %q to the inherited writable file", got)
				}

				// 4. No secret on any command line.
				for cl := range cmdlines {
					for _, v := range []string{userSecret, res.Canaries["CANARY_KEY"]} {
						if v != "" && strings.Contains(cl, v) {
							t.Errorf("a secret value is on a command line: %q", strings.ReplaceAll(cl, "\x00", " "))
						}
					}
				}
				if res.Canaries["CANARY_KEY"] == "" {
					t.Error("no canary was handed out")
				}

				// 3. Privileges and the filter, as the server saw them and as
				// mcpvet reports them.
				wantMech := []string{"no_ctty"}
				if mode == "rlimits" {
					wantMech = append(wantMech, "rlimit:data")
				}
				if backend != BackendNone {
					wantMech = append(wantMech, "no_new_privs", "seccomp", "caps:none")
					for _, want := range []string{
						"status NoNewPrivs: 1", "status Seccomp: 2", "status CapBnd: 0000000000000000",
						"status CapEff: 0000000000000000", "status CapPrm: 0000000000000000", "status CapAmb: 0000000000000000",
						"syscall unshare-user: denied", "syscall ptrace: denied", "syscall keyctl: denied",
						"syscall bpf: denied", "syscall userfaultfd: denied", "syscall mount: denied",
					} {
						if !strings.Contains(res.Report, want) {
							t.Errorf("report lacks %q", want)
						}
					}
				}
				for _, m := range wantMech {
					if !slices.Contains(res.Mechanisms, m) {
						t.Errorf("mechanisms %v lack %q", res.Mechanisms, m)
					}
				}
				<-readDone
			})
		}
	}
}
