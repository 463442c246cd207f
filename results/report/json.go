package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/mcpvet/mcpvet/results"
)

// CensusJSONReporter writes the report as one JSON document
// (docs/report-schema.md), streaming the servers one at a time.
type CensusJSONReporter struct{}

type reportHeadJSON struct {
	SchemaVersion int             `json:"schemaVersion"`
	GeneratedAt   time.Time       `json:"generatedAt"`
	Generator     string          `json:"generator,omitempty"`
	Database      string          `json:"database,omitempty"`
	Scan          scanJSON        `json:"scan"`
	Census        *results.Census `json:"census"`
}

type scanJSON struct {
	ID            int64           `json:"id"`
	Kind          string          `json:"kind"`
	Source        string          `json:"source"`
	Status        string          `json:"status"`
	StartedAt     time.Time       `json:"startedAt"`
	FinishedAt    *time.Time      `json:"finishedAt"`
	Targets       int             `json:"targets"`
	Done          int             `json:"done"`
	Pending       int             `json:"pending"`
	Seed          *int64          `json:"seed"`
	ShardIndex    int             `json:"shardIndex"`
	ShardCount    int             `json:"shardCount"`
	RubricVersion string          `json:"rubricVersion"`
	Options       json.RawMessage `json:"options"`
}

func scanToJSON(r *results.Report) scanJSON {
	s := r.Scan
	j := scanJSON{ID: s.ID, Kind: s.Kind, Source: s.Source, Status: s.Status, StartedAt: s.StartedAt.UTC(),
		Targets: s.Targets, Done: s.Done, Pending: r.Pending(), Seed: s.Seed, ShardIndex: s.ShardIndex,
		ShardCount: s.ShardCount, RubricVersion: s.RubricVersion, Options: s.Options}
	if !s.FinishedAt.IsZero() {
		f := s.FinishedAt.UTC()
		j.FinishedAt = &f
	}
	if len(j.Options) == 0 || !json.Valid(j.Options) {
		j.Options = json.RawMessage("{}")
	}
	return j
}

func (CensusJSONReporter) Write(ctx context.Context, w io.Writer, r *results.Report) error {
	head, err := json.MarshalIndent(reportHeadJSON{
		SchemaVersion: r.SchemaVersion, GeneratedAt: r.GeneratedAt, Generator: r.Generator,
		Database: r.Database, Scan: scanToJSON(r), Census: r.Census,
	}, "", "  ")
	if err != nil {
		return err
	}
	// Reopen the object to stream "servers" into it.
	head = bytes.TrimSuffix(bytes.TrimRight(head, "\n"), []byte("}"))
	head = bytes.TrimRight(head, "\n")
	if _, err := w.Write(head); err != nil {
		return err
	}
	if _, err := io.WriteString(w, ",\n  \"servers\": ["); err != nil {
		return err
	}
	// Each server is {"summary": ..., "result": ...} on one line, with the
	// result as stored (the exact `mcpvet probe --json` encoding) and <, >
	// and & escaped like the rest of the document. One line per server
	// keeps a 20,000-server report half the size of an indented one and
	// lets line tools (grep, split) work on it; jq indents it.
	var compact, esc, out bytes.Buffer
	err = eachJSON(ctx, r, func(i int, row *results.ServerRow, js []byte) error {
		sum, err := json.Marshal(row)
		if err != nil {
			return err
		}
		compact.Reset()
		compact.WriteString(`{"summary":`)
		compact.Write(sum)
		compact.WriteString(`,"result":`)
		compact.Write(js)
		compact.WriteByte('}')
		esc.Reset()
		json.HTMLEscape(&esc, compact.Bytes())
		out.Reset()
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString("\n    ")
		if err := json.Compact(&out, esc.Bytes()); err != nil {
			return fmt.Errorf("run %d: stored result is not valid JSON: %w", row.RunID, err)
		}
		_, err = w.Write(out.Bytes())
		return err
	})
	if err != nil {
		return err
	}
	end := "\n  ]\n}\n"
	if len(r.Rows) == 0 {
		end = "]\n}\n"
	}
	_, err = io.WriteString(w, end)
	return err
}
