package probe

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestSpecDefinitions compiles every result definition of every embedded
// revision, and checks which methods each revision defines.
func TestSpecDefinitions(t *testing.T) {
	for _, v := range vocab.ProtocolVersions {
		for method := range specResultType {
			_, _, err := specSchemas[v].definition(method)
			want := true
			if (strings.HasPrefix(method, "$") && method != msgInputRequired) || specResultType[method] == "EmptyResult" || method == "completion/complete" {
				// Whole messages and later additions: not in every
				// revision, but in 2025-11-25.
				if v != "2025-11-25" {
					continue
				}
			}
			switch method {
			case "tasks/list":
				want = v == "2025-11-25"
			case msgInputRequired:
				want = v == "2026-07-28"
				if v != "2025-11-25" && v != "2026-07-28" {
					continue
				}
			case "initialize":
				want = v != "2026-07-28"
			case "server/discover":
				want = v == "2026-07-28"
			}
			switch {
			case want && err != nil:
				t.Errorf("%s %s: %v", v, method, err)
			case !want && !errors.Is(err, errSpecNoDefinition):
				t.Errorf("%s %s: got %v, want no definition", v, method, err)
			}
		}
	}
}

const (
	tool2025     = `{"name":"echo","description":"Echoes.","inputSchema":{"type":"object","properties":{"m":{"type":"string"}}}}`
	initOK       = `{"protocolVersion":"%s","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1.0.0"}}`
	discoverOK   = `{"resultType":"complete","cacheScope":"public","ttlMs":0,"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`
	tools2026OK  = `{"resultType":"complete","cacheScope":"public","ttlMs":60000,"tools":[` + tool2025 + `]}`
	tools2026Old = `{"tools":[` + tool2025 + `]}`
)

func TestCheckPages(t *testing.T) {
	page := func(method, result string) Page { return Page{Method: method, Result: json.RawMessage(result)} }
	initFor := func(v string) string { return strings.Replace(initOK, "%s", v, 1) }
	tests := []struct {
		name    string
		version string
		pages   []Page
		want    []string // "subject code pointer"
	}{
		{"2024-11-05 valid", "2024-11-05", []Page{page("initialize", initFor("2024-11-05")), page("tools/list", `{"tools":[`+tool2025+`]}`)}, []string{}},
		{"2025-03-26 valid", "2025-03-26", []Page{page("initialize", initFor("2025-03-26"))}, []string{}},
		{"2025-06-18 valid", "2025-06-18", []Page{page("initialize", initFor("2025-06-18"))}, []string{}},
		{"2025-11-25 valid", "2025-11-25", []Page{page("initialize", initFor("2025-11-25")), page("tools/list", `{"tools":[`+tool2025+`],"nextCursor":"2"}`), page("tools/list", `{"tools":[]}`)}, []string{}},
		{"2026-07-28 valid", "2026-07-28", []Page{page("server/discover", discoverOK), page("tools/list", tools2026OK)}, []string{}},
		{"real: everything", "2025-11-25", loadRecorded(t, "everything"), []string{}},
		{"real: filesystem", "2025-11-25", loadRecorded(t, "filesystem"), []string{}},
		{"unknown version is not checked here", "1999-01-01", []Page{page("initialize", `{}`)}, []string{}},
		{"unknown method is skipped", "2025-11-25", []Page{page("mcpvet/unknown", `{}`)}, []string{}},
		{"serverInfo without version", "2025-11-25", []Page{page("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s"}}`)},
			[]string{"server protocol/schema_violation initialize/serverInfo"}},
		{"tools not an array", "2025-11-25", []Page{page("tools/list", `{"tools":{}}`)},
			[]string{"server protocol/schema_violation tools/list/tools"}},
		{"nextCursor not a string", "2025-06-18", []Page{page("tools/list", `{"tools":[],"nextCursor":2}`)},
			[]string{"server protocol/schema_violation tools/list/nextCursor"}},
		{"tool without inputSchema", "2025-11-25", []Page{page("tools/list", `{"tools":[{"name":"a"}]}`)},
			[]string{"tool:a protocol/schema_violation"}},
		{"tool without name", "2025-11-25", []Page{page("tools/list", `{"tools":[{"inputSchema":{"type":"object"}}]}`)},
			[]string{"tool:#0 protocol/schema_violation"}},
		{"tool root type", "2025-11-25", []Page{page("tools/list", `{"tools":[{"name":"a","inputSchema":{"type":"string"}}]}`)},
			[]string{"tool:a protocol/schema_violation /inputSchema/type"}},
		{"prompt argument", "2025-11-25", []Page{page("prompts/list", `{"prompts":[{"name":"p","arguments":[{"required":true}]}]}`)},
			[]string{"prompt:p protocol/schema_violation /arguments/0"}},
		{"resource without name", "2025-11-25", []Page{page("resources/list", `{"resources":[{"uri":"a://b"}]}`)},
			[]string{"resource:a://b protocol/schema_violation"}},
		{"template without name", "2025-11-25", []Page{page("resources/templates/list", `{"resourceTemplates":[{"uriTemplate":"a://{b}"}]}`)},
			[]string{"template:a://{b} protocol/schema_violation"}},
		{"2026-07-28 list without resultType", "2026-07-28", []Page{page("tools/list", tools2026Old)}, []string{
			"server protocol/schema_violation tools/list",
		}},
		{"2026-07-28 discover missing fields", "2026-07-28", []Page{page("server/discover", `{"resultType":"complete","capabilities":{}}`)}, []string{
			"server protocol/schema_violation server/discover",
		}},
		{"not JSON", "2025-11-25", []Page{page("tools/list", `{"tools":[`)}, []string{"server protocol/schema_violation tools/list"}},
		{"too deep", "2025-11-25", []Page{page("tools/list", strings.Repeat("[", 1001)+strings.Repeat("]", 1001))}, []string{"server protocol/page_not_validated tools/list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sortUniqueFindings(checkPages(tt.version, tt.pages))
			if diff := cmp.Diff(tt.want, subjectCodes(got, "protocol/")); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, got)
			}
		})
	}
}

// TestCheckPagesNamesEarlierRevision checks that a 2026-07-28 server
// answering in the 2025-11-25 shape is told so.
func TestCheckPagesNamesEarlierRevision(t *testing.T) {
	got := checkPages("2026-07-28", []Page{{Method: "tools/list", Result: json.RawMessage(tools2026Old)}})
	if len(got) == 0 {
		t.Fatal("no findings")
	}
	for _, f := range got {
		if !strings.Contains(f.Message, "matches the 2025-11-25 schema") {
			t.Errorf("message does not name the revision the result matches: %s", f.Message)
		}
	}
	// A type error is not blamed on another revision, even though older
	// revisions (without annotations) would accept it.
	bad := `{"tools":[{"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}]}`
	for _, f := range checkPages("2025-11-25", []Page{{Method: "tools/list", Result: json.RawMessage(bad)}}) {
		if strings.Contains(f.Message, "matches the") {
			t.Errorf("type error blamed on another revision: %s", f.Message)
		}
	}
}

func TestCheckPagesTooLarge(t *testing.T) {
	big := `{"tools":[],"x":"` + strings.Repeat("a", maxCheckedPageBytes) + `"}`
	got := checkPages("2025-11-25", []Page{{Method: "tools/list", Result: json.RawMessage(big)}})
	if diff := cmp.Diff([]string{"server protocol/page_not_validated tools/list"}, subjectCodes(got, "protocol/")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCheckPagesCapsViolations(t *testing.T) {
	var tools []string
	for i := range 50 {
		tools = append(tools, `{"name":"t`+strings.Repeat("x", i)+`"}`)
	}
	got := checkPages("2025-11-25", []Page{{Method: "tools/list", Result: json.RawMessage(`{"tools":[` + strings.Join(tools, ",") + `]}`)}})
	if len(got) != maxViolationsPerPage {
		t.Fatalf("got %d findings, want %d", len(got), maxViolationsPerPage)
	}
	if last := got[len(got)-1].Message; !strings.Contains(last, "30 more violations") {
		t.Errorf("last message does not count the rest: %s", last)
	}
}

func TestNestingDepth(t *testing.T) {
	tests := map[string]int{
		``:                          0,
		`1`:                         0,
		`{}`:                        1,
		`{"a":[1,{"b":[]}]}`:        4,
		`{"a":"[[[[{{{"}`:           1,
		`{"a":"\"[[["}`:             1,
		`[[["\\"],[]]]`:             3,
		`{"k\\":{"x":"]]]]"}}`:      2,
		`[` + `"` + `\u005b` + `"]`: 1,
	}
	for in, want := range tests {
		if got := nestingDepth([]byte(in)); got != want {
			t.Errorf("nestingDepth(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestWarmSpecCompilesTheSchema: warmSpec leaves every revision's schema
// loaded with a definition compiled, so the listing phase's first check
// does not pay the meta-schema validation of the whole schema (issue 25:
// about 0.1 s of CPU on the critical path of every probe).
func TestWarmSpecCompilesTheSchema(t *testing.T) {
	warmSpec("1999-01-01") // unknown revision: nothing to do
	for _, v := range vocab.ProtocolVersions {
		warmSpec(v)
		s := specSchemas[v]
		s.mu.Lock()
		loaded, n := s.compiler != nil, len(s.defs)
		s.mu.Unlock()
		if !loaded || n == 0 {
			t.Errorf("%s: after warmSpec the schema is loaded %v with %d definitions compiled", v, loaded, n)
		}
	}
}
