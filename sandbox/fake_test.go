package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
)

// Fakes are servers the test binary runs when re-executed as
//
//	TESTBINARY mcpvet-fake NAME [MARKER]
//
// The marker only tags the process (and its descendants, which re-execute
// with the same argv tail) so that tests can find leftovers in /proc.
const fakeArg = "mcpvet-fake"

func TestMain(m *testing.M) {
	Main()
	if len(os.Args) >= 3 && os.Args[1] == fakeArg {
		os.Exit(runFake(os.Args[2], os.Args[3:]))
	}
	code := m.Run()
	testfixture.Cleanup()
	os.Exit(code)
}

// The fakes that stand for mcpvet run on the host with the test's
// environment, so under make mutate's coverage run (internal/mutantrun)
// their counters reach GOCOVERDIR: "launch" and "next" exit, and "hold"
// and "holdspin" exit there before their test kills them (exitOnRequest).
// The runner reads the line below; every other fake counts as run where
// its coverage is not seen (in a sandbox, or exec'd).
//
//mutantrun:seen launch next hold holdspin
var fakes = map[string]func(args []string) int{
	// launch stands for mcpvet: see runLauncher.
	"launch": func(args []string) int { return runLauncher(args) },
	// hold stands for mcpvet in the middle of a run: see runHolder.
	"hold": func(args []string) int { return runHolder(args) },
	// pdeathsig prints its parent-death signal: see runPdeathsig.
	"pdeathsig": func([]string) int { return runPdeathsig() },
	// limitoffthread runs backend none's limit stage off the first
	// thread: see runLimitOffThread.
	"limitoffthread": func(args []string) int { return runLimitOffThread(args) },
	// holdspin stands for mcpvet probing a spinning server: see runSpinHolder.
	"holdspin": func(args []string) int { return runSpinHolder(args) },
	// next stands for the next mcpvet run: see runNext.
	"next": func(args []string) int { return runNext(args) },
	// mcp serves a go-sdk server with one "echo" tool.
	"mcp": func([]string) int { return serveMCP() },
	// banner prints text on stdout, then serves MCP.
	"banner": func([]string) int {
		fmt.Println("Fake Server v1 starting on stdio...")
		fmt.Println()
		fmt.Println("{not json")
		return serveMCP()
	},
	// echo answers each request line with a response whose result is the
	// request's params, without the go-sdk.
	"echo": func([]string) int {
		in := bufio.NewReader(os.Stdin)
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return 0
			}
			var id, params string
			// Hand parsing keeps the fake independent of the code under test.
			if _, after, ok := strings.Cut(line, `"id":`); ok {
				id = strings.SplitN(after, ",", 2)[0]
				id = strings.TrimRight(id, "}\n")
			}
			if _, after, ok := strings.Cut(line, `"params":`); ok {
				params = strings.TrimSuffix(strings.TrimSpace(after), "}")
			}
			if id == "" {
				continue
			}
			if params == "" {
				params = "null"
			}
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, params)
		}
	},
	// exit3 writes to stderr and exits with status 3.
	"exit3": func([]string) int {
		fmt.Fprintln(os.Stderr, "fatal: missing API_KEY")
		return 3
	},
	// stderr-flood writes 10000 numbered lines to stderr, then exits.
	"stderr-flood": func([]string) int {
		w := bufio.NewWriter(os.Stderr)
		for i := range 10000 {
			fmt.Fprintf(w, "line %05d\n", i)
		}
		w.Flush()
		return 0
	},
	// flood writes valid-looking lines to stdout forever.
	"flood": func([]string) int {
		w := bufio.NewWriterSize(os.Stdout, 1<<16)
		line := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 1000) + `"}}` + "\n"
		for {
			if _, err := w.WriteString(line); err != nil {
				return 1
			}
		}
	},
	// hugeline writes one line of 100 MB.
	"hugeline": func([]string) int {
		chunk := []byte(strings.Repeat("a", 1<<20))
		os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"x","params":{"d":"`)
		for range 100 {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return 1
			}
		}
		os.Stdout.WriteString("\"}}\n")
		return 0
	},
	// silent never writes and never exits on its own.
	"silent": func([]string) int {
		select {}
	},
	// ignoreterm ignores SIGTERM and stdin EOF.
	"ignoreterm": func([]string) int {
		signal.Ignore(syscall.SIGTERM)
		fmt.Fprintln(os.Stderr, "ignoring SIGTERM")
		select {}
	},
	// daemon leaves a daemonized grandchild (setsid, then double fork),
	// then serves MCP.
	"daemon": func(args []string) int {
		cmd := exec.Command(os.Args[0], append([]string{fakeArg, "daemon-middle"}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "daemon:", err)
			return 1
		}
		return serveMCP()
	},
	"daemon-middle": func(args []string) int {
		cmd := exec.Command(os.Args[0], append([]string{fakeArg, "sleeper"}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return 1
		}
		return 0 // orphan the sleeper
	},
	"sleeper": func([]string) int {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		time.Sleep(time.Hour)
		return 0
	},
	// alloc allocates and touches memory without end, keeping it reachable
	// through allocSink.
	"alloc": func([]string) int {
		for {
			b := make([]byte, 1<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			allocSink = append(allocSink, b)
		}
	},
	// forkbomb starts sleeping children without end.
	"forkbomb": func(args []string) int {
		for {
			cmd := exec.Command(os.Args[0], append([]string{fakeArg, "sleeper"}, args...)...)
			if err := cmd.Start(); err != nil {
				time.Sleep(time.Millisecond)
			}
		}
	},
	// spin burns CPU.
	"spin": func([]string) int {
		x := 0
		for {
			x++
		}
	},
	// env prints its environment on stderr, one variable a line.
	"env": func([]string) int {
		for _, kv := range os.Environ() {
			fmt.Fprintln(os.Stderr, kv)
		}
		return 0
	},
}

// Holders (the "hold" and "holdspin" fakes) stand for mcpvet killed with
// SIGKILL mid-run. A killed process never writes its coverage counters,
// and the runtime writes a test binary's only at exit (its meta-data is
// prepared then: runtime/coverage.WriteCountersDir refuses to run before),
// so under make mutate's coverage run (GOCOVERDIR set) a holder exits
// with os.Exit when its test asks (SIGUSR1) and the test kills it only
// then: like the kill, os.Exit runs no deferred cleanup of the holder, and
// its counters, everything it ran until then, reach GOCOVERDIR. Without
// GOCOVERDIR (every other run, the mutants' included) it is SIGKILL alone.

// exitOnRequest makes a holder exit on SIGUSR1 under the coverage run.
func exitOnRequest() {
	if os.Getenv("GOCOVERDIR") == "" {
		return
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	go func() {
		<-c
		os.Exit(0)
	}()
}

// killHolder ends a holder started by cmd as mcpvet killed mid-run, and
// waits for it (see exitOnRequest).
func killHolder(cmd *exec.Cmd) {
	if os.Getenv("GOCOVERDIR") != "" {
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(done)
		}()
		_ = cmd.Process.Signal(syscall.SIGUSR1)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		return
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

func runFake(name string, args []string) int {
	f, ok := fakes[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown fake %q\n", name)
		return 2
	}
	return f(args)
}

func serveMCP() int {
	server := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1.0.0"}, nil)
	type echoArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Return the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 1
	}
	return 0
}

// allocSink keeps the "alloc" fake's memory reachable.
var allocSink [][]byte
