package scoring

import (
	"strings"
	"testing"
)

func TestASCIILower(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC", "Hello, World! 123 @[`{ ZZ AA", "ÄÖÜ Straße MIXED ascii", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ@[\x7f\x80\xff"} {
		want := []byte(s)
		for i, c := range want {
			if c >= 'A' && c <= 'Z' {
				want[i] = c + 'a' - 'A'
			}
		}
		if got := asciiLower(s); got != string(want) {
			t.Errorf("asciiLower(%q) = %q, want %q", s, got, want)
		}
	}
	for c := range 256 {
		s := strings.Repeat(string([]byte{byte(c)}), 17)
		want := s
		if c >= 'A' && c <= 'Z' {
			want = strings.Repeat(string([]byte{byte(c + 32)}), 17)
		}
		if got := asciiLower("A" + s); got != "a"+want {
			t.Errorf("byte %#x: got %q, want %q", c, got, "a"+want)
		}
	}
}
