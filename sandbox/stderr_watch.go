package sandbox

import (
	"sort"
	"strings"
	"sync"

	"github.com/mcpvet/mcpvet/internal/canary"
)

// stderrWatch searches all of a server's stderr, as it streams, for the
// run's canaries in every form (see [canary.Needles]); [Info.StderrTail]
// keeps only the end. It remembers the variables found, never the values.
type stderrWatch struct {
	mu      sync.Mutex
	needles []canary.Needle
	finder  *canary.Finder // every other layer and normalised form
	longest int
	// canaries counts the canaries with needles: once each is found, the
	// finder's decoding of every later chunk is skipped.
	canaries int
	carry    []byte // the end of the previous chunk, for needles split across reads
	found    map[string]string
}

func newStderrWatch(canaries map[string]string) *stderrWatch {
	w := &stderrWatch{needles: canary.Needles(canaries), finder: canary.NewFinder(canaries), found: map[string]string{}}
	seen := map[string]bool{}
	for _, n := range w.needles {
		w.longest = max(w.longest, len(n.Text))
		if !seen[n.Name] {
			seen[n.Name] = true
			w.canaries++
		}
	}
	return w
}

// Write searches p (with the end of the previous chunk); it never fails.
func (w *stderrWatch) Write(p []byte) {
	if w == nil || len(w.needles) == 0 || len(p) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	window := string(append(w.carry, p...))
	for _, n := range w.needles {
		if _, ok := w.found[n.Name]; !ok && strings.Contains(window, n.Text) {
			w.found[n.Name] = n.Enc
		}
	}
	if len(w.found) < w.canaries {
		// Decoded layers (base32 of the secret, gzip, ...) and pieces:
		// a log line is usually written whole.
		for _, h := range append(w.finder.Find(window), w.finder.FindPieces(window)...) {
			if _, ok := w.found[h.Name]; !ok {
				w.found[h.Name] = h.Enc
			}
		}
	}
	keep := min(len(window), w.longest-1)
	w.carry = append(w.carry[:0], window[len(window)-keep:]...)
}

// names returns "NAME" or "NAME (enc)" for each canary seen, sorted.
func (w *stderrWatch) names() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.found))
	for name, enc := range w.found {
		if enc != "" {
			name += " (" + enc + ")"
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
