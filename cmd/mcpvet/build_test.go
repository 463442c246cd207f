package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestReleaseScript runs scripts/release.sh: linux/amd64 always, linux/arm64
// when the cross C compiler is installed (aarch64-linux-gnu-gcc) and
// MCPVET_TEST_ARM64=1; each
// binary is an ELF of its machine with cgo (it links libc), the amd64 one
// runs, and each has its .sha256.
func TestReleaseScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds release binaries")
	}
	arches := []string{"amd64"}
	// The cross build compiles SQLite's C code for arm64 from nothing
	// (minutes on a loaded machine): with MCPVET_TEST_ARM64=1 only.
	if _, err := exec.LookPath("aarch64-linux-gnu-gcc"); err == nil && os.Getenv("MCPVET_TEST_ARM64") == "1" {
		arches = append(arches, "arm64")
	} else {
		t.Log("linux/arm64 not built (needs aarch64-linux-gnu-gcc and MCPVET_TEST_ARM64=1)")
	}
	dist := t.TempDir()
	cmd := exec.Command("bash", "../../scripts/release.sh")
	cmd.Env = append(os.Environ(), "DIST="+dist, "VERSION=v0.0.0-releasetest", "ARCHES="+strings.Join(arches, " "), "QUIET=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, b)
	}
	machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	for _, arch := range arches {
		bin := filepath.Join(dist, "mcpvet-v0.0.0-releasetest-linux-"+arch)
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		libs, _ := f.ImportedLibraries()
		if f.Machine != machine[arch] || !slices.ContainsFunc(libs, func(l string) bool { return strings.HasPrefix(l, "libc.so") }) {
			t.Errorf("%s: machine %v, libraries %v; want %v linking libc (cgo)", arch, f.Machine, libs, machine[arch])
		}
		f.Close()
		if _, err := os.Stat(bin + ".sha256"); err != nil {
			t.Errorf("%s: %v", arch, err)
		}
	}
	b, err := exec.Command(filepath.Join(dist, "mcpvet-v0.0.0-releasetest-linux-amd64"), "version").CombinedOutput()
	if err != nil || !strings.Contains(string(b), "v0.0.0-releasetest") {
		t.Errorf("amd64 version = %q, %v", b, err)
	}
}
