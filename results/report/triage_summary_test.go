package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

// TestTriageSummary: the default table is one line per distinct server
// (entries reaching one run share it), names the clients, and gives the
// verdict in the user's words, whole, within 80 columns.
func TestTriageSummary(t *testing.T) {
	tr, _ := fixture.LoadTriage(t)
	// wellbehaved is named by three clients (two entries share its run).
	base := tr.Servers[0]
	var servers []results.TriageServer
	for _, c := range []string{"Claude Desktop", "Cursor", "Windsurf"} {
		s := base
		s.Client, s.Config = c, "/h/"+c+".json"
		if c != "Claude Desktop" {
			s.Probed, s.Key = base.Key, base.Key+"-"+c
			s.Name = "wb"
		}
		servers = append(servers, s)
	}
	for _, s := range tr.Servers[1:] {
		s.Client, s.Config = "Cursor", "/h/Cursor.json"
		servers = append(servers, s)
	}
	tr.Servers = servers
	tr.Skipped = []results.TriageSkipped{{Client: "Zed", Name: "mcp-server-github", Reason: "a Zed extension server (settings without a command): Zed's extension installs and starts it"}}
	var b bytes.Buffer
	if err := WriteTriage(&b, tr, "table", &TriageOptions{Width: 80, Summary: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Logf("\n%s", out)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for _, l := range lines {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	rows := map[string]string{}
	for _, l := range lines {
		for _, name := range []string{"wellbehaved, wb", "tracker", "crash", "needsenv", "legacy", "later"} {
			if strings.HasPrefix(l, name+" ") {
				if _, dup := rows[name]; dup {
					t.Errorf("two rows for %s", name)
				}
				rows[name] = l
			}
		}
	}
	if len(rows) != 6 {
		t.Errorf("rows = %d, want 6 (one per distinct server):\n%s", len(rows), out)
	}
	if r := rows["wellbehaved, wb"]; !strings.Contains(r, "Claude Desktop") || !strings.HasSuffix(r, "usable") {
		t.Errorf("wellbehaved row %q: want its clients and usable", r)
	}
	// The verdict words appear whole, wrapped but never cut.
	joined := strings.Join(strings.Fields(out), " ")
	for _, s := range tr.Servers {
		if s.Words != "" && !strings.Contains(joined, strings.Join(strings.Fields(s.Words), " ")) {
			t.Errorf("verdict %q of %s is not whole in the table", s.Words, s.Name)
		}
	}
	if !strings.Contains(out, "mcp-server-github (Zed): a Zed extension server") {
		t.Errorf("the skipped entry is not listed:\n%s", out)
	}
	if strings.Contains(out, "\x1b") {
		t.Error("escape sequence in the table")
	}
}
