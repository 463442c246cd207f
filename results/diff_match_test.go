package results

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
)

func TestDiffRawJSON(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b    string
		changed bool
		fields  []DiffField
		more    int
	}{
		{"equal", `{"a":1}`, `{"a":1}`, false, nil, 0},
		{"reordered and spaced", `{"a":1,"b":[1,2]}`, "{ \"b\": [1, 2],\n \"a\": 1 }", false, nil, 0},
		{"both absent", ``, ``, false, nil, 0},
		{"appeared", ``, `{"readOnlyHint":true}`, true, []DiffField{{Pointer: "", New: `{"readOnlyHint":true}`}}, 0},
		{"disappeared", `{"x":1}`, ``, true, []DiffField{{Pointer: "", Old: `{"x":1}`}}, 0},
		{"number form counts", `{"a":1}`, `{"a":1.0}`, true, []DiffField{{Pointer: "/a", Old: "1", New: "1.0"}}, 0},
		{"array length", `{"r":["a"]}`, `{"r":["a","b"]}`, true, []DiffField{{Pointer: "/r", Old: `["a"]`, New: `["a","b"]`}}, 0},
		{"array element", `[{"k":1},{"k":2}]`, `[{"k":1},{"k":3}]`, true, []DiffField{{Pointer: "/1/k", Old: "2", New: "3"}}, 0},
		{"type change", `{"a":{"b":1}}`, `{"a":"b"}`, true, []DiffField{{Pointer: "/a", Old: `{"b":1}`, New: `"b"`}}, 0},
		{"escaped pointer", `{"a/b":{"~":1}}`, `{"a/b":{"~":2}}`, true, []DiffField{{Pointer: "/a~1b/~0", Old: "1", New: "2"}}, 0},
		{"not JSON", `{oops`, `{"a":1}`, true, []DiffField{{Pointer: "", Old: `{oops`, New: `{"a":1}`}}, 0},
		{"capped", `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1}`,
			`{"a":2,"b":2,"c":2,"d":2,"e":2,"f":2,"g":2,"h":2,"i":2,"j":2,"k":2,"l":2}`, true, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields, more, changed := diffRawJSON(json.RawMessage(tc.a), json.RawMessage(tc.b))
			if changed != tc.changed || more != tc.more {
				t.Errorf("changed %v more %d, want %v %d", changed, more, tc.changed, tc.more)
			}
			if tc.name == "capped" {
				if len(fields) != diffMaxFields {
					t.Errorf("%d fields, want %d", len(fields), diffMaxFields)
				}
				return
			}
			if diff := cmp.Diff(tc.fields, fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
	huge := `{"d":"` + strings.Repeat("x", 5000) + `"}`
	fields, _, _ := diffRawJSON(json.RawMessage(`{"d":""}`), json.RawMessage(huge))
	if len(fields) != 1 || len(fields[0].New) > diffMaxValueBytes+len("…") {
		t.Errorf("huge value not truncated: %d bytes", len(fields[0].New))
	}
}

func TestDiffMatch(t *testing.T) {
	rec := func(key, name, source string) Record {
		return Record{TargetKey: key, Result: &probe.Result{Target: probe.Target{Name: name, Source: source}}}
	}
	for _, tc := range []struct {
		name     string
		old, cur []Record
		pairs    []string // "oldKey=newKey"
		onlyOld  []string
		onlyNew  []string
	}{
		{"by key", []Record{rec("k1", "a", "s"), rec("k2", "b", "s")}, []Record{rec("k2", "b", "s"), rec("k1", "a", "s")},
			[]string{"k2=k2", "k1=k1"}, nil, nil},
		{"by identity across keys", []Record{rec("a@1", "a", "registry")}, []Record{rec("a@2", "a", "registry")},
			[]string{"a@1=a@2"}, nil, nil},
		{"identity needs the source or a unique name", []Record{rec("x#a", "a", "config:x"), rec("x#a2", "a", "config:y")},
			[]Record{rec("z#a", "a", "config:z")}, nil, []string{"x#a", "x#a2"}, []string{"z#a"}},
		{"unique name across sources", []Record{rec("x#a", "a", "config:x")}, []Record{rec("z#a", "a", "config:z")},
			[]string{"x#a=z#a"}, nil, nil},
		{"key first, then identity", []Record{rec("a@1", "a", "r"), rec("a@2", "a", "r")},
			[]Record{rec("a@2", "a", "r"), rec("a@3", "a", "r")}, []string{"a@2=a@2", "a@1=a@3"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pairs, onlyOld, onlyNew := diffMatch(tc.old, tc.cur)
			var gotPairs, gotOld, gotNew []string
			for _, p := range pairs {
				gotPairs = append(gotPairs, p[0].TargetKey+"="+p[1].TargetKey)
			}
			for _, r := range onlyOld {
				gotOld = append(gotOld, r.TargetKey)
			}
			for _, r := range onlyNew {
				gotNew = append(gotNew, r.TargetKey)
			}
			if diff := cmp.Diff(tc.pairs, gotPairs); diff != "" {
				t.Errorf("pairs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.onlyOld, gotOld); diff != "" {
				t.Errorf("only old (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.onlyNew, gotNew); diff != "" {
				t.Errorf("only new (-want +got):\n%s", diff)
			}
		})
	}
}
