package sandbox

import "sync"

// stderrTailBytes is how much of the end of stderr [Info.StderrTail] keeps.
const stderrTailBytes = 4 << 10

// A tailBuffer keeps the last cap bytes written to it among the first max
// bytes, and counts everything. It is safe for concurrent use.
type tailBuffer struct {
	mu    sync.Mutex
	buf   []byte // ring of len cap once full
	start int    // index of the oldest byte when full
	cap   int
	max   int64 // bytes after this many are counted but dropped
	total int64
}

func newTailBuffer(capacity int, max int64) *tailBuffer {
	return &tailBuffer{cap: capacity, max: max}
}

// Write implements io.Writer; it never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if t.max >= 0 {
		room := max(t.max-t.total, 0)
		if int64(len(p)) > room {
			p = p[:room]
		}
	}
	t.total += int64(n)
	if len(p) >= t.cap {
		t.buf = append(t.buf[:0], p[len(p)-t.cap:]...)
		t.start = 0
		return n, nil
	}
	for _, b := range p {
		if len(t.buf) < t.cap {
			t.buf = append(t.buf, b)
			continue
		}
		t.buf[t.start] = b
		t.start = (t.start + 1) % t.cap
	}
	return n, nil
}

// String returns the kept tail in order.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) < t.cap {
		return string(t.buf)
	}
	return string(t.buf[t.start:]) + string(t.buf[:t.start])
}

// Dropped reports how many bytes were counted but not kept because they
// came after the first max bytes.
func (t *tailBuffer) Dropped() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.max < 0 || t.total <= t.max {
		return 0
	}
	return t.total - t.max
}
