package probe

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScanPage: every item is counted, the first MaxItems kept, the page
// for validation holds the kept items and small members only, and shapes
// that are not a list result are refused.
func TestScanPage(t *testing.T) {
	tools := func(n int) string {
		var b []string
		for i := range n {
			b = append(b, fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i))
		}
		return strings.Join(b, ",")
	}
	big := strings.Repeat("y", maxExtraMember+1)
	tests := []struct {
		name       string
		result     string
		maxItems   int
		ok         bool
		items      int
		kept       int
		next       string
		pageTools  int
		pageSame   bool // the page is the result itself
		pageHasPad bool
	}{
		{"small", `{"tools":[` + tools(3) + `],"nextCursor":"c2"}`, 10, true, 3, 3, `"c2"`, 3, true, false},
		{"over the item cap", `{"tools":[` + tools(25) + `]}`, 10, true, 25, 10, "", 10, false, false},
		{"padding member dropped from the page", `{"tools":[` + tools(2) + `],"padding":"` + big + `"}`, 10, true, 2, 2, "", 2, false, false},
		{"small extra member kept", `{"tools":[` + tools(2) + `],"padding":"yy"}`, 10, true, 2, 2, "", 2, true, true},
		{"null items", `{"tools":null}`, 10, true, 0, 0, "", 0, true, false},
		{"null cursor", `{"tools":[],"nextCursor":null}`, 10, true, 0, 0, "", 0, true, false},
		{"no items", `{"prompts":[]}`, 10, false, 0, 0, "", 0, false, false},
		{"items not an array", `{"tools":{}}`, 10, false, 0, 0, "", 0, false, false},
		{"not an object", `[1,2]`, 10, false, 0, 0, "", 0, false, false},
		{"truncated JSON", `{"tools":[{"name":"a"`, 10, false, 0, 0, "", 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &Result{}
			st := &listState{}
			page, next, ok := scanPage(json.RawMessage(tt.result), listKinds[0], res, Options{MaxItems: tt.maxItems}, st)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			got := []any{st.items, st.kept, len(res.Tools), string(next)}
			want := []any{tt.items, tt.kept, tt.kept, tt.next}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("items, kept, tools, next (-want +got):\n%s", d)
			}
			var body struct {
				Tools   []json.RawMessage `json:"tools"`
				Padding *string           `json:"padding"`
			}
			if err := json.Unmarshal(page, &body); err != nil {
				t.Fatalf("page is not JSON: %v", err)
			}
			if len(body.Tools) != tt.pageTools || (body.Padding != nil) != tt.pageHasPad {
				t.Errorf("page has %d tools, padding %v; want %d, %v", len(body.Tools), body.Padding != nil, tt.pageTools, tt.pageHasPad)
			}
			if same := string(page) == tt.result; same != tt.pageSame {
				t.Errorf("page is the result itself: %v, want %v", same, tt.pageSame)
			}
		})
	}
}

// TestScanPageByteBound: items past the kept-bytes bound are counted and
// mark the listing truncated (judged as the worst by CodeListTruncated).
func TestScanPageByteBound(t *testing.T) {
	res := &Result{}
	st := &listState{keptBytes: maxListKeptBytes - 40}
	_, _, ok := scanPage(json.RawMessage(`{"tools":[{"name":"a"},{"name":"b","description":"`+strings.Repeat("x", 64)+`"}]}`), listKinds[0], res, Options{MaxItems: 10}, st)
	if !ok || st.items != 2 || st.kept != 1 || !st.truncated {
		t.Errorf("ok %v items %d kept %d truncated %v, want true 2 1 true", ok, st.items, st.kept, st.truncated)
	}
}
