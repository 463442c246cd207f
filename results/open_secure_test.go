package results

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// bigDB returns the path of a closed mcpvet database of n runs, large
// enough that its data pages lie far behind page 1.
func bigDB(t testing.TB, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "big.db")
	st, err := Open(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	scan := newScan(t, st, ScanInfo{})
	for i := range n {
		if _, err := st.SaveRun(context.Background(), scan, "k"+string(rune('a'+i%26))+string(rune('a'+i/26)), fakeResult(i, census)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpenRefusesDeepCorruption: pages corrupted deep in the file (page 1
// and the schema intact) are refused at open-for-write, before anything is
// written, and the file stays byte-for-byte as it was (issue 11, item 6:
// probe used to commit a scan row, then fail with "database disk image is
// malformed").
func TestOpenRefusesDeepCorruption(t *testing.T) {
	p := bigDB(t, 40)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	pages := len(b) / page
	if pages < 20 {
		t.Fatalf("database has %d pages, want a larger one", pages)
	}
	// Overwrite the b-tree headers of pages two thirds into the file.
	for k := pages * 2 / 3; k < pages*2/3+3; k++ {
		copy(b[k*page:], bytes.Repeat([]byte{0xA5}, 64))
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := Open(context.Background(), p, nil)
	if err == nil {
		st.Close()
		t.Fatal("Open of a database with corrupt data pages succeeded")
	}
	if !errors.Is(err, ErrNotDatabase) || !errors.Is(err, ErrOpen) {
		t.Errorf("Open error = %v, want ErrNotDatabase", err)
	}
	after, err := os.ReadFile(p)
	if err != nil || !bytes.Equal(after, b) {
		t.Errorf("the corrupt database was modified (%d bytes before, %d after, %v)", len(b), len(after), err)
	}
	for _, ext := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(p + ext); err == nil {
			t.Errorf("%s was created next to the corrupt database", ext)
		}
	}
}

// TestDatabaseFilesPrivate: a new database and its -wal and -shm files are
// readable by their owner only; so is a merge output (issue 11, item 2:
// the file was 0644, so any local user could read the plans stored in it).
func TestDatabaseFilesPrivate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.db")
	st, err := Open(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	scan := newScan(t, st, ScanInfo{})
	if _, err := st.SaveRun(context.Background(), scan, "k", fakeResult(1, census)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p, p + "-wal", p + "-shm"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s mode = %v, want -rw-------", filepath.Base(f), m)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "merged.db")
	// The scan was never finished: merging it needs AllowPartial.
	if err := MergeShards(context.Background(), out, []string{p}, &MergeOptions{AllowPartial: true}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("merge output mode = %v, want -rw-------", m)
	}
}

// BenchmarkOpenQuickCheck measures opening an existing database for
// writing, which includes the quick_check of every page.
func BenchmarkOpenQuickCheck(b *testing.B) {
	p := bigDB(b, 400)
	fi, _ := os.Stat(p)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for range b.N {
		st, err := Open(context.Background(), p, nil)
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
