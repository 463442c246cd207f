package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestS10AAHiddenByHardLink checks that the results database is refused
// under any name that reaches its inode: a hard link shares no path with
// it, so only the device-and-inode comparison of CheckExpose sees it
// (expose.go 157:34 and 159:34, the two Stat checks of that comparison).
func TestS10AAHiddenByHardLink(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "results", "mcpvet.db")
	alias := filepath.Join(dir, "share", "copy.db")
	other := filepath.Join(dir, "share", "other.db")
	for _, d := range []string{filepath.Dir(db), filepath.Dir(alias)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{db, db + "-wal", other} {
		if err := os.WriteFile(f, []byte("db"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(db, alias); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	walAlias := filepath.Join(dir, "share", "copy.db-wal")
	if err := os.Link(db+"-wal", walAlias); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want string // the ExposeError's reason, "" for none
	}{
		{"a hard link to the database", alias, "it is mcpvet's results database"},
		{"a hard link to its write-ahead log", walAlias, "it is mcpvet's results database"},
		{"another file beside them", other, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckExpose(tc.path, []string{db})
			got := ""
			if xe, ok := errors.AsType[*ExposeError](err); ok {
				got = xe.Reason
			} else if err != nil {
				t.Fatalf("CheckExpose(%q) = %v, want an *ExposeError or nil", tc.path, err)
			}
			if got != tc.want {
				t.Errorf("CheckExpose(%q) reason = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

// TestS10AAResolvedForms pins resolvedForms for paths that do not exist
// yet: the deepest existing ancestor is resolved and the rest appended, so
// a database or store not yet created, named through a symlinked folder,
// is still recognised (expose.go 189:62, 189:76, 190:51, 191:41: the walk
// up, where it stops, and when the resolved form is new).
func TestS10AAResolvedForms(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real")
	link := filepath.Join(base, "link")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		abs  string
		want []string
	}{
		{"an existing file through the link", filepath.Join(link, "x"), []string{filepath.Join(link, "x"), filepath.Join(real, "x")}},
		{"a missing file under the link", filepath.Join(link, "new.db"), []string{filepath.Join(link, "new.db"), filepath.Join(real, "new.db")}},
		{"missing folders under the link", filepath.Join(link, "a", "b", "new.db"), []string{filepath.Join(link, "a", "b", "new.db"), filepath.Join(real, "a", "b", "new.db")}},
		{"a missing file under no link: one form", filepath.Join(real, "a", "new.db"), []string{filepath.Join(real, "a", "new.db")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, resolvedForms(tc.abs)); diff != "" {
				t.Errorf("resolvedForms(%q) (-want +got):\n%s", tc.abs, diff)
			}
		})
	}

	// What that is for: the database is not created yet, and the path
	// exposed names its folder through the link.
	db := filepath.Join(real, "a", "mcpvet.db")
	err = CheckExpose(filepath.Join(link, "a", "mcpvet.db"), []string{db})
	if xe, ok := errors.AsType[*ExposeError](err); !ok || xe.Reason != "it is mcpvet's results database" {
		t.Errorf("CheckExpose(the database to be, through a link) = %v, want it refused as the results database", err)
	}
}

// TestS10AAScriptThroughSymlinkOutsideProject checks that a script outside
// any project, run through a symlink in another folder, has both folders
// exposed: the target's, where its siblings are, and the link's, which is
// where the script's relative imports are looked up when the interpreter
// keeps the name argv gives (expose.go 483:10).
func TestS10AAScriptThroughSymlinkOutsideProject(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "home"))
	p := func(rel string) string { return filepath.Join(root, rel) }
	for _, d := range []string{"loose", "links", "elsewhere", "home"} {
		if err := os.MkdirAll(p(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p("loose/script.js"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p("loose/script.js"), p("links/s.js")); err != nil {
		t.Fatal(err)
	}
	plan := vocab.Plan{Command: "node", Args: []string{p("links/s.js")}}
	s := &Server{plan: &plan, opts: Options{WorkDir: p("elsewhere")}, argv: []string{"node", p("links/s.js")}, env: []string{"PATH="}}
	s.planExposure()
	want := exposureOutcome{
		Exposed: []Exposure{
			{Path: p("elsewhere"), Why: ExposeCwd},
			{Path: p("loose"), Why: ExposeScriptDir},
			{Path: p("links"), Why: ExposeScriptDir},
			{Path: p("links/s.js"), Why: ExposeArgv},
		},
		ReadOnly: []string{p("elsewhere"), p("loose"), p("links")},
		WorkDir:  p("elsewhere"),
	}
	got := exposureOutcome{Exposed: s.exposed, Refused: s.refused, Masked: s.masked, ReadOnly: s.readOnly, WorkDir: s.workDir}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("planExposure (-want +got):\n%s", diff)
	}
}

// TestS10AAUnexposedHintLongStderr checks that UnexposedHint reads only
// the last 64 KiB of a long stderr: a file error at its end is found, one
// before those 64 KiB is not (expose.go 645:30, the start of that tail).
func TestS10AAUnexposedHintLongStderr(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "data.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	errLine := "Error: ENOENT: no such file or directory, open '" + file + "'"
	filler := strings.Repeat("starting server, loading plugins\n", 3000) // about 96 KiB
	tests := []struct {
		name   string
		stderr string
		want   string // a part of the hint, "" for none
	}{
		{"the error at the end", filler + errLine + "\n", "pass --expose " + file},
		{"the error before the last 64 KiB", errLine + "\n" + filler, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := UnexposedHint(tc.stderr, nil)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("UnexposedHint(%d bytes) = %q, want %q", len(tc.stderr), got, tc.want)
			}
		})
	}
}
