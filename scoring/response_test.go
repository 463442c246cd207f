package scoring

import "testing"

// TestLeafNameSkipsIndexes: a JSON path's leaf is its last segment that
// is not an array index, whatever its digits ("items[0]", "rows.9"), and
// an all-digit path stays as it is. (Issue 26: the mutants response.go:297
// `s[i] < '0'` -> `<=` and `s[i] > '9'` -> `>=`, which took 0 and 9 for
// non-digits, lived through the whole suite.)
func TestLeafNameSkipsIndexes(t *testing.T) {
	for p, want := range map[string]string{
		"items[0]":         "items",
		"rows.9":           "rows",
		"a.b[10].c":        "c",
		"matrix[9][0]":     "matrix",
		"/tags/0":          "tags",
		"0":                "0",
		"options.depth":    "depth",
		"list[1234567890]": "list",
	} {
		if got := leafName(p); got != want {
			t.Errorf("leafName(%q) = %q, want %q", p, got, want)
		}
	}
}
