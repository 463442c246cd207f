package main

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/sandbox"
)

// TestMain doubles as the mcpvet binary: with MCPVET_TEST_MAIN=1 the test
// binary runs the CLI, so tests can kill a real mcpvet process.
func TestMain(m *testing.M) {
	sandbox.MaybeRunInit()
	if os.Getenv("MCPVET_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	testfixture.Cleanup()
	os.Exit(code)
}

// mcpvetCmd returns a command that runs this test binary as mcpvet.
func mcpvetCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MCPVET_TEST_MAIN=1")
	return cmd
}

// runCLI runs the CLI in-process and returns the exit code and both streams.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}
