package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mcpvet/mcpvet/results"
)

// writeTriageContext writes what each client loads into a model's context
// from its servers (tokens, the heaviest servers and tools) and how many
// error responses resolved on the first retry. Server and tool names are
// untrusted: each goes through triageCell. Lines wrap at width (0: no
// limit).
func writeTriageContext(b *bytes.Buffer, t *results.Triage, width int) {
	if len(t.Context) > 0 {
		fmt.Fprintf(b, "\ncontext cost (%s tokens a client loads from its servers)\n", t.Context[0].Encoding)
		for _, c := range t.Context {
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
