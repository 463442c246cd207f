package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSnapshotRemotesOffPrivateNetworks: remotes of a registry snapshot,
// literal or URL templates whose variables default to internal addresses,
// make mcpvet contact nothing on loopback or the metadata address; each
// plan is invalid_plan with its reason (issue 11, item 4).
func TestSnapshotRemotesOffPrivateNetworks(t *testing.T) {
	var hits atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "nope", http.StatusTeapot)
	}))
	defer hs.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(hs.URL, "http://"))
	entry := func(name string, remote map[string]any) map[string]any {
		return map[string]any{
			"server": map[string]any{"name": name, "description": "test server", "version": "1.0.0",
				"remotes": []map[string]any{remote}},
			"_meta": map[string]any{"io.modelcontextprotocol.registry/official": map[string]any{"status": "active", "isLatest": true}},
		}
	}
	snap := map[string]any{"servers": []map[string]any{
		entry("io.example/loopback", map[string]any{"type": "streamable-http", "url": hs.URL + "/mcp"}),
		entry("io.example/ipv6", map[string]any{"type": "streamable-http", "url": "http://[::1]:" + port + "/mcp"}),
		entry("io.example/metadata", map[string]any{"type": "sse", "url": "http://169.254.169.254/latest/meta-data/"}),
		entry("io.example/template", map[string]any{"type": "streamable-http", "url": "http://{host}:{port}/mcp",
			"variables": map[string]any{"host": map[string]any{"default": "127.0.0.1"}, "port": map[string]any{"default": port}}}),
		entry("io.example/userinfo", map[string]any{"type": "streamable-http", "url": "https://admin:hunter2@mcp.example.com/mcp"}),
	}, "metadata": map[string]any{"count": 5}}
	dir := t.TempDir()
	file := filepath.Join(dir, "servers.json")
	b, _ := json.Marshal(snap)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "r.db")
	code, stdout, stderr := runCLI("scan", "--from", file, "--db", db, "--sandbox", "none", "--quiet")
	if code != 0 || !strings.Contains(stdout, "invalid_plan 5") {
		t.Fatalf("exit %d, want invalid_plan 5:\n%s%s", code, stdout, stderr)
	}
	if hits.Load() != 0 {
		t.Errorf("mcpvet contacted the loopback server %d times", hits.Load())
	}
	code, out, _ := runCLI("report", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("report exit %d", code)
	}
	for _, want := range []string{"loopback address", "cloud metadata", "user info"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks the reason %q", want)
		}
	}
	if strings.Contains(out, "hunter2") {
		t.Error("the report holds the password of a URL")
	}
	grepFile := func(p string) {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "hunter2") {
			t.Errorf("%s holds the password of a URL", filepath.Base(p))
		}
	}
	grepFile(db)
	grepFile(db + "-wal")
}
