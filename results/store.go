package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpvet/mcpvet/internal/timeline"
	"github.com/mcpvet/mcpvet/vocab"
)

// Scan kinds.
const (
	KindProbe  = "probe"
	KindScan   = "scan"
	KindTriage = "triage"
)

// Scan statuses.
const (
	ScanRunning     = "running"
	ScanDone        = "done"
	ScanInterrupted = "interrupted"
	ScanFailed      = "failed"
)

// Target statuses.
const (
	TargetPending = "pending"
	TargetDone    = "done"
)

var (
	// ErrNotFound: the scan or run does not exist.
	ErrNotFound = errors.New("not found")
	// ErrDuplicateRun: the scan already has a run for the target key. The
	// second SaveRun is rejected (nothing is written) rather than ignored,
	// so a resume bug shows up instead of silently dropping a result.
	ErrDuplicateRun = errors.New("target already has a run in this scan")
	// ErrReadOnly: a write on a store opened with Options.ReadOnly.
	ErrReadOnly = errors.New("store is read-only")
	// ErrClosed: a call on a closed store.
	ErrClosed = errors.New("store is closed")
)

// A Store is an mcpvet results database.
//
// Concurrency: a Store is safe for concurrent use. Writes are serialised:
// every write method takes the single write slot (waiting for it honours
// ctx), runs one transaction on the single write connection, and releases
// the slot, so callers may write from many goroutines without ever seeing
// SQLITE_BUSY from each other. Reads use a separate pool of read-only
// connections; under WAL they see the last committed state and never wait
// for the writer. Another process may open the same file: its writes wait
// up to Options.BusyTimeout for ours. Close waits for an in-flight write.
type Store struct {
	path     string
	version  int
	readOnly bool

	w     *sql.DB // one connection; nil when read-only
	r     *sql.DB // read pool
	st    stmts
	wsem  chan struct{}
	close sync.Once
	cerr  error
	done  bool // set under wsem by Close
	// abs is the file's absolute path when a clean close may record its
	// checked state (see open_checked.go), "" otherwise.
	abs string
}

// Path returns the path the store was opened with.
func (s *Store) Path() string { return s.path }

// Close closes the database. It waits for an in-flight write; later calls
// return [ErrClosed]. Close is idempotent.
func (s *Store) Close() error {
	s.close.Do(func() {
		s.wsem <- struct{}{}
		s.done = true
		<-s.wsem
		// The writer closes last so that it checkpoints the WAL and
		// removes the -wal and -shm files.
		var errs []error
		errs = append(errs, s.st.close(), s.r.Close())
		timeline.Mark("db: statements and reader closed")
		if s.w != nil {
			errs = append(errs, s.w.Close())
		}
		timeline.Mark("db: writer closed (checkpoint)")
		s.cerr = errors.Join(errs...)
		if s.cerr == nil && s.abs != "" {
			recordChecked(s.abs)
		}
		timeline.Mark("db: check record written")
	})
	return s.cerr
}

// write runs fn in one write transaction holding the write slot.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	if s.readOnly {
		return ErrReadOnly
	}
	select {
	case s.wsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.wsem }()
	if s.done {
		return ErrClosed
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback()))
	}
	return tx.Commit()
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// ScanInfo describes a new scan for [Store.NewScan].
type ScanInfo struct {
	// Kind is KindProbe, KindScan or KindTriage.
	Kind string
	// Source names where the targets came from ("registry", "cli",
	// "config:FILE", ...).
	Source string
	// Options is the scan's options as a JSON object; nil stores {}.
	Options json.RawMessage
	// Seed is the sampling seed, if any.
	Seed *int64
	// ShardIndex and ShardCount are the --shard i/n of a sharded scan;
	// ShardCount 0 means not sharded.
	ShardIndex int
	ShardCount int
	// RubricVersion is the grading rubric of the scan's runs.
	RubricVersion string
	// StartedAt defaults to now.
	StartedAt time.Time
}

// Scan is a stored scan with its progress.
type Scan struct {
	ID int64
	ScanInfo
	// FinishedAt is zero while the scan is running or was interrupted
	// without FinishScan.
	FinishedAt time.Time
	Status     string
	// Targets counts the scan's targets and Done those with a run.
	Targets int
	Done    int
}

// NewScan records a new running scan and returns its id.
func (s *Store) NewScan(ctx context.Context, info ScanInfo) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = insertScan(ctx, tx, info, ScanRunning, time.Time{})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("results: creating scan: %w", err)
	}
	return id, nil
}

func insertScan(ctx context.Context, tx *sql.Tx, info ScanInfo, status string, finished time.Time) (int64, error) {
	switch info.Kind {
	case KindProbe, KindScan, KindTriage:
	default:
		return 0, fmt.Errorf("unknown kind %q (want probe, scan or triage)", info.Kind)
	}
	opts := "{}"
	if len(info.Options) > 0 {
		if !json.Valid(info.Options) {
			return 0, fmt.Errorf("options are not valid JSON")
		}
		opts = string(info.Options)
	}
	if info.ShardCount < 0 || info.ShardIndex < 0 || (info.ShardCount > 0 && info.ShardIndex >= info.ShardCount) {
		return 0, fmt.Errorf("invalid shard %d/%d", info.ShardIndex, info.ShardCount)
	}
	start := info.StartedAt
	if start.IsZero() {
		start = time.Now()
	}
	var fin any
	if !finished.IsZero() {
		fin = formatTime(finished)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO scans
		(started_at, finished_at, kind, source, options, seed, shard_index, shard_count, rubric_version, status)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		formatTime(start), fin, info.Kind, info.Source, opts, info.Seed,
		info.ShardIndex, info.ShardCount, info.RubricVersion, status)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// FinishScan records the end of a scan with status ScanDone,
// ScanInterrupted or ScanFailed.
func (s *Store) FinishScan(ctx context.Context, scanID int64, status string) error {
	switch status {
	case ScanDone, ScanInterrupted, ScanFailed:
	default:
		return fmt.Errorf("results: finishing scan %d: unknown status %q", scanID, status)
	}
	return s.setScanStatus(ctx, scanID, status, formatTime(time.Now()), "finishing")
}

// ResumeScan marks a scan running again (clearing its finish time) before
// its [Store.PendingTargets] are run.
func (s *Store) ResumeScan(ctx context.Context, scanID int64) error {
	return s.setScanStatus(ctx, scanID, ScanRunning, nil, "resuming")
}

func (s *Store) setScanStatus(ctx context.Context, scanID int64, status string, finished any, op string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE scans SET status = ?, finished_at = ? WHERE id = ?", status, finished, scanID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("%w: scan %d", ErrNotFound, scanID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("results: %s scan %d: %w", op, scanID, err)
	}
	return nil
}

// AddTargets stores the launch plans of a scan as pending targets, in one
// transaction, and returns how many were new. A plan whose key the scan
// already has is skipped, so a resumed scan may add its plans again.
func (s *Store) AddTargets(ctx context.Context, scanID int64, plans []vocab.Plan) (added int, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		if err := scanExists(ctx, tx, scanID); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO targets (scan_id, key, plan, status)
			VALUES (?, ?, ?, 'pending') ON CONFLICT (scan_id, key) DO NOTHING`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i := range plans {
			p := &plans[i]
			if p.Key == "" {
				return fmt.Errorf("plan %d (%q) has an empty key", i, p.Name)
			}
			// Secret values of the user's own plans are not stored: the
			// plan records where to obtain them again.
			b, err := json.Marshal(p.Stored())
			if err != nil {
				return fmt.Errorf("encoding plan %q: %w", p.Key, err)
			}
			res, err := stmt.ExecContext(ctx, scanID, p.Key, string(b))
			if err != nil {
				return fmt.Errorf("plan %q: %w", p.Key, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			added += int(n)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("results: adding targets to scan %d: %w", scanID, err)
	}
	return added, nil
}

// scanExists returns ErrNotFound unless the scan exists; q is a *sql.DB or
// *sql.Tx, or the prepared stSelectScan statement.
func scanExists(ctx context.Context, q any, scanID int64) error {
	var one int
	var row *sql.Row
	switch q := q.(type) {
	case *sql.Stmt:
		row = q.QueryRowContext(ctx, scanID)
	case interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}:
		row = q.QueryRowContext(ctx, "SELECT 1 FROM scans WHERE id = ?", scanID)
	default:
		panic(fmt.Sprintf("scanExists: %T", q))
	}
	err := row.Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: scan %d", ErrNotFound, scanID)
	}
	return err
}

// PendingTargets returns the plans of a scan's targets that have no run
// yet, in the order they were added.
func (s *Store) PendingTargets(ctx context.Context, scanID int64) ([]vocab.Plan, error) {
	if err := scanExists(ctx, s.r, scanID); err != nil {
		return nil, fmt.Errorf("results: listing pending targets: %w", err)
	}
	rows, err := s.r.QueryContext(ctx,
		"SELECT key, plan FROM targets WHERE scan_id = ? AND status = 'pending' ORDER BY id", scanID)
	if err != nil {
		return nil, fmt.Errorf("results: listing pending targets of scan %d: %w", scanID, err)
	}
	defer rows.Close()
	var out []vocab.Plan
	for rows.Next() {
		var key string
		var plan sql.NullString
		if err := rows.Scan(&key, &plan); err != nil {
			return nil, fmt.Errorf("results: listing pending targets of scan %d: %w", scanID, err)
		}
		p := vocab.Plan{Key: key}
		if plan.Valid {
			if err := json.Unmarshal([]byte(plan.String), &p); err != nil {
				return nil, fmt.Errorf("results: decoding plan %q of scan %d: %w", key, scanID, err)
			}
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("results: listing pending targets of scan %d: %w", scanID, err)
	}
	return out, nil
}

const scanColumns = `s.id, s.started_at, s.finished_at, s.kind, s.source, s.options, s.seed,
	s.shard_index, s.shard_count, s.rubric_version, s.status,
	(SELECT count(*) FROM targets t WHERE t.scan_id = s.id),
	(SELECT count(*) FROM targets t WHERE t.scan_id = s.id AND t.status = 'done')`

func scanScan(sc interface{ Scan(...any) error }) (Scan, error) {
	var (
		sc0       Scan
		started   string
		finished  sql.NullString
		opts      string
		seed      sql.NullInt64
		parseErrs []error
	)
	if err := sc.Scan(&sc0.ID, &started, &finished, &sc0.Kind, &sc0.Source, &opts, &seed,
		&sc0.ShardIndex, &sc0.ShardCount, &sc0.RubricVersion, &sc0.Status, &sc0.Targets, &sc0.Done); err != nil {
		return Scan{}, err
	}
	var err error
	sc0.StartedAt, err = parseTime(started)
	parseErrs = append(parseErrs, err)
	if finished.Valid {
		sc0.FinishedAt, err = parseTime(finished.String)
		parseErrs = append(parseErrs, err)
	}
	sc0.Options = json.RawMessage(opts)
	if seed.Valid {
		v := seed.Int64
		sc0.Seed = &v
	}
	if err := errors.Join(parseErrs...); err != nil {
		return Scan{}, fmt.Errorf("scan %d: %w", sc0.ID, err)
	}
	return sc0, nil
}

// Scans returns every scan, oldest first.
func (s *Store) Scans(ctx context.Context) ([]Scan, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT "+scanColumns+" FROM scans s ORDER BY s.id")
	if err != nil {
		return nil, fmt.Errorf("results: listing scans: %w", err)
	}
	defer rows.Close()
	var out []Scan
	for rows.Next() {
		sc, err := scanScan(rows)
		if err != nil {
			return nil, fmt.Errorf("results: listing scans: %w", err)
		}
		out = append(out, sc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("results: listing scans: %w", err)
	}
	return out, nil
}

// Scan returns one scan.
func (s *Store) Scan(ctx context.Context, id int64) (Scan, error) {
	sc, err := scanScan(s.r.QueryRowContext(ctx, "SELECT "+scanColumns+" FROM scans s WHERE s.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("%w: scan %d", ErrNotFound, id)
	}
	if err != nil {
		return Scan{}, fmt.Errorf("results: reading scan %d: %w", id, err)
	}
	return sc, nil
}

// LatestScan returns the most recently created scan, or [ErrNotFound].
func (s *Store) LatestScan(ctx context.Context) (Scan, error) {
	sc, err := scanScan(s.r.QueryRowContext(ctx, "SELECT "+scanColumns+" FROM scans s ORDER BY s.id DESC LIMIT 1"))
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("%w: no scan in the database", ErrNotFound)
	}
	if err != nil {
		return Scan{}, fmt.Errorf("results: reading the latest scan: %w", err)
	}
	return sc, nil
}

// timeLayout has a fixed number of fraction digits so stored times sort
// as text.
const timeLayout = "2006-01-02T15:04:05.000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		// Accept any RFC 3339 time someone wrote by hand.
		if t2, err2 := time.Parse(time.RFC3339Nano, s); err2 == nil {
			return t2.UTC(), nil
		}
		return time.Time{}, fmt.Errorf("bad time %q: %w", s, err)
	}
	return t, nil
}
