package safe

import "testing"

func TestTerminal(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello\tworld\n", "hello\tworld\n"},
		{"csi color", "\x1b[31mred\x1b[0m", "red"},
		{"clear screen", "a\x1b[2J\x1b[Hb", "ab"},
		{"osc title bel", "x\x1b]0;pwned\x07y", "xy"},
		{"osc hyperlink st", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"carriage return overwrite", "safe\rEVIL", "safeEVIL"},
		{"c1 csi", "a\u009b31mb", "ab"},
		{"bell and backspace", "a\x07\x08b", "ab"},
		{"bidi override", "abc\u202edef", "abcdef"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"truncated escape", "a\x1b", "a"},
		{"unicode kept", "héllo ✓", "héllo ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Terminal(tt.in); got != tt.want {
				t.Errorf("Terminal(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	if got := Line("a\nb\tc\x1b[1m"); got != "a b c" {
		t.Errorf("Line = %q", got)
	}
}

func FuzzTerminal(f *testing.F) {
	f.Add("\x1b[31mred\x1b]0;t\x07")
	f.Fuzz(func(t *testing.T, s string) {
		out := Terminal(s)
		for _, r := range out {
			if r == 0x1b || r == 0x9b || r == '\r' || r == 0x07 {
				t.Fatalf("Terminal(%q) kept control %U", s, r)
			}
		}
	})
}
