package results

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-sqlite3"
)

// applicationID marks mcpvet databases in the SQLite header ("mcpv"), so a
// SQLite file of another program is refused instead of gaining our tables.
const applicationID = 0x6d637076

// sqliteMagic starts every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// Options configure [Open]. The zero value (or nil) is ready to use.
type Options struct {
	// BusyTimeout is how long a statement waits for a lock held by another
	// process before failing. Default 10s.
	BusyTimeout time.Duration
	// ReadOnly opens an existing database without writing anything to it:
	// no migration, no journal-mode change. An older schema is accepted
	// (reads use only columns every version has); write methods return
	// [ErrReadOnly].
	ReadOnly bool
	// ReadConns bounds the read connection pool. Default 4.
	ReadConns int
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.BusyTimeout <= 0 {
		r.BusyTimeout = 10 * time.Second
	}
	if r.ReadConns <= 0 {
		r.ReadConns = 4
	}
	return r
}

var (
	// ErrOpen is matched (errors.Is) by every [OpenError]: the database
	// could not be opened, so nothing could run. cmd maps it to exit code 3.
	ErrOpen = errors.New("results: cannot open database")
	// ErrNotDatabase: the file is not an SQLite database, or is corrupt.
	ErrNotDatabase = errors.New("file is not a database")
	// ErrForeignDatabase: the file is an SQLite database of another program.
	ErrForeignDatabase = errors.New("not an mcpvet database")
	// ErrNewerSchema: the database was written by a newer mcpvet.
	ErrNewerSchema = errors.New("database schema is newer than this build")
)

// An OpenError says why [Open] refused a path. Its message is one line that
// names the path and what to do. It matches [ErrOpen] and its cause Err
// (one of [ErrNotDatabase], [ErrForeignDatabase], [ErrNewerSchema], or an
// *fs.PathError / SQLite error) with errors.Is.
type OpenError struct {
	Path   string
	Reason string
	Err    error
}

func (e *OpenError) Error() string {
	return fmt.Sprintf("results: opening %q: %s", e.Path, e.Reason)
}

// Unwrap returns ErrOpen and the cause.
func (e *OpenError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrOpen}
	}
	return []error{ErrOpen, e.Err}
}

func notDatabase(path string, cause error) *OpenError {
	if cause == nil {
		cause = ErrNotDatabase
	} else {
		cause = errors.Join(ErrNotDatabase, cause)
	}
	return &OpenError{Path: path, Err: cause,
		Reason: "file is not a database (not SQLite, or corrupt); move it away or pass another --db"}
}

// oneLine keeps the first line of an OS or SQLite message.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// Open opens the mcpvet database at path, creating it (and only it, not
// its directory) when it does not exist, and upgrades an older schema.
// Several processes may open and use the same file at once.
//
// Open never replaces or modifies a file it refuses: a file that is not
// SQLite, a corrupt one, an SQLite database of another program and one
// written by a newer mcpvet are each reported with an [*OpenError] before
// anything is written. The checks read the 100-byte header first and then
// the schema through SQLite, so a corrupt page 1 is caught too; corruption
// deeper in the file surfaces as an error of the statement that reads it.
//
// The database uses WAL journaling (readers never block the writer),
// synchronous=NORMAL (a committed run survives a killed process; only a power
// loss may lose the last commits), foreign keys, and a busy timeout.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	o := opts.withDefaults()
	if path == "" {
		return nil, &OpenError{Path: path, Reason: "empty path; pass --db FILE"}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &OpenError{Path: path, Reason: oneLine(err), Err: err}
	}
	if err := checkFile(path, abs, o.ReadOnly); err != nil {
		return nil, err
	}
	return open(ctx, path, abs, o, migrations)
}

// CheckPath refuses, as [Open] would, a path that cannot hold a writable
// database (a missing folder, a directory, a file that is not SQLite),
// creating the file when it does not exist, without opening it as a
// database: a caller that opens the store in the background (the probe
// opens it while the server starts) reports such a path before it does
// anything else. Open checks the path again.
func CheckPath(path string) error {
	if path == "" {
		return &OpenError{Path: path, Reason: "empty path; pass --db FILE"}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return &OpenError{Path: path, Reason: oneLine(err), Err: err}
	}
	return checkFile(path, abs, false)
}

// checkFile refuses paths that cannot hold a database without touching
// them. When the file does not exist it creates it empty (an empty file is
// a valid empty SQLite database) so that a missing directory or a permission
// problem is reported by the OS with its exact reason. A file it created
// stays even if opening fails later: another process may already be using
// it, and an empty or half-migrated database is valid (each migration is
// one transaction).
func checkFile(path, abs string, readOnly bool) error {
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		if readOnly {
			return &OpenError{Path: path, Err: err, Reason: "no such file"}
		}
		dir := filepath.Dir(abs)
		if di, derr := os.Stat(dir); derr != nil {
			if errors.Is(derr, fs.ErrNotExist) {
				return &OpenError{Path: path, Err: derr,
					Reason: fmt.Sprintf("directory %q does not exist; create it or pass another --db", filepath.Dir(path))}
			}
			return &OpenError{Path: path, Err: derr, Reason: oneLine(derr)}
		} else if !di.IsDir() {
			return &OpenError{Path: path, Err: fs.ErrInvalid,
				Reason: fmt.Sprintf("%q is not a directory", filepath.Dir(path))}
		}
		f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			// Another process created it since the Stat: check it as found.
			return checkFile(path, abs, readOnly)
		}
		if err != nil {
			return &OpenError{Path: path, Err: err, Reason: "cannot create the file: " + reasonOf(err)}
		}
		if err := f.Close(); err != nil {
			os.Remove(abs)
			return &OpenError{Path: path, Err: err, Reason: oneLine(err)}
		}
		return nil
	}
	if err != nil {
		return &OpenError{Path: path, Err: err, Reason: reasonOf(err)}
	}
	if fi.IsDir() {
		return &OpenError{Path: path, Err: fs.ErrInvalid, Reason: "is a directory, not a database file; pass a file path to --db"}
	}
	if !fi.Mode().IsRegular() {
		return &OpenError{Path: path, Err: fs.ErrInvalid, Reason: "is not a regular file; pass a file path to --db"}
	}
	flag := os.O_RDWR
	if readOnly {
		flag = os.O_RDONLY
	}
	f, err := os.OpenFile(abs, flag, 0)
	if err != nil {
		return &OpenError{Path: path, Err: err, Reason: reasonOf(err)}
	}
	defer f.Close()
	if fi.Size() == 0 {
		return nil
	}
	var hdr [100]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return notDatabase(path, nil)
		}
		return &OpenError{Path: path, Err: err, Reason: "reading the header: " + reasonOf(err)}
	}
	if !bytes.HasPrefix(hdr[:], []byte(sqliteMagic)) {
		return notDatabase(path, nil)
	}
	return nil
}

// reasonOf turns an OS error into a short reason without the path, which
// the OpenError message already names.
func reasonOf(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, syscall.ENOTDIR):
		return "a parent of the path is not a directory"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return oneLine(pe.Err)
	}
	return oneLine(err)
}

// dsn builds a go-sqlite3 URI for an absolute path. The path is escaped so
// '?', '#' and '%' in a file name stay part of it.
func dsn(abs, mode string, o Options, write bool) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive letters: file:///C:/...
	}
	q := url.Values{}
	if mode == "immutable" {
		// immutable=1: SQLite takes no locks and creates no -shm file.
		mode = "ro"
		q.Set("immutable", "1")
	}
	q.Set("mode", mode)
	q.Set("_busy_timeout", fmt.Sprint(o.BusyTimeout.Milliseconds()))
	q.Set("_foreign_keys", "1")
	if write {
		// BEGIN IMMEDIATE takes the write lock up front, so a transaction
		// never fails half-way on a lock upgrade with another process.
		q.Set("_txlock", "immediate")
		// 32 MiB of page cache keeps the index b-trees of a census-sized
		// database in memory while runs are inserted.
		q.Set("_cache_size", "-32768")
	} else {
		q.Set("_query_only", "1")
	}
	return "file://" + (&url.URL{Path: p}).EscapedPath() + "?" + q.Encode()
}

// open opens the connections, validates the file and applies ms.
func open(ctx context.Context, path, abs string, o Options, ms []migration) (_ *Store, err error) {
	mode := "rw"
	if o.ReadOnly {
		mode = "ro"
	}
	w, err := sql.Open("sqlite3", dsn(abs, mode, o, true))
	if err != nil {
		return nil, &OpenError{Path: path, Err: err, Reason: oneLine(err)}
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxLifetime(0)
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	ver, err := validate(ctx, path, w, len(ms))
	if err != nil && o.ReadOnly && cannotShare(err) {
		// A WAL database needs its -shm file, which a user who may only
		// read the file (or a read-only mount) cannot create. Without a
		// -wal file holding unapplied changes the file alone is the whole
		// database, so it is read as immutable instead.
		w.Close()
		if fi, serr := os.Stat(abs + "-wal"); serr == nil && fi.Size() > 0 {
			return nil, &OpenError{Path: path, Err: err,
				Reason: "its -wal file holds changes that cannot be read without write access to the file and its folder; run any mcpvet command that writes to it (as its owner) first, or copy it with its -wal file to a writable folder"}
		}
		if w, err = sql.Open("sqlite3", dsn(abs, "immutable", o, false)); err != nil {
			return nil, &OpenError{Path: path, Err: err, Reason: oneLine(err)}
		}
		ver, err = validate(ctx, path, w, len(ms))
	}
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, wsem: make(chan struct{}, 1)}
	if o.ReadOnly {
		// The validated pool is the read pool; nothing writes.
		w.SetMaxOpenConns(o.ReadConns)
		w.SetMaxIdleConns(o.ReadConns)
		s.r = w
		s.readOnly = true
		s.version = ver
		return s, nil
	}
	if !unchangedSinceChecked(abs) {
		if err := quickCheck(ctx, path, w); err != nil {
			return nil, err
		}
	}
	if err := setWAL(ctx, w, o.BusyTimeout); err != nil {
		return nil, sqliteOpenError(path, err)
	}
	if err := migrate(ctx, w, ms, ver); err != nil {
		return nil, &OpenError{Path: path, Err: err, Reason: "upgrading the schema: " + oneLine(err)}
	}
	r, err := sql.Open("sqlite3", dsn(abs, "ro", o, false))
	if err != nil {
		return nil, &OpenError{Path: path, Err: err, Reason: oneLine(err)}
	}
	r.SetMaxOpenConns(o.ReadConns)
	r.SetMaxIdleConns(o.ReadConns)
	s.w, s.r, s.version, s.abs = w, r, len(ms), abs
	if err := s.prepare(ctx); err != nil {
		r.Close()
		return nil, &OpenError{Path: path, Err: err, Reason: "preparing statements: " + oneLine(err)}
	}
	return s, nil
}

// setWAL switches the database to WAL journaling unless it already uses
// it. The switch needs an exclusive lock and SQLite does not call the busy
// handler for it, so a busy answer is retried until timeout.
func setWAL(ctx context.Context, db *sql.DB, timeout time.Duration) error {
	var jm string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&jm); err != nil {
		return err
	}
	if strings.EqualFold(jm, "wal") {
		return nil
	}
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&jm)
		var se sqlite3.Error
		if err == nil || !errors.As(err, &se) || (se.Code != sqlite3.ErrBusy && se.Code != sqlite3.ErrLocked) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// validate reads the schema, application id and version of the database
// behind db without writing, and returns the version.
func validate(ctx context.Context, path string, db *sql.DB, known int) (int, error) {
	// One statement, so the three are read from one snapshot: read one by
	// one, a process migrating the same new file in between made a new
	// database look like another program's (no tables, but a version).
	var tables, appID, ver int
	if err := db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM sqlite_master), "+
		"(SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version)").
		Scan(&tables, &appID, &ver); err != nil {
		return 0, sqliteOpenError(path, err)
	}
	if appID != applicationID {
		if appID == 0 && tables == 0 && ver == 0 {
			return 0, nil // empty: a new database
		}
		return 0, &OpenError{Path: path, Err: ErrForeignDatabase,
			Reason: fmt.Sprintf("is an SQLite database of another program (application_id %#x, %d schema objects), not an mcpvet database; move it away or pass another --db", appID, tables)}
	}
	if ver > known {
		return 0, &OpenError{Path: path, Err: ErrNewerSchema,
			Reason: fmt.Sprintf("database schema version %d is newer than this mcpvet supports (%d); upgrade mcpvet or pass another --db", ver, known)}
	}
	return ver, nil
}

// quickCheck runs SQLite's quick_check on a database about to be written
// to (unless it is unchanged since a clean close, see open_checked.go), so that corruption deep in the file is refused before anything is
// written (the README promises a corrupt file is left as it was). quick_check
// reads every page once but skips the index-to-table cross checks of
// integrity_check: its cost is one sequential read of the file (about 13 ms
// per 10 MB here, see BenchmarkOpenQuickCheck). It stops at the first problem.
func quickCheck(ctx context.Context, path string, db *sql.DB) error {
	quickChecks.Add(1)
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&res); err != nil {
		return sqliteOpenError(path, err)
	}
	if res != "ok" {
		return notDatabase(path, fmt.Errorf("quick_check: %s", oneLine(errors.New(res))))
	}
	return nil
}

// cannotShare reports whether a read-only open failed because SQLite could
// not create or write the database's shared-memory or lock files.
func cannotShare(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == sqlite3.ErrReadonly || se.Code == sqlite3.ErrCantOpen || se.Code == sqlite3.ErrPerm
}

// sqliteOpenError classifies an SQLite error met while opening.
func sqliteOpenError(path string, err error) *OpenError {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrNotADB, sqlite3.ErrCorrupt:
			return notDatabase(path, err)
		case sqlite3.ErrCantOpen:
			return &OpenError{Path: path, Err: err, Reason: "cannot open the file: " + oneLine(err)}
		case sqlite3.ErrPerm, sqlite3.ErrReadonly, sqlite3.ErrAuth:
			return &OpenError{Path: path, Err: err, Reason: "permission denied: " + oneLine(err)}
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return &OpenError{Path: path, Err: err, Reason: "database is locked by another process: " + oneLine(err)}
		}
	}
	return &OpenError{Path: path, Err: err, Reason: oneLine(err)}
}
