package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultBaseURL is the official MCP Registry.
const DefaultBaseURL = "https://registry.modelcontextprotocol.io"

// Defaults of [CrawlOptions].
const (
	DefaultPageLimit        = 100
	DefaultMaxPages         = 500
	DefaultPageTimeout      = 2 * time.Minute
	DefaultMaxCrawlTime     = 30 * time.Minute
	DefaultMaxCrawlBytes    = 512 << 20
	DefaultMaxRetries       = 5
	DefaultRequestTimeout   = 30 * time.Second
	DefaultMaxResponseBytes = 16 << 20
	DefaultMaxRetryAfter    = 2 * time.Minute
)

// Errors a crawl can end with, inside a [*PageError].
var (
	// ErrCursorLoop: the registry handed out a cursor it had handed out before.
	ErrCursorLoop = errors.New("cursor loop")
	// ErrPageLimit: the crawl reached CrawlOptions.MaxPages with pages left.
	ErrPageLimit = errors.New("page limit reached")
	// ErrResponseTooLarge: a response exceeded CrawlOptions.MaxResponseBytes.
	ErrResponseTooLarge = errors.New("response too large")
	// ErrCrawlBudget: a page took longer than CrawlOptions.PageTimeout
	// (retries included), or the crawl longer than MaxCrawlTime or more
	// bytes than MaxCrawlBytes (issue 22 item 11: a registry dribbling a
	// byte every 0.5 s held a scan for 137 s).
	ErrCrawlBudget = errors.New("registry crawl budget exceeded")
)

// CrawlOptions configure [Crawl] and [Fetch]. The zero value crawls every
// version of every server in the official registry.
type CrawlOptions struct {
	// BaseURL is the registry, DefaultBaseURL when empty. A path prefix is
	// kept: https://host/mirror reads https://host/mirror/v0.1/servers.
	BaseURL string
	// HTTPClient sends the requests; a plain client when nil.
	HTTPClient *http.Client
	// UserAgent is sent with each request; "mcpvet" when empty.
	UserAgent string

	// Limit is the page size asked for (the "limit" parameter),
	// DefaultPageLimit when 0.
	Limit int
	// Search filters servers by name substring ("search").
	Search string
	// UpdatedSince keeps servers updated since then ("updated_since").
	UpdatedSince time.Time
	// Version filters versions ("version"): "latest" asks for the latest
	// version of each server only.
	Version string
	// Cursor starts the crawl from a cursor a previous crawl stopped at
	// (see [PageError.Cursor]).
	Cursor string

	// MaxPages caps the pages fetched, DefaultMaxPages when 0.
	MaxPages int
	// MaxRetries is how often one page is retried after a transient failure
	// (5xx, 429, a network error, a timeout, a truncated body),
	// DefaultMaxRetries when 0; negative means never.
	MaxRetries int
	// RequestTimeout bounds each attempt, reading the body included,
	// DefaultRequestTimeout when 0.
	RequestTimeout time.Duration
	// MaxResponseBytes caps one response body, DefaultMaxResponseBytes when 0.
	MaxResponseBytes int64
	// PageTimeout bounds one page, every retry and wait included,
	// DefaultPageTimeout when 0.
	PageTimeout time.Duration
	// MaxCrawlTime bounds the whole crawl, DefaultMaxCrawlTime when 0.
	MaxCrawlTime time.Duration
	// MaxCrawlBytes bounds the bytes read over the whole crawl,
	// DefaultMaxCrawlBytes when 0.
	MaxCrawlBytes int64
	// Backoff returns the wait before retry number attempt (1, 2, ...) when
	// the registry did not send Retry-After. Nil means exponential from
	// 500ms, doubling to at most 30s, with jitter.
	Backoff func(attempt int) time.Duration
	// MaxRetryAfter caps a wait asked for by Retry-After,
	// DefaultMaxRetryAfter when 0.
	MaxRetryAfter time.Duration

	// OnPage, when set, is called after each page is decoded, before its
	// entries are yielded.
	OnPage func(PageInfo)
	// OnRetry, when set, is called before each wait for a retry.
	OnRetry func(RetryInfo)
}

// PageInfo describes one fetched page.
type PageInfo struct {
	// Page counts from 1.
	Page int
	// Cursor is the cursor the page was asked for with ("" for the first).
	Cursor string
	// NextCursor is the cursor of the next page, "" at the end.
	NextCursor string
	// Entries is the number of entries in the page; Duplicates of them had
	// been seen on an earlier page and are not yielded again.
	Entries    int
	Duplicates int
	// APIVersion is the path prefix that answered: "v0.1" or "v0".
	APIVersion string
}

// RetryInfo describes a retry about to happen.
type RetryInfo struct {
	Page   int
	Cursor string
	// Attempt is the attempt that failed, from 1.
	Attempt int
	// Wait is how long the crawl sleeps before the next attempt.
	Wait time.Duration
	// Err is why the attempt failed.
	Err error
	// MaxAttempts is how many attempts the page gets in all.
	MaxAttempts int
}

// String is one readable line: which attempt failed, why, and the wait.
func (r RetryInfo) String() string {
	of := ""
	if r.MaxAttempts > 0 {
		of = fmt.Sprintf(" of %d", r.MaxAttempts)
	}
	cause := "unknown error"
	if r.Err != nil {
		cause = r.Err.Error()
	}
	return fmt.Sprintf("page %d: attempt %d%s failed (%s); retrying in %s", r.Page, r.Attempt, of, cause, r.Wait.Round(time.Millisecond))
}

// A PageError is how a crawl ends early: which page failed and why. The
// entries of earlier pages have been yielded already; a new crawl can resume
// with CrawlOptions.Cursor set to Cursor.
type PageError struct {
	// Page counts from 1.
	Page int
	// Cursor is the cursor of the failing page ("" for the first page).
	Cursor string
	// Attempts is the number of requests made for the page.
	Attempts int
	Err      error
}

func (e *PageError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "registry: page %d", e.Page)
	if e.Cursor != "" {
		fmt.Fprintf(&b, " (cursor %q)", excerpt([]byte(e.Cursor), 80))
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (gave up after %d attempts)", e.Attempts)
	}
	return b.String()
}

func (e *PageError) Unwrap() error { return e.Err }

// A StatusError is a registry answer with an unexpected HTTP status.
type StatusError struct {
	Method string
	// URL is the request URL without its query.
	URL        string
	StatusCode int
	Status     string
	// Body is the start of the response body, on one line.
	Body string
	// RetryAfter is the wait the registry asked for, 0 when none.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("%s %s: %s", e.Method, e.URL, e.Status)
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// Fetch crawls like [Crawl] and returns the entries. On failure it returns
// the entries fetched before the failing page together with the error.
func Fetch(ctx context.Context, opts *CrawlOptions) ([]Entry, error) {
	var entries []Entry
	for e, err := range Crawl(ctx, opts) {
		if err != nil {
			return entries, err
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// Crawl returns an iterator over the registry's entries, page by page, in the
// registry's order. Each entry (by name and version) is yielded once even if
// pages overlap. A failure yields one non-nil error, a [*PageError] or the
// context's error, and ends the sequence; entries yielded before it stay
// valid.
//
// Transient failures (5xx, 429, network errors, timeouts, truncated bodies)
// are retried with backoff, honouring Retry-After; other statuses, a
// malformed body, an oversized body, a cursor the registry handed out twice,
// or reaching MaxPages end the crawl. When /v0.1/servers answers 404 on the
// first page, the crawl switches to /v0/servers.
//
// The iterator is single-use per range loop; each loop starts a new crawl.
func Crawl(ctx context.Context, opts *CrawlOptions) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		c, err := newCrawler(opts)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		c.run(ctx, yield)
	}
}

type crawler struct {
	opts       CrawlOptions
	base       *url.URL
	client     *http.Client
	apiVersion string
	bytesRead  int64
	start      time.Time
}

func newCrawler(opts *CrawlOptions) (*crawler, error) {
	c := &crawler{apiVersion: "v0.1"}
	if opts != nil {
		c.opts = *opts
	}
	o := &c.opts
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("registry: base URL %q: want an http or https URL", o.BaseURL)
	}
	u.RawQuery, u.Fragment = "", ""
	c.base = u
	if o.Limit <= 0 {
		o.Limit = DefaultPageLimit
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	switch {
	case o.MaxRetries == 0:
		o.MaxRetries = DefaultMaxRetries
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if o.PageTimeout <= 0 {
		o.PageTimeout = DefaultPageTimeout
	}
	if o.MaxCrawlTime <= 0 {
		o.MaxCrawlTime = DefaultMaxCrawlTime
	}
	if o.MaxCrawlBytes <= 0 {
		o.MaxCrawlBytes = DefaultMaxCrawlBytes
	}
	if o.Backoff == nil {
		o.Backoff = defaultBackoff
	}
	if o.UserAgent == "" {
		o.UserAgent = "mcpvet"
	}
	c.client = o.HTTPClient
	if c.client == nil {
		c.client = &http.Client{}
	}
	return c, nil
}

// defaultBackoff waits 500ms, 1s, 2s, ... up to 30s, each plus up to 25%
// jitter so that parallel crawlers do not retry in lockstep.
func defaultBackoff(attempt int) time.Duration {
	d := 500 * time.Millisecond
	for i := 1; i < attempt && d < 30*time.Second; i++ {
		d *= 2
	}
	d = min(d, 30*time.Second)
	return d + rand.N(d/4+1)
}

func (c *crawler) run(ctx context.Context, yield func(Entry, error) bool) {
	c.start = time.Now()
	crawlCtx, cancel := context.WithTimeoutCause(ctx, c.opts.MaxCrawlTime,
		fmt.Errorf("%w: the crawl took longer than %s; raise --registry-timeout or resume from the cursor", ErrCrawlBudget, c.opts.MaxCrawlTime))
	defer cancel()
	outer := ctx
	ctx = crawlCtx
	seenCursors := map[string]bool{}
	seenEntries := map[string]bool{}
	cursor := c.opts.Cursor
	for page := 1; ; page++ {
		seenCursors[cursor] = true
		resp, attempts, err := c.fetchPage(ctx, page, cursor)
		if err != nil {
			if outer.Err() == nil && context.Cause(ctx) != nil && errors.Is(context.Cause(ctx), ErrCrawlBudget) {
				err = context.Cause(ctx)
			}
			yield(Entry{}, &PageError{Page: page, Cursor: cursor, Attempts: attempts, Err: err})
			return
		}
		next := resp.next
		info := PageInfo{Page: page, Cursor: cursor, NextCursor: next, Entries: len(resp.entries), APIVersion: c.apiVersion}
		fresh := resp.entries[:0]
		for _, e := range resp.entries {
			id := e.ID()
			if seenEntries[id] {
				info.Duplicates++
				continue
			}
			seenEntries[id] = true
			fresh = append(fresh, e)
		}
		if c.opts.OnPage != nil {
			c.opts.OnPage(info)
		}
		for _, e := range fresh {
			if !yield(e, nil) {
				return
			}
		}
		if next == "" {
			return
		}
		if seenCursors[next] {
			yield(Entry{}, &PageError{Page: page, Cursor: cursor, Attempts: 1,
				Err: fmt.Errorf("%w: next cursor %q was handed out before", ErrCursorLoop, excerpt([]byte(next), 80))})
			return
		}
		if page >= c.opts.MaxPages {
			yield(Entry{}, &PageError{Page: page + 1, Cursor: next, Attempts: 0,
				Err: fmt.Errorf("%w: %d pages fetched and more are left; raise the page cap or resume from this cursor", ErrPageLimit, page)})
			return
		}
		cursor = next
	}
}

type pageResult struct {
	entries []Entry
	next    string
}

// transientError marks a failure worth retrying.
type transientError struct {
	err        error
	retryAfter time.Duration
}

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// fetchPage gets one page, retrying transient failures. It returns the
// number of attempts made.
func (c *crawler) fetchPage(ctx context.Context, page int, cursor string) (pageResult, int, error) {
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, c.opts.PageTimeout,
		fmt.Errorf("%w: page %d took longer than %s, retries included; raise --registry-page-timeout", ErrCrawlBudget, page, c.opts.PageTimeout))
	defer cancel()
	attempt := 0
	for {
		attempt++
		res, err := c.getPage(ctx, cursor)
		if err == nil {
			return res, attempt, nil
		}
		if errors.Is(err, ErrCrawlBudget) {
			return pageResult{}, attempt, err
		}
		if ctx.Err() != nil {
			if parent.Err() == nil {
				return pageResult{}, attempt, context.Cause(ctx)
			}
			return pageResult{}, attempt, parent.Err()
		}
		var se *StatusError
		if page == 1 && c.apiVersion == "v0.1" && errors.As(err, &se) && se.StatusCode == http.StatusNotFound {
			// The registry predates /v0.1: use /v0, for this and later pages.
			c.apiVersion = "v0"
			attempt--
			continue
		}
		var te *transientError
		if !errors.As(err, &te) || attempt > c.opts.MaxRetries {
			return pageResult{}, attempt, unwrapTransient(err)
		}
		wait := c.opts.Backoff(attempt)
		if te.retryAfter > 0 {
			wait = min(te.retryAfter, c.opts.MaxRetryAfter)
		}
		if c.opts.OnRetry != nil {
			c.opts.OnRetry(RetryInfo{Page: page, Cursor: cursor, Attempt: attempt, Wait: wait, Err: te.err, MaxAttempts: c.opts.MaxRetries + 1})
		}
		if err := sleep(ctx, wait); err != nil {
			if parent.Err() == nil {
				err = context.Cause(ctx)
			}
			return pageResult{}, attempt, err
		}
	}
}

func unwrapTransient(err error) error {
	if te, ok := err.(*transientError); ok {
		return te.err
	}
	return err
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// pageURL builds the list URL for cursor.
func (c *crawler) pageURL(cursor string) *url.URL {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + c.apiVersion + "/servers"
	u.RawPath = ""
	q := url.Values{}
	q.Set("limit", strconv.Itoa(c.opts.Limit))
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if c.opts.Search != "" {
		q.Set("search", c.opts.Search)
	}
	if !c.opts.UpdatedSince.IsZero() {
		q.Set("updated_since", c.opts.UpdatedSince.UTC().Format(time.RFC3339Nano))
	}
	if c.opts.Version != "" {
		q.Set("version", c.opts.Version)
	}
	u.RawQuery = q.Encode()
	return &u
}

// getPage makes one attempt at one page.
func (c *crawler) getPage(ctx context.Context, cursor string) (pageResult, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	u := c.pageURL(cursor)
	shown := *u
	shown.RawQuery = ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return pageResult{}, fmt.Errorf("building request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.opts.UserAgent)
	resp, err := c.client.Do(req)
	if err != nil {
		// Network errors and the per-request timeout are transient; the
		// caller checks the parent context first.
		return pageResult{}, &transientError{err: fmt.Errorf("GET %s: %w", shown.String(), stripURLError(err))}
	}
	defer resp.Body.Close()

	body, readErr := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxResponseBytes+1))
	c.bytesRead += int64(len(body))
	if c.bytesRead > c.opts.MaxCrawlBytes {
		return pageResult{}, fmt.Errorf("%w: the crawl read more than %d bytes; raise --registry-max-bytes or resume from the cursor", ErrCrawlBudget, c.opts.MaxCrawlBytes)
	}
	if resp.StatusCode != http.StatusOK {
		se := &StatusError{Method: http.MethodGet, URL: shown.String(), StatusCode: resp.StatusCode,
			Status: resp.Status, Body: excerpt(bytes.TrimSpace(body), 200)}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			se.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
			return pageResult{}, &transientError{err: se, retryAfter: se.RetryAfter}
		}
		return pageResult{}, se
	}
	if int64(len(body)) > c.opts.MaxResponseBytes {
		return pageResult{}, fmt.Errorf("reading response: %w: more than %d bytes", ErrResponseTooLarge, c.opts.MaxResponseBytes)
	}
	if readErr != nil {
		// A body cut short (connection reset, Content-Length not reached,
		// timeout while reading) is a transient fault.
		return pageResult{}, &transientError{err: fmt.Errorf("reading response: %w", readErr)}
	}
	res, err := decodePage(body)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return pageResult{}, &transientError{err: fmt.Errorf("decoding response: %w", err)}
		}
		return pageResult{}, fmt.Errorf("decoding response: %w", err)
	}
	return res, nil
}

// stripURLError drops the *url.Error wrapper, whose message repeats the URL
// with its query.
func stripURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// decodePage decodes a ServerList response. A body cut short yields an error
// wrapping io.ErrUnexpectedEOF.
func decodePage(body []byte) (pageResult, error) {
	var list struct {
		Servers  []json.RawMessage `json:"servers"`
		Metadata struct {
			NextCursor *string `json:"nextCursor"`
			Count      *int    `json:"count"`
		} `json:"metadata"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&list); err != nil {
		if err == io.EOF {
			return pageResult{}, fmt.Errorf("empty body: %w", io.ErrUnexpectedEOF)
		}
		return pageResult{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return pageResult{}, errors.New("data after the JSON object")
	}
	if list.Servers == nil {
		var members map[string]json.RawMessage
		_ = json.Unmarshal(body, &members)
		if _, ok := members["servers"]; !ok {
			return pageResult{}, errors.New(`no "servers" array in the response`)
		}
	}
	var res pageResult
	if list.Metadata.NextCursor != nil {
		res.next = *list.Metadata.NextCursor
	}
	res.entries = make([]Entry, 0, len(list.Servers))
	for i, raw := range list.Servers {
		e, err := decodeEntry(raw)
		if err != nil {
			return pageResult{}, fmt.Errorf("server %d%s: %w", i, nameHint(raw), err)
		}
		res.entries = append(res.entries, e)
	}
	return res, nil
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
// It returns 0 when the header is absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(24*time.Hour/time.Second) {
			return 24 * time.Hour
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
