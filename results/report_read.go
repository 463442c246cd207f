package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// The report reads runs.result_json itself rather than through
// [Store.Runs]: a census of 20,000 servers stores about 270 MB of results,
// and decoding every field (probe bodies, schemas, raw listings, call
// logs) into [probe.Result] dominated the report's time. The census needs
// a small part of each result, so it picks those fields out
// ([decodeLean]) on several goroutines, and the JSON report copies the
// stored text instead of decoding and re-encoding it.

// leanRuns calls fn with every run of a scan, its Result decoded by
// [decodeLean]. Rows are read on the calling goroutine and decoded on
// GOMAXPROCS goroutines; fn is called from one goroutine, in no
// particular order. The first error stops the iteration.
func (s *Store) leanRuns(ctx context.Context, scanID int64, fn func(Record)) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := s.r.QueryContext(ctx,
		"SELECT id, scan_id, server_id, target_key, created_at, result_json FROM runs WHERE scan_id = ? ORDER BY id", scanID)
	if err != nil {
		return fmt.Errorf("results: listing runs: %w", err)
	}
	defer func() { err = errors.Join(err, rows.Close()) }()

	type job struct {
		rec Record
		js  []byte
	}
	var (
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	jobs := make(chan job, 64)
	decoded := make(chan Record, 64)
	var workers sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		workers.Go(func() {
			for j := range jobs {
				if ctx.Err() != nil {
					continue // drain
				}
				res, err := decodeLean(j.js)
				if err != nil {
					fail(fmt.Errorf("results: decoding run %d: %w", j.rec.ID, err))
					continue
				}
				j.rec.Result = res
				select {
				case decoded <- j.rec:
				case <-ctx.Done():
				}
			}
		})
	}
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		for rec := range decoded {
			fn(rec)
		}
	}()

	for rows.Next() {
		var (
			j       job
			created string
		)
		if err := rows.Scan(&j.rec.ID, &j.rec.ScanID, &j.rec.ServerID, &j.rec.TargetKey, &created, &j.js); err != nil {
			fail(fmt.Errorf("results: listing runs: %w", err))
			break
		}
		if j.rec.CreatedAt, err = parseTime(created); err != nil {
			fail(fmt.Errorf("results: run %d: %w", j.rec.ID, err))
			break
		}
		select {
		case jobs <- j:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(jobs)
	workers.Wait()
	close(decoded)
	<-consumed
	if firstErr != nil {
		return firstErr
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
