package results

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/mcpvet/mcpvet/probe"
)

// jsonWriter writes the report as one JSON document
// (docs/report-schema.md), streaming the servers one at a time.
type jsonWriter struct{}

type reportHeadJSON struct {
	SchemaVersion int       `json:"schemaVersion"`
	GeneratedAt   time.Time `json:"generatedAt"`
	Generator     string    `json:"generator,omitempty"`
	Database      string    `json:"database,omitempty"`
	Scan          scanJSON  `json:"scan"`
	Census        *Census   `json:"census"`
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

type serverJSON struct {
	Summary *ServerRow    `json:"summary"`
	Result  *probe.Result `json:"result"`
}

func scanToJSON(r *Report) scanJSON {
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

func (jsonWriter) writeReport(ctx context.Context, w io.Writer, r *Report) error {
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
	var buf bytes.Buffer
	err = r.eachResult(ctx, len(r.Rows), func(i int, row *ServerRow, res *probe.Result) error {
		buf.Reset()
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		b, err := json.MarshalIndent(serverJSON{Summary: row, Result: res}, "    ", "  ")
		if err != nil {
			return err
		}
		buf.Write(b)
		_, err = w.Write(buf.Bytes())
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
