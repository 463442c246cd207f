package testfixture

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"
)

// StartHTTP builds and starts the http fixture (a streamable-HTTP server,
// or an SSE-only one with "-sse") on a free loopback port, stops it when
// the test ends, and returns its URL.
func StartHTTP(tb testing.TB, args ...string) string {
	tb.Helper()
	cmd := exec.Command(Path(tb, "http"), append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "LISTENING ") {
		tb.Fatalf("http fixture said %q, %v", line, err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "LISTENING "))
}
