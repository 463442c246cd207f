package safe

import "testing"

func TestTruncate(t *testing.T) {
	tests := []struct {
		name, s string
		n       int
		mark    string
		want    string
	}{
		{"fits", "hello", 5, Ellipsis, "hello"},
		{"cut, marked", "hello", 4, Ellipsis, "hell…"},
		{"cut, unmarked", "hello", 4, "", "hell"},
		{"zero", "hello", 0, Ellipsis, "…"},
		{"empty", "", 0, Ellipsis, ""},
		{"inside a rune backs up", "aé", 2, Ellipsis, "a…"},
		{"after a rune", "aéb", 3, Ellipsis, "aé…"},
		{"inside a 4-byte rune", "x😀y", 3, "", "x"},
		{"invalid UTF-8 kept", "a\xffbc", 2, Ellipsis, "a\xff…"},
		{"only continuation bytes", "\x80\x80\x80", 2, Ellipsis, "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Truncate(tt.s, tt.n, tt.mark); got != tt.want {
				t.Errorf("Truncate(%q, %d, %q) = %q, want %q", tt.s, tt.n, tt.mark, got, tt.want)
			}
		})
	}
}
