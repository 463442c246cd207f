package source

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fault is one injected failure of the fake registry.
type fault struct {
	kind string // 500, 429, 400, truncate, cutjson, garbage, hang, huge, empty, loop, overlap
	// retryAfter is the Retry-After header of a 429.
	retryAfter string
}

// fakeRegistry serves servers.json like the registry API: GET
// /v0.1/servers (and /v0/servers) with limit, an opaque cursor and
// metadata.nextCursor/count. Faults are keyed by page index (offset/limit)
// and consumed one per request for that page.
type fakeRegistry struct {
	t       testing.TB
	entries []json.RawMessage

	mu          sync.Mutex
	v01NotFound bool
	faults      map[int][]fault
	// always makes a page fail on every request.
	always   map[int]fault
	requests []*http.Request
}

func newFakeRegistry(t testing.TB) (*fakeRegistry, *httptest.Server) {
	raw, _ := loadServers(t)
	var entries []json.RawMessage
	if err := json.Unmarshal(bytes.TrimPrefix(raw, utf8BOM), &entries); err != nil {
		t.Fatal(err)
	}
	f := &fakeRegistry{t: t, entries: entries, faults: map[int][]fault{}, always: map[int]fault{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// fakeCursor is the fake's opaque cursor for an offset; empty pages get a
// different cursor for the same offset so they do not look like a loop.
func fakeCursor(offset int, tag string) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "o=%d;%s", offset, tag))
}

func parseFakeCursor(c string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	s, _, _ := strings.Cut(strings.TrimPrefix(string(b), "o="), ";")
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// fakePage reads the limit and cursor of a list request, or the body of a
// 400 response when one is not valid.
func fakePage(q url.Values) (limit, offset int, bad string) {
	limit = 30
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 100 {
			return 0, 0, `{"error":"limit must be 1..100"}`
		}
		limit = n
	}
	if c := q.Get("cursor"); c != "" {
		n, ok := parseFakeCursor(c)
		if !ok {
			return 0, 0, `{"error":"invalid cursor"}`
		}
		offset = n
	}
	return limit, offset, ""
}

// takeFault returns the fault of page, using up a one-time fault.
func (f *fakeRegistry) takeFault(page int) fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ft fault
	if a, ok := f.always[page]; ok {
		ft = a
	} else if fs := f.faults[page]; len(fs) > 0 {
		ft, f.faults[page] = fs[0], fs[1:]
	}
	return ft
}

// fakePageBody is the JSON of a page of servers.
func fakePageBody(servers []json.RawMessage, next string) []byte {
	// The entries are valid JSON already: join them rather than marshal.
	var buf bytes.Buffer
	buf.WriteString(`{"servers":[`)
	for i, s := range servers {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(s)
	}
	buf.WriteString(`],"metadata":{`)
	if next != "" {
		// The real API omits nextCursor on the last page.
		fmt.Fprintf(&buf, `"nextCursor":%q,`, next)
	}
	fmt.Fprintf(&buf, `"count":%d}}`, len(servers))
	return buf.Bytes()
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r)
	v01NotFound := f.v01NotFound
	f.mu.Unlock()

	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/v0/servers":
	case "/v0.1/servers":
		if v01NotFound {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
	default:
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	limit, offset, bad := fakePage(r.URL.Query())
	if bad != "" {
		http.Error(w, bad, http.StatusBadRequest)
		return
	}
	ft := f.takeFault(offset / limit)

	end := min(offset+limit, len(f.entries))
	servers := f.entries[min(offset, len(f.entries)):end]
	next := ""
	if end < len(f.entries) {
		next = fakeCursor(end, "")
	}
	switch ft.kind {
	case "500":
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	case "429":
		w.Header().Set("Retry-After", ft.retryAfter)
		http.Error(w, `{"error":"slow down"}`, http.StatusTooManyRequests)
		return
	case "400":
		http.Error(w, `{"error":"invalid cursor"}`, http.StatusBadRequest)
		return
	case "hang":
		<-r.Context().Done()
		return
	case "empty":
		servers, next = nil, fakeCursor(offset, "after-empty")
	case "loop":
		next = fakeCursor(max(offset-limit, 0), "")
	case "overlap":
		servers = f.entries[max(offset-10, 0):end]
	}
	body := fakePageBody(servers, next)
	w.Header().Set("Content-Type", "application/json")
	switch ft.kind {
	case "truncate":
		// Promise the whole body, send half: the client sees an
		// unexpected EOF while reading.
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body[:len(body)/2])
		return
	case "cutjson":
		body = body[:len(body)/2]
	case "garbage":
		body = []byte(`{"servers": [}`)
	case "huge":
		body = append(body, bytes.Repeat([]byte(" "), 2<<20)...)
	}
	w.Write(body)
}

func (f *fakeRegistry) request(i int) *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i]
}

func (f *fakeRegistry) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		out = append(out, r.URL.Path)
	}
	return out
}

// quickOptions are crawl options for tests: no real waiting.
func quickOptions(base string) *CrawlOptions {
	return &CrawlOptions{
		BaseURL:       base,
		Backoff:       func(int) time.Duration { return time.Millisecond },
		MaxRetryAfter: 5 * time.Millisecond,
		MaxRetries:    3,
	}
}

func ids(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID()
	}
	return out
}

func TestCrawlFaults(t *testing.T) {
	_, all := loadServers(t)
	allIDs := ids(all)
	tests := []struct {
		name        string
		v01NotFound bool
		faults      map[int][]fault
		always      map[int]fault
		opts        func(*CrawlOptions)
		// wantEntries is how many entries (a prefix of servers.json) the
		// crawl returns.
		wantEntries int
		// serve limits the fake to the first entries of servers.json, to
		// keep the suite quick under -race; 0 serves all.
		serve       int
		wantErr     string
		wantIs      error
		wantRetries int
		// wantWait is the wait of each retry: the backoff (1ms) unless the
		// registry sent Retry-After, which is capped (5ms).
		wantWait time.Duration
		// retriesAtLeast makes wantRetries a minimum.
		retriesAtLeast bool
		wantAPI        string
		wantDups       int
	}{
		{name: "clean crawl", wantEntries: len(all), wantAPI: "v0.1"},
		{name: "500 twice", faults: map[int][]fault{3: {{kind: "500"}, {kind: "500"}}},
			serve: 1000, wantEntries: 1000, wantRetries: 2, wantAPI: "v0.1"},
		{name: "429 with Retry-After seconds", faults: map[int][]fault{0: {{kind: "429", retryAfter: "120"}}},
			serve: 1000, wantEntries: 1000, wantRetries: 1, wantWait: 5 * time.Millisecond, wantAPI: "v0.1"},
		{name: "429 with Retry-After date", faults: map[int][]fault{5: {{kind: "429", retryAfter: time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}}},
			serve: 1000, wantEntries: 1000, wantRetries: 1, wantWait: 5 * time.Millisecond, wantAPI: "v0.1"},
		{name: "429 without Retry-After", faults: map[int][]fault{1: {{kind: "429"}}},
			serve: 300, wantEntries: 300, wantRetries: 1, wantAPI: "v0.1"},
		{name: "body shorter than Content-Length", faults: map[int][]fault{2: {{kind: "truncate"}}},
			serve: 1000, wantEntries: 1000, wantRetries: 1, wantAPI: "v0.1"},
		{name: "JSON cut short on the last page", faults: map[int][]fault{27: {{kind: "cutjson"}, {kind: "cutjson"}}},
			wantEntries: len(all), wantRetries: 2, wantAPI: "v0.1"},
		{name: "empty page with a cursor", faults: map[int][]fault{4: {{kind: "empty"}}},
			serve: 1000, wantEntries: 1000, wantAPI: "v0.1"},
		{name: "v0.1 answers 404", v01NotFound: true, wantEntries: len(all), wantAPI: "v0"},
		{name: "overlapping pages", faults: map[int][]fault{6: {{kind: "overlap"}}, 7: {{kind: "overlap"}}},
			serve: 1000, wantEntries: 1000, wantAPI: "v0.1", wantDups: 20},
		// Under load (-race, parallel tests) other pages may time out too,
		// so this case asks for at least one retry.
		{name: "hung request times out and is retried", faults: map[int][]fault{1: {{kind: "hang"}}},
			opts:  func(o *CrawlOptions) { o.RequestTimeout = time.Second },
			serve: 1000, wantEntries: 1000, wantRetries: 1, retriesAtLeast: true, wantAPI: "v0.1"},
		{name: "500 on every attempt", always: map[int]fault{7: {kind: "500"}},
			wantEntries: 700, wantRetries: 3,
			wantErr: `registry: page 8 (cursor "` + fakeCursor(700, "") + `"): GET URL/v0.1/servers: 500 Internal Server Error: boom (gave up after 4 attempts)`},
		{name: "truncated on every attempt", always: map[int]fault{2: {kind: "cutjson"}},
			wantEntries: 200, wantRetries: 3,
			wantErr: `registry: page 3 (cursor "` + fakeCursor(200, "") + `"): decoding response: unexpected EOF (gave up after 4 attempts)`},
		{name: "malformed JSON is not retried", always: map[int]fault{4: {kind: "garbage"}},
			wantEntries: 400,
			wantErr:     `registry: page 5 (cursor "` + fakeCursor(400, "") + `"): decoding response: invalid character '}' looking for beginning of value`},
		{name: "400 is not retried", always: map[int]fault{1: {kind: "400"}},
			wantEntries: 100,
			wantErr:     `registry: page 2 (cursor "` + fakeCursor(100, "") + `"): GET URL/v0.1/servers: 400 Bad Request: {"error":"invalid cursor"}`},
		{name: "cursor loop", faults: map[int][]fault{5: {{kind: "loop"}}},
			wantEntries: 600, wantIs: ErrCursorLoop},
		{name: "oversized response", always: map[int]fault{3: {kind: "huge"}},
			opts:        func(o *CrawlOptions) { o.MaxResponseBytes = 1 << 20 },
			wantEntries: 300, wantIs: ErrResponseTooLarge},
		{name: "page cap", opts: func(o *CrawlOptions) { o.MaxPages = 3 },
			wantEntries: 300, wantIs: ErrPageLimit},
		{name: "no retries allowed", faults: map[int][]fault{0: {{kind: "500"}}},
			opts:        func(o *CrawlOptions) { o.MaxRetries = -1 },
			wantEntries: 0, wantErr: `registry: page 1: GET URL/v0.1/servers: 500 Internal Server Error: boom`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, srv := newFakeRegistry(t)
			f.v01NotFound = tt.v01NotFound
			if tt.serve > 0 {
				f.entries = f.entries[:tt.serve]
			}
			maps.Copy(f.faults, tt.faults)
			maps.Copy(f.always, tt.always)
			opts := quickOptions(srv.URL)
			if tt.opts != nil {
				tt.opts(opts)
			}
			var retries []RetryInfo
			opts.OnRetry = func(r RetryInfo) { retries = append(retries, r) }
			apis := map[string]bool{}
			dups := 0
			opts.OnPage = func(p PageInfo) { apis[p.APIVersion] = true; dups += p.Duplicates }

			got, err := Fetch(context.Background(), opts)

			if diff := cmp.Diff(allIDs[:tt.wantEntries], ids(got)); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			switch {
			case tt.wantErr == "" && tt.wantIs == nil:
				if err != nil {
					t.Fatalf("Fetch: %v", err)
				}
			case err == nil:
				t.Fatalf("Fetch succeeded, want an error")
			case tt.wantErr != "":
				want := strings.ReplaceAll(tt.wantErr, "URL", srv.URL)
				if err.Error() != want {
					t.Errorf("error:\n got %s\nwant %s", err, want)
				}
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
			var pe *PageError
			if err != nil && !errors.As(err, &pe) {
				t.Errorf("error %T is not a *PageError", err)
			}
			if len(retries) != tt.wantRetries && !(tt.retriesAtLeast && len(retries) > tt.wantRetries) {
				t.Errorf("%d retries, want %d: %+v", len(retries), tt.wantRetries, retries)
			}
			wantWait := tt.wantWait
			if wantWait == 0 {
				wantWait = time.Millisecond
			}
			for _, r := range retries {
				if r.Wait != wantWait {
					t.Errorf("retry of page %d waited %v, want %v", r.Page, r.Wait, wantWait)
				}
			}
			if tt.wantAPI != "" {
				if diff := cmp.Diff(map[string]bool{tt.wantAPI: true}, apis); diff != "" {
					t.Errorf("API versions used (-want +got):\n%s", diff)
				}
			}
			if dups != tt.wantDups {
				t.Errorf("%d duplicates reported, want %d", dups, tt.wantDups)
			}
		})
	}
}

func TestCrawlRetryAfterIsHonoured(t *testing.T) {
	f, srv := newFakeRegistry(t)
	f.faults[0] = []fault{{kind: "429", retryAfter: "3"}, {kind: "500"}}
	opts := quickOptions(srv.URL)
	opts.MaxRetryAfter = time.Hour // large: the registry's 3s is used as is
	opts.Backoff = func(attempt int) time.Duration { return time.Duration(attempt) * time.Microsecond }
	var waits []time.Duration
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Stop during the 3s wait: what matters is the wait asked for.
	opts.OnRetry = func(r RetryInfo) {
		waits = append(waits, r.Wait)
		var se *StatusError
		if !errors.As(r.Err, &se) || se.StatusCode != http.StatusTooManyRequests {
			t.Errorf("retry error %v, want a 429 StatusError", r.Err)
		}
		cancel()
	}
	_, err := Fetch(ctx, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Fetch: %v, want context.Canceled", err)
	}
	if diff := cmp.Diff([]time.Duration{3 * time.Second}, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestCrawlQueryAndResume(t *testing.T) {
	f, srv := newFakeRegistry(t)
	f.always[9] = fault{kind: "500"}
	opts := quickOptions(srv.URL + "/")
	opts.Search = "github"
	opts.Version = "latest"
	opts.UpdatedSince = time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC)
	opts.Limit = 50
	first, err := Fetch(context.Background(), opts)
	var pe *PageError
	if !errors.As(err, &pe) {
		t.Fatalf("Fetch: %v, want a *PageError", err)
	}
	if pe.Page != 10 || len(first) != 450 {
		t.Fatalf("stopped at page %d with %d entries, want page 10 with 450", pe.Page, len(first))
	}
	req0 := f.request(0)
	q := req0.URL.Query()
	wantQuery := map[string]string{"limit": "50", "search": "github", "version": "latest", "updated_since": "2025-10-01T12:00:00Z"}
	for k, v := range wantQuery {
		if got := q.Get(k); got != v {
			t.Errorf("query %s = %q, want %q", k, got, v)
		}
	}
	if q.Has("cursor") {
		t.Errorf("first request has a cursor: %s", req0.URL)
	}
	if got := req0.Header.Get("User-Agent"); got != "mcpvet" {
		t.Errorf("User-Agent = %q", got)
	}

	// Resume from the failing page once the registry recovers.
	f.mu.Lock()
	delete(f.always, 9)
	f.mu.Unlock()
	opts.Cursor = pe.Cursor
	rest, err := Fetch(context.Background(), opts)
	if err != nil {
		t.Fatalf("resumed Fetch: %v", err)
	}
	_, all := loadServers(t)
	if diff := cmp.Diff(ids(all), ids(append(first, rest...))); diff != "" {
		t.Errorf("first crawl + resumed crawl (-want +got):\n%s", diff)
	}
}

func TestCrawlStopsWhenTheLoopBreaks(t *testing.T) {
	f, srv := newFakeRegistry(t)
	n := 0
	for _, err := range Crawl(context.Background(), quickOptions(srv.URL)) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 5 {
			break
		}
	}
	if got := len(f.paths()); got != 1 {
		t.Errorf("%d requests after breaking out of the first page, want 1", got)
	}
}

func TestCrawlBadBaseURL(t *testing.T) {
	for _, base := range []string{"ftp://example.com", "registry.example.com", "http://"} {
		_, err := Fetch(context.Background(), &CrawlOptions{BaseURL: base})
		want := fmt.Sprintf("registry: base URL %q: want an http or https URL", base)
		if err == nil || err.Error() != want {
			t.Errorf("base %q: error %v, want %s", base, err, want)
		}
	}
}

func TestCrawlCancelledMidway(t *testing.T) {
	_, srv := newFakeRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := quickOptions(srv.URL)
	opts.OnPage = func(p PageInfo) {
		if p.Page == 2 {
			cancel()
		}
	}
	got, err := Fetch(ctx, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Fetch: %v, want context.Canceled", err)
	}
	if len(got) != 200 {
		t.Errorf("got %d entries, want the 200 of the two pages fetched", len(got))
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 12, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-5", 0},
		{"7", 7 * time.Second},
		{" 12 ", 12 * time.Second},
		{"99999999999", 24 * time.Hour},
		{"Mon, 01 Dec 2025 10:00:30 GMT", 30 * time.Second},
		{"Monday, 01-Dec-25 10:01:00 GMT", time.Minute},
		{"Mon, 01 Dec 2025 09:00:00 GMT", 0},
		{"soon", 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestDefaultBackoff(t *testing.T) {
	prev := time.Duration(0)
	for attempt := 1; attempt <= 12; attempt++ {
		d := defaultBackoff(attempt)
		base := min(500*time.Millisecond<<(attempt-1), 30*time.Second)
		if d < base || d > base+base/4 {
			t.Errorf("defaultBackoff(%d) = %v, want within [%v, %v]", attempt, d, base, base+base/4)
		}
		if base < prev {
			t.Errorf("backoff base shrank at attempt %d", attempt)
		}
		prev = base
	}
}
