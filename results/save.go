package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpvet/mcpvet/probe"
)

// Statement indexes of stmts.
const (
	stSelectScan = iota
	stInsertServer
	stSelectServer
	stSelectTarget
	stInsertTarget
	stMarkTarget
	stInsertRun
	stInsertSummary
	stInsertTool
	stInsertPrompt
	stInsertResource
	stInsertTemplate
	stInsertFinding
	stInsertCall
	stInsertProbe
	stInsertDigest
	stSetActor
	stCount
)

var stmtSQL = [stCount]string{
	stSelectScan: `SELECT 1 FROM scans WHERE id = ?`,
	stInsertServer: `INSERT INTO servers (name, version, source) VALUES (?, ?, ?)
		ON CONFLICT (name, version, source) DO NOTHING RETURNING id`,
	stSelectServer: `SELECT id FROM servers WHERE name = ? AND version = ? AND source = ?`,
	stSelectTarget: `SELECT status FROM targets WHERE scan_id = ? AND key = ?`,
	stInsertTarget: `INSERT INTO targets (scan_id, key, plan, status) VALUES (?, ?, ?, 'done')`,
	stMarkTarget:   `UPDATE targets SET status = 'done' WHERE scan_id = ? AND key = ?`,
	stInsertRun: `INSERT INTO runs (scan_id, server_id, target_key, created_at, transport, sandbox,
		status, handshake_completed, handshake, detail, evidence, protocol_version,
		server_name, server_title, server_version, capabilities, instructions_bytes,
		start_ms, handshake_ms, list_ms, probe_ms, total_ms, stderr_tail, exit_code, stdout_noise,
		score, verdict, verdict_json, rubric_version, result_json)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	stInsertSummary: `INSERT INTO run_summaries (run_id, summary) VALUES (?, ?)`,
	stInsertTool: `INSERT INTO tools (run_id, idx, name, title, description, input_schema, output_schema, annotations, raw)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	stInsertPrompt: `INSERT INTO prompts (run_id, idx, name, title, description, arguments, raw)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
	stInsertResource: `INSERT INTO resources (run_id, idx, uri, name, mime_type, raw) VALUES (?, ?, ?, ?, ?, ?)`,
	stInsertTemplate: `INSERT INTO resource_templates (run_id, idx, uri_template, name, raw) VALUES (?, ?, ?, ?, ?)`,
	stInsertFinding: `INSERT INTO findings (run_id, idx, code, severity, subject, pointer, value, message)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	stInsertCall: `INSERT INTO calls (run_id, idx, seq, method, tool, input_hash, latency_ms, output_bytes, error_code, is_error, outcome)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	stInsertProbe: `INSERT INTO probes (run_id, idx, kind, method, tool, param, sent, class, latency_ms, response, text, elements, score, destructive, open_world)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	stInsertDigest: `INSERT INTO item_digests (run_id, kind, key, digest) VALUES (?, ?, ?, ?)`,
	stSetActor:     `UPDATE runs SET actor = ? WHERE id = ?`,
}

// stmts are the write statements, prepared once on the write connection;
// a transaction binds them with Tx.StmtContext, which reuses the prepared
// statement because there is only one connection.
type stmts [stCount]*sql.Stmt

func (s *Store) prepare(ctx context.Context) error {
	for i, q := range stmtSQL {
		if i == stInsertDigest && s.version < migrationVersion("item_digests") {
			// A store opened with an older schema (tests of upgrades
			// and of merging old shards) has no digest table.
			continue
		}
		if i == stInsertSummary && s.version < migrationVersion("run_summary") {
			continue // nor a summary table
		}
		if i == stSetActor && s.version < migrationVersion("verdict_actor") {
			continue // nor an actor column
		}
		st, err := s.w.PrepareContext(ctx, q)
		if err != nil {
			s.st.close()
			return err
		}
		s.st[i] = st
	}
	return nil
}

func (st *stmts) close() error {
	var errs []error
	for i, s := range st {
		if s != nil {
			errs = append(errs, s.Close())
			st[i] = nil
		}
	}
	return errors.Join(errs...)
}

// txStmts binds the prepared statements to one transaction on first use.
type txStmts struct {
	ctx   context.Context
	tx    *sql.Tx
	base  *stmts
	bound [stCount]*sql.Stmt
}

func (t *txStmts) exec(i int, args ...any) (sql.Result, error) {
	return t.stmt(i).ExecContext(t.ctx, args...)
}

func (t *txStmts) stmt(i int) *sql.Stmt {
	if t.bound[i] == nil {
		t.bound[i] = t.tx.StmtContext(t.ctx, t.base[i])
	}
	return t.bound[i]
}

// SaveRun stores the result of probing the target key in a scan and returns
// the new run's id. In the same transaction it marks the scan's target
// done (adding the target without a plan if [Store.AddTargets] never saw
// the key), so a process killed at any moment leaves the target either
// pending with no run or done with exactly one.
//
// A scan holds at most one run per target key: saving a second one is
// rejected with [ErrDuplicateRun] and writes nothing. Probing the same
// server again in another scan makes a new run; nothing is overwritten.
//
// The stored result is res as its JSON encoding reads back: [Store.Run]
// returns it equal, except that json.RawMessage fields come back compacted
// and invalid UTF-8 in strings as U+FFFD, as `mcpvet probe --json` prints
// them.
func (s *Store) SaveRun(ctx context.Context, scanID int64, key string, res *probe.Result) (runID int64, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		t := &txStmts{ctx: ctx, tx: tx, base: &s.st}
		if err := scanExists(ctx, t.stmt(stSelectScan), scanID); err != nil {
			return err
		}
		var err error
		runID, err = saveRun(t, scanID, key, res, time.Now(), nil)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("results: saving run of %q in scan %d: %w", key, scanID, err)
	}
	return runID, nil
}

// A RunInput is one result for [Store.SaveRuns].
type RunInput struct {
	// Key is the target key (the plan's Key).
	Key    string
	Result *probe.Result
}

// SaveRuns stores several runs of a scan in one transaction, each as
// [Store.SaveRun] would. One commit instead of one per run halves the
// cost of a census-sized run, so a writer that has several results waiting
// should save them together.
//
// A run that is rejected ([ErrDuplicateRun], a nil result, an empty key,
// an unknown severity) is skipped, having written nothing, and the others
// are stored: the returned ids are in the order of runs, 0 for a rejected
// run, and the error joins the rejections, each naming its key. Any other
// failure (a database error) rolls back the whole batch: ids is nil and
// nothing was stored. Either way every target ends pending with no run or
// done with one.
func (s *Store) SaveRuns(ctx context.Context, scanID int64, runs []RunInput) (ids []int64, err error) {
	var rejected []error
	err = s.write(ctx, func(tx *sql.Tx) error {
		ids, rejected = make([]int64, len(runs)), nil
		t := &txStmts{ctx: ctx, tx: tx, base: &s.st}
		if err := scanExists(ctx, t.stmt(stSelectScan), scanID); err != nil {
			return err
		}
		now := time.Now()
		for i, r := range runs {
			id, err := saveRun(t, scanID, r.Key, r.Result, now, nil)
			var rej *rejection
			if errors.As(err, &rej) {
				rejected = append(rejected, fmt.Errorf("results: saving run of %q in scan %d: %w", r.Key, scanID, err))
				continue
			}
			if err != nil {
				return fmt.Errorf("run of %q: %w", r.Key, err)
			}
			ids[i] = id
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("results: saving %d runs in scan %d: %w", len(runs), scanID, err)
	}
	return ids, errors.Join(rejected...)
}

// A rejection is an error of saveRun met before it wrote anything.
type rejection struct{ err error }

func (r *rejection) Error() string { return r.err.Error() }
func (r *rejection) Unwrap() error { return r.err }

// saveRun inserts one run and its rows inside t's transaction. plan, when
// set, is stored if the target row must be created. An error that is not a
// *rejection may leave part of the run written: the caller must roll the
// transaction back.
func saveRun(t *txStmts, scanID int64, key string, res *probe.Result, created time.Time, plan json.RawMessage) (int64, error) {
	// Everything that can reject the run is checked before the first write,
	// so a rejected run leaves the transaction as it was.
	enc, err := encodeRun(key, res)
	if err != nil {
		return 0, err
	}
	if err := markTargetDone(t, scanID, key, plan); err != nil {
		return 0, err
	}
	serverID, err := serverID(t, res.Target)
	if err != nil {
		return 0, fmt.Errorf("recording server: %w", err)
	}

	lv := &res.Liveness
	var sName, sTitle, sVersion any
	if si := lv.ServerInfo; si != nil {
		sName, sTitle, sVersion = si.Name, si.Title, si.Version
	}
	r, err := t.exec(stInsertRun, scanID, serverID, key, formatTime(created),
		res.Target.Transport, res.Target.Sandbox,
		string(lv.Status), lv.HandshakeCompleted, lv.Handshake, lv.Detail, lv.Evidence, lv.ProtocolVersion,
		sName, sTitle, sVersion, nullRaw(lv.Capabilities), lv.InstructionsBytes,
		lv.Timings.StartMs, lv.Timings.HandshakeMs, lv.Timings.ListMs, lv.Timings.ProbeMs, lv.Timings.TotalMs,
		lv.StderrTail, lv.ExitCode, lv.StdoutNoise,
		res.Score, enc.verdict, enc.verdictJSON, res.RubricVersion, enc.result)
	if err != nil {
		return 0, fmt.Errorf("inserting run: %w", err)
	}
	runID, err := r.LastInsertId()
	if err != nil {
		return 0, err
	}
	if t.base[stSetActor] != nil && res.Verdict != nil {
		if _, err := t.exec(stSetActor, string(res.Verdict.Who()), runID); err != nil {
			return 0, fmt.Errorf("recording actor: %w", err)
		}
	}
	if t.base[stInsertSummary] != nil {
		if _, err := t.exec(stInsertSummary, runID, enc.summary); err != nil {
			return 0, fmt.Errorf("inserting summary: %w", err)
		}
	}
	if err := insertListings(t, runID, res); err != nil {
		return 0, err
	}
	if err := insertOutcomes(t, runID, res, enc.elements); err != nil {
		return 0, err
	}
	return runID, nil
}

// encodedRun is a run's JSON, encoded before anything is written.
type encodedRun struct {
	result, summary      string
	verdict, verdictJSON any
	elements             []any // per probe: its rubric elements, or nil
}

// encodeRun checks res and encodes what saveRun stores as JSON; every
// error is a *rejection.
func encodeRun(key string, res *probe.Result) (encodedRun, error) {
	var e encodedRun
	if res == nil {
		return e, &rejection{errors.New("nil result")}
	}
	if key == "" {
		return e, &rejection{errors.New("empty target key")}
	}
	for i, f := range res.Findings {
		if f.Severity.Rank() == 0 {
			return e, &rejection{fmt.Errorf("finding %d (%s): unknown severity %q", i, f.Code, f.Severity)}
		}
	}
	var err error
	if e.result, err = encodeJSON(res); err != nil {
		return e, &rejection{fmt.Errorf("encoding result: %w", err)}
	}
	if e.summary, err = encodeJSON(summarize(res)); err != nil {
		return e, &rejection{fmt.Errorf("encoding summary: %w", err)}
	}
	if res.Verdict != nil {
		b, err := encodeJSON(res.Verdict)
		if err != nil {
			return e, &rejection{fmt.Errorf("encoding verdict: %w", err)}
		}
		e.verdict, e.verdictJSON = res.Verdict.Decision, b
	}
	e.elements = make([]any, len(res.Probes))
	for i, x := range res.Probes {
		if x.Elements != nil {
			b, err := encodeJSON(x.Elements)
			if err != nil {
				return e, &rejection{fmt.Errorf("encoding probe %d elements: %w", i, err)}
			}
			e.elements[i] = b
		}
	}
	return e, nil
}

// markTargetDone moves the run's target from pending to done, inserting it
// (with plan) when missing; a target already done rejects the run as a
// duplicate.
func markTargetDone(t *txStmts, scanID int64, key string, plan json.RawMessage) error {
	var status string
	switch err := t.stmt(stSelectTarget).QueryRowContext(t.ctx, scanID, key).Scan(&status); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := t.exec(stInsertTarget, scanID, key, nullRaw(plan)); err != nil {
			return fmt.Errorf("adding target: %w", err)
		}
	case err != nil:
		return fmt.Errorf("reading target: %w", err)
	case status == TargetDone:
		return &rejection{ErrDuplicateRun}
	default:
		if _, err := t.exec(stMarkTarget, scanID, key); err != nil {
			return fmt.Errorf("marking target done: %w", err)
		}
	}
	return nil
}

// insertListings inserts the run's tools, prompts, resources, resource
// templates and the digests of their definitions.
func insertListings(t *txStmts, runID int64, res *probe.Result) error {
	for i, x := range res.Tools {
		if _, err := t.exec(stInsertTool, runID, i, x.Name, x.Title, x.Description,
			nullRaw(x.InputSchema), nullRaw(x.OutputSchema), nullRaw(x.Annotations), nullRaw(x.Raw)); err != nil {
			return fmt.Errorf("inserting tool %d: %w", i, err)
		}
	}
	for i, x := range res.Prompts {
		if _, err := t.exec(stInsertPrompt, runID, i, x.Name, x.Title, x.Description,
			nullRaw(x.Arguments), nullRaw(x.Raw)); err != nil {
			return fmt.Errorf("inserting prompt %d: %w", i, err)
		}
	}
	for i, x := range res.Resources {
		if _, err := t.exec(stInsertResource, runID, i, x.URI, x.Name, x.MIMEType, nullRaw(x.Raw)); err != nil {
			return fmt.Errorf("inserting resource %d: %w", i, err)
		}
	}
	for i, x := range res.ResourceTemplates {
		if _, err := t.exec(stInsertTemplate, runID, i, x.URITemplate, x.Name, nullRaw(x.Raw)); err != nil {
			return fmt.Errorf("inserting resource template %d: %w", i, err)
		}
	}
	if t.base[stInsertDigest] == nil {
		return nil // a database before migration 0003
	}
	for _, d := range ItemDigests(res) {
		if _, err := t.exec(stInsertDigest, runID, d.Kind, d.Key, d.Digest); err != nil {
			return fmt.Errorf("inserting digest of %s %q: %w", d.Kind, d.Key, err)
		}
	}
	return nil
}

// insertOutcomes inserts the run's findings, calls and probes (with the
// rubric elements encoded by [encodeRun]).
func insertOutcomes(t *txStmts, runID int64, res *probe.Result, elements []any) error {
	for i, x := range res.Findings {
		if _, err := t.exec(stInsertFinding, runID, i, x.Code, string(x.Severity), x.Subject,
			x.Pointer, x.Value, x.Message); err != nil {
			return fmt.Errorf("inserting finding %d: %w", i, err)
		}
	}
	for i, x := range res.Calls {
		if _, err := t.exec(stInsertCall, runID, i, x.Seq, x.Method, x.Tool, x.InputHash,
			x.LatencyMs, x.OutputBytes, x.ErrorCode, x.IsError, x.Outcome); err != nil {
			return fmt.Errorf("inserting call %d: %w", i, err)
		}
	}
	for i, x := range res.Probes {
		if _, err := t.exec(stInsertProbe, runID, i, x.Kind, x.Method, x.Tool, x.Param,
			nullRaw(x.Sent), x.Class, x.LatencyMs, nullRaw(x.Response), x.Text, elements[i],
			x.Score, x.Destructive, x.OpenWorld); err != nil {
			return fmt.Errorf("inserting probe %d: %w", i, err)
		}
	}
	return nil
}

// serverID returns the id of the server identity (name, version, source),
// inserting it when new.
func serverID(t *txStmts, tg probe.Target) (int64, error) {
	var id int64
	err := t.stmt(stInsertServer).QueryRowContext(t.ctx, tg.Name, tg.Version, tg.Source).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) { // exists: DO NOTHING returns no row
		err = t.stmt(stSelectServer).QueryRowContext(t.ctx, tg.Name, tg.Version, tg.Source).Scan(&id)
	}
	return id, err
}

// nullRaw stores an absent JSON value as NULL and a present one as text.
func nullRaw(r json.RawMessage) any {
	if len(r) == 0 {
		return nil
	}
	return string(r)
}

// encodeJSON marshals v without HTML escaping, so stored JSON reads like
// what the server sent.
func encodeJSON(v any) (string, error) {
	// The encoder writes its whole output in one Write: a strings.Builder
	// takes it at its exact size and String does not copy it again (a
	// result of 300,000 listed tools is about 10 MB of JSON; issue 22).
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
