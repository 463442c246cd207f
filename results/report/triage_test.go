package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/internal/sariftest"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

func TestTriageGolden(t *testing.T) {
	tr, dir := fixture.LoadTriage(t)
	// The SARIF region comes from the config; cmd fills Line in.
	for i := range tr.Servers {
		tr.Servers[i].Line = 3 + 4*i
	}
	triageStableCatalog(tr)
	for _, tc := range []struct{ format, file string }{
		{"table", "triage/table.golden"},
		{"json", "triage/json.golden"},
		{"junit", "triage/junit.golden"},
		{"sarif", "triage/sarif.golden"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			got := triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, tc.format, nil) })
			triageGolden(t, tc.file, triageCatalogPlaceholders(triageNormalise(got, dir)))
		})
	}
}

func TestTriageTableIsSafe(t *testing.T) {
	tr, _ := fixture.LoadTriage(t)
	out := string(triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, "table", nil) }))
	for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("table contains %q:\n%s", bad, out)
		}
	}
	// Columns line up: every row of the table has the VERDICT column at
	// the same offset as the header.
	lines := strings.Split(out, "\n")
	var header string
	for _, l := range lines {
		if strings.HasPrefix(l, "SERVER") {
			header = l
		}
	}
	col := strings.Index(header, "VERDICT")
	for _, name := range []string{"wellbehaved", "tracker", "crash", "needsenv"} {
		for _, l := range lines {
			if strings.HasPrefix(l, name+" ") {
				if rest := []rune(l); len(rest) <= col || rest[col] == ' ' {
					t.Errorf("row %q: no verdict at column %d", l, col)
				}
			}
		}
	}
}

func TestTriageSARIFStructure(t *testing.T) {
	tr, _ := fixture.LoadTriage(t)
	out := triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, "sarif", nil) })
	var log sariftest.Log
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	if log.Version != "2.1.0" || log.Schema != TriageSARIFSchema {
		t.Errorf("version %q, $schema %q", log.Version, log.Schema)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "mcpvet" {
		t.Errorf("driver name %q", run.Tool.Driver.Name)
	}
	ids := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		if _, dup := ids[r.ID]; dup {
			t.Errorf("rule id %q is not unique", r.ID)
		}
		ids[r.ID] = i
		if e, ok := probe.Lookup(r.ID); !ok || r.Help.Text != e.Fix || r.ShortDescription.Text != e.Title {
			t.Errorf("rule %q: help %q, want the catalog fix", r.ID, r.Help.Text)
		}
	}
	nFindings := 0
	for _, s := range tr.Servers {
		nFindings += len(s.Findings)
	}
	if len(run.Results) != nFindings {
		t.Errorf("%d results, want one per finding (%d)", len(run.Results), nFindings)
	}
	levels := map[string]bool{"error": true, "warning": true, "note": true}
	for _, r := range run.Results {
		i, ok := ids[r.RuleID]
		if !ok {
			t.Errorf("result ruleId %q is not among the rules", r.RuleID)
		} else if i != r.RuleIndex {
			t.Errorf("result %q: ruleIndex %d, want %d", r.RuleID, r.RuleIndex, i)
		}
		if !levels[r.Level] {
			t.Errorf("result %q: level %q", r.RuleID, r.Level)
		}
		if len(r.Locations) != 1 || r.Locations[0].PhysicalLocation.ArtifactLocation.URI != "testdata/claude_desktop_config.json" {
			t.Errorf("result %q: locations %+v", r.RuleID, r.Locations)
		}
		if strings.ContainsAny(r.Message.Text, "\x1b\x07\u202e") {
			t.Errorf("result message %q carries control characters", r.Message.Text)
		}
	}
}

func TestTriageSARIFLevel(t *testing.T) {
	for sev, want := range map[probe.Severity]string{
		probe.SeverityFatal: "error", probe.SeverityError: "error", probe.SeverityWarn: "warning", probe.SeverityInfo: "note",
	} {
		if got := TriageSARIFLevel(sev); got != want {
			t.Errorf("TriageSARIFLevel(%s) = %q, want %q", sev, got, want)
		}
	}
}

func TestTriageSARIFURI(t *testing.T) {
	for in, want := range map[string]string{
		"claude_desktop_config.json":         "claude_desktop_config.json",
		"configs/my config.json":             "configs/my%20config.json",
		"/home/u/.config/Claude/config.json": "file:///home/u/.config/Claude/config.json",
		"/home/u/Application Support/x.json": "file:///home/u/Application%20Support/x.json",
		"relative/../odd#name?.json":         "relative/../odd%23name%3F.json",
	} {
		if got := triageSARIFURI(in); got != want {
			t.Errorf("triageSARIFURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTriageJUnitParses checks the JUnit document, whose failures follow
// --fail-on: by default (drop) a server to fix passes with its reasons in
// system-out; under --fail-on fix it fails.
func TestTriageJUnitParses(t *testing.T) {
	for _, failOn := range []string{"", "drop", "fix"} {
		t.Run("fail-on="+failOn, func(t *testing.T) { testTriageJUnitParses(t, failOn) })
	}
}

func testTriageJUnitParses(t *testing.T, failOn string) {
	tr, _ := fixture.LoadTriage(t)
	out := triageWrite(t, func(b *bytes.Buffer) error {
		return WriteTriage(b, tr, "junit", &TriageOptions{FailOn: failOn})
	})
	wantFailures, tracker := 1, "pass"
	if failOn == "fix" {
		wantFailures, tracker = 2, "failure:fix"
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Skipped  int      `xml:"skipped,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	d := xml.NewDecoder(bytes.NewReader(out))
	d.Strict = true
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, out)
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if cd, ok := tok.(xml.CharData); err != nil || !ok || len(bytes.TrimSpace(cd)) > 0 {
			t.Fatalf("trailing content after the document: %v %v", tok, err)
		}
	}
	if doc.Tests != 6 || doc.Failures != wantFailures || doc.Skipped != 3 || len(doc.Suites) != 1 {
		t.Fatalf("tests %d failures %d skipped %d suites %d", doc.Tests, doc.Failures, doc.Skipped, len(doc.Suites))
	}
	got := map[string]string{}
	for _, c := range doc.Suites[0].Cases {
		switch {
		case c.Failure != nil:
			got[c.Name] = "failure:" + c.Failure.Type
			if !strings.Contains(c.Failure.Text, "next step: ") {
				t.Errorf("failure of %s has no next step:\n%s", c.Name, c.Failure.Text)
			}
		case c.Skipped != nil:
			got[c.Name] = "skipped"
		default:
			got[c.Name] = "pass"
		}
	}
	want := map[string]string{"wellbehaved": "pass", "tracker": tracker, "crash": "failure:drop",
		"needsenv": "skipped", "legacy": "skipped", "later": "skipped"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("test cases (-want +got):\n%s", diff)
	}
}

// triageStableCatalog replaces next steps that are catalog fixes with a
// placeholder naming the code, and triageCatalogPlaceholders does the same
// for catalog titles and fixes in a JSON report, so the golden files do not
// change when the probe catalog's wording does. TestNewTriageServer and
// TestTriageSARIFStructure check the real texts.
func triageStableCatalog(tr *results.Triage) {
	for i := range tr.Servers {
		for _, e := range probe.Catalog() {
			if tr.Servers[i].NextStep == e.Fix {
				tr.Servers[i].NextStep = "(catalog fix of " + e.Code + ")"
			}
		}
	}
}

func triageCatalogPlaceholders(b []byte) []byte {
	quote := func(s string) []byte {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			panic(err)
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	for _, e := range probe.Catalog() {
		b = bytes.ReplaceAll(b, append([]byte(`"text": `), quote(e.Title)...), append([]byte(`"text": `), quote("(catalog title of "+e.Code+")")...))
		b = bytes.ReplaceAll(b, append([]byte(`"text": `), quote(e.Fix)...), append([]byte(`"text": `), quote("(catalog fix of "+e.Code+")")...))
	}
	return b
}

func TestTriageJUnitHostileText(t *testing.T) {
	tr := &results.Triage{Source: "config:x.json", Servers: []results.TriageServer{{
		Name: "a\"<&>\x1b[31mb", Decision: "drop", Reasons: []string{"ends ]]> here \x01 and\nnext"},
		NextStep: "fix ]]> it", Findings: []probe.Finding{},
	}}}
	out := triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, "junit", nil) })
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, out)
	}
	c := doc.Suites[0].Cases[0]
	if c.Name != `a"<&>b` {
		t.Errorf("name = %q", c.Name)
	}
	for _, want := range []string{"reason: ends ]]> here  and next\n", "next step: fix ]]> it\n"} {
		if !strings.Contains(c.Failure.Text, want) {
			t.Errorf("failure text %q lacks %q", c.Failure.Text, want)
		}
	}
}
