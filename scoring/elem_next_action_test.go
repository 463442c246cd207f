package scoring

import "testing"

func TestHasCue(t *testing.T) {
	for text, want := range map[string]bool{
		"call list_projects to see ids":         true,
		"did you mean echo?":                    true,
		"cannot specify both head and tail":     false,
		"failed to call upstream":               false,
		"unable to use the cache":               false,
		"the settings page":                     false,
		"because the address is local":          false,
		"perhaps you meant 'tools/list'":        true,
		"you should not retry":                  false,
		"re-run the query with a smaller limit": true,
	} {
		if got := hasCue(text); got != want {
			t.Errorf("hasCue(%q) = %v, want %v", text, got, want)
		}
	}
}
