package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
	"github.com/mcpvet/mcpvet/scan/source"
)

// Tokens as a user's config holds them; none may reach the disk or a log.
const (
	envToken    = "tok-env-3f9a1c77e2b84d05"
	otherToken  = "tok-other-5b2e8d1190aa4c6f"
	headerToken = "tok-header-81c4e0f2d73a9b56"
)

// claudeConfig writes a Claude Desktop config whose servers get the tokens
// in env and headers, and returns its path and the header values the
// remote received.
func claudeConfig(t *testing.T, dir string) (string, *sync.Map) {
	t.Helper()
	var seen sync.Map
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Get("Authorization"), true)
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(hs.Close)
	cfg := map[string]any{"mcpServers": map[string]any{
		"keyed": map[string]any{
			"command": testfixture.Path(t, "needsenv"),
			"env":     map[string]string{"FIXTURE_API_KEY": envToken, "MY_TOKEN": otherToken},
		},
		"remote": map[string]any{
			"url":     hs.URL + "/mcp",
			"headers": map[string]string{"Authorization": "Bearer " + headerToken},
		},
	}}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	p := filepath.Join(dir, "claude_desktop_config.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p, &seen
}

// grepTokens fails the test for every token found in data.
func grepTokens(t *testing.T, what string, data []byte) {
	t.Helper()
	for _, tok := range []string{envToken, otherToken, headerToken} {
		if bytes.Contains(data, []byte(tok)) {
			t.Errorf("%s contains the token %s", what, tok)
		}
	}
}

// grepDB greps every byte of the database files.
func grepDB(t *testing.T, db string) {
	t.Helper()
	for _, f := range []string{db, db + "-wal", db + "-shm", db + "-journal"} {
		if b, err := os.ReadFile(f); err == nil {
			grepTokens(t, filepath.Base(f), b)
		}
	}
}

// TestNoSecretsAtRest: after triage of a Claude Desktop config with
// tokens in env and headers, no byte of the database, of any report format
// or of stderr holds a token; the servers still got them at run time; the
// plan records the variables' names and where their values came from
// (issue 11, item 2: targets.plan held "MY_TOKEN":"tok-…").
func TestNoSecretsAtRest(t *testing.T) {
	dir := t.TempDir()
	cfg, seen := claudeConfig(t, dir)
	db := filepath.Join(dir, "r.db")
	code, stdout, stderr := runCLI("triage", cfg, "--db", db, "--sandbox", "none", "--no-inject", "--format", "json")
	if code != 0 && code != 1 {
		t.Fatalf("triage exit %d: %s", code, stderr)
	}
	grepTokens(t, "triage stdout", []byte(stdout))
	grepTokens(t, "triage stderr", []byte(stderr))
	if _, ok := seen.Load("Bearer " + headerToken); !ok {
		t.Error("the remote did not get its Authorization header")
	}
	if !strings.Contains(stdout, `"status": "ok"`) {
		t.Errorf("needsenv did not get FIXTURE_API_KEY (no ok status):\n%s", stdout)
	}
	for _, format := range report.Formats(report.KindTriage) {
		code, out, errOut := runCLI("triage", cfg, "--db", db, "--sandbox", "none", "--no-inject", "--format", format)
		if code != 0 && code != 1 {
			t.Fatalf("triage --format %s: exit %d: %s", format, code, errOut)
		}
		grepTokens(t, "triage --format "+format, []byte(out+errOut))
	}
	for _, format := range []string{"md", "html", "json", "csv"} {
		code, out, errOut := runCLI("report", "--db", db, "--format", format)
		if code != 0 {
			t.Fatalf("report --format %s: exit %d: %s", format, code, errOut)
		}
		grepTokens(t, "report --format "+format, []byte(out+errOut))
	}
	grepDB(t, db)

	// The stored plan names each variable and where its value came from.
	sdb, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var plan string
	if err := sdb.QueryRow(`SELECT plan FROM targets WHERE key LIKE '%#keyed' LIMIT 1`).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"MY_TOKEN":""`, `"env:MY_TOKEN":"config:` + cfg + `"`, `"env:FIXTURE_API_KEY":"config:` + cfg + `"`} {
		if !strings.Contains(plan, want) {
			t.Errorf("stored plan %s lacks %s", plan, want)
		}
	}
}

// TestResumeObtainsSecretsAgain: a resumed scan reads the values again
// from the config they came from; when it cannot, it stops with one line
// naming what to supply, before writing anything.
func TestResumeObtainsSecretsAgain(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := claudeConfig(t, dir)
	db := filepath.Join(dir, "r.db")
	// An interrupted scan: its targets stored, none run.
	pending := func() {
		t.Helper()
		data, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		plans, err := source.ReadConfig(bytes.NewReader(data), &source.ConfigOptions{File: cfg})
		if err != nil {
			t.Fatal(err)
		}
		st, err := results.Open(context.Background(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		id, err := st.NewScan(context.Background(), results.ScanInfo{Kind: results.KindScan, Source: "config:" + cfg})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.AddTargets(context.Background(), id, plans); err != nil {
			t.Fatal(err)
		}
	}
	pending()
	grepDB(t, db)
	code, stdout, stderr := runCLI("scan", "--resume", "--db", db, "--sandbox", "none", "--no-inject")
	if code != 0 {
		t.Fatalf("resume exit %d: %s %s", code, stdout, stderr)
	}
	grepTokens(t, "resume stderr", []byte(stdout+stderr))
	grepDB(t, db)
	code, out, _ := runCLI("report", "--db", db, "--format", "json")
	if code != 0 || !strings.Contains(out, `"status": "ok"`) {
		t.Errorf("after resume the keyed server did not get its key (exit %d):\n%s", code, out)
	}

	t.Run("value gone from the config", func(t *testing.T) {
		pending()
		data, _ := os.ReadFile(cfg)
		if err := os.WriteFile(cfg, bytes.Replace(data, []byte(`"MY_TOKEN"`), []byte(`"MY_OTHER"`), 1), 0o600); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(db)
		code, stdout, stderr := runCLI("scan", "--resume", "--db", db, "--sandbox", "none", "--no-inject")
		if code != 2 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line", code, stdout, stderr)
		}
		for _, want := range []string{"MY_TOKEN", cfg} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr %q does not name %q", stderr, want)
			}
		}
		if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
			t.Error("the stopped resume wrote to the database")
		}
	})
	t.Run("config gone", func(t *testing.T) {
		if err := os.Remove(cfg); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI("scan", "--resume", "--db", db, "--sandbox", "none", "--no-inject")
		if code != 2 || !strings.Contains(stderr, cfg) || !strings.Contains(stderr, "cannot be read again") {
			t.Fatalf("exit %d, stderr %q; want exit 2 naming the config", code, stderr)
		}
	})
}

// TestEchoedSecretMasked: a server that echoes the token it was given in
// its tool listing and on stderr gets errors/leaks_secret naming the
// variable, and the token is masked in everything stored and reported.
func TestEchoedSecretMasked(t *testing.T) {
	dir := t.TempDir()
	cfg := map[string]any{"mcpServers": map[string]any{
		"listing": map[string]any{"command": testfixture.Path(t, "leaky"), "env": map[string]string{"LEAKY_TOKEN": envToken, "LEAKY_MODE": "description"}},
		"stderr":  map[string]any{"command": testfixture.Path(t, "leaky"), "env": map[string]string{"LEAKY_TOKEN": otherToken, "LEAKY_MODE": "stderr"}},
	}}
	b, _ := json.Marshal(cfg)
	p := filepath.Join(dir, "claude_desktop_config.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "r.db")
	code, stdout, stderr := runCLI("triage", p, "--db", db, "--sandbox", "none", "--no-inject", "--format", "json")
	if code != 0 || !strings.Contains(stderr, "drop listing") {
		t.Fatalf("triage exit %d, want 0 with a drop of the listing server: %s", code, stderr)
	}
	grepTokens(t, "triage output", []byte(stdout+stderr))
	for _, want := range []string{"tools[0].description: LEAKY_TOKEN (configured)", "stderr/leaks_secret"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("triage output lacks %q:\n%s", want, stdout)
		}
	}
	for _, format := range []string{"md", "html", "json", "csv"} {
		_, out, errOut := runCLI("report", "--db", db, "--format", format)
		grepTokens(t, "report --format "+format, []byte(out+errOut))
	}
	grepDB(t, db)
}

// TestProbeFlagsNotStored: values given with --header and --env reach the
// server but not the database, the output or stderr.
func TestProbeFlagsNotStored(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	var got sync.Map
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("X-Api-Key"), true)
		http.Error(w, "Forbidden", http.StatusForbidden)
	}))
	defer hs.Close()
	code, stdout, stderr := runCLI("probe", "--db", db, "--json", "--header", "X-Api-Key="+headerToken, hs.URL+"/mcp")
	if code != 0 {
		t.Fatalf("probe URL: exit %d: %s", code, stderr)
	}
	if _, ok := got.Load(headerToken); !ok {
		t.Error("the server did not get the --header value")
	}
	grepTokens(t, "probe URL output", []byte(stdout+stderr))
	code, stdout, stderr = runCLI("probe", "--db", db, "--json", "--sandbox", "none", "--no-inject", "--env", "FIXTURE_API_KEY="+envToken, "--", testfixture.Path(t, "needsenv"))
	if code != 0 || !strings.Contains(stdout, `"status": "ok"`) {
		t.Fatalf("probe with --env: exit %d (want ok): %s", code, stderr)
	}
	grepTokens(t, "probe --env output", []byte(stdout+stderr))
	for _, format := range []string{"md", "html", "json", "csv"} {
		_, out, errOut := runCLI("report", "--db", db, "--format", format)
		grepTokens(t, "report --format "+format, []byte(out+errOut))
	}
	grepDB(t, db)
}
