package probe

import (
	"os"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testfixture"
)

// TestMain removes the fixture binaries the tests built. It is the probe
// package's only TestMain: add to it rather than writing another.
func TestMain(m *testing.M) {
	code := m.Run()
	_ = testfixture.Cleanup()
	os.Exit(code)
}
