package source

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestKeyLineNames finds server names that need care in a JSON key: a
// space is written as itself (configset.go:260, `r < 0x20` -> `<=`
// escaped it as \u0020 and missed the key), a quote and a control
// character escaped as encoding/json writes them.
func TestKeyLineNames(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      int
	}{
		{"my server", "{\n  \"my server\": {\"command\": \"npx\"}}", 2},
		{`say "hi"`, "{\n\n\"say \\\"hi\\\"\": {}}", 3},
		{"a\x1fb", "{\"a\\u001fb\": {}}", 1},
	} {
		if got := KeyLine([]byte(tt.doc), tt.name); got != tt.want {
			t.Errorf("KeyLine(%q, %q) = %d, want %d", tt.doc, tt.name, got, tt.want)
		}
	}
}

// TestCrawlerOptions pins newCrawler's defaults: a zero or negative
// option takes its default (MaxRetries: zero the default, negative none),
// a given one is kept. The crawl tests give every option they need, so
// they never saw a default (registry.go:263-296, issue 26's shard).
func TestCrawlerOptions(t *testing.T) {
	defaults := CrawlOptions{
		BaseURL: DefaultBaseURL, Limit: DefaultPageLimit, MaxPages: DefaultMaxPages, MaxRetries: DefaultMaxRetries,
		RequestTimeout: DefaultRequestTimeout, MaxResponseBytes: DefaultMaxResponseBytes, PageTimeout: DefaultPageTimeout,
		MaxCrawlTime: DefaultMaxCrawlTime, MaxCrawlBytes: DefaultMaxCrawlBytes, MaxRetryAfter: DefaultMaxRetryAfter,
		UserAgent: "mcpvet",
	}
	given := CrawlOptions{
		BaseURL: "http://127.0.0.1:1/r", Limit: 7, MaxPages: 3, MaxRetries: 2, RequestTimeout: time.Second,
		MaxResponseBytes: 99, PageTimeout: 2 * time.Second, MaxCrawlTime: 3 * time.Second, MaxCrawlBytes: 999,
		MaxRetryAfter: 4 * time.Second, UserAgent: "ua", Backoff: func(int) time.Duration { return 7 * time.Millisecond },
	}
	negative := CrawlOptions{
		Limit: -1, MaxPages: -1, MaxRetries: -1, RequestTimeout: -1, MaxResponseBytes: -1, PageTimeout: -1,
		MaxCrawlTime: -1, MaxCrawlBytes: -1, MaxRetryAfter: -1,
	}
	noRetries := defaults
	noRetries.MaxRetries = 0
	for _, tc := range []struct {
		name string
		in   *CrawlOptions
		want CrawlOptions
	}{
		{"nil", nil, defaults},
		{"zero", &CrawlOptions{}, defaults},
		{"negative", &negative, noRetries},
		{"given", &given, given},
	} {
		c, err := newCrawler(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := c.opts
		if got.Backoff == nil {
			t.Errorf("%s: no backoff", tc.name)
		} else if tc.in != nil && tc.in.Backoff != nil && got.Backoff(1) != 7*time.Millisecond {
			t.Errorf("%s: backoff(1) = %v, not the given one", tc.name, got.Backoff(1))
		}
		got.Backoff, tc.want.Backoff = nil, nil
		if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(CrawlOptions{}, "OnPage", "OnRetry")); diff != "" {
			t.Errorf("%s: options (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestCrawlPageCapResume: a crawl stopped by the page cap names the page
// it did not fetch (MaxPages + 1, no attempt) and its cursor, and a crawl
// resumed from that cursor yields exactly the rest (registry.go:366,
// `page + 1` -> `page - 1`, lived: the cap tests checked only the error).
func TestCrawlPageCapResume(t *testing.T) {
	_, srv := newFakeRegistry(t)
	opts := quickOptions(srv.URL + "/")
	opts.Limit = 100
	opts.MaxPages = 2
	first, err := Fetch(context.Background(), opts)
	var pe *PageError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPageLimit) {
		t.Fatalf("Fetch: %v, want a *PageError for the page cap", err)
	}
	if pe.Page != 3 || pe.Attempts != 0 || pe.Cursor == "" || len(first) != 200 {
		t.Fatalf("stopped at page %d (%d attempts, cursor %q) with %d entries; want page 3, 0 attempts, a cursor, 200 entries",
			pe.Page, pe.Attempts, pe.Cursor, len(first))
	}
	opts.MaxPages, opts.Cursor = 0, pe.Cursor
	rest, err := Fetch(context.Background(), opts)
	if err != nil {
		t.Fatalf("resumed Fetch: %v", err)
	}
	_, all := loadServers(t)
	if diff := cmp.Diff(ids(all), ids(append(first, rest...))); diff != "" {
		t.Errorf("capped crawl + resumed crawl (-want +got):\n%s", diff)
	}
}

// TestCrawlEdges pins what the crawl tests left open (registry.go's
// survivors in issue 26's shard 2): the byte caps at exactly their size,
// the attempt count after the /v0 fallback, the attempts a retry
// announces, sleep's zero and positive waits, and PageError's text.
func TestCrawlEdges(t *testing.T) {
	const body = `{"servers": [], "metadata": {"count": 0}}`
	fixed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(fixed.Close)
	// A body of exactly MaxResponseBytes, a crawl of exactly
	// MaxCrawlBytes, are within the caps (:505, :517 `>` -> `>=`).
	for _, o := range []CrawlOptions{{MaxResponseBytes: int64(len(body))}, {MaxCrawlBytes: int64(len(body))}} {
		o.BaseURL = fixed.URL
		if _, err := Fetch(context.Background(), &o); err != nil {
			t.Errorf("Fetch with caps %d, %d at the body's size: %v", o.MaxResponseBytes, o.MaxCrawlBytes, err)
		}
	}

	// After the fallback to /v0 the failing page counts its own attempts
	// only (:415 `attempt--`), and a retry announces MaxRetries + 1
	// attempts in all (:427).
	f, srv := newFakeRegistry(t)
	f.v01NotFound = true
	f.always[0] = fault{kind: "400"}
	_, err := Fetch(context.Background(), quickOptions(srv.URL))
	var pe *PageError
	if !errors.As(err, &pe) || pe.Attempts != 1 {
		t.Errorf("after the /v0 fallback: %v, want a PageError after 1 attempt", err)
	}
	f, srv = newFakeRegistry(t)
	f.faults[0] = []fault{{kind: "500"}}
	opts := quickOptions(srv.URL)
	var retries []RetryInfo
	opts.OnRetry = func(r RetryInfo) { retries = append(retries, r) }
	opts.Limit, opts.MaxPages = 100, 1
	_, _ = Fetch(context.Background(), opts)
	if len(retries) != 1 || retries[0].MaxAttempts != opts.MaxRetries+1 || !strings.Contains(retries[0].String(), "attempt 1 of 4 failed") {
		t.Errorf("retries %+v, want one of %d attempts", retries, opts.MaxRetries+1)
	}

	// A page that outlives its page timeout (the registry never answers)
	// ends the crawl with the budget error, not with an empty page
	// (:406 `parent.Err() == nil` -> `!=` returned no error).
	// The transport's own error does not carry the context's cause here,
	// so fetchPage must take it from the page's context.
	opts = quickOptions("http://127.0.0.1:1")
	opts.PageTimeout = 50 * time.Millisecond
	opts.HTTPClient = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done()
		return nil, errors.New("connection lost")
	})}
	if _, err := Fetch(context.Background(), opts); !errors.Is(err, ErrCrawlBudget) {
		t.Errorf("a page past its timeout: %v, want ErrCrawlBudget", err)
	}

	// sleep: a wait of 0 returns the context's error at once (:446 `<=`
	// -> `<` would race a zero timer against it), a positive wait waits.
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for range 50 {
		if err := sleep(cancelled, 0); !errors.Is(err, context.Canceled) {
			t.Fatalf("sleep(cancelled, 0) = %v, want context.Canceled", err)
		}
	}
	start := time.Now()
	if err := sleep(context.Background(), 20*time.Millisecond); err != nil || time.Since(start) < 20*time.Millisecond {
		t.Errorf("sleep(20ms) = %v after %v, want nil after at least 20ms", err, time.Since(start))
	}

	// A page without a "servers" member is refused, one with
	// "servers": null is an empty page (:565 `== nil` -> `!=`).
	if _, err := decodePage([]byte(`{"metadata": {}}`)); err == nil || !strings.Contains(err.Error(), `no "servers" array`) {
		t.Errorf(`decodePage without "servers" = %v, want refused`, err)
	}
	if res, err := decodePage([]byte(`{"servers": null}`)); err != nil || len(res.entries) != 0 {
		t.Errorf(`decodePage("servers": null) = %v, %v; want an empty page`, res, err)
	}

	// PageError names the cursor when there is one and the attempts when
	// there were several (:168, :173).
	for _, tc := range []struct {
		e    PageError
		want string
	}{
		{PageError{Page: 1, Attempts: 1, Err: errors.New("x")}, "registry: page 1: x"},
		{PageError{Page: 2, Cursor: "c2", Attempts: 2, Err: errors.New("x")}, `registry: page 2 (cursor "c2"): x (gave up after 2 attempts)`},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("PageError = %q, want %q", got, tc.want)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
