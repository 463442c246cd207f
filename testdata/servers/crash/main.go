// Command crash is an MCP stdio server that dies at startup: it writes a
// Go-style panic with a goroutine trace to stderr and exits with code 2 (the
// code a Go panic exits with), before reading or writing anything on stdio.
// The trace is printed rather than raised so the exit code does not depend
// on GOTRACEBACK.
//
// Checked by internal/testfixture (TestCrash); written for the sandbox and
// probe tests that classify a run as exited_early and keep stderr.
package main

import (
	"fmt"
	"os"
)

const trace = `panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x4b2f3a]

goroutine 1 [running]:
main.(*config).databaseURL(...)
	/src/crash/config.go:42
main.main()
	/src/crash/main.go:17 +0x1a`

func main() {
	fmt.Fprintln(os.Stderr, trace)
	os.Exit(2)
}
