package source

import (
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
