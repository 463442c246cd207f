package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/mcpvet/mcpvet/probe"
)

// A Record is one stored run with its result.
type Record struct {
	ID       int64
	ScanID   int64
	ServerID int64
	// TargetKey is the plan key the run probed.
	TargetKey string
	CreatedAt time.Time
	Result    *probe.Result
}

// Run returns the result stored for a run id, or [ErrNotFound].
func (s *Store) Run(ctx context.Context, id int64) (*probe.Result, error) {
	var js string
	err := s.r.QueryRowContext(ctx, "SELECT result_json FROM runs WHERE id = ?", id).Scan(&js)
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("%w: run %d", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("results: reading run %d: %w", id, err)
	}
	res, err := decodeResult(js)
	if err != nil {
		return nil, fmt.Errorf("results: decoding run %d: %w", id, err)
	}
	return res, nil
}

func decodeResult(js string) (*probe.Result, error) {
	var res probe.Result
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Runs iterates over the runs of a scan in the order they were saved. The
// iteration holds one read connection until it ends; an error ends it.
func (s *Store) Runs(ctx context.Context, scanID int64) iter.Seq2[Record, error] {
	return s.records(ctx, "WHERE scan_id = ? ORDER BY id", scanID)
}

func (s *Store) records(ctx context.Context, where string, args ...any) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		rows, err := s.r.QueryContext(ctx,
			"SELECT id, scan_id, server_id, target_key, created_at, result_json FROM runs "+where, args...)
		if err != nil {
			yield(Record{}, fmt.Errorf("results: listing runs: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var (
				rec     Record
				created string
				js      string
			)
			if err := rows.Scan(&rec.ID, &rec.ScanID, &rec.ServerID, &rec.TargetKey, &created, &js); err != nil {
				yield(Record{}, fmt.Errorf("results: listing runs: %w", err))
				return
			}
			var err error
			if rec.CreatedAt, err = parseTime(created); err != nil {
				yield(Record{}, fmt.Errorf("results: run %d: %w", rec.ID, err))
				return
			}
			if rec.Result, err = decodeResult(js); err != nil {
				yield(Record{}, fmt.Errorf("results: decoding run %d: %w", rec.ID, err))
				return
			}
			if !yield(rec, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(Record{}, fmt.Errorf("results: listing runs: %w", err))
		}
	}
}
