package sandbox

import (
	"strings"
	"testing"
)

// TestAddNoise pins the stdout noise kept for Info.StdoutNoise: lines
// joined by newlines, cut at exactly stdoutNoiseBytes, nothing added once
// full.
func TestAddNoise(t *testing.T) {
	a, b := strings.Repeat("a", 300), strings.Repeat("b", 300)
	s := &Server{}
	s.addNoise([]byte(a))
	if got := string(s.noise); got != a {
		t.Fatalf("noise after one line = %d bytes, want the line alone", len(got))
	}
	s.addNoise([]byte(b))
	want := a + "\n" + b[:stdoutNoiseBytes-301]
	if got := string(s.noise); got != want || len(got) != stdoutNoiseBytes {
		t.Fatalf("noise after two lines = %d bytes %q..., want exactly %d: the first, a newline, the second cut", len(got), got[len(got)-5:], stdoutNoiseBytes)
	}
	s.addNoise([]byte("c"))
	if got := string(s.noise); got != want {
		t.Errorf("noise grew past the cap: %d bytes", len(got))
	}

	// One byte of room left: the newline takes it, nothing of the line fits.
	s = &Server{noise: []byte(strings.Repeat("x", stdoutNoiseBytes-1))}
	s.addNoise([]byte("yz"))
	if got := string(s.noise); got != strings.Repeat("x", stdoutNoiseBytes-1)+"\n" {
		t.Errorf("noise with one byte of room = %q, want the newline only", got[stdoutNoiseBytes-3:])
	}
}
