package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestParseTimeForms: a stored time reads back as written, a time someone
// wrote by hand in any RFC 3339 form is read too (in UTC), and anything
// else is an error naming the text (store.go:442:9 `err != nil` -> `==`
// returned the zero time for a hand-written time; :444:56 `err2 == nil`
// -> `!=` refused it; both lived).
func TestParseTimeForms(t *testing.T) {
	at := time.Date(2026, 12, 2, 3, 4, 5, 123456000, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{formatTime(at), at},
		{"2026-12-02T03:04:05Z", time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)},
		{"2026-12-02T05:04:05.5+02:00", time.Date(2026, 12, 2, 3, 4, 5, 500000000, time.UTC)},
	} {
		got, err := parseTime(c.in)
		if err != nil || !got.Equal(c.want) || got.Location() != time.UTC {
			t.Errorf("parseTime(%q) = %v, %v; want %v in UTC", c.in, got, err, c.want)
		}
	}
	if _, err := parseTime("yesterday"); err == nil {
		t.Errorf("parseTime(yesterday): no error")
	}
}

// TestOptionsDefaults: a read pool of 0 or fewer connections gets the
// default 4, any other size is kept (open.go:50:17 `<= 0` -> `< 0` left
// 0, which database/sql reads as unlimited; -> `> 0` replaced every size).
func TestOptionsDefaults(t *testing.T) {
	for _, c := range []struct{ in, want int }{{-1, 4}, {0, 4}, {1, 1}, {9, 9}} {
		o := (&Options{ReadConns: c.in}).withDefaults()
		if o.ReadConns != c.want || o.BusyTimeout != 10*time.Second {
			t.Errorf("ReadConns %d: got %d and busy timeout %v, want %d and 10s", c.in, o.ReadConns, o.BusyTimeout, c.want)
		}
	}
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "x.db"), &Options{ReadConns: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := st.r.Stats().MaxOpenConnections; n != 4 {
		t.Errorf("read pool of an unset size: %d connections at most, want 4", n)
	}
}

// TestOpenErrorCauses: a refused file matches ErrOpen, ErrNotDatabase and
// the cause it was given (open.go:91:11 `cause == nil` -> `!=` dropped
// ErrNotDatabase without a cause and the cause with one), and an error
// without a cause unwraps to ErrOpen alone.
func TestOpenErrorCauses(t *testing.T) {
	cause := errors.New("quick_check: row 3 missing")
	for _, c := range []struct {
		err  error
		want []error
	}{
		{notDatabase("x.db", nil), []error{ErrOpen, ErrNotDatabase}},
		{notDatabase("x.db", cause), []error{ErrOpen, ErrNotDatabase, cause}},
	} {
		for _, w := range c.want {
			if !errors.Is(c.err, w) {
				t.Errorf("%v does not match %v", c.err, w)
			}
		}
	}
	if u := (&OpenError{Path: "x.db", Reason: "r"}).Unwrap(); len(u) != 1 || u[0] != ErrOpen {
		t.Errorf("an error without a cause unwraps to %v, want ErrOpen alone", u)
	}
}

// TestCheckPathCreates: CheckPath accepts a new file in an existing folder
// (and creates it empty) and refuses an empty path (open.go:142:10
// `path == ""` -> `!=` refused every path; :146:9 `err != nil` -> `==`
// refused every path Abs could make absolute).
func TestCheckPathCreates(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new.db")
	if err := CheckPath(p); err != nil {
		t.Fatalf("CheckPath(%q): %v", p, err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != 0 {
		t.Errorf("CheckPath did not leave an empty file: %v", err)
	}
	if err := CheckPath(""); !errors.Is(err, ErrOpen) || !strings.Contains(err.Error(), "empty path") {
		t.Errorf("CheckPath(\"\") = %v, want an empty-path OpenError", err)
	}
}

// TestOpenReadOnlyFolder: a database in a folder its reader may not write
// to (so SQLite cannot create the -shm file a WAL database needs) is read
// as immutable when no -wal file holds changes (none, or an empty one),
// and refused, naming the -wal file, when one does (open.go:289:9 never
// fell back; :295:46, :295:66 x2 misread the -wal file; :299:73 refused
// the immutable open; :419 the errors that send a read there). Run as
// nobody: root may write to any folder.
func TestOpenReadOnlyFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t, "TestOpenReadOnlyFolder")
		return
	}
	ctx := context.Background()
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean")
	pending := filepath.Join(dir, "pending")
	for _, d := range []string{clean, pending} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// clean/x.db: closed, so SQLite has checkpointed and removed its -wal.
	p := filepath.Join(clean, "x.db")
	st, err := Open(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	newScan(t, st, ScanInfo{})
	// pending/x.db and its -wal, copied while the writer still holds the
	// scan in its -wal.
	for _, ext := range []string{"", "-wal"} {
		b, err := os.ReadFile(p + ext)
		if err != nil {
			t.Fatal(err)
		}
		if ext == "-wal" && len(b) == 0 {
			t.Fatal("the open store's -wal file is empty")
		}
		if err := os.WriteFile(filepath.Join(pending, "x.db"+ext), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if _, err := os.Stat(p + "-wal"); err == nil {
		t.Fatal("the closed store left its -wal file")
	}
	for _, d := range []string{clean, pending} {
		if err := os.Chmod(d, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(d, 0o700) })
	}
	read := func(p string) error {
		ro, err := Open(ctx, p, &Options{ReadOnly: true})
		if err != nil {
			return err
		}
		defer ro.Close()
		_, err = ro.LatestScan(ctx)
		return err
	}
	if err := read(p); err != nil {
		t.Errorf("read-only folder, no -wal file: %v", err)
	}
	if err := os.Chmod(clean, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p+"-wal", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(clean, 0o500); err != nil {
		t.Fatal(err)
	}
	if err := read(p); err != nil {
		t.Errorf("read-only folder, an empty -wal file: %v", err)
	}
	err = read(filepath.Join(pending, "x.db"))
	if !errors.Is(err, ErrOpen) || !strings.Contains(err.Error(), "-wal file holds changes") {
		t.Errorf("read-only folder, a -wal file with changes: %v, want the -wal refusal", err)
	}
}

// TestOpenReadOnlyWhileLocked: a database another connection holds
// exclusively is refused to a reader, not read as immutable (which takes
// no lock and could read a half-written file): only the errors of a
// missing -shm file send a read there (open.go:419:85 `se.Code ==
// sqlite3.ErrPerm` -> `!=` sent every other error too).
func TestOpenReadOnlyWhileLocked(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "x.db")
	st, err := Open(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	newScan(t, st, ScanInfo{})
	st.Close()
	db, err := sql.Open("sqlite3", "file:"+p+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"PRAGMA locking_mode = EXCLUSIVE", "BEGIN EXCLUSIVE", "CREATE TABLE locked_by_test (x INTEGER)"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	ro, err := Open(ctx, p, &Options{ReadOnly: true, BusyTimeout: 50 * time.Millisecond})
	if err == nil {
		ro.Close()
		t.Fatal("a database held exclusively was opened for reading")
	}
	if !errors.Is(err, ErrOpen) || strings.Contains(err.Error(), "-wal") {
		t.Errorf("Open of a locked database: %v, want the lock's error", err)
	}
}

// TestSetWALRetriesOnlyBusy: switching to WAL while another connection
// reads is retried (SQLite does not call the busy handler for the
// switch) until the deadline or the context ends, and it succeeds once
// the reader is gone (open.go:357:10 `err == nil` -> `!=` and :357:53
// `!= sqlite3.ErrBusy` -> `==` gave up at the first busy answer); any
// other error returns at once (:357:83 `!= sqlite3.ErrLocked` -> `==`
// retried a read-only connection's refusal until the deadline).
func TestSetWALRetriesOnlyBusy(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "x.db")
	db, err := sql.Open("sqlite3", "file:"+p+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	reader, err := sql.Open("sqlite3", "file:"+p+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	tx, err := reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := setWAL(short, db, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("switch while another connection reads: %v, want retries until the context ends", err)
	}
	tx.Rollback()
	if err := setWAL(ctx, db, time.Minute); err != nil {
		t.Fatalf("switch once the reader is gone: %v", err)
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q, %v; want wal", mode, err)
	}

	q := filepath.Join(t.TempDir(), "y.db")
	w, err := sql.Open("sqlite3", "file:"+q+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.ExecContext(ctx, "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	ro, err := sql.Open("sqlite3", "file:"+q+"?mode=ro&_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	long, cancel2 := context.WithTimeout(ctx, 2*time.Second)
	defer cancel2()
	err = setWAL(long, ro, time.Minute)
	var se sqlite3.Error
	if !errors.As(err, &se) {
		t.Errorf("switch on a read-only connection: %v, want SQLite's refusal at once", err)
	}
}

// TestSaveAtEachSchemaVersion: a store opened at exactly the version
// that added item digests, or run summaries, writes them (save.go:75:39
// and :80:40 `<` -> `<=` left the statement unprepared at that version,
// so the run was stored without them).
func TestSaveAtEachSchemaVersion(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ migration, table string }{
		{"item_digests", "item_digests"},
		{"run_summary", "run_summaries"},
	} {
		p := filepath.Join(t.TempDir(), "old.db")
		abs, _ := filepath.Abs(p)
		if err := checkFile(p, abs, false); err != nil {
			t.Fatal(err)
		}
		st, err := open(ctx, p, abs, (*Options)(nil).withDefaults(), migrations[:migrationVersion(c.migration)])
		if err != nil {
			t.Fatal(err)
		}
		scan := newScan(t, st, ScanInfo{})
		res := &probe.Result{Liveness: probe.Liveness{HandshakeCompleted: true, Status: vocab.StatusOK},
			Tools: []probe.Tool{{Name: "t", Raw: json.RawMessage(`{"name":"t","description":"d"}`)}}}
		id, err := st.SaveRun(ctx, scan, "k", res)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := st.r.QueryRowContext(ctx, "SELECT count(*) FROM "+c.table+" WHERE run_id = ?", id).Scan(&n); err != nil || n == 0 {
			t.Errorf("schema version %d (%s): %d rows in %s, %v; want the run's", migrationVersion(c.migration), c.migration, n, c.table, err)
		}
		st.Close()
	}
}

// TestSaveProbeElements: a graded probe's rubric elements are stored as
// JSON in probes.elements, an ungraded probe's as NULL (save.go:305:17
// `x.Elements != nil` -> `==` stored "null" for the one and nothing for
// the other).
func TestSaveProbeElements(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	scan := newScan(t, st, ScanInfo{})
	res := &probe.Result{Liveness: probe.Liveness{HandshakeCompleted: true, Status: vocab.StatusOK},
		Probes: []probe.ProbeCall{
			{Kind: "unknown_tool", Method: "tools/call", Elements: []probe.Element{{Name: "code", Pass: true, Evidence: "-32602"}}},
			{Kind: "unknown_tool", Method: "tools/call"},
		}}
	id, err := st.SaveRun(ctx, scan, "k", res)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.r.QueryContext(ctx, "SELECT elements FROM probes WHERE run_id = ? ORDER BY idx", id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []sql.NullString
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if len(got) != 2 || !got[0].Valid || !strings.Contains(got[0].String, `"name":"code"`) || got[1].Valid {
		t.Errorf("stored elements %+v, want the graded probe's JSON and NULL", got)
	}
}
