package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/vocab"
)

// censusTestDB writes two scans into a new database: scan 1 with one live
// server, scan 2 with a live and a dead one. It returns the path.
func censusTestDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "census.db")
	st, err := results.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	live := func(name string) *probe.Result {
		score := 75.0
		return &probe.Result{
			Target: probe.Target{Name: name, Version: "1.0.0", Source: "registry", Transport: "stdio", Command: []string{"npm:" + name + "@1.0.0"}},
			Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true, ProtocolVersion: "2025-06-18",
				ServerInfo: &probe.ServerInfo{Name: name, Version: "1.0.0"}},
			Tools:   []probe.Tool{{Name: "get_thing", Description: "=cmd|' /C calc'!A0", Raw: json.RawMessage(`{"name":"get_thing"}`)}},
			Score:   &score,
			Verdict: &probe.Verdict{Decision: "keep", Rules: []probe.Rule{{Name: "keep_otherwise", Fired: true, Decision: "keep"}}},
		}
	}
	dead := &probe.Result{
		Target:   probe.Target{Name: "io.github.x/dead", Version: "0.1.0", Source: "registry", Transport: "stdio", Command: []string{"pypi:dead==0.1.0"}},
		Liveness: probe.Liveness{Status: vocab.StatusMissingCredentials, Evidence: "API_KEY is required"},
		Verdict:  &probe.Verdict{Decision: "drop", Rules: []probe.Rule{{Name: "no_handshake", Fired: true, Decision: "drop"}}},
	}
	for _, runs := range [][]*probe.Result{{live("io.github.x/first")}, {live("io.github.x/alive"), dead}} {
		id, err := st.NewScan(ctx, results.ScanInfo{Kind: results.KindScan, Source: "registry:test"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if _, err := st.SaveRun(ctx, id, r.Target.Name, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.FinishScan(ctx, id, results.ScanDone); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// execReport runs `mcpvet report` through run and returns the exit code
// and both streams.
func execReport(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append([]string{"report"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestReportCommand(t *testing.T) {
	db := censusTestDB(t)
	dir := t.TempDir()

	t.Run("csv of the latest scan to stdout", func(t *testing.T) {
		code, out, errs := execReport(t, "--db", db, "--format", "csv")
		if code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 3 || rows[1][3] != "io.github.x/alive" || rows[2][3] != "io.github.x/dead" {
			t.Errorf("csv rows = %q, want the header and scan 2's two servers by name", rows)
		}
		if errs != "" {
			t.Errorf("stderr = %q, want nothing when the report goes to stdout", errs)
		}
	})

	t.Run("an older scan", func(t *testing.T) {
		code, out, errs := execReport(t, "--db", db, "--scan", "1", "--format", "md")
		if code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
		if !strings.Contains(out, "1 of 1 plans (100.0%) completed the handshake") ||
			!strings.Contains(out, "io.github.x/first") || strings.Contains(out, "io.github.x/dead") {
			t.Errorf("md report of scan 1:\n%s", out)
		}
	})

	t.Run("format from the output extension", func(t *testing.T) {
		file := filepath.Join(dir, "census.html")
		code, out, errs := execReport(t, "--db", db, "-o", file)
		if code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("<!DOCTYPE html>")) || !bytes.Contains(data, []byte("1 of 2 plans")) {
			t.Errorf("%s is not the html report of scan 2:\n%.500s", file, data)
		}
		if out != "" || !strings.Contains(errs, "html report of scan 2 (2 plans) written to") {
			t.Errorf("stdout %q, stderr %q", out, errs)
		}
	})

	t.Run("json with every server", func(t *testing.T) {
		file := filepath.Join(dir, "census.out")
		code, _, errs := execReport(t, "--db", db, "--format", "json", "-o", file, "--servers", "1")
		if code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			SchemaVersion int               `json:"schemaVersion"`
			Servers       []json.RawMessage `json:"servers"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.SchemaVersion != results.ReportSchemaVersion || len(doc.Servers) != 2 {
			t.Errorf("json: schemaVersion %d, %d servers; want %d and 2", doc.SchemaVersion, len(doc.Servers), results.ReportSchemaVersion)
		}
	})

	t.Run("quiet", func(t *testing.T) {
		var out, errb bytes.Buffer
		cmd := newReportCmd(&out, &errb, &globalFlags{quiet: true})
		cmd.SetArgs([]string{"--db", db, "-o", filepath.Join(dir, "quiet.md")})
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		if errb.Len() != 0 {
			t.Errorf("stderr with --quiet = %q", errb.String())
		}
	})
}

func TestReportCommandUsage(t *testing.T) {
	db := censusTestDB(t)
	empty := filepath.Join(t.TempDir(), "empty.db")
	st, err := results.Open(context.Background(), empty, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	notDB := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notDB, []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"bad format", []string{"--db", db, "--format", "pdf"}, exitUsage, `--format: unknown report format "pdf": use one of md, html, json, csv`},
		{"no format", []string{"--db", db}, exitUsage, "--format: missing; use one of md, html, json, csv"},
		{"unknown extension", []string{"--db", db, "-o", "report.txt"}, exitUsage, "cannot tell the format from .txt"},
		{"missing db", []string{"--db", filepath.Join(t.TempDir(), "nope.db"), "--format", "md"}, exitUsage, "no such database"},
		{"no scan", []string{"--db", empty, "--format", "md"}, exitUsage, "holds no scan yet"},
		{"unknown scan", []string{"--db", db, "--scan", "9", "--format", "md"}, exitUsage, "--scan 9: no such scan in"},
		{"negative servers", []string{"--db", db, "--format", "md", "--servers", "-1"}, exitUsage, "--servers -1"},
		{"unknown flag", []string{"--db", db, "--colour"}, exitUsage, "unknown flag"},
		{"argument", []string{"--db", db, "--format", "md", "extra"}, exitUsage, "unknown command"},
		{"not a database", []string{"--db", notDB, "--format", "md"}, exitFailed, notDB},
		{"unwritable output", []string{"--db", db, "--format", "md", "-o", filepath.Join(t.TempDir(), "no", "such", "dir.md")}, exitUsage, "give a writable file path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := execReport(t, tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, tt.code, tt.want)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing on error", out)
			}
		})
	}
}
