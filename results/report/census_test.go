package report_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/golden"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
	"github.com/mcpvet/mcpvet/results/report"
)

var reportTime = time.Date(2026, 10, 1, 8, 30, 0, 0, time.UTC)

// writeFixtureReport renders the fixture scan in one format.
func writeFixtureReport(t *testing.T, format string, servers int) (string, string) {
	t.Helper()
	st, path, id := fixture.Store(t)
	var b bytes.Buffer
	err := report.WriteScan(context.Background(), &b, st, id, format, &results.ReportOptions{Servers: servers, Database: path, Generator: "mcpvet test",
		Now: func() time.Time { return reportTime },
	})
	if err != nil {
		t.Fatalf("WriteScan(%s): %v", format, err)
	}
	return b.String(), path
}

var timeRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)

// normalise replaces what changes between runs: times and the database's
// temporary directory. JSON strings escape nothing in a path, so one
// replacement covers every format.
func normalise(out, dbPath string) string {
	out = strings.ReplaceAll(out, filepath.Dir(dbPath), "TMPDIR")
	return timeRE.ReplaceAllString(out, "TIME")
}

func TestReportGolden(t *testing.T) {
	for _, format := range report.Formats(report.KindCensus) {
		t.Run(format, func(t *testing.T) {
			out, path := writeFixtureReport(t, format, 0)
			got := normalise(out, path)
			golden.Check(t, filepath.Join("testdata", "report", "fixture."+format+".golden"), []byte(got))
		})
	}
}

// TestReportHostile checks that hostile strings reach every format as
// inert text.
func TestReportHostile(t *testing.T) {
	t.Run("html", func(t *testing.T) {
		out, _ := writeFixtureReport(t, "html", 0)
		if n := strings.Count(out, "<script"); n != 1 {
			t.Errorf("html has %d <script elements, want only the sort script", n)
		}
		for _, bad := range []string{"<img", "\x1b", "\x07", "javascript:alert(3)</a>", fixture.HostileScript} {
			if strings.Contains(out, bad) {
				t.Errorf("html contains %q", bad)
			}
		}
		for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "syntax error"} {
			if !strings.Contains(out, want) {
				t.Errorf("html lacks the escaped text %q", want)
			}
		}
	})
	t.Run("md", func(t *testing.T) {
		out, _ := writeFixtureReport(t, "md", 0)
		if strings.Contains(out, "\x1b") || strings.Contains(out, "\x07") {
			t.Error("markdown contains a terminal escape")
		}
		// Outside code fences, no raw markup or link may appear.
		prose := stripFences(out)
		for _, bad := range []string{"<script", "<img", "|*pwn*|"} {
			if strings.Contains(prose, bad) {
				t.Errorf("markdown prose contains %q", bad)
			}
		}
		// A link needs an unescaped "](".
		if m := regexp.MustCompile(`(^|[^\\])\]\(`).FindString(prose); m != "" {
			t.Errorf("markdown prose has a link: %q", m)
		}
		if !strings.Contains(prose, `&lt;script&gt;alert(1)&lt;/script&gt;`) {
			t.Error("markdown lacks the escaped tool description")
		}
	})
	t.Run("csv", func(t *testing.T) {
		out, _ := writeFixtureReport(t, "csv", 0)
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 9 {
			t.Fatalf("csv has %d rows, want a header and 8 servers", len(rows))
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		for _, row := range rows[1:] {
			for i, cell := range row {
				if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
					t.Errorf("csv cell %s = %q starts a formula", rows[0][i], cell)
				}
				if strings.ContainsAny(cell, "\x1b\r\n") {
					t.Errorf("csv cell %s = %q has a control character", rows[0][i], cell)
				}
			}
			if row[col["name"]] == safeLine(fixture.HostileName) && row[col["version"]] != "'"+fixture.HostileVersion {
				t.Errorf("hostile version cell = %q, want it prefixed with '", row[col["version"]])
			}
		}
	})
	t.Run("json", func(t *testing.T) {
		out, _ := writeFixtureReport(t, "json", 0)
		var doc struct {
			SchemaVersion int `json:"schemaVersion"`
			Census        struct {
				Servers int `json:"servers"`
			} `json:"census"`
			Servers []struct {
				Summary results.ServerRow `json:"summary"`
				Result  probe.Result      `json:"result"`
			} `json:"servers"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.SchemaVersion != results.ReportSchemaVersion || doc.Census.Servers != 8 || len(doc.Servers) != 8 {
			t.Fatalf("json: schemaVersion %d, census %d servers, %d server records", doc.SchemaVersion, doc.Census.Servers, len(doc.Servers))
		}
		// JSON is data: strings arrive exactly as the server sent them
		// (escaped by JSON, never altered), for consumers to escape.
		found := false
		for _, s := range doc.Servers {
			if s.Summary.Name == fixture.HostileName {
				found = s.Result.Tools[0].Description == fixture.HostileScript &&
					strings.Contains(s.Result.Probes[0].Text, fixture.HostileEscape)
			}
		}
		if !found {
			t.Error("json does not carry the hostile server's strings unchanged")
		}
		if strings.Contains(out, "<script>") || strings.Contains(out, "\x1b") {
			t.Error("json has raw markup or escapes; encoding/json should escape them")
		}
	})
}

func safeLine(s string) string { return report.CSVCell(s) }

// stripFences removes fenced code blocks from Markdown.
func stripFences(md string) string {
	var b strings.Builder
	fence := ""
	for line := range strings.SplitSeq(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" && strings.HasPrefix(trimmed, "```") {
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
			continue
		}
		if fence != "" {
			if strings.TrimSpace(trimmed) == fence {
				fence = ""
			}
			continue
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

func TestReportServersCap(t *testing.T) {
	for _, format := range []string{"md", "html"} {
		t.Run(format, func(t *testing.T) {
			out, _ := writeFixtureReport(t, format, 2)
			if !strings.Contains(out, "first 2") {
				t.Errorf("%s report does not say that only the first 2 servers are detailed", format)
			}
			var sections int
			if format == "md" {
				sections = len(regexp.MustCompile(`(?m)^## \d+\. `).FindAllString(out, -1))
			} else {
				sections = strings.Count(out, `<section class="server"`)
				if n := strings.Count(out, "<tr><td class=\"n\">"); n < 8 {
					t.Errorf("html server table has %d rows, want all 8", n)
				}
			}
			if sections != 2 {
				t.Errorf("%s report has %d server sections, want 2", format, sections)
			}
		})
	}
}

func TestReportMissingScan(t *testing.T) {
	st, _, _ := fixture.Store(t)
	err := report.WriteScan(context.Background(), &bytes.Buffer{}, st, 99, "md", &results.ReportOptions{})
	if !errors.Is(err, results.ErrNotFound) {
		t.Errorf("WriteScan(scan 99) = %v, want ErrNotFound", err)
	}
}

// TestReportEmptyScan renders a scan without runs: every rate is n/a and
// every format is still well formed.
func TestReportEmptyScan(t *testing.T) {
	ctx := context.Background()
	st, err := results.Open(ctx, filepath.Join(t.TempDir(), "empty.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.NewScan(ctx, results.ScanInfo{Kind: results.KindScan, Source: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range report.Formats(report.KindCensus) {
		var b bytes.Buffer
		if err := report.WriteScan(ctx, &b, st, id, format, &results.ReportOptions{}); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := b.String()
		switch format {
		case "json":
			var doc map[string]any
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Errorf("json of an empty scan does not parse: %v\n%s", err, out)
			}
		case "csv":
			if strings.Count(out, "\n") != 1 {
				t.Errorf("csv of an empty scan has more than a header:\n%s", out)
			}
		default:
			if !strings.Contains(out, "n/a") {
				t.Errorf("%s of an empty scan does not say n/a", format)
			}
		}
	}
}

func TestCSVCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"=1+1", "'=1+1"},
		{"+SUM(A1)", "'+SUM(A1)"},
		{"-2", "'-2"},
		{"@cmd", "'@cmd"},
		{"  =x", "'  =x"},
		{"\t=x", "' =x"},
		{"a\nb\x1b[31mc", "a bc"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := report.CSVCell(tt.in); got != tt.want {
			t.Errorf("CSVCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestReportReadErrors(t *testing.T) {
	ctx := context.Background()
	st, path, id := fixture.Store(t)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := results.BuildReport(cancelled, st, id, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("BuildReport with a cancelled context = %v, want context.Canceled", err)
	}

	// A stored result of the wrong shape stops the report with an error
	// naming the run.
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A result the census can read but a full decode cannot ("calls" is
	// not a list) fails the per-server sections of md and html, whose
	// pipeline must stop and report it.
	if _, err := db.Exec(`UPDATE runs SET result_json = json_set(result_json, '$.calls', 5) WHERE id = 3`); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"md", "html"} {
		err := report.WriteScan(ctx, io.Discard, st, id, format, &results.ReportOptions{})
		if err == nil || !strings.Contains(err.Error(), "decoding run 3") {
			t.Errorf("%s report over a run that does not decode = %v, want an error naming run 3", format, err)
		}
	}
	if err := report.WriteScan(ctx, io.Discard, st, id, "csv", &results.ReportOptions{}); err != nil {
		t.Errorf("csv report needs no full decode, got %v", err)
	}

	// The census reads run_summaries, the part of each result it needs.
	if _, err := db.Exec(`UPDATE run_summaries SET summary = '{"target": 5}' WHERE run_id = 3`); err != nil {
		t.Fatal(err)
	}
	_, err = results.BuildReport(ctx, st, id, nil)
	if err == nil || !strings.Contains(err.Error(), "decoding run 3") {
		t.Errorf("BuildReport over a corrupt run = %v, want an error naming run 3", err)
	}
}
