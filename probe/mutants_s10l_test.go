package probe

// Tests for the survivors of probe/check_spec.go (docs/mutation/lived.tsv,
// blob 772b561), each named after the behaviour it pins; the notes of
// issue 26 list the mutants each one kills and the survivors argued
// equivalent. All are pure: pages in, findings out, with no server.

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestS10LWarmSpecCompilesOneDefinition: warmSpec stops at the first
// definition that compiles (tools/list, which every revision has), so the
// warm-up costs one compilation, not one per method it could try.
func TestS10LWarmSpecCompilesOneDefinition(t *testing.T) {
	for _, v := range vocab.ProtocolVersions {
		s := specSchemas[v]
		warmSpec(v) // loads the schema
		s.mu.Lock()
		s.defs = map[string]*jsonschema.Schema{} // forget what earlier tests compiled
		s.mu.Unlock()
		warmSpec(v)
		s.mu.Lock()
		got := slices.Sorted(maps.Keys(s.defs))
		s.mu.Unlock()
		if diff := cmp.Diff([]string{"ListToolsResult"}, got); diff != "" {
			t.Errorf("%s: definitions compiled by warmSpec (-want +got):\n%s", v, diff)
		}
	}
}

// TestS10LCheckVersion: the revision the pages are checked against is the
// one the probe recorded; without one (a stored result, a nil result) it
// is the one the initialize result names, whatever page comes first.
func TestS10LCheckVersion(t *testing.T) {
	page := func(method, result string) Page { return Page{Method: method, Result: json.RawMessage(result)} }
	init25 := page("initialize", strings.Replace(initOK, "%s", "2025-11-25", 1))
	tests := []struct {
		name  string
		res   *Result
		pages []Page
		want  string
	}{
		{"recorded version wins over the initialize result", &Result{Liveness: Liveness{ProtocolVersion: "2025-06-18"}},
			[]Page{init25}, "2025-06-18"},
		{"2026-07-28 has no initialize result", &Result{Liveness: Liveness{ProtocolVersion: "2026-07-28"}},
			[]Page{page("server/discover", discoverOK), page("tools/list", tools2026OK)}, "2026-07-28"},
		{"no recorded version: the initialize result names it", &Result{},
			[]Page{page("tools/list", `{"tools":[]}`), init25}, "2025-11-25"},
		{"nil result", nil, []Page{init25}, "2025-11-25"},
		{"an initialize result that is not JSON is passed over", &Result{},
			[]Page{page("initialize", `{"protocolVersion":`), init25}, "2025-11-25"},
		{"nothing names a version", &Result{}, []Page{page("tools/list", `{"tools":[]}`)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkVersion(tt.res, tt.pages); got != tt.want {
				t.Errorf("checkVersion = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestS10LCheckUsesRecordedVersion: a 2026-07-28 run, whose handshake is
// server/discover, has its list pages checked against 2026-07-28; a run
// recorded without a version is checked against the revision its
// initialize result names.
func TestS10LCheckUsesRecordedVersion(t *testing.T) {
	tests := []struct {
		name  string
		res   *Result
		pages []Page
		want  []string
	}{
		{"2026-07-28 list in the 2025-11-25 shape", &Result{Liveness: Liveness{ProtocolVersion: "2026-07-28"}},
			[]Page{{Method: "server/discover", Result: json.RawMessage(discoverOK)}, {Method: "tools/list", Result: json.RawMessage(tools2026Old)}},
			[]string{"server protocol/schema_violation tools/list"}},
		{"no recorded version, initialize names 2025-11-25", &Result{},
			[]Page{{Method: "initialize", Result: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s"}}`)}},
			[]string{"server protocol/schema_violation initialize/serverInfo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewChecker().Check(tt.res, tt.pages)
			if diff := cmp.Diff(tt.want, subjectCodes(got, "protocol/")); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, got)
			}
		})
	}
}

// TestS10LPageAtTheLimitsIsValidated: the size and depth limits are
// inclusive; a page of exactly maxCheckedPageBytes bytes, or nested
// exactly maxCheckedPageDepth levels, is still validated.
func TestS10LPageAtTheLimitsIsValidated(t *testing.T) {
	head, tail := `{"tools":{},"x":"`, `"}`
	big := head + strings.Repeat("a", maxCheckedPageBytes-len(head)-len(tail)) + tail
	// The object is one level, the arrays the rest.
	deep := `{"tools":{},"x":` + strings.Repeat("[", maxCheckedPageDepth-1) + strings.Repeat("]", maxCheckedPageDepth-1) + `}`
	if len(big) != maxCheckedPageBytes || nestingDepth([]byte(deep)) != maxCheckedPageDepth {
		t.Fatalf("test pages: %d bytes, %d deep", len(big), nestingDepth([]byte(deep)))
	}
	for name, result := range map[string]string{"size": big, "depth": deep} {
		got := checkPages("2025-11-25", []Page{{Method: "tools/list", Result: json.RawMessage(result)}})
		if diff := cmp.Diff([]string{"server protocol/schema_violation tools/list/tools"}, subjectCodes(got, "protocol/")); diff != "" {
			t.Errorf("page at the %s limit (-want +got):\n%s", name, diff)
		}
	}
}

// TestS10LViolationsAtTheCapAreAllListed: a page with exactly
// maxViolationsPerPage violations lists them all, with no "more
// violations" note.
func TestS10LViolationsAtTheCapAreAllListed(t *testing.T) {
	var tools []string
	for i := range maxViolationsPerPage {
		tools = append(tools, `{"name":"t`+strconv.Itoa(i)+`"}`)
	}
	got := checkPages("2025-11-25", []Page{{Method: "tools/list", Result: json.RawMessage(`{"tools":[` + strings.Join(tools, ",") + `]}`)}})
	if len(got) != maxViolationsPerPage {
		t.Fatalf("got %d findings, want %d", len(got), maxViolationsPerPage)
	}
	for _, f := range got {
		if strings.Contains(f.Message, "more violations") {
			t.Errorf("%s: %s", f.Subject, f.Message)
		}
	}
}

// TestS10LOtherMatchingVersionsOnlyOlder: the revisions a result is said
// to match are strictly older than the negotiated one, oldest first; the
// negotiated revision itself is never named as "an earlier revision".
func TestS10LOtherMatchingVersionsOnlyOlder(t *testing.T) {
	doc, err := decodeExact([]byte(`{"tools":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	for version, want := range map[string][]string{
		"2025-11-25": {"2024-11-05", "2025-03-26", "2025-06-18"},
		"2025-03-26": {"2024-11-05"},
		"2024-11-05": nil,
	} {
		if diff := cmp.Diff(want, otherMatchingVersions(version, "tools/list", doc)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", version, diff)
		}
	}
}

// TestS10LEvidenceAndLocation: each violation carries the offending value
// (an item inside a list included) and names where it is, "/" for the
// whole result.
func TestS10LEvidenceAndLocation(t *testing.T) {
	type seen struct{ Subject, Pointer, Value, At string }
	tests := []struct {
		name    string
		version string
		method  string
		result  string
		want    []seen
	}{
		{"first tool", "2025-11-25", "tools/list", `{"tools":[{"name":"a"}]}`,
			[]seen{{"tool:a", "", `{"name":"a"}`, `at "/tools/0"`}}},
		{"second tool", "2025-11-25", "tools/list", `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b"}]}`,
			[]seen{{"tool:b", "", `{"name":"b"}`, `at "/tools/1"`}}},
		{"item of a call result", "2025-11-25", "tools/call", `{"content":[{"type":"text","text":"x"},{"type":"text"}]}`,
			[]seen{{"server", "tools/call/content/1", `{"type":"text"}`, `at "/content/1"`}}},
		{"whole result", "2026-07-28", "tools/list", `{"tools":[]}`,
			[]seen{{"server", "tools/list", `{"tools":[]}`, `at "/"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []seen
			for _, f := range checkPages(tt.version, []Page{{Method: tt.method, Result: json.RawMessage(tt.result)}}) {
				at := ""
				if i := strings.Index(f.Message, `at "`); i >= 0 {
					at = f.Message[i:]
					at = at[:strings.Index(at[4:], `"`)+5]
				}
				got = append(got, seen{f.Subject, f.Pointer, f.Value, at})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestS10LAlternativesMessage: a value that matches none of an anyOf's
// alternatives is reported once, with why the first alternatives failed
// (at most three reasons).
func TestS10LAlternativesMessage(t *testing.T) {
	tests := []struct {
		name   string
		method string
		result string
		want   string
	}{
		{"resource contents", "resources/read", `{"contents":[{"uri":"a:b"}]}`,
			`matches none of the alternatives (missing properties: 'text'; missing properties: 'blob')`},
		{"content block, three reasons of five alternatives", "tools/call", `{"content":[{"type":"bogus"}]}`,
			`matches none of the alternatives (missing properties: 'text'; value must be "text"; missing properties: 'data', 'mimeType')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkPages("2025-11-25", []Page{{Method: tt.method, Result: json.RawMessage(tt.result)}})
			if len(got) != 1 {
				t.Fatalf("got %d findings, want 1: %v", len(got), got)
			}
			if !strings.HasSuffix(got[0].Message, "): "+tt.want) {
				t.Errorf("message %q\ndoes not end with %q", got[0].Message, tt.want)
			}
		})
	}
}

// TestS10LLocationsOutsideTheDocument: pageSubject and valueAtPointer take
// any location; one past a list's end, negative or not a number names no
// item and shows no value (rather than indexing out of range).
func TestS10LLocationsOutsideTheDocument(t *testing.T) {
	doc, err := decodeExact([]byte(`{"tools":[{"name":"a"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{"/tools/1", "/tools/-1", "/tools/x", "/tools/0/name/x"} {
		subject, ptr := pageSubject("tools/list", doc, loc)
		if loc == "/tools/0/name/x" {
			if subject != "tool:a" || ptr != "/name/x" {
				t.Errorf("pageSubject(%q) = %q, %q; want tool:a, /name/x", loc, subject, ptr)
			}
		} else if subject != "server" || ptr != "tools/list"+loc {
			t.Errorf("pageSubject(%q) = %q, %q; want server, tools/list%s", loc, subject, ptr, loc)
		}
		if v := valueAtPointer(doc, loc); v != "" {
			t.Errorf("valueAtPointer(%q) = %q, want nothing", loc, v)
		}
	}
	if v := valueAtPointer(doc, "/tools/0/name"); v != `"a"` {
		t.Errorf(`valueAtPointer("/tools/0/name") = %q, want "a"`, v)
	}
}

// TestS10LPruneSpecFollowsEveryReference: pruneSpec keeps every definition
// a kept one refers to, also after a reference to the definition named ""
// (a pointer that ends in "/"), so the result still compiles.
func TestS10LPruneSpecFollowsEveryReference(t *testing.T) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(`{"definitions":{
		"ListToolsResult":{"type":"object","properties":{"a":{"$ref":"#/definitions/"},"b":{"$ref":"#/definitions/Tool"}}},
		"":{"type":"string"},
		"Tool":{"type":"object","properties":{"c":{"$ref":"#/definitions/Icon"}}},
		"Icon":{"type":"object"},
		"Unused":{"type":"object"}}}`), &top); err != nil {
		t.Fatal(err)
	}
	data, err := pruneSpec(top, "definitions")
	if err != nil {
		t.Fatal(err)
	}
	var pruned struct{ Definitions map[string]json.RawMessage }
	if err := json.Unmarshal(data, &pruned); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"", "Icon", "ListToolsResult", "Tool"}, slices.Sorted(maps.Keys(pruned.Definitions))); diff != "" {
		t.Errorf("kept definitions (-want +got):\n%s", diff)
	}
	c, err := specCompiler("test", data)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(specBaseURL + "test.json#/definitions/ListToolsResult")
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(map[string]any{"a": 1.0, "b": map[string]any{"c": "x"}}); err == nil {
		t.Error("the pruned schema accepts values its references forbid")
	}
}
