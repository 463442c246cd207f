package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildScript runs scripts/build.sh, the build the README and the
// Dockerfile use (no Docker engine runs here), and checks the binary it
// makes carries the version and runs.
func TestBuildScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	out := filepath.Join(t.TempDir(), "mcpvet")
	cmd := exec.Command("bash", "../../scripts/build.sh")
	cmd.Env = append(os.Environ(), "OUT="+out, "VERSION=v0.0.0-buildtest")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, b)
	}
	b, err := exec.Command(out, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(b), "v0.0.0-buildtest") {
		t.Errorf("mcpvet --version = %q, %v", b, err)
	}
	dockerfile, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"./scripts/build.sh", "go mod download", "bubblewrap", "node:20"} {
		if !strings.Contains(string(dockerfile), want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
