package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

// TestTriageContextAndRetry: the triage sums what one client loads (each
// distinct run once), lists the heaviest servers and tools, counts the
// errors that resolved on the first retry, and writes them through the
// untrusted-text filter in the table and the summary.
func TestTriageContextAndRetry(t *testing.T) {
	tr, _ := fixture.LoadTriage(t)
	want := 0
	var heaviest string
	best := -1
	for _, k := range fixture.TriageServers() {
		if k.Result != nil && k.Result.Context != nil {
			want += k.Result.Context.Total
			if k.Result.Context.Total > best {
				best, heaviest = k.Result.Context.Total, k.Name
			}
		}
	}
	if len(tr.Context) != 1 {
		t.Fatalf("context sets: %+v", tr.Context)
	}
	c := tr.Context[0]
	if c.Tokens != want || c.Servers != 3 || c.Unmeasured != 2 || c.Encoding != "o200k_base" {
		t.Errorf("context %+v, want %d tokens from 3 servers, 2 not measured", c, want)
	}
	if len(c.HeaviestServers) == 0 || c.HeaviestServers[0].Server != heaviest || len(c.HeaviestTools) != 3 ||
		c.HeaviestTools[0].Tokens < c.HeaviestTools[1].Tokens || c.HeaviestTools[1].Tokens < c.HeaviestTools[2].Tokens {
		t.Errorf("heaviest: %+v / %+v", c.HeaviestServers, c.HeaviestTools)
	}
	if tr.Retry.Resolved != 1 || tr.Retry.Tried != 2 {
		t.Errorf("retry %+v, want 1/2", tr.Retry)
	}

	// A second entry reaching the same run counts once.
	dup := tr.Servers[0]
	dup.Key, dup.Probed = dup.Key+"-again", tr.Servers[0].Key
	tr.Servers = append(tr.Servers, dup)
	tr.MeasureContext()
	if tr.Context[0].Tokens != want || tr.Retry.Tried != 2 {
		t.Errorf("a duplicate entry counted twice: %d tokens, %d tried", tr.Context[0].Tokens, tr.Retry.Tried)
	}

	// Two clients: each gets its own sum.
	for i := range tr.Servers {
		tr.Servers[i].Config, tr.Servers[i].Client = "/a.json", "Cursor"
	}
	tr.Servers[1].Config, tr.Servers[1].Client = "/b.json", "Claude Code"
	tr.MeasureContext()
	if len(tr.Context) != 2 || tr.Context[0].Client != "Cursor (/a.json)" || tr.Context[1].Client != "Claude Code (/b.json)" ||
		tr.Context[0].Tokens+tr.Context[1].Tokens != want {
		t.Errorf("per client: %+v", tr.Context)
	}

	hostile := "rm\x1b[2J\x1b]0;pwned\x07_all"
	tr.Context[0].HeaviestTools[0].Tool = hostile
	tr.Context[0].HeaviestServers = append(tr.Context[0].HeaviestServers, results.TriageWeight{Server: hostile, Tokens: 1})
	for _, o := range []*TriageOptions{nil, {Summary: true, Width: 100}, {Width: 90}} {
		var b bytes.Buffer
		if err := WriteTriage(&b, tr, "table", o); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		// The one-screen summary names the client without its config's
		// path, one line per client.
		client := "Cursor (/a.json): "
		if o != nil && o.Summary {
			client = "\n  Cursor: "
		}
		if !strings.Contains(out, "context cost (o200k_base tokens a client loads from its servers)") ||
			!strings.Contains(out, "errors that resolve on the first retry: 1/2") || !strings.Contains(out, client) {
			t.Errorf("options %+v: context or retry line missing:\n%s", o, out)
		}
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("options %+v: a control character from a tool name reached the table", o)
		}
	}
}

// TestClientName pins the short client names of the one-screen summary.
func TestClientName(t *testing.T) {
	for label, want := range map[string]string{
		"Cursor (/home/u/.cursor/mcp.json)":                                "Cursor",
		"Claude Code (/home/u/.claude.json) project /home/u/src/wordcount": "Claude Code project wordcount",
		"/etc/mcp/servers.json":                                            "/etc/mcp/servers.json",
	} {
		if got := clientName(label); got != want {
			t.Errorf("clientName(%q) = %q, want %q", label, got, want)
		}
	}
}
