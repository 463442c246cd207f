package testfixture

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := Cleanup(); err != nil {
		fmt.Fprintln(os.Stderr, "testfixture cleanup:", err)
	}
	os.Exit(code)
}

// allFixtures are the fixtures this package documents and tests. Other
// packages may add fixtures of their own under testdata/servers.
var allFixtures = []string{
	"badversion", "banner", "crash", "garbage", "hang", "http",
	"needsenv", "oldversion", "paginated", "wellbehaved",
}

func TestBuildAll(t *testing.T) {
	paths := Build(t)
	for _, name := range allFixtures {
		if paths[name] == "" {
			t.Errorf("Build() has no fixture %q; got %v", name, slices.Sorted(maps.Keys(paths)))
		}
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(root, serversDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(entries) {
		t.Errorf("Build() built %d fixtures, want one per directory of %s (%d)", len(paths), serversDir, len(entries))
	}
	for name, p := range paths {
		if !filepath.IsAbs(p) {
			t.Errorf("Build()[%q] = %q, want an absolute path", name, p)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("Build()[%q]: %v", name, err)
			continue
		}
		if fi.Mode()&0o111 == 0 {
			t.Errorf("Build()[%q] = %q has mode %v, want executable", name, p, fi.Mode())
		}
	}
}

func TestBuildOncePerBinary(t *testing.T) {
	// Start from nothing so the concurrent callers race for the first build.
	if err := Cleanup(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	before := goBuilds
	mu.Unlock()

	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() { got[i] = Path(t, "crash") })
	}
	wg.Wait()
	for i, p := range got {
		if p == "" || p != got[0] {
			t.Errorf("call %d: Path(crash) = %q, want %q like call 0", i, p, got[0])
		}
	}
	if again := Build(t, "crash", "crash")["crash"]; again != got[0] {
		t.Errorf("Build(crash) = %q, want %q", again, got[0])
	}
	mu.Lock()
	builds := goBuilds - before
	mu.Unlock()
	if builds != 1 {
		t.Errorf("8 concurrent Path calls and a Build ran go build %d times, want 1", builds)
	}
	if _, err := os.Stat(got[0]); err != nil {
		t.Error(err)
	}
}

// fatalRecorder is a testing.TB whose Fatalf records instead of stopping.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

func TestBuildUnknownName(t *testing.T) {
	for _, name := range []string{"nosuch", "../wellbehaved", ""} {
		rec := &fatalRecorder{TB: t}
		if got := Build(rec, name); got != nil {
			t.Errorf("Build(%q) = %v, want nil", name, got)
		}
		if !strings.Contains(rec.msg, "unknown fixture") {
			t.Errorf("Build(%q) failed with %q, want it to name an unknown fixture", name, rec.msg)
		}
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(mod), "module github.com/mcpvet/mcpvet\n") {
		t.Errorf("moduleRoot() = %q, whose go.mod starts %q", root, string(mod)[:min(40, len(mod))])
	}
}
