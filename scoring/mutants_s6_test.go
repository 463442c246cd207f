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
