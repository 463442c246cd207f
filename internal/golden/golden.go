// Package golden compares test output with golden files. The test flag
// -update rewrites them instead:
//
//	go test ./results -run TestReportGolden -update
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// Update reports whether the test binary runs with -update.
func Update() bool { return *update }

// Check compares got with the file at path, or with -update writes got
// there (creating its directory).
func Check(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("reading golden file (rerun with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		tb.Errorf("%s differs (-want +got); rerun with -update if the change is intended:\n%s", path, diff)
	}
}
