package scan

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testenv"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// slowNPMRegistry serves one package, mcpvet-slow@1.0.0 (the echo server
// of the sandbox tests), whose tarball arrives after delay.
func slowNPMRegistry(t *testing.T, delay time.Duration) *httptest.Server {
	t.Helper()
	return fakeNPMPackage(t, "mcpvet-slow", "echo-server.js", delay)
}

// fakeNPMPackage serves one package, name@1.0.0, whose bin is the script
// file of sandbox/testdata and whose tarball arrives after delay.
func fakeNPMPackage(t *testing.T, name, file string, delay time.Duration) *httptest.Server {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		testenv.Need(t, "npm is not installed")
	}
	dir := t.TempDir()
	t.Setenv("npm_config_cache", filepath.Join(dir, "npm-cache"))
	t.Setenv("npm_config_userconfig", filepath.Join(dir, "npmrc"))
	t.Setenv("npm_config_fetch_retries", "0")
	server, err := os.ReadFile(filepath.Join("..", "sandbox", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	pj := `{"name":"` + name + `","version":"1.0.0","bin":"server.js"}`
	for name, content := range map[string]string{"package.json": pj, "server.js": string(server)} {
		tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o755, Size: int64(len(content)), Typeflag: tar.TypeReg, ModTime: time.Unix(1e9, 0)})
		tw.Write([]byte(content))
	}
	tw.Close()
	gz.Close()
	tgz := buf.Bytes()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/" + name:
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"name": name, "dist-tags": map[string]string{"latest": "1.0.0"},
				"versions": map[string]any{"1.0.0": map[string]any{"name": name, "version": "1.0.0", "bin": "server.js",
					"dist": map[string]any{"tarball": srv.URL + "/" + name + "/-/" + name + "-1.0.0.tgz"}}}})
		case "/" + name + "/-/" + name + "-1.0.0.tgz":
			select {
			case <-time.After(delay):
				w.Write(tgz)
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestInstallHasItsOwnDeadline: a slow install does not eat the server's
// deadline, and an install that runs out of its own deadline keeps the
// installer's last output as evidence.
func TestInstallHasItsOwnDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs npm")
	}
	plan := func(reg *httptest.Server) *vocab.Plan {
		return &vocab.Plan{Key: "npm:mcpvet-slow@1.0.0", Name: "mcpvet-slow", Source: "test", Transport: vocab.TransportStdio,
			Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: reg.URL, Identifier: "mcpvet-slow", Version: "1.0.0"}}
	}

	t.Run("slow install, short server deadline", func(t *testing.T) {
		reg := slowNPMRegistry(t, 3*time.Second)
		opts := &ProbeOptions{
			Sandbox: &sandbox.Options{Backend: sandbox.BackendNone, CacheDir: t.TempDir(), InstallTimeout: time.Minute},
			Run:     probe.Options{HandshakeTimeout: 10 * time.Second},
			Timeout: 2 * time.Second, // shorter than the download
		}
		res, err := Probe(context.Background(), plan(reg), opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Liveness.Status != vocab.StatusOK {
			t.Fatalf("status %s (%s), want ok: the install must not count against --server-timeout", res.Liveness.Status, res.Liveness.Detail)
		}
	})

	t.Run("install deadline", func(t *testing.T) {
		reg := slowNPMRegistry(t, time.Minute)
		opts := &ProbeOptions{
			Sandbox: &sandbox.Options{Backend: sandbox.BackendNone, CacheDir: t.TempDir(), InstallTimeout: 6 * time.Second},
			Timeout: time.Minute,
		}
		res, err := Probe(context.Background(), plan(reg), opts)
		if err != nil {
			t.Fatal(err)
		}
		l := res.Liveness
		if l.Status != vocab.StatusInstallFailed || !strings.Contains(l.Detail, "install deadline") {
			t.Fatalf("status %s (%s), want install_failed naming the install deadline", l.Status, l.Detail)
		}
		// npm's own log of what it was fetching when it was stopped.
		if want := fmt.Sprintf("%s/mcpvet-slow", reg.URL); !strings.Contains(l.Evidence, want) {
			t.Errorf("evidence lacks the installer's last output (%q):\n%s", want, l.Evidence)
		}
	})
}
