package results

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// realDB returns the bytes of a valid, closed mcpvet database.
func realDB(t *testing.T) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "real.db")
	st, err := Open(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	scan := newScan(t, st, ScanInfo{})
	if _, err := st.SaveRun(context.Background(), scan, "k", fakeResult(1, census)); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sqliteFile builds a database with plain database/sql and runs stmts.
func sqliteFile(t *testing.T, stmts ...string) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite3", p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestOpenRefusesFiles(t *testing.T) {
	rnd := make([]byte, 8192)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range rnd {
		rnd[i] = byte(r.Uint32())
	}
	real := realDB(t)
	// A valid header followed by garbage: page 1 (the schema) is corrupt.
	corruptPage1 := append([]byte(nil), real...)
	copy(corruptPage1[100:], rnd[:4000])
	// A header that claims an impossible page size.
	badHeader := append([]byte(nil), real...)
	badHeader[16], badHeader[17] = 0x12, 0x34

	tests := []struct {
		name    string
		content []byte
		want    error
		reason  string
	}{
		{"random bytes", rnd, ErrNotDatabase, "file is not a database (not SQLite, or corrupt); move it away or pass another --db"},
		{"text file", []byte("name,version\nfoo,1.0\n"), ErrNotDatabase, "file is not a database"},
		{"short file", []byte("SQLite format 3\x00"), ErrNotDatabase, "file is not a database"},
		{"corrupt page 1", corruptPage1, ErrNotDatabase, "file is not a database"},
		{"bad page size", badHeader, ErrNotDatabase, "file is not a database"},
		{"other program's sqlite", sqliteFile(t, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes (body) VALUES ('hi')"),
			ErrForeignDatabase, "not an mcpvet database"},
		{"newer mcpvet", func() []byte {
			b := append([]byte(nil), real...)
			b[60], b[61], b[62], b[63] = 0, 0, 0, 99 // user_version, big-endian
			return b
		}(), ErrNewerSchema, "schema version 99 is newer than this mcpvet supports"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "x.db")
			if err := os.WriteFile(p, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			before := dirNames(t, dir)
			st, err := Open(context.Background(), p, nil)
			if err == nil {
				st.Close()
				t.Fatal("Open succeeded, want an error")
			}
			checkOpenError(t, err, p, tt.want, tt.reason)
			after, rerr := os.ReadFile(p)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if !bytes.Equal(tt.content, after) {
				t.Error("Open modified the refused file")
			}
			if diff := cmp.Diff(before, dirNames(t, dir)); diff != "" {
				t.Errorf("Open changed the directory (-before +after):\n%s", diff)
			}
			// Read-only opening refuses it the same way.
			if _, err := Open(context.Background(), p, &Options{ReadOnly: true}); !errors.Is(err, tt.want) {
				t.Errorf("read-only Open error = %v, want %v", err, tt.want)
			}
		})
	}
}

func checkOpenError(t *testing.T, err error, path string, want error, reason string) {
	t.Helper()
	var oe *OpenError
	if !errors.As(err, &oe) || !errors.Is(err, ErrOpen) {
		t.Errorf("error %v (%T) is not an *OpenError matching ErrOpen", err, err)
	}
	if want != nil && !errors.Is(err, want) {
		t.Errorf("error %v does not match %v", err, want)
	}
	msg := err.Error()
	t.Logf("error: %s", msg)
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	if prefix := `results: opening "` + path + `": `; !strings.HasPrefix(msg, prefix) {
		t.Errorf("error %q does not start with %q", msg, prefix)
	}
	if !strings.Contains(msg, reason) {
		t.Errorf("error %q does not say %q", msg, reason)
	}
}

func TestOpenRefusesPaths(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		path   string
		reason string
	}{
		{"missing directory", filepath.Join(dir, "nope", "x.db"), "does not exist"},
		{"directory", dir, "is a directory"},
		{"parent is a file", filepath.Join(dir, "file", "x.db"), "is not a directory"},
		{"device", os.DevNull, "not a regular file"},
		{"empty", "", "empty path"},
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := Open(context.Background(), tt.path, nil)
			if err == nil {
				st.Close()
				t.Fatal("Open succeeded, want an error")
			}
			checkOpenError(t, err, tt.path, nil, tt.reason)
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open created the missing directory: %v", err)
	}
	if _, err := Open(context.Background(), filepath.Join(dir, "absent.db"), &Options{ReadOnly: true}); !errors.Is(err, ErrOpen) {
		t.Errorf("read-only Open of a missing file = %v, want ErrOpen", err)
	}
}

// TestOpenRefusesUnreadable checks the permission errors of Open. Root
// ignores file permissions, so when the suite runs as root the test runs
// itself again as an unprivileged user (nobody) in a helper process.
func TestOpenRefusesUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t, "TestOpenRefusesUnreadable")
		return
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "x.db")
	if err := os.WriteFile(p, realDB(t), 0o000); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), p, nil)
	checkOpenError(t, err, p, os.ErrPermission, "permission denied")

	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), filepath.Join(ro, "x.db"), nil)
	checkOpenError(t, err, filepath.Join(ro, "x.db"), os.ErrPermission, "permission denied")
}

func TestOpenAwkwardNames(t *testing.T) {
	for _, name := range []string{"a b.db", "q?x=1.db", "h#frag.db", "pct%20.db", "semi;colon&amp.db"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, name)
			st, err := Open(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			newScan(t, st, ScanInfo{})
			st.Close()
			if diff := cmp.Diff([]string{name}, dirNames(t, dir)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			// Reopen finds the scan in the same file.
			st, err = Open(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if _, err := st.LatestScan(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestOpenEmptyFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Open(context.Background(), p, nil)
	if err != nil {
		t.Fatalf("an empty file is a new database: %v", err)
	}
	st.Close()
}

func TestMigrationsUpgrade(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "old.db")
	abs, _ := filepath.Abs(p)
	if err := checkFile(p, abs, false); err != nil {
		t.Fatal(err)
	}
	// A database made by a build that had only migration 1.
	old, err := open(ctx, p, abs, (*Options)(nil).withDefaults(), migrations[:1])
	if err != nil {
		t.Fatal(err)
	}
	scan := newScan(t, old, ScanInfo{})
	want := fakeResult(7, census)
	id, err := old.SaveRun(ctx, scan, "k7", want)
	if err != nil {
		t.Fatal(err)
	}
	if got := userVersion(t, old); got != 1 {
		t.Fatalf("old database at version %d, want 1", got)
	}
	if n := count(t, old, "SELECT count(*) FROM sqlite_master WHERE name = 'findings_by_code'"); n != 0 {
		t.Fatal("migration 2 already applied")
	}
	old.Close()

	// Read-only opening leaves it at version 1 and can read it.
	ro, err := Open(ctx, p, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ro.Run(ctx, id); err != nil || !cmp.Equal(want, got) {
		t.Errorf("read-only Run = %v; equal %v", err, cmp.Equal(want, got))
	}
	if got := userVersion(t, ro); got != 1 {
		t.Errorf("read-only open upgraded to %d", got)
	}
	ro.Close()

	st, err := Open(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := userVersion(t, st); got != DBSchemaVersion() {
		t.Errorf("upgraded to version %d, want %d", got, DBSchemaVersion())
	}
	var applied []string
	rows, err := st.r.Query("SELECT name FROM schema_migrations ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		applied = append(applied, n)
	}
	rows.Close()
	if diff := cmp.Diff([]string{"0001_init", "0002_report_indexes", "0003_item_digests", "0004_run_summary", "0005_verdict_actor"}, applied); diff != "" {
		t.Errorf("schema_migrations (-want +got):\n%s", diff)
	}
	if n := count(t, st, "SELECT count(*) FROM sqlite_master WHERE name IN ('findings_by_code', 'run_summary')"); n != 2 {
		t.Errorf("migration 2 objects = %d, want 2", n)
	}
	got, err := st.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run after upgrade (-want +got):\n%s", diff)
	}
	if n := count(t, st, "SELECT findings FROM run_summary WHERE run_id = ?", id); n != len(want.Findings) {
		t.Errorf("run_summary.findings = %d, want %d", n, len(want.Findings))
	}
	if _, err := st.SaveRun(ctx, scan, "k8", fakeResult(8, census)); err != nil {
		t.Errorf("SaveRun after upgrade: %v", err)
	}
	// Reopening a current database applies nothing.
	st.Close()
	st2, err := Open(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if n := count(t, st2, "SELECT count(*) FROM schema_migrations"); n != DBSchemaVersion() {
		t.Errorf("schema_migrations rows = %d, want %d", n, DBSchemaVersion())
	}
}

func userVersion(t *testing.T, st *Store) int {
	t.Helper()
	return count(t, st, "PRAGMA user_version")
}

func TestLoadMigrations(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		want    []int
		wantErr bool
	}{
		{"ordered", []string{"0001_a.sql", "0002_b.sql", "README.md"}, []int{1, 2}, false},
		{"gap", []string{"0001_a.sql", "0003_c.sql"}, nil, true},
		{"zero", []string{"0000_a.sql"}, nil, true},
		{"no number", []string{"init.sql"}, nil, true},
		{"none", []string{"README.md"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range tt.files {
				fsys["migrations/"+f] = &fstest.MapFile{Data: []byte("SELECT 1;")}
			}
			ms, err := loadMigrations(fsys)
			if (err != nil) != tt.wantErr {
				t.Fatalf("loadMigrations error = %v, wantErr %v", err, tt.wantErr)
			}
			var got []int
			for _, m := range ms {
				got = append(got, m.version)
			}
			if !slices.Equal(tt.want, got) {
				t.Errorf("versions = %v, want %v", got, tt.want)
			}
		})
	}
	if DBSchemaVersion() != len(migrations) || DBSchemaVersion() < 2 {
		t.Errorf("DBSchemaVersion() = %d with %d migrations", DBSchemaVersion(), len(migrations))
	}
}

// TestOpenConcurrently opens one new path from several stores at once, as
// parallel processes would: each migration is applied exactly once.
func TestOpenConcurrently(t *testing.T) {
	p := filepath.Join(t.TempDir(), "shared.db")
	const n = 6
	errs := make(chan error, n)
	stores := make(chan *Store, n)
	for range n {
		go func() {
			st, err := Open(context.Background(), p, nil)
			errs <- err
			stores <- st
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
		if st := <-stores; st != nil {
			defer st.Close()
			if _, err := st.NewScan(context.Background(), ScanInfo{Kind: KindScan}); err != nil {
				t.Error(err)
			}
		}
	}
	st, err := Open(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := count(t, st, "SELECT count(*) FROM schema_migrations"); got != DBSchemaVersion() {
		t.Errorf("schema_migrations rows = %d, want %d", got, DBSchemaVersion())
	}
	if got := count(t, st, "SELECT count(*) FROM scans"); got != n {
		t.Errorf("scans = %d, want %d", got, n)
	}
}

// FuzzOpen checks that Open never panics on arbitrary file contents and
// never modifies a file it refuses.
func FuzzOpen(f *testing.F) {
	real := realDBForFuzz(f)
	f.Add(real)
	f.Add([]byte("SQLite format 3\x00"))
	f.Add([]byte("hello, world\n"))
	f.Add(real[:4096])
	for _, off := range []int{16, 18, 28, 56, 60, 68, 100, 4096 + 8} {
		b := append([]byte(nil), real...)
		b[off] ^= 0xff
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		p := filepath.Join(t.TempDir(), "f.db")
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := Open(context.Background(), p, nil)
		if err == nil {
			st.Close()
			return
		}
		if !errors.Is(err, ErrOpen) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q is not a one-line OpenError", err)
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(content, b) {
			t.Errorf("refused file was modified (error %v)", err)
		}
	})
}

func realDBForFuzz(f *testing.F) []byte {
	p := filepath.Join(f.TempDir(), "seed.db")
	st, err := Open(context.Background(), p, nil)
	if err != nil {
		f.Fatal(err)
	}
	scan, err := st.NewScan(context.Background(), ScanInfo{Kind: KindScan})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := st.SaveRun(context.Background(), scan, "k", fakeResult(1, shape{tools: 3, calls: 3, findings: 3})); err != nil {
		f.Fatal(err)
	}
	st.Close()
	b, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// TestOpenMutatedDatabases opens a few hundred randomly damaged copies of a
// real database: each either opens or is refused with a one-line
// OpenError, and a refused file is never modified.
func TestOpenMutatedDatabases(t *testing.T) {
	real := realDB(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	opened, refused := 0, 0
	for i := range 300 {
		b := append([]byte(nil), real...)
		for range 1 + r.IntN(20) {
			off := r.IntN(len(b))
			if r.IntN(3) == 0 {
				off = r.IntN(200) // the header and the start of the schema
			}
			b[off] = byte(r.Uint32())
		}
		if r.IntN(4) == 0 {
			b = b[:r.IntN(len(b))]
		}
		p := filepath.Join(dir, fmt.Sprintf("m%d.db", i))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := Open(context.Background(), p, nil)
		if err == nil {
			opened++
			if err := st.Close(); err != nil {
				t.Errorf("case %d: Close: %v", i, err)
			}
			continue
		}
		refused++
		if !errors.Is(err, ErrOpen) || strings.Contains(err.Error(), "\n") {
			t.Errorf("case %d: error %q is not a one-line OpenError", i, err)
		}
		if after, _ := os.ReadFile(p); !bytes.Equal(b, after) {
			t.Errorf("case %d: refused file was modified (%v)", i, err)
		}
	}
	t.Logf("%d opened, %d refused", opened, refused)
	if opened == 0 || refused == 0 {
		t.Errorf("%d opened, %d refused: the mutations should exercise both paths", opened, refused)
	}
}

// runAsNobody runs the named test of this binary again as the user nobody
// and fails t unless it ran and passed there. The binary is copied into a
// folder nobody may read, since go test keeps it in a private one.
func runAsNobody(t *testing.T, test string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpvet-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "results.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + os.TempDir()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s as nobody: %v\n%s", test, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("%s as nobody did not pass:\n%s", test, out)
	}
}
