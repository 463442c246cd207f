package probe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckAnnotations(t *testing.T) {
	full := `"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false`
	tool := func(name, description, annotations string) string {
		s := `{"name":"` + name + `","title":"T","description":"` + description + `","inputSchema":{"type":"object","additionalProperties":false}`
		if annotations != "" {
			s += `,"annotations":` + annotations
		}
		return s + "}"
	}
	tests := []struct {
		name    string
		version string
		tool    string
		want    []string
	}{
		{"real: filesystem read_text_file", "2025-11-25", tool("read_text_file", "Read the complete contents of a file from the file system as text.", `{"readOnlyHint":true}`),
			[]string{"tool:read_text_file annotations/missing_open_world_hint /annotations/openWorldHint"}},
		{"real: filesystem write_file", "2025-11-25", tool("write_file", "Create a new file or completely overwrite an existing file with new content.", `{"readOnlyHint":false,"idempotentHint":true,"destructiveHint":true}`),
			[]string{"tool:write_file annotations/missing_open_world_hint /annotations/openWorldHint"}},
		{"all four hints", "2025-11-25", tool("add_note", "Adds a note.", "{"+full+"}"), []string{}},
		{"read-only needs no write hints", "2025-11-25", tool("get_note", "Returns a note.", `{"readOnlyHint":true,"openWorldHint":false}`), []string{}},
		{"no annotations", "2025-11-25", tool("sum", "Sums numbers.", ""), []string{
			"tool:sum annotations/missing_destructive_hint /annotations/destructiveHint",
			"tool:sum annotations/missing_idempotent_hint /annotations/idempotentHint",
			"tool:sum annotations/missing_open_world_hint /annotations/openWorldHint",
			"tool:sum annotations/missing_read_only_hint /annotations/readOnlyHint",
		}},
		{"null annotations", "2025-11-25", tool("sum", "Sums numbers.", "null"), []string{
			"tool:sum annotations/missing_destructive_hint /annotations/destructiveHint",
			"tool:sum annotations/missing_idempotent_hint /annotations/idempotentHint",
			"tool:sum annotations/missing_open_world_hint /annotations/openWorldHint",
			"tool:sum annotations/missing_read_only_hint /annotations/readOnlyHint",
		}},
		{"2024-11-05: missing hints are not defects", "2024-11-05", tool("get_note", "Returns a note.", ""), []string{"server annotations/not_in_version"}},
		{"not an object", "2025-11-25", tool("sum", "Sums numbers.", `[true]`), []string{"tool:sum annotations/not_object /annotations"}},
		{"hint not boolean", "2025-11-25", tool("sum", "Sums numbers.", `{"readOnlyHint":true,"openWorldHint":"no"}`), []string{
			"tool:sum annotations/hint_not_boolean /annotations/openWorldHint",
		}},
		{"read-only and destructive", "2025-11-25", tool("note_state", "Returns the state.", `{"readOnlyHint":true,"destructiveHint":true,"openWorldHint":false}`),
			[]string{"tool:note_state annotations/read_only_and_destructive /annotations"}},
		{"read-only delete", "2025-11-25", tool("delete_note", "Deletes a note.", `{"readOnlyHint":true,"openWorldHint":false}`),
			[]string{"tool:delete_note annotations/read_only_on_mutating_tool /annotations/readOnlyHint"}},
		{"read-only camelCase remove", "2025-11-25", tool("removeUser", "Removes a user.", `{"readOnlyHint":true,"openWorldHint":false}`),
			[]string{"tool:removeUser annotations/read_only_on_mutating_tool /annotations/readOnlyHint"}},
		{"read-only, description says it writes", "2025-11-25", tool("note_sink", "Writes the note to disk.", `{"readOnlyHint":true,"openWorldHint":false}`),
			[]string{"tool:note_sink annotations/read_only_on_mutating_tool /annotations/readOnlyHint"}},
		{"read-only list is fine", "2025-11-25", tool("list_notes", "Lists notes.", `{"readOnlyHint":true,"openWorldHint":false}`), []string{}},
		{"get without readOnlyHint", "2025-11-25", tool("get_note", "Returns a note.", `{"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`), []string{
			"tool:get_note annotations/missing_read_only_hint /annotations/readOnlyHint",
			"tool:get_note annotations/reader_without_read_only_hint /annotations/readOnlyHint",
		}},
		{"list with readOnlyHint false", "2025-11-25", tool("list_notes", "Lists notes.", "{"+full+"}"),
			[]string{"tool:list_notes annotations/reader_without_read_only_hint /annotations/readOnlyHint"}},
		{"get_or_create is not a pure reader", "2025-11-25", tool("get_or_create_note", "Returns or creates a note.", "{"+full+"}"), []string{}},
		{"reader whose description mutates", "2025-11-25", tool("fetch_and_store", "Stores a fetched page.", "{"+full+"}"), []string{}},
		{"non-destructive drop", "2025-11-25", tool("drop_table", "Drops a table.", "{"+full+"}"),
			[]string{"tool:drop_table annotations/not_destructive_on_deleting_tool /annotations/destructiveHint"}},
		{"non-destructive, description deletes", "2025-11-25", tool("cleanup", "Deletes old files.", "{"+full+"}"),
			[]string{"tool:cleanup annotations/not_destructive_on_deleting_tool /annotations/destructiveHint"}},
		{"read-only, delete later in the name", "2025-11-25", tool("note_delete", "The note goes away.", `{"readOnlyHint":true,"openWorldHint":false}`),
			[]string{"tool:note_delete annotations/read_only_on_mutating_tool /annotations/readOnlyHint"}},
		// The description's first word is its whole run of ASCII letters,
		// a..z and A..Z included: "Adds" and "Creates" are verbs,
		// "Dropzone" and "DropZone" are not "drop".
		{"read-only, description starts with Adds", "2025-11-25", tool("note_sink", "Adds a note.", `{"readOnlyHint":true,"openWorldHint":false}`),
			[]string{"tool:note_sink annotations/read_only_on_mutating_tool /annotations/readOnlyHint"}},
		{"read-only, description starts with Creates", "2025-11-25", tool("note_sink", "Creates a note.", `{"readOnlyHint":true,"openWorldHint":false}`),
			[]string{"tool:note_sink annotations/read_only_on_mutating_tool /annotations/readOnlyHint"}},
		{"read-only, description starts with Dropzone", "2025-11-25", tool("file_area", "Dropzone for files.", `{"readOnlyHint":true,"openWorldHint":false}`), []string{}},
		{"read-only, description starts with DropZone", "2025-11-25", tool("file_area", "DropZone for files.", `{"readOnlyHint":true,"openWorldHint":false}`), []string{}},
	}
	c := NewChecker()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sortUniqueFindings(c.checkTools(tt.version, toolsFromJSON(t, tt.tool)))
			if diff := cmp.Diff(tt.want, subjectCodes(got, "annotations/")); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnnotationsNotInVersion checks the one server-level note for
// 2024-11-05 servers.
func TestAnnotationsNotInVersion(t *testing.T) {
	c := NewChecker()
	tools := toolsFromJSON(t, `{"name":"a","description":"D.","inputSchema":{"type":"object","additionalProperties":false}}`,
		`{"name":"b","description":"D.","inputSchema":{"type":"object","additionalProperties":false}}`)
	for _, tt := range []struct {
		version string
		want    []string
	}{
		{"2024-11-05", []string{"server annotations/not_in_version"}},
		{"2025-03-26", []string{}},
	} {
		got := c.checkTools(tt.version, tools)
		var server []Finding
		for _, f := range got {
			if f.Subject == "server" {
				server = append(server, f)
			}
		}
		if diff := cmp.Diff(tt.want, subjectCodes(server, "annotations/")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.version, diff)
		}
	}
	if got := c.checkTools("2024-11-05", nil); len(got) != 0 {
		t.Errorf("no tools: got %v, want nothing", got)
	}
}
