package testfixture

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// EverythingVersion is the pinned @modelcontextprotocol/server-everything
// the real-server tests run.
const EverythingVersion = "2026.1.26"

// NPMBin returns the path of an npm server binary installed by the tests
// into .cache/mcpvet of the repository (the layout of mcpvet's installer),
// and skips the test when it is not there.
func NPMBin(tb testing.TB, pkg, version, bin string) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(root, ".cache", "mcpvet", "npm", strings.ReplaceAll(pkg, "/", "+")+"@"+version, "node_modules", ".bin", bin)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("%s@%s not installed (%v); the scan package's real-server tests install it", pkg, version, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		tb.Skip("node is not installed")
	}
	return p
}

// StartEverythingHTTP starts the real server-everything in its
// streamableHttp mode on a free loopback port, stops it when the test ends,
// and returns its endpoint URL (http://127.0.0.1:PORT/mcp).
func StartEverythingHTTP(tb testing.TB) string {
	tb.Helper()
	bin := NPMBin(tb, "@modelcontextprotocol/server-everything", EverythingVersion, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- nil
				// Keep draining so the server never blocks on stderr.
				for sc.Scan() {
				}
				return
			}
		}
		ready <- fmt.Errorf("server-everything exited before listening: %v", sc.Err())
	}()
	select {
	case err := <-ready:
		if err != nil {
			tb.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		tb.Fatal("server-everything did not listen within 30s")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}
