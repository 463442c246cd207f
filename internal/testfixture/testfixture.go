// Package testfixture builds the fixture MCP servers in testdata/servers so
// tests can launch them as real processes.
//
// Each fixture is a main package, testdata/servers/NAME/main.go, whose doc
// comment says how it behaves. [Build] compiles the fixtures a test needs
// with one `go build -o DIR` into a temporary directory shared by the whole
// test binary, so each fixture is compiled at most once per test binary;
// [Cleanup] removes that directory and belongs at the end of TestMain:
//
//	func TestMain(m *testing.M) {
//		code := m.Run()
//		testfixture.Cleanup()
//		os.Exit(code)
//	}
//
// Build and Path are safe for concurrent use, including from parallel tests.
package testfixture

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// serversDir is where the fixtures live, relative to the module root.
const serversDir = "testdata/servers"

var (
	mu    sync.Mutex
	dir   string            // output directory, created by the first build
	built map[string]string // fixture name to binary path
	// goBuilds counts go build invocations, for tests.
	goBuilds int
)

// validName matches fixture names; anything else never reaches go build.
var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Build compiles the named fixtures, or every fixture when no name is given,
// and returns the absolute path of each binary by name. A fixture already
// built by this test binary is not built again. An unknown name or a failed
// build fails tb.
func Build(tb testing.TB, names ...string) map[string]string {
	tb.Helper()
	paths, err := build(names)
	if err != nil {
		tb.Fatalf("testfixture: %v", err)
		return nil
	}
	return paths
}

// Path builds one fixture, if needed, and returns the absolute path of its
// binary.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	return Build(tb, name)[name]
}

// Cleanup removes the binaries built so far. A later [Build] builds again.
func Cleanup() error {
	mu.Lock()
	defer mu.Unlock()
	if dir == "" {
		return nil
	}
	err := os.RemoveAll(dir)
	dir, built = "", nil
	return err
}

func build(names []string) (map[string]string, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	all, err := fixtureNames(root)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = all
	}
	for _, n := range names {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("unknown fixture %q (have %v)", n, all)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	var missing []string
	for _, n := range names {
		if _, ok := built[n]; !ok && !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		if err := goBuild(root, missing, len(missing) == len(all)); err != nil {
			return nil, err
		}
	}
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = built[n]
	}
	return out, nil
}

// goBuild compiles the missing fixtures with a single go build, so the
// packages share one compiler invocation and the build cache; it must be
// called with mu held.
func goBuild(root string, missing []string, everything bool) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "mcpvet-fixtures-")
		if err != nil {
			return fmt.Errorf("creating fixture directory: %w", err)
		}
		if dir, err = filepath.Abs(d); err != nil {
			return fmt.Errorf("creating fixture directory: %w", err)
		}
		// Searchable by others: a server bwrap runs as a per-run uid
		// (mcpvet as root) must reach the fixture it runs.
		if err := os.Chmod(dir, 0o755); err != nil {
			return fmt.Errorf("creating fixture directory: %w", err)
		}
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("finding the go command: %w", err)
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	if everything {
		args = append(args, "./"+serversDir+"/...")
	} else {
		for _, n := range missing {
			args = append(args, "./"+serversDir+"/"+n)
		}
	}
	cmd := exec.Command(goTool, args...)
	cmd.Dir = root
	goBuilds++
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building fixtures %v: %w\n%s", missing, err, out)
	}
	if built == nil {
		built = map[string]string{}
	}
	for _, n := range missing {
		p := filepath.Join(dir, n)
		if runtime.GOOS == "windows" {
			p += ".exe"
		}
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("building fixture %s: %w", n, err)
		}
		built[n] = p
	}
	return nil
}

// fixtureNames lists the directories of testdata/servers that hold a
// main.go, sorted.
func fixtureNames(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, serversDir))
	if err != nil {
		return nil, fmt.Errorf("listing fixtures: %w", err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() || !validName.MatchString(e.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, serversDir, e.Name(), "main.go")); err == nil {
			names[e.Name()] = true
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("listing fixtures: no fixture in %s", filepath.Join(root, serversDir))
	}
	return slices.Sorted(maps.Keys(names)), nil
}

// moduleRoot walks up from the working directory to the directory holding
// go.mod; go test runs each test binary in its package directory.
func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("finding module root: %w", err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("finding module root: no go.mod above the working directory")
		}
		d = parent
	}
}
