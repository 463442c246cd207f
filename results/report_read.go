package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"

	"github.com/sourcegraph/conc/stream"
)

// The census pass reads run_summaries (migration 0004), the few fields of
// each result it needs, rather than result_json through [Store.Runs]: a
// census of 20,000 servers stores about 270 MB of results, and reading
// and decoding every field (probe bodies, schemas, raw listings, call
// logs) into [probe.Result] dominated the report's time. A database older
// than the column, opened read-only and so not migrated, is read from
// result_json with the same decoder. The JSON report copies the stored
// text instead of decoding and re-encoding it.

// leanRuns calls fn with every run of a scan in id order, its Result
// holding only the summary's fields ([runSummary]). Rows are read on the
// calling goroutine and decoded by GOMAXPROCS stream tasks; fn is called
// from one goroutine at a time, in row order. The first error stops the
// iteration.
func (s *Store) leanRuns(ctx context.Context, scanID int64, fn func(Record)) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// coalesce reads result_json only for a run without a summary.
	q := `SELECT r.id, r.scan_id, r.server_id, r.target_key, r.created_at, coalesce(s.summary, r.result_json)
		FROM runs AS r LEFT JOIN run_summaries AS s ON s.run_id = r.id WHERE r.scan_id = ? ORDER BY r.id`
	if s.version < migrationVersion("run_summary") {
		q = "SELECT id, scan_id, server_id, target_key, created_at, result_json FROM runs WHERE scan_id = ? ORDER BY id"
	}
	rows, err := s.r.QueryContext(ctx, q, scanID)
	if err != nil {
		return fmt.Errorf("results: listing runs: %w", err)
	}
	defer func() { err = errors.Join(err, rows.Close()) }()

	var (
		firstErr error // set by the callbacks, which the stream runs one at a time
		scanErr  error
	)
	st := stream.New().WithMaxGoroutines(max(runtime.GOMAXPROCS(0), 1))
	for rows.Next() && ctx.Err() == nil {
		var (
			rec     Record
			created string
			js      []byte
		)
		if scanErr = rows.Scan(&rec.ID, &rec.ScanID, &rec.ServerID, &rec.TargetKey, &created, &js); scanErr != nil {
			break
		}
		st.Go(func() stream.Callback {
			var err error
			if rec.CreatedAt, err = parseTime(created); err != nil {
				err = fmt.Errorf("results: run %d: %w", rec.ID, err)
			} else if rec.Result, err = decodeSummary(js); err != nil {
				err = fmt.Errorf("results: decoding run %d: %w", rec.ID, err)
			}
			return func() {
				switch {
				case firstErr != nil:
				case err != nil:
					firstErr = err
					cancel()
				default:
					fn(rec)
				}
			}
		})
	}
	st.Wait()
	if firstErr != nil {
		return firstErr
	}
	if scanErr != nil {
		return fmt.Errorf("results: listing runs: %w", scanErr)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("results: listing runs: %w", err)
	}
	return ctx.Err()
}

// runJSON returns the stored JSON of a run's result.
func (s *Store) runJSON(ctx context.Context, id int64) ([]byte, error) {
	var js []byte
	err := s.r.QueryRowContext(ctx, "SELECT result_json FROM runs WHERE id = ?", id).Scan(&js)
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("%w: run %d", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("results: reading run %d: %w", id, err)
	}
	return js, nil
}
