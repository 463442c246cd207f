package source

import "testing"

// TestKeyLineNames finds server names that need care in a JSON key: a
// space is written as itself (configset.go:260, `r < 0x20` -> `<=`
// escaped it as \u0020 and missed the key), a quote and a control
// character escaped as encoding/json writes them.
func TestKeyLineNames(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      int
	}{
		{"my server", "{\n  \"my server\": {\"command\": \"npx\"}}", 2},
		{`say "hi"`, "{\n\n\"say \\\"hi\\\"\": {}}", 3},
		{"a\x1fb", "{\"a\\u001fb\": {}}", 1},
	} {
		if got := KeyLine([]byte(tt.doc), tt.name); got != tt.want {
			t.Errorf("KeyLine(%q, %q) = %d, want %d", tt.doc, tt.name, got, tt.want)
		}
	}
}
