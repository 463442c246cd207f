package report

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestFitList: the IN column lists as many clients as fit in width (an
// exact fit is whole), then "+N" for the rest, then "N clients", then
// the first name cut; one name longer than width is cut, never
// "1 clients". (Issue 26: triage_summary.go:210 and :214 survivors; the
// "1 clients" case was a bug for a config file named by no client whose
// base name is longer than 24 runes.)
func TestFitList(t *testing.T) {
	for _, tc := range []struct {
		items []string
		width int
		want  string
	}{
		{nil, 10, "-"},
		{[]string{"Cursor", "Windsurf Preview"}, 24, "Cursor, Windsurf Preview"},
		{[]string{"Cursor", "Windsurf Preview"}, 23, "Cursor +1"},
		{[]string{"a", "b", "cc"}, 7, "a, b +1"},
		{[]string{"a", "b", "cc"}, 6, "a +2"},
		{[]string{"Claude Desktop", "Cursor", "Windsurf"}, 9, "3 clients"},
		{[]string{"Claude Desktop", "Cursor"}, 5, "Clau…"},
		{[]string{"team-mcp-servers-config.json"}, 24, "team-mcp-servers-config…"},
		{[]string{"team-mcp-servers-config.json"}, 28, "team-mcp-servers-config.json"},
	} {
		if got := fitList(tc.items, tc.width); got != tc.want {
			t.Errorf("fitList(%q, %d) = %q, want %q", tc.items, tc.width, got, tc.want)
		}
	}
}

// TestSummaryVerdictOf: the verdict column in the user's words, and a
// server without a verdict says why when a reason is stored.
func TestSummaryVerdictOf(t *testing.T) {
	for _, tc := range []struct {
		s    results.TriageServer
		want string
	}{
		{results.TriageServer{Pending: true, Decision: vocab.DecisionKeep}, "not probed: the scan stopped before it ran"},
		{results.TriageServer{Decision: vocab.DecisionFix, Words: "usable, author has 2 items"}, "usable, author has 2 items"},
		{results.TriageServer{Reasons: []string{"timed out", "second"}}, "not graded: timed out"},
		{results.TriageServer{}, "not graded"},
		{results.TriageServer{Decision: vocab.DecisionKeep}, "usable"},
		{results.TriageServer{Decision: vocab.DecisionDrop}, "drop"},
	} {
		if got := summaryVerdictOf(tc.s); got != tc.want {
			t.Errorf("summaryVerdictOf(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestTriageSummaryLines: the exact one-screen summary of small triages:
// width 0 is 100 columns; a verdict column squeezed under 28 takes room
// from IN and wraps under itself; the across-servers and skipped blocks
// only when there are some; IN from the config's base name when no
// client is known, "-" when neither; the closing counts per verdict
// (only non-zero ones), "1 server" singular and the config entries only
// when they differ from the servers. (Issue 26: the 20 real survivors of
// triage_summary.go.)
func TestTriageSummaryLines(t *testing.T) {
	long := "do not use: the server reads files outside the folders you gave it and sends them to a host it names itself"
	const tail = "details: mcpvet triage --verbose, or --server NAME for one server\n"
	for _, tc := range []struct {
		name  string
		width int
		tr    results.Triage
		want  string
	}{
		{"width 0 is 100", 0, results.Triage{Config: "/h/c.json", ScanID: 7, Status: "done", Servers: []results.TriageServer{
			{Key: "a", Name: "alpha", Client: "Cursor", Decision: vocab.DecisionDrop, Words: long},
		}}, `triage of /h/c.json (scan 7, done)

SERVER  IN      VERDICT
alpha   Cursor  do not use: the server reads files outside the folders you gave it and sends them to
                a host it names itself

1 server: 1 do not use
` + tail},
		{"verdict column at its minimum", 80, results.Triage{Config: "/h/c.json", ScanID: 8, Status: "done", Servers: []results.TriageServer{
			{Key: "a", Name: "a-very-long-server-name-that-is-cut", Client: "Cursor", Decision: vocab.DecisionDrop, Words: long},
			{Key: "a2", Probed: "a", Name: "a2", Client: "Windsurf Preview", Decision: vocab.DecisionDrop, Words: long},
		}}, `triage of /h/c.json (scan 8, done)

SERVER                      IN                      VERDICT
a-very-long-server-name-t…  Cursor +1               do not use: the server reads
                                                    files outside the folders
                                                    you gave it and sends them
                                                    to a host it names itself

1 server (2 config entries): 1 do not use
` + tail},
		{"counts, portfolio, skipped", 80, results.Triage{Config: "/h/c.json", ScanID: 9, Status: "done", Servers: []results.TriageServer{
			{Key: "k", Name: "keep", Config: "/p/.mcp.json", Decision: vocab.DecisionKeep},
			{Key: "k2", Probed: "k", Name: "keep", Client: "Cursor", Decision: vocab.DecisionKeep},
			{Key: "n", Name: "nograde", Reasons: []string{"the handshake timed out"}},
			{Key: "m", Name: "mute"},
			{Key: "p", Name: "later", Pending: true},
		},
			Portfolio: []probe.PortfolioFinding{{Code: "portfolio/tool_shadowing", Servers: []string{"keep", "mute"}, Names: []string{"search"}}},
			Skipped:   []results.TriageSkipped{{Config: "/h/z.json", Name: "zed-ext", Reason: "an extension"}},
		}, `triage of /h/c.json (scan 9, done)

SERVER   IN                 VERDICT
keep     .mcp.json, Cursor  usable
nograde  -                  not graded: the handshake timed out
mute     -                  not graded
later    -                  not probed: the scan stopped before it ran

across servers (1)
  tool_shadowing keep + mute: search

skipped entries (1)
  zed-ext (z.json): an extension

4 servers (5 config entries): 1 usable, 2 not graded, 1 not probed
` + tail},
		{"a long across-servers line is cut at the width", 80, results.Triage{Config: "/h/c.json", ScanID: 12, Status: "done", Servers: []results.TriageServer{
			{Key: "k", Name: "keep", Decision: vocab.DecisionKeep},
		},
			Portfolio: []probe.PortfolioFinding{{Code: "portfolio/tool_shadowing", Servers: []string{"keep", "other"},
				Names: []string{"search_documents", "read_document", "list_documents", "write_document", "delete_document"}}},
		}, `triage of /h/c.json (scan 12, done)

SERVER  IN  VERDICT
keep    -   usable

across servers (1)
  tool_shadowing keep + other: search_documents, read_document, list_documents,…

1 server: 1 usable
` + tail},
		{"one server, nothing else", 80, results.Triage{Config: "/h/c.json", ScanID: 10, Status: "done", Servers: []results.TriageServer{
			{Key: "k", Name: "keep", Decision: vocab.DecisionKeep},
		}}, `triage of /h/c.json (scan 10, done)

SERVER  IN  VERDICT
keep    -   usable

1 server: 1 usable
` + tail},
	} {
		var b bytes.Buffer
		if err := writeTriageSummary(&b, &tc.tr, tc.width); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, b.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
