package scoring

import (
	"strings"
	"testing"
)

// TestClosestMatchesEmptyArray: an empty closest-matches array offers
// nothing to choose from, so it fails the element; one candidate passes.
// (Issue 26 item 2: gremlins' hand mutant `v > 0` -> `v >= 0` in
// gradeClosestMatches survived because no test sent an empty array.)
func TestClosestMatchesEmptyArray(t *testing.T) {
	c := Context{ToolNames: []string{"get_project", "list_projects"}, ParamNames: []string{"project_id"}, Required: []string{"project_id"}}
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"empty array", `{"code":"unknown_project","field":"project_id","received":"prj_8Fk21","suggestions":[]}`, false},
		{"empty closest_matches", `{"code":"unknown_project","field":"project_id","received":"prj_8Fk21","closest_matches":[]}`, false},
		{"one candidate", `{"code":"unknown_project","field":"project_id","received":"prj_8Fk21","suggestions":["prj_8Fk2l"]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Response{Kind: KindUnknownID, Method: "tools/call", Tool: "get_project", Param: "project_id", Sent: raw(`"prj_8Fk21"`),
				Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: tt.text}
			g := Grade(r, c)
			if got := g.Pass(ElemClosestMatches); got != tt.want {
				t.Errorf("closest_matches = %v, want %v (%s)", got, tt.want, g)
			}
		})
	}
}

// TestClosestMatchesNameFirst: a real tool name that opens the error text
// (at byte 0) is a match offered; a name only inside a longer word is not.
// (The mutant `i >= 0` -> `i > 0` in realNameMention lived through the
// whole suite.)
func TestClosestMatchesNameFirst(t *testing.T) {
	c := Context{ToolNames: []string{"read_file", "list_dir"}}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"read_file: no tool named reed_file", true},
		{"no tool named reed_file; read_file exists", true},
		{"no tool named reed_file; unread_files exist", false},
	} {
		g := Grade(Response{Kind: KindUnknownTool, Method: "tools/call", Sent: raw(`"reed_file"`), Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: tt.text}, c)
		if got := g.Pass(ElemClosestMatches); got != tt.want {
			t.Errorf("%q: closest_matches = %v, want %v (%s)", tt.text, got, tt.want, g)
		}
	}
}

// TestIsMatchKey: a (normalised) key that starts with one of the prefixes
// and goes on ("validids", "knownnames") carries alternatives; the bare
// word ("valid": true, "allowed": "no") does not. (The mutant `len(k) >
// len(p)` -> `>=` lived through the whole suite.)
func TestIsMatchKey(t *testing.T) {
	for k, want := range map[string]bool{
		"closestmatches": true, "validids": true, "availabletools": true, "knownnames": true, "supportedmodels": true,
		"valid": false, "supported": false, "known": false, "allowed": false, "existing": false, "message": false,
	} {
		if got := isMatchKey(k); got != want {
			t.Errorf("isMatchKey(%q) = %v, want %v", k, got, want)
		}
	}
}

// TestSentenceEnd: i is the end of a match; the evidence runs to the end
// of the sentence the match ends in, at most 80 bytes on, and an i that
// lies in no sentence (between two) is returned as it is. (The mutants
// `se[0] < i` -> `<=` and -> `>=` lived through the whole suite.)
func TestSentenceEnd(t *testing.T) {
	s := "ab cd. ef gh. " + strings.Repeat("x", 100) + "."
	// sentences (without their stops): [0,5) "ab cd", [7,12) "ef gh",
	// [14,114) the x run.
	for _, tt := range []struct{ i, want int }{
		{2, 5},     // inside the first sentence
		{5, 5},     // at its end
		{7, 7},     // at the start of the second: no byte of it matched
		{9, 12},    // inside the second
		{15, 95},   // 99 bytes from the end: cut at 80
		{34, 114},  // exactly 80 bytes from the end
		{114, 114}, // at the end of the sentence
	} {
		if got := sentenceEnd(s, tt.i); got != tt.want {
			t.Errorf("sentenceEnd(%d) = %d, want %d", tt.i, got, tt.want)
		}
	}
}
