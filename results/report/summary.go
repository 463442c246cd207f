package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// WriteSummary writes a terminal summary of one probe result: liveness,
// what the server offers, the verdict and the findings, worst first. Every
// string from the server passes through [safe.Line] or [safe.Terminal].
func WriteSummary(w io.Writer, res *probe.Result) error {
	b := &strings.Builder{}
	l := res.Liveness
	name := res.Target.Name
	if l.ServerInfo != nil {
		name = fmt.Sprintf("%s %s", l.ServerInfo.Name, l.ServerInfo.Version)
	}
	fmt.Fprintf(b, "%s\n", safe.Line(name))
	fmt.Fprintf(b, "  target     %s (%s", safe.Line(res.Target.Name), res.Target.Transport)
	if res.Target.Sandbox != "" {
		fmt.Fprintf(b, ", sandbox %s", res.Target.Sandbox)
	}
	fmt.Fprintf(b, ")\n")
	fmt.Fprintf(b, "  liveness   %s", l.Status)
	if l.Status == vocab.StatusStdoutPollution && l.HandshakeCompleted {
		fmt.Fprintf(b, " (handshake completed anyway)")
	}
	fmt.Fprintln(b)
	if l.Detail != "" {
		fmt.Fprintf(b, "             %s\n", safe.Line(l.Detail))
	}
	if l.Evidence != "" && l.Status != vocab.StatusOK {
		fmt.Fprintf(b, "  evidence   %s\n", safe.Line(l.Evidence))
	}
	if l.HandshakeCompleted {
		fmt.Fprintf(b, "  protocol   %s via %s, handshake %.0f ms\n", safe.Line(l.ProtocolVersion), l.Handshake, l.Timings.HandshakeMs)
		fmt.Fprintf(b, "  offers     %d tools, %d prompts, %d resources, %d resource templates\n",
			len(res.Tools), len(res.Prompts), len(res.Resources), len(res.ResourceTemplates))
		if c := res.Context; c != nil {
			writeContextCost(b, c)
		}
		if rr := probe.Rates(res); rr.All.Tried > 0 {
			writeRetryRates(b, rr)
		}
	} else if tail := strings.TrimSpace(l.StderrTail); tail != "" {
		lines := strings.Split(safe.Terminal(tail), "\n")
		if len(lines) > 5 {
			lines = lines[len(lines)-5:]
		}
		fmt.Fprintf(b, "  stderr     %s\n", strings.Join(lines, "\n             "))
	}
	if l.ExitCode != nil {
		fmt.Fprintf(b, "  exit code  %d\n", *l.ExitCode)
	}
	if len(res.Probes) > 0 {
		classes := map[string]int{}
		for _, p := range res.Probes {
			classes[p.Class]++
		}
		fmt.Fprintf(b, "  probes     %d sent: %s\n", len(res.Probes), countList(classes))
	}
	if res.Score != nil {
		fmt.Fprintf(b, "  score      %.0f/100 (rubric %s)\n", *res.Score, res.RubricVersion)
	}
	if v := res.Verdict; v != nil {
		fmt.Fprintf(b, "  verdict    %s", strings.ToUpper(v.Decision))
		for _, r := range v.Rules {
			if r.Fired {
				fmt.Fprintf(b, " (%s)", safe.Line(r.Name))
				break
			}
		}
		fmt.Fprintf(b, ": %s\n", safe.Line(v.Words()))
		fmt.Fprintf(b, "  who acts   %s\n", v.Who())
	}
	fmt.Fprintf(b, "  time       %.0f ms total\n", l.Timings.TotalMs)

	fs := append([]probe.Finding(nil), res.Findings...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Severity.Rank() > fs[j].Severity.Rank() })
	if len(fs) > 0 {
		fmt.Fprintf(b, "\nfindings (%s)\n", countList(severityCounts(fs)))
	}
	const maxShown = 30
	for i, f := range fs {
		if i == maxShown {
			fmt.Fprintf(b, "  ... %d more (use --json for all)\n", len(fs)-maxShown)
			break
		}
		fmt.Fprintf(b, "  %-5s %-40s %s\n", f.Severity, f.Code, safe.Line(f.Subject))
		fmt.Fprintf(b, "        %s\n", safe.Line(f.Message))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func severityCounts(fs []probe.Finding) map[string]int {
	m := map[string]int{}
	for _, f := range fs {
		m[string(f.Severity)]++
	}
	return m
}

// countList renders {"a":2,"b":1} as "2 a, 1 b", largest first.
func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}

// writeContextCost writes what a client loads from the server, in tokens,
// with the heaviest tools.
func writeContextCost(b io.Writer, c *probe.ContextCost) {
	approx := ""
	if c.Estimated {
		approx = "about "
	}
	fmt.Fprintf(b, "  context    %s%d %s tokens a request (tools %d, prompts %d, resources %d, instructions %d)\n",
		approx, c.Total, c.Encoding, c.Tools, c.Prompts, c.Resources, c.Instructions)
	var heavy []string
	for i, t := range c.PerTool {
		if i == 3 {
			break
		}
		heavy = append(heavy, fmt.Sprintf("%s %d", safe.Line(t.Name), t.Tokens))
	}
	if len(heavy) > 0 {
		fmt.Fprintf(b, "             heaviest tools: %s\n", strings.Join(heavy, ", "))
	}
}

// writeRetryRates writes how many error responses the first corrected
// call resolved, with the 95% Wilson interval, per code.
func writeRetryRates(b io.Writer, rr probe.RetryRates) {
	a := rr.All
	fmt.Fprintf(b, "  first retry %d/%d errors resolve on the first retry (95%% CI %.0f–%.0f%%; corrections from structured fields %d, prose %d)\n",
		a.Resolved, a.Tried, 100*a.Low, 100*a.High, a.Structured, a.Prose)
	codes := make([]string, 0, len(rr.ByCode))
	for c := range rr.ByCode {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var parts []string
	for _, c := range codes {
		r := rr.ByCode[c]
		parts = append(parts, fmt.Sprintf("%s %d/%d", safe.Line(c), r.Resolved, r.Tried))
		if len(parts) == 6 {
			break
		}
	}
	fmt.Fprintf(b, "             by code: %s\n", strings.Join(parts, ", "))
}
