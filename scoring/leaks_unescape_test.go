package scoring

import "testing"

// TestUnescapeEdges: the lenient decoders of the canary search read a
// server's text to its last byte and never past it: a backslash or a '%'
// at the end, a \u escape or %XX that ends the text, a cut-off one, and
// every hex digit at the ends of its ranges (leaks.go unescapeJSON's
// `i+1 >= len(s)` and `i+6 <= len(s)`, unescapePercent's `i+2 < len(s)`,
// isHex's six bounds).
func TestUnescapeEdges(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		changed  bool
	}{
		{`abc\`, `abc\`, false},
		{`x\u0041`, "xA", true},
		{`x\u004`, `x\u004`, false},
		{`x\u12`, `x\u12`, false},
		{`a\"b\/c`, `a"b/c`, true},
		{`\n`, "\n", true},
	} {
		if got, changed := unescapeJSON(tt.in); got != tt.want || changed != tt.changed {
			t.Errorf("unescapeJSON(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
		}
	}
	for _, tt := range []struct {
		in, want string
		changed  bool
	}{
		{"a%4", "a%4", false},
		{"a%", "a%", false},
		{"a%41", "aA", true},
		{"%30%39%61%66%41%46", "09afAF", true},
		{"%2F%2f", "//", true},
		{"%0a%0f%0A%0F%a0%F0", "\n\x0f\n\x0f\xa0\xf0", true},
		{"%/0%:0%`0%g0%@0%G0", "%/0%:0%`0%g0%@0%G0", false},
		{"%0/%0:%0`%0g%0@%0G", "%0/%0:%0`%0g%0@%0G", false},
	} {
		if got, changed := unescapePercent(tt.in); got != tt.want || changed != tt.changed {
			t.Errorf("unescapePercent(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
		}
	}
}
