package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Merge combines shard databases into the database at out, so that out
// holds what a single machine scanning all the shards' targets would have
// stored: one new scan whose targets and runs are the union of the
// inputs', with servers deduplicated by identity and every id remapped.
//
// From each input Merge takes its latest scan. The scans must agree on
// kind, source, seed, rubric version and shard count, and no two may be the
// same shard or share a target key (shards partition the targets); the
// merged scan takes its options from the first input, the earliest start,
// the latest finish (none if a shard is unfinished) and status done only if
// every shard is done (failed if one failed, interrupted otherwise), so an
// unfinished merge can be resumed on one machine from its pending targets.
// Runs keep their creation times. The inputs are opened read-only and never
// modified; older schema versions are accepted.
//
// out may be a new path or an existing mcpvet database (the merged scan is
// added to it) but not one of the inputs. Everything is written in one
// transaction: on error out is unchanged, or removed if Merge created it.
// An input or output that cannot be opened is reported as an [*OpenError].
//
// Merge refuses an incomplete set: every shard 0..n-1 of one scan (same
// plan-set digest), each finished with status done. [MergeShards] with
// AllowPartial merges what there is and records that in the merged scan.
// Merging the same inputs again into the same output changes nothing.
func Merge(ctx context.Context, out string, in ...string) error {
	return MergeShards(ctx, out, in, nil)
}

// MergeOptions configures [MergeShards].
type MergeOptions struct {
	// AllowPartial merges an incomplete or unfinished shard set; the
	// merged scan's options record it ("merge": {"allowPartial": true,
	// "missingShards": [...], "unfinished": [...]}).
	AllowPartial bool
}

// MergeShards is [Merge] with options.
func MergeShards(ctx context.Context, out string, in []string, opts *MergeOptions) (err error) {
	var mo MergeOptions
	if opts != nil {
		mo = *opts
	}
	defer func() {
		var oe *OpenError
		if err != nil && !errors.As(err, &oe) {
			err = fmt.Errorf("results: merging into %q: %w", out, err)
		}
	}()
	if len(in) == 0 {
		return errors.New("no input databases")
	}
	outFi, statErr := os.Stat(out)
	existed := statErr == nil

	inputs, err := openMergeInputs(ctx, in, outFi)
	defer func() {
		for _, x := range inputs {
			x.st.Close()
		}
	}()
	if err != nil {
		return err
	}
	m, err := combineScans(inputs)
	if err != nil {
		return err
	}
	scans := make([]Scan, len(inputs))
	paths := make([]string, len(inputs))
	for i, x := range inputs {
		scans[i], paths[i] = x.scan, x.path
	}
	check, err := checkShardSet(scans, paths)
	if err != nil {
		return err
	}
	if !mo.AllowPartial && check.problem != "" {
		return fmt.Errorf("%w: %s; pass --allow-partial to merge it anyway (recorded in the merged scan)", ErrIncompleteShards, check.problem)
	}
	if m.info.Options, err = withMergeRecord(m.info.Options, check, mo.AllowPartial); err != nil {
		return err
	}
	if existed {
		// Idempotence: the same inputs merged before into out.
		if done, err := alreadyMerged(ctx, out, check.digest); err != nil || done {
			return err
		}
	}

	dst, err := Open(ctx, out, nil)
	if err != nil {
		return err
	}
	defer func() {
		err = errors.Join(err, dst.Close())
		if err != nil && !existed {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(out + suffix)
			}
		}
	}()
	return dst.write(ctx, func(tx *sql.Tx) error { return writeMerged(ctx, tx, &dst.st, inputs, m) })
}

// A mergeInput is one input database of a merge, opened read-only, and
// its latest scan.
type mergeInput struct {
	path string
	fi   fs.FileInfo
	st   *Store
	scan Scan
}

// openMergeInputs opens the inputs read-only, refusing the output (outFi,
// nil when it does not exist) and the same file given twice. The inputs
// opened so far are returned with an error too, for the caller to close.
func openMergeInputs(ctx context.Context, in []string, outFi fs.FileInfo) ([]*mergeInput, error) {
	inputs := make([]*mergeInput, 0, len(in))
	for _, p := range in {
		fi, err := os.Stat(p)
		if err != nil {
			return inputs, &OpenError{Path: p, Err: err, Reason: reasonOf(err)}
		}
		if outFi != nil && os.SameFile(fi, outFi) {
			return inputs, fmt.Errorf("input %q is the output database", p)
		}
		for _, x := range inputs {
			if os.SameFile(fi, x.fi) {
				return inputs, fmt.Errorf("input %q is given twice (also as %q)", p, x.path)
			}
		}
		st, err := Open(ctx, p, &Options{ReadOnly: true})
		if err != nil {
			return inputs, err
		}
		x := &mergeInput{path: p, fi: fi, st: st}
		inputs = append(inputs, x)
		if x.scan, err = st.LatestScan(ctx); err != nil {
			return inputs, fmt.Errorf("input %q: %w", p, err)
		}
	}
	return inputs, nil
}

// mergedScan is the scan a merge creates.
type mergedScan struct {
	info     ScanInfo
	status   string
	finished time.Time
}

// combineScans checks that the inputs' scans are shards of one scan, each
// shard once, and combines them: the first's options, the earliest start,
// the latest finish (none if a shard is unfinished), and status done only
// if every shard is done (failed if one failed, interrupted otherwise).
func combineScans(inputs []*mergeInput) (mergedScan, error) {
	first := inputs[0].scan
	m := mergedScan{info: first.ScanInfo, status: ScanDone}
	m.info.ShardIndex, m.info.ShardCount = 0, 0
	shards := map[int]string{}
	unfinished := false
	for _, x := range inputs {
		sc := x.scan
		if err := sameScan(first, sc); err != nil {
			return m, fmt.Errorf("input %q does not belong to the same scan as %q: %w", x.path, inputs[0].path, err)
		}
		if sc.ShardCount > 0 {
			if prev, dup := shards[sc.ShardIndex]; dup {
				return m, fmt.Errorf("inputs %q and %q are both shard %d/%d", prev, x.path, sc.ShardIndex, sc.ShardCount)
			}
			shards[sc.ShardIndex] = x.path
		}
		if sc.StartedAt.Before(m.info.StartedAt) {
			m.info.StartedAt = sc.StartedAt
		}
		switch {
		case sc.Status == ScanFailed:
			m.status = ScanFailed
		case sc.Status != ScanDone && m.status != ScanFailed:
			m.status = ScanInterrupted
		}
		if sc.FinishedAt.After(m.finished) {
			m.finished = sc.FinishedAt
		}
		unfinished = unfinished || sc.FinishedAt.IsZero()
	}
	if unfinished {
		m.finished = time.Time{}
	}
	return m, nil
}

// writeMerged writes the merged scan, the union of the inputs' targets
// and their runs, with every id remapped, in the transaction tx.
func writeMerged(ctx context.Context, tx *sql.Tx, base *stmts, inputs []*mergeInput, m mergedScan) error {
	scanID, err := insertScan(ctx, tx, m.info, m.status, m.finished)
	if err != nil {
		return fmt.Errorf("creating the merged scan: %w", err)
	}
	addTarget, err := tx.PrepareContext(ctx,
		"INSERT INTO targets (scan_id, key, plan, status) VALUES (?, ?, ?, 'pending')")
	if err != nil {
		return err
	}
	defer addTarget.Close()
	t := &txStmts{ctx: ctx, tx: tx, base: base}
	owner := map[string]string{}
	for _, x := range inputs {
		if err := copyTargets(ctx, x.st, x.scan.ID, x.path, owner, func(key string, plan sql.NullString) error {
			_, err := addTarget.ExecContext(ctx, scanID, key, plan)
			return err
		}); err != nil {
			return err
		}
		for rec, err := range x.st.Runs(ctx, x.scan.ID) {
			if err != nil {
				return fmt.Errorf("input %q: %w", x.path, err)
			}
			if _, err := saveRun(t, scanID, rec.TargetKey, rec.Result, rec.CreatedAt, nil); err != nil {
				return fmt.Errorf("input %q: run %d (%q): %w", x.path, rec.ID, rec.TargetKey, err)
			}
		}
	}
	return nil
}

// sameScan says why two shard scans cannot be one scan.
func sameScan(a, b Scan) error {
	switch {
	case a.Kind != b.Kind:
		return fmt.Errorf("kind %q vs %q", b.Kind, a.Kind)
	case a.Source != b.Source:
		return fmt.Errorf("source %q vs %q", b.Source, a.Source)
	case a.RubricVersion != b.RubricVersion:
		return fmt.Errorf("rubric version %q vs %q", b.RubricVersion, a.RubricVersion)
	case (a.Seed == nil) != (b.Seed == nil) || (a.Seed != nil && *a.Seed != *b.Seed):
		return fmt.Errorf("seed %s vs %s", fmtSeed(b.Seed), fmtSeed(a.Seed))
	case a.ShardCount != b.ShardCount:
		return fmt.Errorf("shard count %d vs %d", b.ShardCount, a.ShardCount)
	}
	return nil
}

func fmtSeed(p *int64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

// copyTargets passes each target of a scan in st to add, refusing a key
// another input already had.
func copyTargets(ctx context.Context, st *Store, scanID int64, path string, owner map[string]string,
	add func(key string, plan sql.NullString) error) error {
	rows, err := st.r.QueryContext(ctx, "SELECT key, plan FROM targets WHERE scan_id = ? ORDER BY id", scanID)
	if err != nil {
		return fmt.Errorf("input %q: listing targets: %w", path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var plan sql.NullString
		if err := rows.Scan(&key, &plan); err != nil {
			return fmt.Errorf("input %q: listing targets: %w", path, err)
		}
		if prev, dup := owner[key]; dup {
			return fmt.Errorf("target %q is in both %q and %q (shards must not overlap)", key, prev, path)
		}
		owner[key] = path
		if err := add(key, plan); err != nil {
			return fmt.Errorf("input %q: target %q: %w", path, key, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("input %q: listing targets: %w", path, err)
	}
	return nil
}
