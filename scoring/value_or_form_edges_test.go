package scoring

import (
	"strings"
	"testing"
)

// TestFindRangeEarliest: findRange reports the earliest range form of a
// sentence, whether it is a phrase ("at most") or a number form the
// expression finds ("between 1 and 5"); the phrase search and the
// expression must not simply prefer one (issue 26: the survivor
// elem_value_or_form.go:87 `loc[0] < i` -> `>=`).
func TestFindRangeEarliest(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"at most 9, or between 1 and 5", "at most"},
		{"between 1 and 5, at most 9", "between 1 and"},
		{"limit must be >= 1 and no more than 50", ">= 1"},
		{"no more than 50 and >= 1", "no more than"},
	} {
		i, j, ok := findRange(tt.text)
		if !ok || tt.text[i:j] != tt.want {
			t.Errorf("findRange(%q) = %q (%v), want %q", tt.text, tt.text[i:max(i, j)], ok, tt.want)
		}
	}
}

// TestFirstMatchOutsideEveryMatch: firstMatchOutside weighs every match
// of the expression and every match of the one it skips, not only the
// first of each (issue 26: the survivors elem_value_or_form.go:320 and
// :321, FindAllStringIndex's -1 made 1).
func TestFirstMatchOutsideEveryMatch(t *testing.T) {
	always := func(string) bool { return true }
	re := guardFunc(`x\d`, always)
	skip := guardFunc(`\[[^\]]*\]`, always)
	seg := func(s string) []segment { return []segment{{label: "text", s: s, lower: s}} }
	// The first match lies inside a skipped span, the second outside.
	if ev, ok := firstMatchOutside(seg("[x1] then x2"), re, skip); !ok || !strings.Contains(ev, `"x2"`) {
		t.Errorf("first match skipped, second outside: %q %v, want x2", ev, ok)
	}
	// The only match lies inside the second skipped span.
	if ev, ok := firstMatchOutside(seg("[a] and [x1]"), re, skip); ok {
		t.Errorf("match inside the second skipped span reported: %q", ev)
	}
	// Nothing to skip: the first match.
	if ev, ok := firstMatchOutside(seg("x3 x4"), re, skip); !ok || !strings.Contains(ev, `"x3"`) {
		t.Errorf("no skipped span: %q %v, want x3", ev, ok)
	}
}

// TestUndefinedArgAtTheStart: a missing argument rendered as undefined is
// found at the very start of a text too (issue 26: the survivor
// elem_value_or_form.go:342 `i >= 0` -> `> 0`).
func TestUndefinedArgAtTheStart(t *testing.T) {
	c := Context{ToolNames: []string{"geocode"}, ParamNames: []string{"address"}, Required: []string{"address"}}
	r := Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "geocode", Param: "address", Class: ClassToolError,
		ProtocolVersion: "2024-11-05", Text: "address=undefined"}
	in := newInput(&r, &c)
	if ev, ok := in.undefinedArg(); !ok || !strings.Contains(ev, "address=undefined") {
		t.Errorf("undefinedArg of %q = %q %v, want the whole text", r.Text, ev, ok)
	}
}

// TestMatchCountZeroIsNoForm: a match key holding an empty list
// ("availableTools": []) states no permitted name; a list with names does
// (issue 26: the survivor elem_value_or_form.go:294 `n > 0` -> `>= 0`).
func TestMatchCountZeroIsNoForm(t *testing.T) {
	c := Context{ToolNames: []string{"search", "fetch"}}
	r := Response{Kind: KindUnknownTool, Method: "tools/call", Tool: "serch", Class: ClassProtocolError,
		ProtocolVersion: "2025-11-25", Text: `{"error":"no such tool","availableTools":[]}`}
	if g := Grade(r, c); g.Pass(ElemValueOrForm) {
		t.Errorf("an empty availableTools states a form: %s", evidenceOf(g, ElemValueOrForm))
	}
	r.Text = `{"error":"no such tool","availableTools":["search","fetch"]}`
	if g := Grade(r, c); !g.Pass(ElemValueOrForm) {
		t.Errorf("availableTools with two names states no form: %s", evidenceOf(g, ElemValueOrForm))
	}
}

// TestMissingOtherShortParam: "Missing or invalid a_b" to a call that left
// out name is about another argument even when that argument's name has
// three characters only, if it is distinctive (issue 26: the survivor
// elem_value_or_form.go:239 `len(p) < 3` -> `<= 3`).
func TestMissingOtherShortParam(t *testing.T) {
	c := Context{ToolNames: []string{"create"}, ParamNames: []string{"name", "a_b"}, Required: []string{"name", "a_b"}}
	r := Response{Kind: KindMissingRequired, Method: "tools/call", Tool: "create", Param: "name", Class: ClassToolError,
		ProtocolVersion: "2025-11-25", Text: "Missing or invalid a_b"}
	if g := Grade(r, c); g.Pass(ElemValueOrForm) {
		t.Errorf("a sentence about a_b states name's absence: %s", evidenceOf(g, ElemValueOrForm))
	}
	r.Text = "Missing or invalid name"
	if g := Grade(r, c); !g.Pass(ElemValueOrForm) {
		t.Errorf("a sentence about name does not state its absence: %s", evidenceOf(g, ElemValueOrForm))
	}
}

// TestToolMentionAtTheStart: an unknown id answered with another tool of
// the server earns the tool-mention credit when that tool's name opens the
// text too (issue 26: the survivor elem_closest_matches.go:59
// `i >= 0` -> `> 0`).
func TestToolMentionAtTheStart(t *testing.T) {
	c := Context{ToolNames: []string{"get_project", "list_projects"}, ParamNames: []string{"project_id"}}
	r := Response{Kind: KindUnknownID, Method: "tools/call", Tool: "get_project", Param: "project_id", Class: ClassToolError,
		ProtocolVersion: "2025-11-25", Text: "list_projects shows the ids you can use"}
	g := Grade(r, c)
	if !g.Pass(ElemClosestMatches) {
		t.Fatalf("a tool named at byte 0 earned nothing: %s", evidenceOf(g, ElemClosestMatches))
	}
}
