package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRegistryCrawlBudgetFlags: a registry whose cursor never ends is
// crawled only up to --registry-max-pages (issue 22 item 11: before,
// 2,507 entries until it stopped), with a message naming the cap; a budget
// that is not positive is a one-line usage error naming the flag, for scan
// and registry pull.
func TestRegistryCrawlBudgetFlags(t *testing.T) {
	var pages atomic.Int64
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := pages.Add(1)
		fmt.Fprintf(w, `{"servers":[{"server":{"name":"io.example/s%d","version":"1.0.0","description":"x","remotes":[{"type":"streamable-http","url":"https://s%d.example.com/mcp"}]},"_meta":{}}],"metadata":{"nextCursor":"c%d","count":1}}`, n, n, n)
	}))
	defer endless.Close()
	dir := t.TempDir()
	code, _, stderr := runCLI("scan", "--registry", endless.URL, "--registry-max-pages", "3", "--db", filepath.Join(dir, "x.db"))
	if code == 0 || !strings.Contains(stderr, "page limit reached") || pages.Load() != 3 {
		t.Errorf("exit %d, %d pages, stderr %q; want a failed crawl after 3 pages naming the page cap", code, pages.Load(), stderr)
	}
	for _, tc := range []struct{ flag, value string }{
		{"--registry-max-pages", "0"}, {"--registry-page-timeout", "0s"}, {"--registry-timeout", "-1s"}, {"--registry-max-bytes", "0"},
	} {
		for _, cmd := range [][]string{{"scan", "--registry", endless.URL, "--db", filepath.Join(dir, "y.db")}, {"registry", "pull", "--registry", endless.URL}} {
			code, _, stderr := runCLI(append(cmd, tc.flag, tc.value)...)
			if code != 2 || !strings.Contains(stderr, tc.flag+" "+strings.TrimSuffix(tc.value, "")) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("%v %s %s: exit %d, stderr %q; want exit 2 and one line naming the flag", cmd[:2], tc.flag, tc.value, code, stderr)
			}
		}
	}
}
