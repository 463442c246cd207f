package sandbox

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// corgiRegistry serves abbreviated npm metadata for the packages in docs
// (name -> document; set changes one) and 404 for every other name; an
// answer is delayed by delay when it is set.
func corgiRegistry(t *testing.T, docs map[string]string, delay time.Duration) (srv *httptest.Server, set func(name, doc string)) {
	t.Helper()
	var mu sync.Mutex
	docs = maps.Clone(docs)
	set = func(name, doc string) {
		mu.Lock()
		defer mu.Unlock()
		docs[name] = doc
	}
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		mu.Lock()
		doc, ok := docs[strings.TrimPrefix(r.URL.EscapedPath(), "/")]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.npm.install-v1+json")
		fmt.Fprint(w, doc)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(forgetProcessMemos)
	forgetProcessMemos()
	return srv, set
}

// TestNPMConfigRegistry: the registry npm would use is
// $npm_config_registry, else the URL `npm config get registry` prints,
// else the public one (registry_meta.go :53, :56, :57: the environment's
// test, npm's lookup and its 10-second bound).
func TestNPMConfigRegistry(t *testing.T) {
	bin := t.TempDir()
	npm := filepath.Join(bin, "npm")
	t.Setenv("PATH", bin)
	t.Setenv("npm_config_registry", "")
	if got := npmConfigRegistry(); got != "https://registry.npmjs.org/" {
		t.Errorf("no npm, no environment: %q, want the public registry", got)
	}
	write := func(out string) {
		if err := os.WriteFile(npm, []byte("#!/bin/sh\necho '"+out+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("http://127.0.0.1:4873/")
	if got := npmConfigRegistry(); got != "http://127.0.0.1:4873/" {
		t.Errorf("npm config prints a mirror: %q, want it", got)
	}
	write("undefined")
	if got := npmConfigRegistry(); got != "https://registry.npmjs.org/" {
		t.Errorf("npm config prints no URL: %q, want the public registry", got)
	}
	t.Setenv("npm_config_registry", "http://127.0.0.1:9/npm/")
	if got := npmConfigRegistry(); got != "http://127.0.0.1:9/npm/" {
		t.Errorf("$npm_config_registry set: %q, want it", got)
	}
}

// TestCheckNPMEvidenceAndSavedMetadata: a definite 404 names the registry
// asked (:143 the default only when none was given); a saved answer from
// an earlier run bounds the new request by metaTagTimeout and answers when
// the registry is too slow (:113, :125), while a run without one waits
// for the registry however slow; and the metadata of a registry of its
// own is saved apart from the default registry's (:182).
func TestCheckNPMEvidenceAndSavedMetadata(t *testing.T) {
	const doc = `{"name":"mcpvet-echo","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{}}}`
	reg, _ := corgiRegistry(t, map[string]string{"mcpvet-echo": doc}, 0)
	ctx := context.Background()

	_, _, err := checkNPM(ctx, "", reg.URL, "mcpvet-nothing", "1.0.0")
	var le *LaunchError
	if !errors.As(err, &le) || le.Status != vocab.StatusPackageNotFound || le.Evidence != "registry "+reg.URL+": 404 for mcpvet-nothing" {
		t.Fatalf("a 404: %v (evidence %q), want package_not_found naming %s", err, evidenceOf(le), reg.URL)
	}

	cache := t.TempDir()
	if p, q := npmMetaPath(cache, "", "mcpvet-echo"), npmMetaPath(cache, reg.URL, "mcpvet-echo"); p == q || strings.Contains(filepath.Base(p), "@") || !strings.Contains(filepath.Base(q), "@") {
		t.Errorf("metadata paths %s (default registry) and %s (own registry), want apart, the own one with its hash", p, q)
	}

	// A registry that takes 300 ms: without saved metadata it is waited for.
	slow, _ := corgiRegistry(t, map[string]string{"mcpvet-echo": doc}, 300*time.Millisecond)
	old := metaTagTimeout
	metaTagTimeout = time.Millisecond
	t.Cleanup(func() { metaTagTimeout = old })
	if v, note, err := checkNPM(ctx, cache, slow.URL, "mcpvet-echo", "latest"); v != "1.0.0" || note != "" || err != nil {
		t.Fatalf("no saved metadata, slow registry: %q, %q, %v; want 1.0.0 from the registry", v, note, err)
	}
	// Saved now: the next run asks within metaTagTimeout and falls back.
	forgetProcessMemos()
	if v, note, err := checkNPM(ctx, cache, slow.URL, "mcpvet-echo", "latest"); v != "1.0.0" || !strings.Contains(note, "resolved to 1.0.0 from the metadata saved") || err != nil {
		t.Errorf("saved metadata, slow registry: %q, %q, %v; want 1.0.0 from the saved metadata", v, note, err)
	}
	// With the default bound, a registry that answers at once is read, not
	// the saved copy: a dist-tag moves on when the registry says so.
	metaTagTimeout = old
	fast, set := corgiRegistry(t, map[string]string{"mcpvet-echo": doc}, 0)
	if v, _, err := checkNPM(ctx, cache, fast.URL, "mcpvet-echo", "latest"); v != "1.0.0" || err != nil {
		t.Fatalf("first ask: %q, %v", v, err)
	}
	set("mcpvet-echo", `{"name":"mcpvet-echo","dist-tags":{"latest":"1.1.0"},"versions":{"1.0.0":{},"1.1.0":{}}}`)
	forgetProcessMemos()
	if v, note, err := checkNPM(ctx, cache, fast.URL, "mcpvet-echo", "latest"); v != "1.1.0" || note != "" || err != nil {
		t.Errorf("saved metadata, registry answering: %q, %q, %v; want 1.1.0 from the registry", v, note, err)
	}
}

func evidenceOf(le *LaunchError) string {
	if le == nil {
		return ""
	}
	return le.Evidence
}

// TestFormatTagsCap: at most eight dist-tags are listed (:230).
func TestFormatTagsCap(t *testing.T) {
	tags := map[string]string{}
	for i := range 10 {
		tags[fmt.Sprintf("t%d", i)] = "1.0.0"
	}
	if got := strings.Count(formatTags(tags), "=1.0.0"); got != 8 {
		t.Errorf("formatTags of 10 tags lists %d, want 8", got)
	}
	if got := formatTags(map[string]string{"latest": "2.0.0"}); got != "latest=2.0.0" {
		t.Errorf("formatTags = %q", got)
	}
}

// TestNPM404Names: every package an npm log says is missing, from the
// "404 Not Found - GET" lines (a packument or a tarball, scoped or not, of
// a registry at a path prefix or with a doubled slash) and the "is not in
// this registry" lines
// (with or without a version): :249, :257, :258, :261, :265, :268.
func TestNPM404Names(t *testing.T) {
	out := `npm error code E404
npm error 404 Not Found - GET http://127.0.0.1:4873/npm/@yuna0x0%2fanilist-node - Not found
npm error 404 Not Found - GET http://127.0.0.1:4873/npm/left-pad/-/left-pad-1.3.0.tgz - Not found
npm error 404 Not Found - GET https://registry.npmjs.org/mcpvet-gone - Not found
npm error 404 Not Found - GET http://127.0.0.1:4873/npm/@scope/tarpkg/-/tarpkg-1.0.0.tgz - Not found
npm error 404 Not Found - GET http://127.0.0.1:4873//@dbl/pkg/-/pkg-2.0.0.tgz - Not found
npm error 404  '@scope/private@^2.0.0' is not in this registry.
npm error 404  'plain-dep@1.0.0' is not in this registry.
npm error 404  '@scope/bare' is not in this registry.
npm error 404  'mcpvet-gone@latest' is not in this registry.`
	want := []string{"@yuna0x0/anilist-node", "left-pad", "mcpvet-gone", "@scope/tarpkg", "@dbl/pkg", "@scope/private", "plain-dep", "@scope/bare"}
	if got := npm404Names(out); !slices.Equal(got, want) {
		t.Errorf("npm404Names =\n%q\nwant\n%q", got, want)
	}
}

// TestPyPIIndexAnswers: a failed request to the index is not remembered,
// so the next plan asks again (:328); versions are read from the JSON
// form (:349), so a missing version is version_not_found naming the index
// (:367, :374), while the HTML form, which lists files, proves nothing
// about versions.
func TestPyPIIndexAnswers(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	idx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		switch r.URL.Path {
		case "/simple/mcp-server-time/":
			w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
			fmt.Fprint(w, `{"name":"mcp-server-time","versions":["0.6.1","0.6.2"],"files":[]}`)
		case "/simple/html-only/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<a href="html_only-1.0.tar.gz">html_only-1.0.tar.gz</a>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer idx.Close()
	pypiCache.Clear()
	t.Cleanup(pypiCache.Clear)
	base := idx.URL + "/simple"
	ctx := context.Background()
	if known, reason, err := checkPyPI(ctx, base, "mcp-server-time", "0.6.2"); known || err != nil || !strings.Contains(reason, "503") {
		t.Fatalf("index answering 503: known %v, %q, %v; want unknown with the reason", known, reason, err)
	}
	fail.Store(false)
	for _, tc := range []struct {
		name, version string
		status        vocab.Status
		evidence      string
	}{
		{"mcp-server-time", "0.6.2", "", ""},
		{"mcp-server-time", "", "", ""},
		{"mcp-server-time", "9.9.9", vocab.StatusVersionNotFound, "index " + base + ": mcp-server-time has 2 versions, not 9.9.9"},
		{"html-only", "2.0", "", ""},
		{"mcp-server-nothing", "1.0", vocab.StatusPackageNotFound, "index " + base + ": 404 for mcp-server-nothing"},
	} {
		known, _, err := checkPyPI(ctx, base, tc.name, tc.version)
		var le *LaunchError
		errors.As(err, &le)
		switch {
		case !known:
			t.Errorf("%s %s: unknown after the index recovered", tc.name, tc.version)
		case tc.status == "" && err != nil:
			t.Errorf("%s %s: %v, want no error", tc.name, tc.version, err)
		case tc.status != "" && (le == nil || le.Status != tc.status || le.Evidence != tc.evidence):
			t.Errorf("%s %s: %v (evidence %q), want %s with %q", tc.name, tc.version, err, evidenceOf(le), tc.status, tc.evidence)
		}
	}
}
