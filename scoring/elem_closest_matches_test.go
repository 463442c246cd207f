package scoring

import "testing"

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
