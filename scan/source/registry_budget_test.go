package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrawlBudgets: hostile registries of issue 22 item 11. A registry
// that dribbles one byte every 50 ms (before: every attempt ran to the
// request timeout and was retried, 137 s in the report), one whose cursor
// never ends (before: crawled until it stopped, 2,507 entries, with a cap
// of 10,000 pages), and one whose pages are large. Each crawl now ends at
// its budget with ErrCrawlBudget or ErrPageLimit and a message naming the
// flag to raise.
func TestCrawlBudgets(t *testing.T) {
	entry := func(i int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"server":{"name":"io.example/s%d","version":"1.0.0","description":"x"},"_meta":{}}`, i))
	}
	var pages atomic.Int64
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := pages.Add(1)
		w.Write(fakePageBody([]json.RawMessage{entry(int(n))}, fmt.Sprintf("c%d", n)))
	}))
	defer endless.Close()
	dribble := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		for range 2000 {
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}))
	defer dribble.Close()
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := pages.Add(1)
		var es []json.RawMessage
		for i := range 100 {
			es = append(es, json.RawMessage(fmt.Sprintf(`{"server":{"name":"io.example/b%d-%d","version":"1.0.0","description":"%s"},"_meta":{}}`, n, i, strings.Repeat("d", 1000))))
		}
		w.Write(fakePageBody(es, fmt.Sprintf("b%d", n)))
	}))
	defer big.Close()
	for _, tc := range []struct {
		name    string
		opts    CrawlOptions
		want    error
		within  time.Duration
		message string
	}{
		{"dribbling page", CrawlOptions{BaseURL: dribble.URL, RequestTimeout: 400 * time.Millisecond, PageTimeout: time.Second, Backoff: func(int) time.Duration { return 100 * time.Millisecond }},
			ErrCrawlBudget, 5 * time.Second, "--registry-page-timeout"},
		{"dribbling crawl", CrawlOptions{BaseURL: dribble.URL, RequestTimeout: 400 * time.Millisecond, MaxCrawlTime: time.Second, Backoff: func(int) time.Duration { return 100 * time.Millisecond }},
			ErrCrawlBudget, 5 * time.Second, "--registry-timeout"},
		{"endless cursor", CrawlOptions{BaseURL: endless.URL}, ErrPageLimit, 30 * time.Second, "page cap"},
		{"endless cursor, small cap", CrawlOptions{BaseURL: endless.URL, MaxPages: 20}, ErrPageLimit, 10 * time.Second, "page cap"},
		{"large pages", CrawlOptions{BaseURL: big.URL, MaxCrawlBytes: 1 << 20}, ErrCrawlBudget, 10 * time.Second, "--registry-max-bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pages.Store(0)
			start := time.Now()
			entries, err := Fetch(context.Background(), &tc.opts)
			took := time.Since(start)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("Fetch = %d entries, %v; want %v naming %s", len(entries), err, tc.want, tc.message)
			}
			if took > tc.within {
				t.Errorf("the crawl took %v, want at most %v", took, tc.within)
			}
			if tc.name == "endless cursor" && pages.Load() > DefaultMaxPages {
				t.Errorf("fetched %d pages, want at most %d", pages.Load(), DefaultMaxPages)
			}
		})
	}
}
