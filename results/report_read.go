package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/mcpvet/mcpvet/probe"
)

// The report reads runs.result_json itself rather than through
// [Store.Runs]: a census of 20,000 servers stores about 270 MB of results,
// and decoding every field (probe bodies, schemas, raw listings, call
// logs) into [probe.Result] dominated the report's time. The census needs
// a small part of each result, so it decodes into the lean types below,
// on several goroutines, and the JSON report copies the stored text
// instead of decoding and re-encoding it.

// leanResult is the part of a stored [probe.Result] the census and the
// server rows read. Field names and JSON keys mirror probe.Result; fields
// not listed are skipped by the decoder without being allocated.
type leanResult struct {
	Target   probe.Target `json:"target"`
	Liveness struct {
		Status             probe.Status      `json:"status"`
		HandshakeCompleted bool              `json:"handshakeCompleted"`
		ProtocolVersion    string            `json:"protocolVersion"`
		ServerInfo         *probe.ServerInfo `json:"serverInfo"`
		ExitCode           *int              `json:"exitCode"`
		Timings            struct {
			TotalMs float64 `json:"totalMs"`
		} `json:"timings"`
	} `json:"liveness"`
	Tools []struct {
		Name        string          `json:"name"`
		Annotations json.RawMessage `json:"annotations"`
	} `json:"tools"`
	Prompts           []struct{} `json:"prompts"`
	Resources         []struct{} `json:"resources"`
	ResourceTemplates []struct{} `json:"resourceTemplates"`
	Findings          []struct {
		Code     string         `json:"code"`
		Severity probe.Severity `json:"severity"`
		Subject  string         `json:"subject"`
	} `json:"findings"`
	Probes []struct {
		Class    string `json:"class"`
		Elements []struct {
			Name string `json:"name"`
			Pass bool   `json:"pass"`
		} `json:"elements"`
	} `json:"probes"`
	Score   *float64 `json:"score"`
	Verdict *struct {
		Decision string `json:"decision"`
		Rules    []struct {
			Name     string `json:"name"`
			Fired    bool   `json:"fired"`
			Decision string `json:"decision"`
		} `json:"rules"`
	} `json:"verdict"`
}

// decodeLean decodes a stored result into a [probe.Result] holding only
// what [Tally.Add] and [RowOf] read.
func decodeLean(js []byte) (*probe.Result, error) {
	var l leanResult
	if err := json.Unmarshal(js, &l); err != nil {
		return nil, err
	}
	res := &probe.Result{
		Target:            l.Target,
		Tools:             make([]probe.Tool, len(l.Tools)),
		Prompts:           make([]probe.Prompt, len(l.Prompts)),
		Resources:         make([]probe.Resource, len(l.Resources)),
		ResourceTemplates: make([]probe.ResourceTemplate, len(l.ResourceTemplates)),
		Findings:          make([]probe.Finding, len(l.Findings)),
		Probes:            make([]probe.ProbeCall, len(l.Probes)),
		Score:             l.Score,
	}
	lv := &res.Liveness
	lv.Status, lv.HandshakeCompleted, lv.ProtocolVersion = l.Liveness.Status, l.Liveness.HandshakeCompleted, l.Liveness.ProtocolVersion
	lv.ServerInfo, lv.ExitCode, lv.Timings.TotalMs = l.Liveness.ServerInfo, l.Liveness.ExitCode, l.Liveness.Timings.TotalMs
	for i, t := range l.Tools {
		res.Tools[i] = probe.Tool{Name: t.Name, Annotations: t.Annotations}
	}
	for i, f := range l.Findings {
		res.Findings[i] = probe.Finding{Code: f.Code, Severity: f.Severity, Subject: f.Subject}
	}
	for i, p := range l.Probes {
		res.Probes[i].Class = p.Class
		if len(p.Elements) > 0 {
			els := make([]probe.Element, len(p.Elements))
			for j, e := range p.Elements {
				els[j] = probe.Element{Name: e.Name, Pass: e.Pass}
			}
			res.Probes[i].Elements = els
		}
	}
	if v := l.Verdict; v != nil {
		res.Verdict = &probe.Verdict{Decision: v.Decision, Rules: make([]probe.Rule, len(v.Rules))}
		for i, r := range v.Rules {
			res.Verdict.Rules[i] = probe.Rule{Name: r.Name, Fired: r.Fired, Decision: r.Decision}
		}
	}
	return res, nil
}

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
