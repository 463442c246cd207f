package probe

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// toolsFromJSON builds tools from their raw JSON, as the probe lists them.
func toolsFromJSON(t *testing.T, raws ...string) []Tool {
	t.Helper()
	var out []Tool
	for _, r := range raws {
		var tl Tool
		if err := json.Unmarshal([]byte(r), &tl); err != nil {
			// Mistyped fields are the point of some cases; keep Raw.
			tl = Tool{}
		}
		tl.Raw = json.RawMessage(r)
		out = append(out, tl)
	}
	return out
}

// subjectCodes renders findings as "subject code pointer" lines, keeping
// only codes with one of the prefixes.
func subjectCodes(fs []Finding, prefixes ...string) []string {
	out := []string{}
	for _, f := range fs {
		for _, p := range prefixes {
			if strings.HasPrefix(f.Code, p) {
				out = append(out, strings.TrimSpace(f.Subject+" "+f.Code+" "+f.Pointer))
				break
			}
		}
	}
	return out
}

const okSchema = `{"type":"object","additionalProperties":false}`

func TestCheckToolText(t *testing.T) {
	tests := []struct {
		name    string
		version string
		tools   []string
		want    []string
	}{
		{"real: memory create_entities", "2025-11-25", []string{`{"name":"create_entities","title":"Create Entities","description":"Create multiple new entities in the knowledge graph","inputSchema":` + okSchema + `}`}, []string{}},
		{"dots and dashes allowed", "2025-11-25", []string{`{"name":"files.read-v2_x","title":"T","description":"Reads a file.","inputSchema":` + okSchema + `}`}, []string{}},
		{"range ends 0 9 a z A Z allowed", "2025-11-25", []string{`{"name":"a09zAZ","title":"T","description":"D.","inputSchema":` + okSchema + `}`}, []string{}},
		{"128 characters allowed", "2025-11-25", []string{`{"name":"` + strings.Repeat("a", 128) + `","title":"T","description":"D.","inputSchema":` + okSchema + `}`}, []string{}},
		{"129 characters", "2025-11-25", []string{`{"name":"` + strings.Repeat("a", 129) + `","title":"T","description":"D.","inputSchema":` + okSchema + `}`},
			[]string{"tool:" + strings.Repeat("a", 129) + " tool/name_invalid /name"}},
		{"space and slash", "2025-11-25", []string{`{"name":"read file/x","title":"T","description":"D.","inputSchema":` + okSchema + `}`},
			[]string{"tool:read file/x tool/name_invalid /name"}},
		{"non-ASCII", "2025-11-25", []string{`{"name":"lire_fiché","title":"T","description":"D.","inputSchema":` + okSchema + `}`},
			[]string{"tool:lire_fiché tool/name_invalid /name"}},
		{"empty name", "2025-11-25", []string{`{"name":"","title":"T","description":"D.","inputSchema":` + okSchema + `}`},
			[]string{"tool:#0 tool/name_missing /name"}},
		{"name not a string", "2025-11-25", []string{`{"name":7,"title":"T","description":"D.","inputSchema":` + okSchema + `}`},
			[]string{"tool:#0 tool/name_missing /name"}},
		{"duplicate", "2025-11-25", []string{
			`{"name":"a","title":"T","description":"First.","inputSchema":` + okSchema + `}`,
			`{"name":"b","title":"T","description":"Other.","inputSchema":` + okSchema + `}`,
			`{"name":"a","title":"T","description":"Second.","inputSchema":` + okSchema + `}`},
			[]string{"tool:a tool/name_duplicate /name"}},
		{"no description", "2025-11-25", []string{`{"name":"a","title":"T","inputSchema":` + okSchema + `}`},
			[]string{"tool:a tool/description_missing /description"}},
		{"blank description", "2025-11-25", []string{`{"name":"a","title":"T","description":"  ","inputSchema":` + okSchema + `}`},
			[]string{"tool:a tool/description_missing /description"}},
		{"description repeats name", "2025-11-25", []string{`{"name":"getUserProfile","title":"T","description":"Get user profile.","inputSchema":` + okSchema + `}`},
			[]string{"tool:getUserProfile tool/description_repeats_name /description"}},
		{"description repeats title", "2025-11-25", []string{`{"name":"gup","title":"Get user profile","description":"get user profile","inputSchema":` + okSchema + `}`},
			[]string{"tool:gup tool/description_repeats_name /description"}},
		{"description adds words", "2025-11-25", []string{`{"name":"get_user","title":"T","description":"Get user by id.","inputSchema":` + okSchema + `}`}, []string{}},
		{"no title", "2025-11-25", []string{`{"name":"a","description":"D.","inputSchema":` + okSchema + `}`},
			[]string{"tool:a tool/title_missing /title"}},
		{"annotations title counts", "2025-06-18", []string{`{"name":"a","description":"D.","annotations":{"title":"A"},"inputSchema":` + okSchema + `}`}, []string{}},
		{"2025-03-26 has only annotations.title", "2025-03-26", []string{`{"name":"a","description":"D.","inputSchema":` + okSchema + `}`},
			[]string{"tool:a tool/title_missing /annotations/title"}},
		{"2024-11-05 has no title", "2024-11-05", []string{`{"name":"a","description":"D.","inputSchema":` + okSchema + `}`}, []string{}},
	}
	c := NewChecker()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sortUniqueFindings(c.checkTools(tt.version, toolsFromJSON(t, tt.tools...)))
			if diff := cmp.Diff(tt.want, subjectCodes(got, "tool/")); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIdentWords(t *testing.T) {
	tests := map[string][]string{
		"get_user_profile": {"get", "user", "profile"},
		"getUserProfile":   {"get", "user", "profile"},
		"HTTPRequest":      {"http", "request"},
		"list-files.v2":    {"list", "files", "v2"},
		"Get user profile": {"get", "user", "profile"},
		"getURL":           {"get", "url"},
		"getX":             {"get", "x"},
		"":                 nil,
	}
	for in, want := range tests {
		if diff := cmp.Diff(want, identWords(in)); diff != "" {
			t.Errorf("identWords(%q) (-want +got):\n%s", in, diff)
		}
	}
}
