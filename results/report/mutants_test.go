package report

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/results"
)

// cancelOnWrite cancels a context at its first write: the report is cut
// off while rows remain.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.cancel()
	return c.Buffer.Write(p)
}

// TestCSVStopsWhenCancelled: the CSV writer checks its context before the
// first row and every 1,024 rows after, so a cancelled report stops with
// the context's error, whether it was cancelled before the first row or
// while rows were written. (Issue 26: gremlins' csv.go:32 mutants, which
// checked only from the second row or only at the first, lived.)
func TestCSVStopsWhenCancelled(t *testing.T) {
	t.Run("cancelled before one row", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := &results.Report{Rows: make([]results.ServerRow, 1)}
		if err := (CSVReporter{}).Write(ctx, &bytes.Buffer{}, r); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("cancelled while writing", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := &cancelOnWrite{cancel: cancel}
		r := &results.Report{Rows: make([]results.ServerRow, 3000)}
		err := (CSVReporter{}).Write(ctx, w, r)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if n := strings.Count(w.String(), "\n"); n > 2049 {
			t.Errorf("%d lines written after the cancel, want the writer stopped at the next check", n)
		}
	})
}

// TestDiffTextCountsEveryChange: "no changes" is said only when nothing
// changed, was added or was removed; one server added and one removed are
// two changes, not none. (Issue 26: the mutants that subtracted one count
// from the others lived.)
func TestDiffTextCountsEveryChange(t *testing.T) {
	for name, d := range map[string]*results.Diff{
		"one added, one removed": {Added: []results.DiffServer{{Key: "a", Name: "a"}}, Removed: []results.DiffServer{{Key: "b", Name: "b"}}},
		"one changed, one added": {Changed: []results.DiffServerChanges{{}}, Added: []results.DiffServer{{Key: "a", Name: "a"}}},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteDiff(&b, d, "text"); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.String(), "no changes") {
				t.Errorf("diff with changes says 'no changes':\n%s", b.String())
			}
		})
	}
	var b bytes.Buffer
	if err := WriteDiff(&b, &results.Diff{}, "text"); err != nil || !strings.Contains(b.String(), "no changes") {
		t.Errorf("empty diff: err %v, text lacks 'no changes':\n%s", err, b.String())
	}
}
