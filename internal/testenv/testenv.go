// Package testenv decides what a test does when the machine lacks
// something the test needs: a developer's machine skips it and says why;
// CI (the CI environment variable set, as .ci/run is run) fails it, so the
// suite fails loudly instead of running smaller.
package testenv

import (
	"os"
	"testing"
)

// InCI reports whether the tests run under CI: CI is set to anything but
// "", "0" or "false".
func InCI() bool {
	switch os.Getenv("CI") {
	case "", "0", "false":
		return false
	}
	return true
}

// Need skips t with reason, or fails it under CI. Use it for conditions of
// the machine (a missing tool, file or kernel feature), never for -short.
func Need(t testing.TB, reason string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s (under CI every test must run: .ci/run installs what the tests need)", reason)
		return
	}
	t.Skip(reason)
}
