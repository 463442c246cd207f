// Command hang is an MCP stdio server that never answers: it reads and
// discards stdin and never writes a byte. It exits when stdin closes.
//
// With FIXTURE_HANG_STUBBORN=1 it also ignores stdin closing, SIGTERM and
// SIGINT, so only SIGKILL ends it: a server that does not shut down.
//
// Checked by internal/testfixture (TestHang); written for the sandbox and
// probe tests for handshake_timeout and for the close, SIGTERM, SIGKILL
// escalation.
package main

import (
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	stubborn := os.Getenv("FIXTURE_HANG_STUBBORN") == "1"
	if stubborn {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	if stubborn {
		for {
			time.Sleep(time.Hour)
		}
	}
}
