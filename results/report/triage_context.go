package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpvet/mcpvet/results"
)

// writeTriageContext writes what each client loads into a model's context
// from its servers (tokens, the heaviest servers and tools) and how many
// error responses resolved on the first retry. Server and tool names are
// untrusted: each goes through triageCell. Lines wrap at width (0: no
// limit). Compact (the one-screen summary) gives one line per client: its
// name without the config's path, the total and the heaviest server; the
// heaviest tools are in --verbose and the other layouts.
func writeTriageContext(b *bytes.Buffer, t *results.Triage, width int, compact bool) {
	if len(t.Context) > 0 {
		fmt.Fprintf(b, "\ncontext cost (%s tokens a client loads from its servers)\n", t.Context[0].Encoding)
		for _, c := range t.Context {
			if compact {
				var notes []string
				if len(c.HeaviestServers) > 1 {
					h := c.HeaviestServers[0]
					notes = append(notes, fmt.Sprintf("heaviest: %s %s", triageCell(h.Server), fmtInt(h.Tokens)))
				}
				if c.Unmeasured > 0 {
					notes = append(notes, fmt.Sprintf("%d not measured", c.Unmeasured))
				}
				if c.Estimated {
					notes = append(notes, "partly estimated")
				}
				line := fmt.Sprintf("%s: %s tokens", triageCell(clientName(c.Client)), fmtInt(c.Tokens))
				if len(notes) > 0 {
					line += " (" + strings.Join(notes, "; ") + ")"
				}
				fmt.Fprintln(b, "  "+cutRunes(line, max(20, width-2)))
				continue
			}
			line := fmt.Sprintf("%s: %s tokens from %s", triageCell(c.Client), fmtInt(c.Tokens), nounCount(c.Servers, "server"))
			if c.Estimated {
				line += " (partly estimated)"
			}
			if c.Unmeasured > 0 {
				line += fmt.Sprintf(", %d not measured", c.Unmeasured)
			}
			if len(c.HeaviestServers) > 1 {
				var hs []string
				for _, h := range c.HeaviestServers {
					hs = append(hs, fmt.Sprintf("%s %s", triageCell(h.Server), fmtInt(h.Tokens)))
				}
				line += "; heaviest servers: " + strings.Join(hs, ", ")
			}
			if len(c.HeaviestTools) > 0 {
				var ts []string
				for _, h := range c.HeaviestTools {
					ts = append(ts, fmt.Sprintf("%s/%s %s", triageCell(h.Server), triageCell(h.Tool), fmtInt(h.Tokens)))
				}
				line += "; heaviest tools: " + strings.Join(ts, ", ")
			}
			writeWrapped(b, line, width)
		}
	}
	if r := t.Retry; r.Tried > 0 {
		fmt.Fprintf(b, "\nerrors that resolve on the first retry: %d/%d (95%% CI %.0f–%.0f%%)\n", r.Resolved, r.Tried, 100*r.Low, 100*r.High)
	}
}

// clientName shortens a client set's label, "Cursor (FILE)" or "Claude
// Code (FILE) project /p", to "Cursor" or "Claude Code project p"; a label
// that is a path stays as it is.
func clientName(label string) string {
	name, rest, ok := strings.Cut(label, " (")
	if !ok {
		return label
	}
	if _, project, ok := strings.Cut(rest, ") project "); ok {
		return name + " project " + filepath.Base(project)
	}
	return name
}

// writeWrapped writes s indented by two spaces, wrapped at width (0: one
// line), continuation lines indented by four.
func writeWrapped(b *bytes.Buffer, s string, width int) {
	if width <= 0 {
		fmt.Fprintln(b, "  "+s)
		return
	}
	for i, l := range triageWrap(s, max(20, width-4), 1<<10) {
		if i == 0 {
			fmt.Fprintln(b, "  "+l)
		} else {
			fmt.Fprintln(b, "    "+l)
		}
	}
}
