package results

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// checkedRecordsIn points the records of clean closes at a temporary
// folder for the test.
func checkedRecordsIn(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "db-checked")
	old := checkedDir
	checkedDir = func() string { return dir }
	t.Cleanup(func() { checkedDir = old })
	return dir
}

// TestOpenSkipsQuickCheckOfUnchangedFile: after a clean close, the next
// open for writing skips quick_check while the file is byte for byte what
// the close recorded, and runs it again after a write beside it (same
// size, same modification time), while another connection holds WAL
// content, or without a record (issue 25: quick_check at every open was
// 0.1 s of every probe with a 9 MB database).
func TestOpenSkipsQuickCheckOfUnchangedFile(t *testing.T) {
	recs := checkedRecordsIn(t)
	ctx := context.Background()
	p := bigDB(t, 40)
	reopen := func(what string, wantCheck bool) {
		t.Helper()
		before := quickChecks.Load()
		st, err := Open(ctx, p, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if ran := quickChecks.Load() != before; ran != wantCheck {
			t.Errorf("%s: quick_check ran %v, want %v", what, ran, wantCheck)
		}
	}
	reopen("unchanged since the close", false)
	reopen("unchanged again", false)

	// Another connection with WAL content: the file alone is not the
	// database.
	other, err := Open(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.SaveRun(ctx, newScan(t, other, ScanInfo{}), "wal", fakeResult(99, census)); err != nil {
		t.Fatal(err)
	}
	reopen("with a WAL beside it", true)
	other.Close()
	reopen("after the last close", false)

	// No record: checked.
	if err := os.RemoveAll(recs); err != nil {
		t.Fatal(err)
	}
	reopen("without a record", true)

	// A foreign write of the same size and modification time.
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	k := len(b) / page * 2 / 3
	for i := range 64 {
		b[k*page+i] = 0xA5
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	before := quickChecks.Load()
	st, err := Open(ctx, p, nil)
	if err == nil {
		st.Close()
		t.Fatal("Open of a file corrupted after its clean close succeeded")
	}
	if !errors.Is(err, ErrNotDatabase) || quickChecks.Load() == before {
		t.Errorf("Open error = %v (quick_check ran: %v), want ErrNotDatabase from quick_check", err, quickChecks.Load() != before)
	}
}

// TestCheckedRecordsPruned: past the bound, records of databases that no
// longer exist are removed, the others kept.
func TestCheckedRecordsPruned(t *testing.T) {
	recs := checkedRecordsIn(t)
	old := maxCheckedRecords
	maxCheckedRecords = 1
	t.Cleanup(func() { maxCheckedRecords = old })
	ctx := context.Background()
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"a.db", "b.db", "c.db"} {
		p := filepath.Join(dir, n)
		st, err := Open(ctx, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		paths = append(paths, p)
	}
	if err := os.Remove(paths[0]); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, paths[1], nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	for i, p := range paths {
		_, err := os.Stat(checkedRecord(p))
		if kept := err == nil; kept != (i > 0) {
			t.Errorf("record of %s kept %v, want %v", filepath.Base(p), kept, i > 0)
		}
	}
	_ = recs
}
