package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestResolveRelativeCacheDir: a relative --cache-dir is made absolute
// against the directory mcpvet runs in, since installers run elsewhere
// (with --cache-dir cache every npm install failed with "installed
// package has no package.json").
func TestResolveRelativeCacheDir(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	o := (&Options{CacheDir: "cache"}).resolve()
	if want := filepath.Join(wd, "cache"); o.CacheDir != want {
		t.Errorf("CacheDir = %q, want %q", o.CacheDir, want)
	}
}

// TestResolveGraces: the shutdown waits default to DefaultStdinGrace and
// DefaultTerminateGrace, and the default StdinGrace never exceeds the
// TerminateGrace a caller chose (a test that shortens TerminateGrace to
// speed up shutdown must not wait longer on stdin than on SIGTERM). A
// StdinGrace the caller sets is kept as given.
func TestResolveGraces(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		name                   string
		stdin, terminate       time.Duration
		wantStdin, wantTermina time.Duration
	}{
		{"defaults", 0, 0, DefaultStdinGrace, DefaultTerminateGrace},
		{"terminate above the stdin default", 0, time.Second, DefaultStdinGrace, time.Second},
		{"terminate equal to the stdin default", 0, DefaultStdinGrace, DefaultStdinGrace, DefaultStdinGrace},
		{"terminate below the stdin default caps it", 0, DefaultStdinGrace - ms, DefaultStdinGrace - ms, DefaultStdinGrace - ms},
		{"terminate far below", 0, 5 * ms, 5 * ms, 5 * ms},
		{"negative terminate is the default", 0, -ms, DefaultStdinGrace, DefaultTerminateGrace},
		{"a given stdin grace is kept", 3 * time.Second, 5 * ms, 3 * time.Second, 5 * ms},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := (&Options{StdinGrace: c.stdin, TerminateGrace: c.terminate}).resolve()
			if o.StdinGrace != c.wantStdin || o.TerminateGrace != c.wantTermina {
				t.Errorf("StdinGrace, TerminateGrace = %v, %v; want %v, %v", o.StdinGrace, o.TerminateGrace, c.wantStdin, c.wantTermina)
			}
		})
	}
	if o := (*Options)(nil).resolve(); o.StdinGrace != DefaultStdinGrace || o.TerminateGrace != DefaultTerminateGrace {
		t.Errorf("nil options: %v, %v", o.StdinGrace, o.TerminateGrace)
	}
}
