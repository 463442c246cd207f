package probe

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckSortedAndDeterministic(t *testing.T) {
	pages := loadRecorded(t, "everything")
	res := resultFromPages(t, pages)
	first := NewChecker().Check(res, pages)
	if !sort.SliceIsSorted(first, func(i, j int) bool {
		a, b := first[i], first[j]
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Pointer < b.Pointer
	}) {
		t.Error("findings are not sorted by subject, code, pointer")
	}
	for i := range 5 {
		if diff := cmp.Diff(first, NewChecker().Check(res, pages)); diff != "" {
			t.Fatalf("run %d differs (-first +again):\n%s", i, diff)
		}
	}
	// Every finding is complete and its severity is the catalog's.
	for _, f := range first {
		e, ok := Lookup(f.Code)
		if !ok || e.Severity != f.Severity || f.Subject == "" || f.Message == "" {
			t.Errorf("malformed finding %+v", f)
		}
	}
}

func TestCheckNil(t *testing.T) {
	if got := NewChecker().Check(nil, nil); got != nil {
		t.Errorf("Check(nil) = %v", got)
	}
	if got := NewChecker().Check(&Result{}, nil); len(got) != 0 {
		t.Errorf("Check(empty) = %v", got)
	}
}

// TestCheckerCacheSharedAcrossServers checks that a schema seen on two
// servers (and twice on one) compiles once, whatever its key order.
func TestCheckerCacheSharedAcrossServers(t *testing.T) {
	c := NewChecker()
	a := &Result{Liveness: Liveness{ProtocolVersion: "2025-11-25"}, Tools: toolsFromJSON(t,
		`{"name":"a","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"Q."}}}}`,
		`{"name":"b","inputSchema":{"properties":{"q":{"description":"Q.","type":"string"}},"type":"object"}}`)}
	b := &Result{Liveness: Liveness{ProtocolVersion: "2025-11-25"}, Tools: toolsFromJSON(t,
		`{"name":"c","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"Q."}}}}`)}
	c.Check(a, nil)
	c.Check(b, nil)
	if entries, _, compiles := c.cacheStats(); entries != 1 || compiles != 1 {
		t.Errorf("cache has %d entries after %d compiles, want 1 and 1", entries, compiles)
	}
}

// TestCheckerCacheBounded checks that the cache evicts beyond its bounds
// and that evicted schemas still check the same.
func TestCheckerCacheBounded(t *testing.T) {
	c := newCheckerSize(8, 1<<20)
	var tools []string
	for i := range 50 {
		tools = append(tools, fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object","properties":{"p%d":{"type":"string","description":"P."}}}}`, i, i))
	}
	res := &Result{Liveness: Liveness{ProtocolVersion: "2025-11-25"}, Tools: toolsFromJSON(t, tools...)}
	first := c.Check(res, nil)
	if entries, _, _ := c.cacheStats(); entries != 8 {
		t.Errorf("cache has %d entries, want 8", entries)
	}
	if diff := cmp.Diff(first, c.Check(res, nil)); diff != "" {
		t.Errorf("second run differs (-first +second):\n%s", diff)
	}

	small := newCheckerSize(100, 200)
	small.Check(res, nil)
	if entries, bytes, _ := small.cacheStats(); bytes > 200 || entries > 100 {
		t.Errorf("cache holds %d entries, %d bytes; want at most 200 bytes", entries, bytes)
	}
}

// TestCheckerConcurrent runs checks of several servers at once; run with
// -race.
func TestCheckerConcurrent(t *testing.T) {
	c := NewChecker()
	type run struct {
		res   *Result
		pages []Page
		want  []Finding
	}
	var runs []run
	for _, name := range []string{"everything", "memory", "filesystem", "sequential-thinking"} {
		pages := loadRecorded(t, name)
		res := resultFromPages(t, pages)
		runs = append(runs, run{res, pages, NewChecker().Check(res, pages)})
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 16 {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := runs[i%len(runs)]
			if diff := cmp.Diff(r.want, c.Check(r.res, r.pages)); diff != "" {
				errs <- diff
			}
			for _, tl := range r.res.Tools {
				c.CheckStructuredOutput(tl, json.RawMessage(`{}`))
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent run differs:\n%s", e)
	}
}
