package probe

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordNPM, when set to a node_modules/.bin directory holding the pinned
// npm reference servers, re-records their protocol pages into
// testdata/check/*.pages.json. Normal runs only replay the recordings.
var recordNPM = flag.String("record-npm", "", "directory with the mcp-server-* binaries to record golden pages from")

// realServers are the pinned npm reference servers recorded as golden
// pages: npm @modelcontextprotocol/server-everything@2026.1.26,
// server-memory@2026.1.26, server-filesystem@2026.1.14 and
// server-sequential-thinking@2025.12.18.
var realServers = []struct {
	name string
	bin  string
	args func(t *testing.T) []string
}{
	{"everything", "mcp-server-everything", nil},
	{"memory", "mcp-server-memory", nil},
	{"filesystem", "mcp-server-filesystem", func(t *testing.T) []string { return []string{t.TempDir()} }},
	{"sequential-thinking", "mcp-server-sequential-thinking", nil},
}

func TestRecordRealServers(t *testing.T) {
	if *recordNPM == "" {
		t.Skip("re-record with -record-npm=/path/to/node_modules/.bin")
	}
	for _, rs := range realServers {
		t.Run(rs.name, func(t *testing.T) {
			var args []string
			if rs.args != nil {
				args = rs.args(t)
			}
			env := []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.json")}
			s := startRaw(t, env, filepath.Join(*recordNPM, rs.bin), args...)
			pages := recordSession(t, s, "2025-11-25")
			rec := recordedSession{Command: append([]string{rs.bin}, redactTemp(args)...), Pages: pages}
			b, err := json.MarshalIndent(rec, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("testdata", "check", rs.name+".pages.json"), append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func redactTemp(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.HasPrefix(a, os.TempDir()) {
			a = "$TMPDIR"
		}
		out[i] = a
	}
	return out
}

// loadRecorded reads a recorded session from testdata/check.
func loadRecorded(t testing.TB, name string) []Page {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "check", name+".pages.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec recordedSession
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Pages
}

// TestRealServers checks the recorded pages of the pinned npm reference
// servers and compares the findings with testdata/check/NAME.golden.
func TestRealServers(t *testing.T) {
	c := NewChecker()
	for _, rs := range realServers {
		t.Run(rs.name, func(t *testing.T) {
			pages := loadRecorded(t, rs.name)
			res := resultFromPages(t, pages)
			got := c.Check(res, pages)
			compareGolden(t, filepath.Join("testdata", "check", rs.name+".golden"), findingLines(got))
		})
	}
}
