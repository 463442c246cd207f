package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/scan/source"
)

// TestRegistryPullAndScan runs the whole pipeline against a local registry:
// `registry pull` snapshots it, `scan --registry` crawls it, plans the
// remote it lists (the streamable-HTTP fixture), probes it and stores it.
func TestRegistryPullAndScan(t *testing.T) {
	url := testfixture.StartHTTP(t)
	entry := func(name, remote string, latest bool) map[string]any {
		return map[string]any{
			"server": map[string]any{
				"name": name, "description": "test server", "version": "1.0.0",
				"remotes": []map[string]any{{"type": "streamable-http", "url": remote}},
			},
			"_meta": map[string]any{"io.modelcontextprotocol.registry/official": map[string]any{"status": "active", "isLatest": latest}},
		}
	}
	servers := []map[string]any{
		entry("io.example/tracker", url, true),
		entry("io.example/gone", "http://127.0.0.1:1/mcp", true),
		entry("io.example/old", url, false),
	}
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v0.1/servers" {
			http.NotFound(w, r)
			return
		}
		var page []map[string]any
		for _, s := range servers {
			if r.URL.Query().Get("version") != "latest" || s["_meta"].(map[string]any)["io.modelcontextprotocol.registry/official"].(map[string]any)["isLatest"] == true {
				page = append(page, s)
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"servers": page, "metadata": map[string]any{"count": len(page)}})
	}))
	defer reg.Close()
	dir := t.TempDir()

	snap := filepath.Join(dir, "servers.json")
	if code, _, stderr := runCLI("registry", "pull", "--registry", reg.URL, "-o", snap); code != 0 {
		t.Fatalf("registry pull: exit %d: %s", code, stderr)
	}
	f, err := os.Open(snap)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := source.ReadSnapshot(f)
	f.Close()
	if err != nil || len(entries) != 2 {
		t.Fatalf("snapshot holds %d entries (%v), want the 2 latest", len(entries), err)
	}

	db := filepath.Join(dir, "scan.db")
	// The registry's remotes are on loopback: refused unless the user opts
	// in (issue 11).
	code, stdout, stderr := runCLI("scan", "--registry", reg.URL, "--db", filepath.Join(dir, "refused.db"), "--sandbox", "none", "--quiet")
	if code != 0 || !strings.Contains(stdout, "invalid_plan 2") {
		t.Errorf("scan of loopback remotes without --allow-private-network: exit %d, want invalid_plan 2:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI("scan", "--registry", reg.URL, "--db", db, "--sandbox", "none", "--quiet", "--allow-private-network")
	if code != 0 {
		t.Fatalf("scan: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"2 of 2 targets done", "ok 1", "unreachable 1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("scan summary lacks %q:\n%s", want, stdout)
		}
	}
	if code, out, _ := runCLI("report", "--db", db, "--format", "json"); code != 0 || !strings.Contains(out, `"allowPrivateNetwork": true`) {
		t.Errorf("--allow-private-network is not recorded with the scan (exit %d)", code)
	}
	code, stdout, stderr = runCLI("report", "--db", db, "--format", "csv")
	if code != 0 || !strings.Contains(stdout, "io.example/tracker") {
		t.Errorf("report: exit %d, %s\n%s", code, stderr, stdout)
	}
}
