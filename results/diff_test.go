package results

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/scan/vocab"
)

// diffFixtures returns an old and a new scan of the same portfolio:
//
//   - wellbehaved: a tool removed, one added, a schema and annotations
//     changed, a schema only reordered (no change);
//   - tracker: the score fell 27.5 points, a finding code appeared and one
//     disappeared, the verdict went fix -> fix (no change);
//   - crash: alive and kept before, dead and dropped now;
//   - needsenv: dead before, alive now (a credential was added);
//   - github: matched by name and source across target keys with a new
//     version;
//   - steady: nothing changed, score fell by exactly the threshold;
//   - gone: only in the old scan; fresh: only in the new.
func diffFixtures() (old, cur []triageKeyed) {
	key := func(name string) string { return triageSource + "#" + name }
	alive := func(name, version string, score float64, decision string, tools ...probe.Tool) *probe.Result {
		r := triageResult(triageTarget(name), triageAlive(version, 100))
		r.Tools = append(r.Tools, tools...)
		r.Score = new(score)
		switch decision {
		case "keep":
			r.Verdict = triageRules(nil)
		case "fix":
			r.Verdict = triageRules(map[string]probe.Rule{"findings_to_fix": {Findings: []string{probe.CodeToolDescriptionMissing}}})
		}
		return r
	}
	dead := func(name string) *probe.Result {
		r := triageResult(triageTarget(name), probe.Liveness{Status: vocab.StatusExitedEarly,
			Detail: "the process exited with code 2 before the handshake", Timings: probe.Timings{TotalMs: 30}})
		r.Findings = []probe.Finding{{Code: probe.CodeNotAlive, Severity: probe.SeverityFatal, Subject: "server", Message: "exited with code 2"}}
		r.Verdict = triageRules(map[string]probe.Rule{"no_handshake": {Findings: []string{probe.CodeNotAlive}}})
		return r
	}
	missing := func(code string, sev probe.Severity, subject, msg string) probe.Finding {
		return probe.Finding{Code: code, Severity: sev, Subject: subject, Message: msg}
	}

	list := `{"type":"object","properties":{"limit":{"type":"integer","maximum":100}},"additionalProperties":false}`
	listReordered := `{ "additionalProperties": false, "properties": {"limit": {"maximum": 100, "type": "integer"}}, "type": "object" }`
	create := `{"type":"object","properties":{"name":{"type":"string","maxLength":100}},"required":["name"]}`
	createNew := `{"type":"object","properties":{"name":{"type":"string","maxLength":50},"owner/id":{"type":"string"}},"required":["name","owner/id"]}`

	oldGood := alive("wellbehaved", "1.4.0", 96.4, "keep",
		triageTool("list_projects", list, `{"readOnlyHint":true}`),
		triageTool("create_project", create, `{"readOnlyHint":false,"destructiveHint":false}`),
		triageTool("archive_project", `{"type":"object"}`, ""))
	newGood := alive("wellbehaved", "1.4.0", 95, "keep",
		triageTool("list_projects", listReordered, `{ "readOnlyHint": true }`),
		triageTool("create_project", createNew, `{"readOnlyHint":false,"destructiveHint":true}`),
		triageTool("delete_project", `{"type":"object"}`, `{"destructiveHint":true}`))

	oldTracker := alive("tracker", "0.9.1", 80, "fix", triageTool("create_issue", `{"type":"object"}`, ""))
	oldTracker.Findings = []probe.Finding{
		missing(probe.CodeToolDescriptionMissing, probe.SeverityWarn, "tool:create_issue", "the tool has no description"),
		missing(probe.CodeWrongChannel, probe.SeverityWarn, "tool:create_issue", "validation error sent as a JSON-RPC error"),
	}
	newTracker := alive("tracker", "0.9.1", 52.5, "fix", triageTool("create_issue", `{"type":"object"}`, ""))
	newTracker.Findings = []probe.Finding{
		missing(probe.CodeToolDescriptionMissing, probe.SeverityWarn, "tool:create_issue", "the tool has no description"),
		missing(probe.CodeAcceptedInvalidInput, probe.SeverityError, "tool:create_issue", "returned success for a wrong_type probe"),
		missing(probe.CodeAcceptedInvalidInput, probe.SeverityError, "tool:create_issue", "returned success for a missing_required probe"),
	}

	oldGitHub := alive("github", "", 70, "keep")
	oldGitHub.Target.Version = "1.0.0"
	newGitHub := alive("github", "", 70, "keep")
	newGitHub.Target.Version = "1.1.0"

	old = []triageKeyed{
		{key("wellbehaved"), "wellbehaved", oldGood},
		{key("tracker"), "tracker", oldTracker},
		{key("crash"), "crash", alive("crash", "2.0.0", 90, "keep")},
		{key("needsenv"), "needsenv", dead("needsenv")},
		{"config:old.json#github@1.0.0", "github", oldGitHub},
		{key("steady"), "steady", alive("steady", "1", 80, "keep")},
		{key("gone"), "gone", alive("gone", "1", 75, "keep")},
	}
	cur = []triageKeyed{
		{key("fresh"), "fresh", alive("fresh", "0.1.0", 60, "fix")},
		{key("steady"), "steady", alive("steady", "1", 75, "keep")},
		{"config:new.json#github@1.1.0", "github", newGitHub},
		{key("needsenv"), "needsenv", alive("needsenv", "0.3.0", 88, "keep")},
		{key("crash"), "crash", dead("crash")},
		{key("tracker"), "tracker", newTracker},
		{key("wellbehaved"), "wellbehaved", newGood},
	}
	return old, cur
}

func diffLoad(t *testing.T, st *Store, id int64) DiffInput {
	t.Helper()
	in, err := LoadDiffInput(context.Background(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// diffSummary flattens a diff to "server kind subject" lines.
func diffSummary(d *Diff) []string {
	var out []string
	for _, s := range d.Changed {
		for _, c := range s.Changes {
			out = append(out, strings.TrimSpace(s.Name+" "+c.Kind+" "+c.Subject))
		}
	}
	for _, s := range d.Added {
		out = append(out, s.Name+" added")
	}
	for _, s := range d.Removed {
		out = append(out, s.Name+" removed")
	}
	return out
}

func TestDiffScans(t *testing.T) {
	dir := t.TempDir()
	old, cur := diffFixtures()
	// Both scans in one database, as `mcpvet diff OLD_SCAN NEW_SCAN` reads
	// them.
	path := filepath.Join(dir, "both.db")
	st, oldID := triageStore(t, path, ScanInfo{Kind: KindTriage, Source: triageSource}, old)
	st.Close()
	st, newID := triageStore(t, path, ScanInfo{Kind: KindTriage, Source: triageSource}, cur)
	before, after := diffLoad(t, st, oldID), diffLoad(t, st, newID)

	want := []string{
		"crash died",
		"crash verdict",
		"github version",
		"needsenv revived",
		"needsenv verdict",
		"tracker finding_appeared errors/accepted_invalid_input",
		"tracker finding_disappeared errors/wrong_channel",
		"tracker score_dropped",
		"wellbehaved schema_changed create_project",
		"wellbehaved annotations_changed create_project",
		"wellbehaved tool_added delete_project",
		"wellbehaved tool_removed archive_project",
		"fresh added",
		"gone removed",
	}
	d := DiffScans(before, after, nil)
	if diff := cmp.Diff(want, diffSummary(d)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if d.Compared != 6 || d.Unchanged != 1 || d.ScoreDrop != DefaultDiffScoreDrop {
		t.Errorf("compared %d, unchanged %d, threshold %g", d.Compared, d.Unchanged, d.ScoreDrop)
	}

	// Evidence: old value -> new value.
	byKind := map[string]DiffChange{}
	for _, s := range d.Changed {
		for _, c := range s.Changes {
			byKind[s.Name+" "+c.Kind] = c
		}
	}
	wantEvidence := map[string]DiffChange{
		"crash died":            {Kind: DiffDied, Old: "ok", New: "exited_early: the process exited with code 2 before the handshake"},
		"crash verdict":         {Kind: DiffVerdict, Old: "keep", New: "drop", Detail: "decided by no_handshake"},
		"github version":        {Kind: DiffVersion, Old: "1.0.0", New: "1.1.0"},
		"tracker score_dropped": {Kind: DiffScoreDropped, Old: "80.0", New: "52.5", Detail: "-27.5 points, threshold 5"},
		"tracker finding_appeared": {Kind: DiffFindingAppeared, Subject: probe.CodeAcceptedInvalidInput,
			New: "tool:create_issue: returned success for a wrong_type probe (+1 more)", Detail: "error"},
		"wellbehaved schema_changed": {Kind: DiffSchemaChanged, Subject: "create_project", Fields: []DiffField{
			{Pointer: "/properties/name/maxLength", Old: "100", New: "50"},
			{Pointer: "/properties/owner~1id", New: `{"type":"string"}`},
			{Pointer: "/required", Old: `["name"]`, New: `["name","owner/id"]`},
		}},
		"wellbehaved annotations_changed": {Kind: DiffAnnotationsChanged, Subject: "create_project", Fields: []DiffField{
			{Pointer: "/destructiveHint", Old: "false", New: "true"},
		}},
	}
	for k, want := range wantEvidence {
		if diff := cmp.Diff(want, byKind[k]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	for _, s := range d.Changed {
		if s.Name == "github" && (s.OldKey != "config:old.json#github@1.0.0" || s.NewKey != "config:new.json#github@1.1.0") {
			t.Errorf("github keys %q -> %q", s.OldKey, s.NewKey)
		}
	}

	// Comparing a scan with itself finds nothing.
	same := DiffScans(after, after, nil)
	if len(same.Changed)+len(same.Added)+len(same.Removed) != 0 || same.Unchanged != len(cur) {
		t.Errorf("self diff: %v", diffSummary(same))
	}
}

func TestDiffScoreThreshold(t *testing.T) {
	scoreOf := func(name string, score float64) Record {
		r := triageResult(triageTarget(name), triageAlive("1", 1))
		r.Score = new(score)
		return Record{TargetKey: name, Result: r}
	}
	before := DiffInput{Runs: []Record{scoreOf("a", 80), scoreOf("b", 80), scoreOf("c", 80)}}
	after := DiffInput{Runs: []Record{scoreOf("a", 75), scoreOf("b", 74.9), scoreOf("c", 79.9)}}
	for _, tc := range []struct {
		name string
		opts *DiffOptions
		want []string
	}{
		{"default 5: strictly more", nil, []string{"b score_dropped"}},
		{"zero: any drop", &DiffOptions{ScoreDrop: 0}, []string{"a score_dropped", "b score_dropped", "c score_dropped"}},
		{"20: none", &DiffOptions{ScoreDrop: 20}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, diffSummary(DiffScans(before, after, tc.opts))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

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
