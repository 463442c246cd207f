package scoring

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestSchemaParamsDepth: nested properties and array items are followed
// maxSchemaDepth levels deep, no deeper (result.go:106 `>` -> `>=`, :111
// and :113 `depth+1` -> `depth-1` lived in issue 26's shard 3).
func TestSchemaParamsDepth(t *testing.T) {
	props := `{"properties":{"p0":{"properties":{"p1":{"properties":{"p2":{"properties":{"p3":{"properties":{"p4":{"properties":{"p5":{}}}}}}}}}}}}}`
	if p, _ := schemaParams(json.RawMessage(props)); !slices.Equal(p, []string{"p0", "p1", "p2", "p3", "p4"}) {
		t.Errorf("nested properties: %v, want p0 to p4", p)
	}
	items := `{"items":{"items":{"items":{"items":{"properties":{"at4":{}},"items":{"properties":{"at5":{}}}}}}}}`
	if p, _ := schemaParams(json.RawMessage(items)); !slices.Equal(p, []string{"at4"}) {
		t.Errorf("nested items: %v, want at4 only", p)
	}
}

// TestReportsFailureAtTheCap: a success result of exactly maxParseBytes is
// still read for a failure, one byte more is not (failure_text.go:49
// `len(t) > maxParseBytes` -> `>=` lived).
func TestReportsFailureAtTheCap(t *testing.T) {
	head := "Error: project not found\n"
	text := head + strings.Repeat("x", maxParseBytes-len(head))
	r := &Response{Class: ClassAccepted, Method: "tools/call", Text: text}
	if !reportsFailure(r) {
		t.Errorf("a failure of exactly %d bytes not read", len(text))
	}
	r.Text += "x"
	if reportsFailure(r) {
		t.Errorf("a text of %d bytes read past the cap", len(r.Text))
	}
}

// TestSentItemsAndKeys: the string items of a sent array are kept from 3
// characters, at most 8 (input.go:270 `>= 3` -> `>`, `< 8` -> `<=`), and a
// key is normalised with A and Z lowered too (input.go:245 `>= 'A'` ->
// `>`).
func TestSentItemsAndKeys(t *testing.T) {
	in := &input{r: &Response{Sent: json.RawMessage(`["abc", "ab", "i3", "i4", "i5", "i6", "i7", "i8", "i9x", "i10", "i11"]`)}}
	in.decodeSent()
	if want := []string{"abc", "i9x", "i10", "i11"}; !slices.Equal(in.sentItems, want) {
		t.Errorf("sentItems = %q, want %q", in.sentItems, want)
	}
	in = &input{r: &Response{Sent: json.RawMessage(`["aaa", "bbb", "ccc", "ddd", "eee", "fff", "ggg", "hhh", "iii"]`)}}
	in.decodeSent()
	if len(in.sentItems) != 8 {
		t.Errorf("%d sent items kept, want 8", len(in.sentItems))
	}
	if got := normKey("A_Z-m"); got != "azm" {
		t.Errorf(`normKey("A_Z-m") = %q, want "azm"`, got)
	}
}

// TestNestedValuePaths: nestedValue follows a path through objects and
// array indexes before it searches for the leaf name, an index past the
// end falls back to that search, which looks 4 levels deep and never at
// the top level (response.go:298, :300, :302, :319, :325 lived).
func TestNestedValuePaths(t *testing.T) {
	for _, tc := range []struct{ v, path, want string }{
		{`{"z":{"b":1},"a":{"q":{"b":2}}}`, "a.q.b", "2"},    // the path, not the first b found
		{`{"a":[{"b":1},{"b":2}]}`, "a[1].b", "2"},           // an index
		{`{"a":[{"b":1},{"b":2}]}`, "a[2].b", "1"},           // past the end: the search
		{`{"a":{"b":{"c":{"leaf":3}}}}`, "x.leaf", "3"},      // found 3 levels down
		{`{"a":{"b":{"c":{"d":{"leaf":4}}}}}`, "x.leaf", ""}, // 4 down: not searched
		{`{"leaf":5,"x":{}}`, "x.leaf", ""},                  // the top level is not searched
	} {
		if got := string(nestedValue(json.RawMessage(tc.v), tc.path)); got != tc.want {
			t.Errorf("nestedValue(%s, %q) = %q, want %q", tc.v, tc.path, got, tc.want)
		}
	}
}
