package sandbox

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

// TestStderrWatchAcrossReads: a canary split over two reads of stderr, or
// written hex-encoded, is found; the value is never kept.
func TestStderrWatchAcrossReads(t *testing.T) {
	const v = "mcpvet-canary-0123456789abcdef"
	w := newStderrWatch(map[string]string{"API_KEY": v, "OTHER": "mcpvet-canary-fedcba9876543210"})
	w.Write([]byte(strings.Repeat("noise ", 5000) + "key=" + v[:11]))
	w.Write([]byte(v[11:] + "\n"))
	w.Write([]byte("id " + hex.EncodeToString([]byte("mcpvet-canary-fedcba9876543210")) + "\n"))
	if got, want := w.names(), []string{"API_KEY", "OTHER (hex)"}; !slices.Equal(got, want) {
		t.Errorf("names = %q, want %q", got, want)
	}
	if len(w.carry) >= len(hex.EncodeToString([]byte(v))) {
		t.Errorf("carry holds %d bytes, more than the longest needle", len(w.carry))
	}
}
