package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/golden"
)

// triageGolden compares got with testdata/<path>, or rewrites the file with
// -update.
func triageGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", filepath.FromSlash(path)), got)
}

// triageNormalise replaces the test's temporary directories with $TMP, so
// golden files do not depend on the machine. The fixtures fix every time
// the reports show (scan start, run durations).
func triageNormalise(b []byte, dirs ...string) []byte {
	s := string(b)
	for _, d := range dirs {
		s = strings.ReplaceAll(s, d, "$TMP")
	}
	return []byte(s)
}

func triageWrite(t *testing.T, write func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
