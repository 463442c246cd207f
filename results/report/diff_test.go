package report

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/scan/vocab"
)

func TestDiffGolden(t *testing.T) {
	dir := t.TempDir()
	old, cur := diffFixtures()
	oldSt, oldID := triageStore(t, filepath.Join(dir, "old.db"),
		results.ScanInfo{Kind: results.KindTriage, Source: triageSource, StartedAt: triageStart}, old)
	newSt, newID := triageStore(t, filepath.Join(dir, "new.db"),
		results.ScanInfo{Kind: results.KindTriage, Source: triageSource, StartedAt: triageStart.Add(24 * time.Hour)}, cur)
	d := results.DiffScans(diffLoad(t, oldSt, oldID), diffLoad(t, newSt, newID), nil)
	for _, tc := range []struct{ format, file string }{
		{"text", "diff/text.golden"},
		{"json", "diff/json.golden"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			got := triageWrite(t, func(b *bytes.Buffer) error { return WriteDiff(b, d, tc.format) })
			triageGolden(t, tc.file, triageNormalise(got, dir))
		})
	}
}

func TestDiffTextIsSafe(t *testing.T) {
	hostile := "evil\x1b]8;;http://x\x07link\u202e"
	r := func(tool string) results.Record {
		res := triageResult(triageTarget(hostile), triageAlive("1", 1))
		res.Tools = []probe.Tool{triageTool(tool, `{"type":"object","description":"`+"\\u001b[31m"+`"}`, "")}
		return results.Record{TargetKey: "k", Result: res}
	}
	d := results.DiffScans(results.DiffInput{DB: "old\x1b[2J.db", Runs: []results.Record{r("t" + hostile)}}, results.DiffInput{Runs: []results.Record{r("u\x1b[1m")}}, nil)
	out := triageWrite(t, func(b *bytes.Buffer) error { return WriteDiff(b, d, "text") })
	for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
		if bytes.Contains(out, []byte(bad)) {
			t.Errorf("text diff contains %q:\n%s", bad, out)
		}
	}
	if err := WriteDiff(&bytes.Buffer{}, d, "yaml"); !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "use one of text, json") {
		t.Errorf("unknown format error = %v", err)
	}
}

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

func diffLoad(t *testing.T, st *results.Store, id int64) results.DiffInput {
	t.Helper()
	in, err := results.LoadDiffInput(context.Background(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestDiffTextNoChanges: a scan compared with itself says so.
func TestDiffTextNoChanges(t *testing.T) {
	_, cur := diffFixtures()
	dir := t.TempDir()
	st, id := triageStore(t, filepath.Join(dir, "new.db"), results.ScanInfo{Kind: results.KindTriage, Source: "config:new.json", StartedAt: triageStart}, cur)
	after := diffLoad(t, st, id)
	out := triageWrite(t, func(b *bytes.Buffer) error { return WriteDiff(b, results.DiffScans(after, after, nil), "text") })
	if !strings.Contains(string(out), "\nno changes\n") {
		t.Errorf("self diff text lacks 'no changes':\n%s", out)
	}
}
