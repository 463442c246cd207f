package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// Display limits of the md and html reports; the json report keeps
// everything.
const (
	// maxShownText bounds one evidence text (stderr, a probe's sent or
	// received body).
	maxShownText = 4096
	// maxShownLine bounds one table cell.
	maxShownLine = 300
	// maxShownItems bounds the tools, findings and probes listed per server.
	maxShownItems = 100
	// maxShownFindings is how many finding codes the census table lists.
	maxShownFindings = 25
	// maxShownKeys is how many values a breakdown table lists.
	maxShownKeys = 15
)

// textBlock makes untrusted multi-line text safe to show: escape
// sequences and control characters removed (newlines and tabs kept) and
// cut to n bytes.
func textBlock(s string, n int) string {
	return safe.Truncate(safe.Terminal(s), n, safe.Ellipsis)
}

// textLine makes untrusted text safe for one line or table cell.
func textLine(s string, n int) string {
	return safe.Truncate(strings.TrimSpace(safe.Line(s)), n, safe.Ellipsis)
}

// jsonBlock pretty-prints raw JSON for display, cut to n bytes.
func jsonBlock(raw json.RawMessage, n int) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if len(raw) <= 64<<10 && json.Indent(&b, raw, "", "  ") == nil {
		return textBlock(b.String(), n)
	}
	return textBlock(string(raw), n)
}

// fmtInt formats n with thousands separators: 24,135.
func fmtInt(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// fmtNum formats x with up to d decimals, trailing zeros dropped; NaN is
// "n/a".
func fmtNum(x float64, d int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	s := strconv.FormatFloat(x, 'f', d, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

func fmtScore(s *float64) string {
	if s == nil {
		return "–"
	}
	return fmtNum(*s, 1)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format(time.RFC3339)
}

// nounCount formats "1 tool", "2,766 tools".
func nounCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmtInt(n) + " " + noun + "s"
}

// offers lists what a server or the servers offer.
func offers(tools, prompts, resources, templates int) string {
	return nounCount(tools, "tool") + ", " + nounCount(prompts, "prompt") + ", " + nounCount(resources, "resource") + ", " +
		nounCount(templates, "resource template")
}

func fmtMs(ms float64) string { return fmtNum(ms, 0) + " ms" }

// scanLine describes the scan in one sentence; esc makes the scan's
// source, which came from the command line or a registry, safe for the
// output format.
func scanLine(r *results.Report, esc func(string) string) string {
	s := r.Scan
	line := fmt.Sprintf("Scan %d (%s", s.ID, s.Kind)
	if s.Source != "" {
		line += ", source " + esc(results.PublicSource(s.Source))
	}
	if s.ShardCount > 0 {
		line += fmt.Sprintf(", shard %d/%d", s.ShardIndex+1, s.ShardCount)
	}
	if s.Seed != nil {
		line += fmt.Sprintf(", seed %d", *s.Seed)
	}
	line += fmt.Sprintf("), started %s, status %s", fmtTime(s.StartedAt), s.Status)
	if !s.FinishedAt.IsZero() {
		line += ", finished " + fmtTime(s.FinishedAt)
	}
	line += ": " + nounCount(len(r.Rows), "plan") + " with a run"
	if p := r.Pending(); p > 0 {
		line += ", " + nounCount(p, "target") + " without a run (not counted)"
	}
	return line + "."
}

// headline is one figure of the headline table.
type headline struct {
	Label string
	Unit  string
	P     results.Proportion
}

// headlines are the figures the literature quotes, in report order.
func headlines(c *results.Census) []headline {
	group := func(g string) results.Proportion {
		for _, f := range c.Liveness {
			if f.Group == g {
				return f.Share
			}
		}
		return results.Prop(0, c.Servers)
	}
	h := []headline{
		{"registry entries live (any of their plans completed the handshake)", "registry entries", c.EntriesLive},
		{"plans that completed the handshake", "plans", c.Handshake},
		{"launches that completed the handshake", "launches (installed and started, or remote reached)", c.HandshakeOfLaunched},
		{"never started (spawn failed, exited early)", "plans", group(results.GroupNeverStarted)},
		{"missing credentials", "plans", group(results.GroupMissingCredentials)},
		{"handshake timed out", "plans", group(results.GroupTimeout)},
		{"protocol error", "plans", group(results.GroupProtocolError)},
		{"not installable", "plans", group(results.GroupNotInstallable)},
		{"needs configuration", "plans", group(results.GroupNeedsConfiguration)},
		{"unreachable remotes", "plans", group(results.GroupUnreachable)},
		{"tools with a fatal schema violation", "tools", c.Schema.FatalTools},
		{"tools with a soft schema violation", "tools", c.Schema.SoftTools},
		{"tools omitting at least one annotation hint", "tools checked", c.Annotations.AnyOmitted},
		{"keep: usable", "assessed plans", c.Verdicts.Keep},
		{"fix: usable, the author has items", "assessed plans", c.Verdicts.Fix},
		{"drop: do not use", "assessed plans", c.Verdicts.Drop},
		{"needs setup (not assessed: the user supplies variables, headers, OAuth)", "plans", exactOf(c, c.Verdicts.NeedsSetup, c.Plans)},
		{"not assessed on this machine (no DNS, an index unreachable, no engine, a runtime missing)", "plans", exactOf(c, c.Verdicts.NotAssessed, c.Plans)},
	}
	return h
}

// statusEvidence is the liveness evidence lines of a result.
func livenessFacts(res *probe.Result) [][2]string {
	l := &res.Liveness
	var out [][2]string
	add := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	st := string(l.Status)
	if l.HandshakeCompleted {
		st += ", handshake completed"
	} else {
		st += ", no handshake"
	}
	add("status", textLine(st, maxShownLine))
	add("detail", textLine(l.Detail, maxShownLine*2))
	add("evidence", textLine(l.Evidence, maxShownLine*2))
	if l.Handshake != "" || l.ProtocolVersion != "" {
		add("handshake", textLine(strings.TrimSpace(l.Handshake+" protocol "+l.ProtocolVersion), maxShownLine))
	}
	if si := l.ServerInfo; si != nil {
		v := si.Name + " " + si.Version
		if si.Title != "" {
			v += " (" + si.Title + ")"
		}
		add("serverInfo", textLine(v, maxShownLine))
	}
	if l.ExitCode != nil {
		add("exit code", strconv.Itoa(*l.ExitCode))
	}
	t := l.Timings
	add("timings", fmt.Sprintf("start %s, handshake %s, lists %s, probes %s, total %s",
		fmtMs(t.StartMs), fmtMs(t.HandshakeMs), fmtMs(t.ListMs), fmtMs(t.ProbeMs), fmtMs(t.TotalMs)))
	return out
}

// firedRule returns the rule that decided a verdict.
func firedRule(v *probe.Verdict) string {
	if v == nil {
		return ""
	}
	for _, r := range v.Rules {
		if r.Fired {
			return r.Name
		}
	}
	return ""
}

// bar returns a text bar of width cells for a share of 0-1.
func textBar(share float64, width int) string {
	if math.IsNaN(share) || share < 0 {
		share = 0
	}
	n := min(int(math.Round(share*float64(width))), width)
	return strings.Repeat("█", n) + strings.Repeat("░", width-n)
}

// unitsLine names the report's units and their counts: registry entries,
// plans, launches, handshakes.
func unitsLine(c *results.Census) string {
	none := ""
	if c.EntriesWithoutPlans > 0 {
		none = fmt.Sprintf(" A further %s registry entries list neither a package nor a remote: nothing to launch, no plan, not counted above.",
			fmtInt(c.EntriesWithoutPlans))
	}
	return fmt.Sprintf("Units: %s registry entries (servers) with %s plans (one per package and per remote); "+
		"%s launches (installed and started, or remote reached); %s handshakes completed. "+
		"%s of %s registry entries (%s) are live: at least one of their plans completed the handshake.",
		fmtInt(c.Entries), fmtInt(c.Plans), fmtInt(c.Launches), fmtInt(c.Handshake.Count),
		fmtInt(c.EntriesLive.Count), fmtInt(c.EntriesLive.Total), c.EntriesLive.Percent()) + none
}

// exactOf is k of n as a proportion stated like the census's others:
// exact for a complete census, with a Wilson interval for a sample.
func exactOf(c *results.Census, k, n int) results.Proportion {
	p := results.Prop(k, n)
	p.Exact = !c.Sampled
	return p
}
