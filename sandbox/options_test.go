package sandbox

import (
	"os"
	"path/filepath"
	"testing"
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
