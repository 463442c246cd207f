package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/vocab"
)

// diffTestScan stores one scan of the given results (by name) in the
// database at path and returns its id.
func diffTestScan(t *testing.T, path string, servers map[string]*probe.Result) int64 {
	t.Helper()
	ctx := context.Background()
	st, err := results.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.NewScan(ctx, results.ScanInfo{Kind: results.KindScan, Source: "snapshot:servers.json"})
	if err != nil {
		t.Fatal(err)
	}
	for name, res := range servers {
		if _, err := st.SaveRun(ctx, id, "registry:"+name, res); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.FinishScan(ctx, id, results.ScanDone); err != nil {
		t.Fatal(err)
	}
	return id
}

func diffTestResult(name string, alive bool, schema string, score float64) *probe.Result {
	r := &probe.Result{
		Target:   probe.Target{Name: name, Source: "registry", Transport: "stdio"},
		Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true},
		Tools:    []probe.Tool{{Name: "search", InputSchema: json.RawMessage(schema), Raw: json.RawMessage(`{}`)}},
		Findings: []probe.Finding{},
		Score:    &score,
	}
	if !alive {
		r.Liveness = probe.Liveness{Status: vocab.StatusHandshakeTimeout, Detail: "no answer to the handshake within 20s"}
		r.Tools = nil
		r.Score = nil
	}
	return r
}

func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	oldDB, newDB := filepath.Join(dir, "old.db"), filepath.Join(dir, "new.db")
	diffTestScan(t, oldDB, map[string]*probe.Result{
		"io.example/a": diffTestResult("io.example/a", true, `{"type":"object","properties":{"q":{"type":"string"}}}`, 90),
		"io.example/b": diffTestResult("io.example/b", true, `{"type":"object"}`, 90),
	})
	// With two files the latest scan of each is compared: old.db's second
	// scan, whose schema differs from its first.
	diffTestScan(t, oldDB, map[string]*probe.Result{
		"io.example/a": diffTestResult("io.example/a", true, `{"type":"object","properties":{"q":{"type":"string","maxLength":64}}}`, 90),
		"io.example/b": diffTestResult("io.example/b", true, `{"type":"object"}`, 90),
	})
	diffTestScan(t, newDB, map[string]*probe.Result{
		"io.example/a": diffTestResult("io.example/a", true, `{"type":"object","properties":{"q":{"type":"string","maxLength":32}}}`, 80),
		"io.example/b": diffTestResult("io.example/b", false, "", 0),
	})
	before, err := os.ReadFile(oldDB)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("two databases, text", func(t *testing.T) {
		code, stdout, stderr := runReportCLI("diff", oldDB, newDB)
		if code != exitOK || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		for _, want := range []string{
			"old  scan 2 of " + oldDB,
			"new  scan 1 of " + newDB,
			"2 servers in both scans: 2 changed, 0 unchanged; 0 added, 0 removed",
			"/properties/q/maxLength: 64 → 32",
			"90.0 → 80.0 (-10.0 points, threshold 5)",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("output lacks %q:\n%s", want, stdout)
			}
		}
		if !strings.Contains(stdout, "died") || !strings.Contains(stdout, "ok → handshake_timeout: no answer to the handshake within 20s") {
			t.Errorf("b did not die with evidence:\n%s", stdout)
		}
	})

	t.Run("scan ids in one database, json to a file", func(t *testing.T) {
		out := filepath.Join(dir, "diff.json")
		code, stdout, stderr := runReportCLI("diff", "--db", oldDB, "1", "2", "--format", "json", "-o", out)
		if code != exitOK || stdout != "" || stderr != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var d results.Diff
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		if d.Old.ScanID != 1 || d.New.ScanID != 2 || len(d.Changed) != 1 || d.Changed[0].Name != "io.example/a" ||
			d.Changed[0].Changes[0].Kind != results.DiffSchemaChanged || d.Unchanged != 1 {
			t.Errorf("diff = %+v", d)
		}
	})

	t.Run("score-drop", func(t *testing.T) {
		code, stdout, _ := runReportCLI("diff", oldDB, newDB, "--score-drop", "10")
		if code != exitOK || strings.Contains(stdout, "score_dropped") {
			t.Errorf("a 10-point drop is not more than 10:\n%s", stdout)
		}
		code, stdout, _ = runReportCLI("diff", oldDB, newDB, "--score-drop", "9.5")
		if code != exitOK || !strings.Contains(stdout, "90.0 → 80.0 (-10.0 points, threshold 9.5)") {
			t.Errorf("a 10-point drop is more than 9.5:\n%s", stdout)
		}
	})

	after, err := os.ReadFile(oldDB)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("diff modified a database it only reads")
	}

	empty := filepath.Join(dir, "empty.db")
	st, err := results.Open(context.Background(), empty, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"one argument", []string{"diff", "1"}, exitUsage, "diff takes two arguments"},
		{"id and file", []string{"diff", "1", newDB}, exitUsage, "not one of each"},
		{"db with files", []string{"diff", "--db", oldDB, oldDB, newDB}, exitUsage, "--db names the database of two scan ids"},
		{"missing scan", []string{"diff", "--db", oldDB, "1", "7"}, exitUsage, "scan 7 is not in " + oldDB + "; it has scans 1, 2"},
		{"missing db", []string{"diff", "--db", filepath.Join(dir, "none.db"), "1", "2"}, exitUsage, "no such file or directory"},
		{"missing file", []string{"diff", oldDB, filepath.Join(dir, "none.db")}, exitUsage, "no such file or directory"},
		{"no scans", []string{"diff", oldDB, empty}, exitUsage, "holds no scan yet"},
		{"not a database", []string{"diff", oldDB, notDB}, exitFailed, "notes.txt"},
		{"bad format", []string{"diff", oldDB, newDB, "--format", "sarif"}, exitUsage, `--format: unknown diff format "sarif": use one of text, json`},
		{"negative threshold", []string{"diff", oldDB, newDB, "--score-drop", "-1"}, exitUsage, "--score-drop -1: out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runReportCLI(tc.args...)
			if code != tc.code || stdout != "" {
				t.Errorf("exit %d (want %d), stdout %q", code, tc.code, stdout)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line containing %q", stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("diff created a database")
	}
}
