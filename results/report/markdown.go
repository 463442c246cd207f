package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/vocab"
)

// MarkdownReporter writes GitHub-flavoured Markdown. Every string that came
// from a server or a registry is either escaped inline ([mdText]) or shown
// in a code fence longer than any backtick run inside it ([mdFence]), so
// it renders as text, never as markup, links or HTML.
type MarkdownReporter struct{}

// mdEscaper escapes the characters Markdown or its inline HTML would
// interpret. With brackets escaped no link or image can form, so
// parentheses and "!" stay as they are. strings.Replacer does one pass,
// so escapes are not escaped again.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "|", `\|`, "#", `\#`, "~", `\~`,
)

// mdText makes untrusted text one line of inert Markdown.
func mdText(s string, n int) string { return mdEscaper.Replace(textLine(s, n)) }

// mdFence shows untrusted text in a fenced code block.
func mdFence(s, lang string) string {
	run, longest := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}

// mdWriter keeps the first write error so rendering code can write
// without checking each call.
type mdWriter struct {
	w   io.Writer
	err error
}

func (e *mdWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func (e *mdWriter) str(s string) {
	if e.err == nil {
		_, e.err = io.WriteString(e.w, s)
	}
}

// Write writes the census report as Markdown: the headline figures, one
// section per figure, the table of servers and a page per server.
func (MarkdownReporter) Write(ctx context.Context, w io.Writer, r *results.Report) error {
	var body bytes.Buffer
	e := &mdWriter{w: &body}
	c := r.Census
	e.str("# mcpvet ecosystem report\n\n")
	e.printf("%s\n\n", scanLine(r, func(s string) string { return mdText(s, 200) }))
	gen := "Generated " + fmtTime(r.GeneratedAt)
	if r.Generator != "" {
		gen += " by " + mdText(r.Generator, 100)
	}
	if r.Database != "" {
		gen += " from " + mdText(filepath.Base(r.Database), 200)
	}
	e.printf("%s. %s\n\n", gen, ciSentence(c))

	mdConditions(e, c)
	mdHeadlines(e, c)
	mdLiveness(e, c)
	mdRemotes(e, c)
	mdToolCounts(e, c)
	mdContext(e, c)
	mdSchema(e, c)
	mdAnnotations(e, c)
	mdScores(e, c)
	mdErrors(e, c)
	mdRetry(e, c)
	mdVerdicts(e, c)
	mdCommonFindings(e, c)
	mdBreakdowns(e, c)
	mdServerTable(e, r)
	if e.err != nil {
		return e.err
	}
	out := body.Bytes()
	if !c.Sampled {
		out = mdDropCIColumns(out)
	}
	if _, err := w.Write(out); err != nil {
		return err
	}
	err := renderSections(ctx, w, r, r.Sections, func(buf *bytes.Buffer, i int, row *results.ServerRow, res *probe.Result) error {
		se := &mdWriter{w: buf}
		mdServer(se, i, row, res)
		return se.err
	})
	if err != nil {
		return err
	}
	return e.err
}

// mdHeadlines writes the headline figures: handshake completion, the headline rates, tools per server and the score distribution.
func mdHeadlines(e *mdWriter, c *results.Census) {
	e.str("## Headline figures\n\n")
	e.printf("%s\n\n", unitsLine(c))
	e.printf("%s of %s plans (%s) completed the handshake. %s\n\n",
		fmtInt(c.Handshake.Count), fmtInt(c.Handshake.Total), c.Handshake.Percent(), verdictLine(c))
	e.str("| Figure | Count | Of | Rate | 95% CI |\n|---|---:|---:|---:|---:|\n")
	for _, h := range headlines(c) {
		e.printf("| %s | %s | %s %s | %s | %s |\n", h.Label, fmtInt(h.P.Count), fmtInt(h.P.Total), h.Unit, h.P.Percent(), h.P.CI())
	}
	e.printf("\nTools per plan (of %s plans that completed the handshake): mean %s, median %s, p90 %s; %s tools in all.\n",
		fmtInt(c.Tools.Servers), fmtNum(c.Tools.PerServer.Mean, 1), fmtNum(c.Tools.PerServer.Median, 1),
		fmtNum(c.Tools.PerServer.P90, 1), fmtInt(c.Tools.Total))
	sd := c.Score.Distribution
	e.printf("Actionability score (of %s scored plans): median %s, mean %s, p10 %s, p90 %s.\n\n",
		fmtInt(sd.N), fmtNum(sd.Median, 1), fmtNum(sd.Mean, 1), fmtNum(sd.P10, 1), fmtNum(sd.P90, 1))
}

// mdLiveness writes the liveness groups and every status.
func mdLiveness(e *mdWriter, c *results.Census) {
	e.str("## Liveness\n\nOf plans; each status is in exactly one group.\n\n| Group | Statuses | Plans | Rate | 95% CI |\n|---|---|---:|---:|---:|\n")
	for _, g := range c.Liveness {
		e.printf("| %s | %s | %s | %s | %s |\n", g.Label, mdStatuses(g.Statuses), fmtInt(g.Share.Count), g.Share.Percent(), g.Share.CI())
	}
	e.str("\n| Status | Plans | Rate | Handshake completed | Meaning |\n|---|---:|---:|---:|---|\n")
	for _, s := range c.Statuses {
		e.printf("| %s | %s | %s | %s | %s |\n", mdText(string(s.Status), 64), fmtInt(s.Share.Count), s.Share.Percent(),
			fmtInt(s.Handshake), mdText(s.Meaning, maxShownLine))
	}
}

// mdRemotes writes the OAuth readiness of the remotes that answered 401,
// when the scan had remotes.
func mdRemotes(e *mdWriter, c *results.Census) {
	r := c.Remotes
	if r.Plans == 0 {
		return
	}
	e.printf("\nRemotes: %s plans, %s answered 401 without credentials. OAuth-ready %s (%s%s); not ready %s (%s); broken metadata %s (%s); not checked %s.\n",
		fmtInt(r.Plans), fmtInt(r.Unauthorized), fmtInt(r.OAuthReady.Count), r.OAuthReady.Percent(), ciSuffix(r.OAuthReady),
		fmtInt(r.OAuthNotReady.Count), r.OAuthNotReady.Percent(), fmtInt(r.OAuthBroken.Count), r.OAuthBroken.Percent(), fmtInt(r.NotChecked))
}

// mdToolCounts writes the tools listed, per server.
func mdToolCounts(e *mdWriter, c *results.Census) {
	e.str("\n## Tools\n\n")
	pd := c.Tools.PerServer
	e.printf("%s completed the handshake and listed %s.\n\n", nounCount(c.Tools.Servers, "plan"), offers(c.Tools.Total, c.Tools.Prompts, c.Tools.Resources, c.Tools.ResourceTemplates))
	e.str("| Tools per plan | mean | median | p10 | p90 | min | max |\n|---|---:|---:|---:|---:|---:|---:|\n")
	e.printf("| %s plans | %s | %s | %s | %s | %s | %s |\n\n", fmtInt(pd.N), fmtNum(pd.Mean, 1), fmtNum(pd.Median, 1),
		fmtNum(pd.P10, 1), fmtNum(pd.P90, 1), fmtNum(pd.Min, 0), fmtNum(pd.Max, 0))
}

// mdContext writes what a plan costs a client's context: the distribution
// of its tokens and the heaviest plans.
func mdContext(e *mdWriter, c *results.Census) {
	cc := c.Context
	e.printf("## Context cost\n\nWhat a client loads into a model's context from a plan (tools, prompts and resources lists, instructions), in %s tokens; %s measured.\n\n",
		mdText(cc.Encoding, 32), nounCount(cc.Servers, "plan"))
	if cc.Servers == 0 {
		return
	}
	d := cc.Tokens
	e.str("| Tokens per plan | median | p90 | max |\n|---|---:|---:|---:|\n")
	e.printf("| %s plans | %s | %s | %s |\n\n", fmtInt(d.N), fmtNum(d.Median, 0), fmtNum(d.P90, 0), fmtNum(d.Max, 0))
	e.str("Heaviest: ")
	for i, h := range cc.Heaviest {
		if i > 0 {
			e.str(", ")
		}
		e.printf("%s %s", mdText(h.Server, 100), fmtInt(h.Tokens))
	}
	e.str(".\n\n")
}

// mdRetry writes the first-retry resolution rates in all, per probe kind
// and per error code, with their Wilson intervals (kept in a complete
// census: they estimate the servers' behaviour, not a sampled share).
func mdRetry(e *mdWriter, c *results.Census) {
	r := c.Retry
	e.str("\n## First-retry resolution\n\n")
	if r.All.Tried == 0 {
		e.str("No error response was retried with a correction.\n")
		return
	}
	e.printf("Errors that resolve on the first retry: %s/%s (%s) on %s, corrected from structured fields %s times and from prose %s times.\n\n",
		fmtInt(r.All.Resolved), fmtInt(r.All.Tried), retryInterval(r.All), nounCount(r.Servers, "plan"), fmtInt(r.All.Structured), fmtInt(r.All.Prose))
	for _, part := range []struct {
		title string
		rows  []results.RetryRow
	}{{"Probe kind", r.ByKind}, {"Error code", r.ByCode}} {
		if part.title != "Probe kind" {
			e.str("\n")
		}
		e.printf("| %s | Resolved | Tried | Wilson interval |\n|---|---:|---:|---:|\n", part.title)
		for _, row := range part.rows {
			e.printf("| %s | %s | %s | %s |\n", mdText(row.Key, 64), fmtInt(row.Resolved), fmtInt(row.Tried), retryInterval(row.RetryRate))
		}
	}
}

// retryInterval is a rate's 95% Wilson interval in percent.
func retryInterval(r probe.RetryRate) string {
	return fmt.Sprintf("%.0f–%.0f%%", 100*r.Low, 100*r.High)
}

// mdSchema writes the fatal and soft schema violations.
func mdSchema(e *mdWriter, c *results.Census) {
	e.str("## Schema violations\n\nFatal: a `schema/` finding of fatal severity (the tool cannot be called correctly); soft: any other `schema/` finding.\n\n")
	e.str("| Figure | Count | Of | Rate | 95% CI |\n|---|---:|---:|---:|---:|\n")
	s := c.Schema
	e.printf("| tools with a fatal violation | %s | %s tools | %s | %s |\n", fmtInt(s.FatalTools.Count), fmtInt(s.Tools), s.FatalTools.Percent(), s.FatalTools.CI())
	e.printf("| tools with a soft violation | %s | %s tools | %s | %s |\n", fmtInt(s.SoftTools.Count), fmtInt(s.Tools), s.SoftTools.Percent(), s.SoftTools.CI())
	e.printf("| plans with a fatal violation | %s | %s plans | %s | %s |\n\n", fmtInt(s.FatalServers.Count), fmtInt(s.FatalServers.Total), s.FatalServers.Percent(), s.FatalServers.CI())
	e.printf("%s fatal and %s soft schema findings in all.\n\n", fmtInt(s.FatalFindings), fmtInt(s.SoftFindings))
}

// mdAnnotations writes the omission rate of each annotation hint.
func mdAnnotations(e *mdWriter, c *results.Census) {
	a := c.Annotations
	e.str("## Annotation hints\n\n")
	e.printf("%s checked", nounCount(a.ToolsChecked, "tool"))
	if a.LegacyTools > 0 {
		e.printf(" (%s of servers speaking %s, which has no annotations, not counted)", nounCount(a.LegacyTools, "tool"), vocab.Protocol20241105)
	}
	e.str(". destructiveHint and idempotentHint apply only to tools not marked read-only.\n\n")
	e.str("| Hint | Omitted | Of tools | Rate | 95% CI |\n|---|---:|---:|---:|---:|\n")
	for _, h := range a.Hints {
		e.printf("| %s | %s | %s | %s | %s |\n", h.Hint, fmtInt(h.Omitted.Count), fmtInt(h.Omitted.Total), h.Omitted.Percent(), h.Omitted.CI())
	}
	e.printf("| at least one hint | %s | %s | %s | %s |\n", fmtInt(a.AnyOmitted.Count), fmtInt(a.AnyOmitted.Total), a.AnyOmitted.Percent(), a.AnyOmitted.CI())
	e.printf("| no annotations at all | %s | %s | %s | %s |\n\n", fmtInt(a.NoAnnotations.Count), fmtInt(a.NoAnnotations.Total), a.NoAnnotations.Percent(), a.NoAnnotations.CI())
}

// mdScores writes the actionability score deciles.
func mdScores(e *mdWriter, c *results.Census) {
	sd := c.Score.Distribution
	e.str("## Actionability scores\n\n")
	e.printf("%s scored plans: median %s, mean %s.\n\n", c.Score.Scored.String(), fmtNum(sd.Median, 1), fmtNum(sd.Mean, 1))
	e.str("| Score | Plans | |\n|---|---:|---|\n")
	for _, d := range c.Score.Deciles {
		share := 0.0
		if sd.N > 0 {
			share = float64(d.Count) / float64(sd.N)
		}
		e.printf("| %s | %s | `%s` |\n", decileLabel(d), fmtInt(d.Count), textBar(share, 20))
	}
}

// mdErrors writes the outcomes of the injected failures and the pass rate of each rubric element.
func mdErrors(e *mdWriter, c *results.Census) {
	er := c.Errors
	e.str("\n## Error responses\n\n")
	e.printf("%s failure-injection probes; %s responses graded on %s plans.\n\n", fmtInt(er.Probes), fmtInt(er.Graded), fmtInt(er.Servers))
	e.str("| Outcome | Probes | Rate | 95% CI |\n|---|---:|---:|---:|\n")
	for _, cl := range er.Classes {
		e.printf("| %s | %s | %s | %s |\n", mdText(cl.Class, 64), fmtInt(cl.Share.Count), cl.Share.Percent(), cl.Share.CI())
	}
	e.str("\n| Element | Passed | Of graded responses | Rate | 95% CI |\n|---|---:|---:|---:|---:|\n")
	for _, el := range er.Elements {
		label := mdText(el.Element, 64)
		if el.Meaning != "" {
			label += ": " + el.Meaning
		}
		e.printf("| %s | %s | %s | %s | %s |\n", label, fmtInt(el.Pass.Count), fmtInt(el.Pass.Total), el.Pass.Percent(), el.Pass.CI())
	}
}

// mdVerdicts writes the keep / fix / drop shares over assessed plans, the
// plans not assessed beside them with their causes, who must act, and the
// deciding rules.
func mdVerdicts(e *mdWriter, c *results.Census) {
	v := c.Verdicts
	e.str("\n## Verdicts (of assessed plans)\n\n")
	e.printf("%s\n\n", verdictLine(c))
	e.str("| Verdict | Assessed plans | Rate | 95% CI | Reads |\n|---|---:|---:|---:|---|\n")
	for _, d := range []struct {
		n, reads string
		p        results.Proportion
	}{{"keep", "usable", v.Keep}, {"fix", "usable, the author has items to fix", v.Fix}, {"drop", "do not use", v.Drop}} {
		e.printf("| %s | %s | %s | %s | %s |\n", d.n, fmtInt(d.p.Count), d.p.Percent(), d.p.CI(), d.reads)
	}
	e.str("\n| Not assessed | Plans | Who acts |\n|---|---:|---|\n")
	e.printf("| needs setup (variables, headers, OAuth to supply) | %s | user |\n", fmtInt(v.NeedsSetup))
	for _, x := range v.NotAssessedCauses {
		e.printf("| not assessed: %s | %s | environment |\n", mdText(x.Cause, 160), fmtInt(x.Plans))
	}
	if len(v.Actors) > 0 {
		e.str("\n| Who must act | Plans with a verdict |\n|---|---:|\n")
		for _, a := range v.Actors {
			e.printf("| %s | %s |\n", mdText(a.Cause, 40), fmtInt(a.Plans))
		}
	}
	if len(v.Rules) > 0 {
		e.str("\n| Deciding rule | Verdict | Plans |\n|---|---|---:|\n")
		for _, ru := range v.Rules {
			e.printf("| %s | %s | %s |\n", mdText(ru.Rule, 100), mdText(ru.Decision, 20), fmtInt(ru.Servers))
		}
	}
}

// mdConditions writes the run conditions the report opens with.
func mdConditions(e *mdWriter, c *results.Census) {
	e.str("## Run conditions\n\nWhat this machine could reach and run; a plan it could not run is not assessed, and every verdict below holds under these conditions.\n\n")
	for _, l := range conditionLines(c) {
		e.printf("- %s: %s\n", l.What, mdEscaper.Replace(l.Value))
	}
	e.str("\n")
}

// mdCommonFindings writes the most common finding codes.
func mdCommonFindings(e *mdWriter, c *results.Census) {
	e.str("\n## Most common findings\n\n")
	if len(c.Findings) == 0 {
		e.str("No findings.\n")
	} else {
		e.str("| Code | Severity | Plans affected | Rate | Occurrences | What |\n|---|---|---:|---:|---:|---|\n")
		for i, f := range c.Findings {
			if i == maxShownFindings {
				e.printf("\n%d more codes in the JSON report.\n", len(c.Findings)-maxShownFindings)
				break
			}
			e.printf("| %s | %s | %s | %s | %s | %s |\n", mdText(f.Code, 100), mdText(string(f.Severity), 20),
				fmtInt(f.Servers.Count), f.Servers.Percent(), fmtInt(f.Occurrences), mdText(f.Title, maxShownLine))
		}
	}
}

// mdBreakdowns writes the breakdowns by package type, transport, protocol version and SDK.
func mdBreakdowns(e *mdWriter, c *results.Census) {
	e.str("\n## Breakdowns\n")
	for _, b := range breakdowns(c) {
		e.printf("\n### %s\n\n| Value | Plans | Handshakes | Rate | 95%% CI | Tools | Median score | Keep | Fix | Drop |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", b.Title)
		for i, row := range b.Rows {
			if i == maxShownKeys {
				e.printf("\n%d more values in the JSON report.\n", len(b.Rows)-maxShownKeys)
				break
			}
			e.printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", mdText(row.Key, 100), fmtInt(row.Servers),
				fmtInt(row.Handshake.Count), row.Handshake.Percent(), row.Handshake.CI(), fmtInt(row.Tools),
				fmtNum(row.Score.Median, 1), fmtInt(row.Keep), fmtInt(row.Fix), fmtInt(row.Drop))
		}
	}
}

// mdServerTable writes the table of servers.
func mdServerTable(e *mdWriter, r *results.Report) {
	e.str("\n## Plans\n\n")
	if r.Sections < len(r.Rows) {
		e.printf("The first %s of %s plans by name; the CSV and JSON reports list every plan (or use --servers 0).\n\n",
			fmtInt(r.Sections), fmtInt(len(r.Rows)))
	}
	e.str("| # | Server | Package | Transport | Status | Tools | Score | Verdict | Findings |\n|---:|---|---|---|---|---:|---:|---|---:|\n")
	for i := 0; i < r.Sections; i++ {
		row := &r.Rows[i]
		name := mdText(row.Name, 120)
		if row.Version != "" {
			name += " " + mdText(row.Version, 40)
		}
		e.printf("| %d | %s | %s | %s | %s | %d | %s | %s | %d |\n", i+1, name, mdText(row.PackageType, 20), mdText(row.Transport, 20),
			mdText(string(row.Status), 40), row.Tools, fmtScore(row.Score), mdText(row.Verdict, 10), row.Findings)
	}
}

func mdStatuses(ss []vocab.Status) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return mdText(strings.Join(parts, ", "), 300)
}

func decileLabel(d results.DecileBin) string {
	if d.High >= 100 {
		return fmt.Sprintf("%d–%d", d.Low, d.High)
	}
	return fmt.Sprintf("%d–<%d", d.Low, d.High)
}

// mdServer writes one server's section.
func mdServer(e *mdWriter, i int, row *results.ServerRow, res *probe.Result) {
	title := mdText(row.Name, 200)
	if row.Version != "" {
		title += " " + mdText(row.Version, 60)
	}
	e.printf("\n## %d. %s\n\n", i+1, title)
	e.printf("- target: %s · %s · %s", mdText(row.Key, 300), mdText(row.PackageType, 20), mdText(row.Transport, 20))
	if row.Launch != "" {
		e.printf(" · %s", mdText(row.Launch, 300))
	}
	e.str("\n")
	for _, f := range livenessFacts(res) {
		e.printf("- %s: %s\n", f[0], mdEscaper.Replace(f[1]))
	}
	if row.HandshakeCompleted {
		e.printf("- offers: %s\n", offers(row.Tools, row.Prompts, row.Resources, row.ResourceTemplates))
		e.printf("- SDK: %s", mdText(row.SDK, 60))
		if row.SDKEvidence != "" {
			e.printf(" (%s)", mdText(row.SDKEvidence, 200))
		}
		e.str("\n")
	}
	if res.Score != nil {
		e.printf("- actionability score: %s/100 (rubric %s)\n", fmtScore(res.Score), mdText(res.RubricVersion, 40))
	}
	if v := res.Verdict; v != nil {
		e.printf("- verdict: **%s**", mdText(strings.ToUpper(v.Decision), 10))
		if r := firedRule(v); r != "" {
			e.printf(" (%s)", mdText(r, 100))
		}
		e.str("\n")
	}
	l := &res.Liveness
	if tail := textBlock(l.StderrTail, maxShownText); strings.TrimSpace(tail) != "" {
		e.str("\nstderr (last lines):\n\n")
		e.str(mdFence(tail, "text"))
	}
	if noise := textBlock(l.StdoutNoise, maxShownText); strings.TrimSpace(noise) != "" {
		e.str("\nnon-protocol stdout:\n\n")
		e.str(mdFence(noise, "text"))
	}

	mdTools(e, res)
	mdFindings(e, res)
	mdProbes(e, res)
	mdVerdictRules(e, res)
}

// mdTools writes the server's tools, up to maxShownItems.
func mdTools(e *mdWriter, res *probe.Result) {
	if len(res.Tools) == 0 {
		return
	}
	e.str("\n### Tools\n\n| Tool | Description |\n|---|---|\n")
	for j, t := range res.Tools {
		if j == maxShownItems {
			e.printf("\n%d more tools in the JSON report.\n", len(res.Tools)-maxShownItems)
			break
		}
		e.printf("| %s | %s |\n", mdText(t.Name, 120), mdText(t.Description, maxShownLine))
	}
}

// mdFindings writes the findings, worst first, up to maxShownItems.
func mdFindings(e *mdWriter, res *probe.Result) {
	if len(res.Findings) == 0 {
		return
	}
	e.str("\n### Findings\n\n| Severity | Code | Subject | Message | Evidence |\n|---|---|---|---|---|\n")
	for j, f := range sortedFindings(res.Findings) {
		if j == maxShownItems {
			e.printf("\n%d more findings in the JSON report.\n", len(res.Findings)-maxShownItems)
			break
		}
		subj := mdText(f.Subject, 120)
		if f.Pointer != "" {
			subj += " " + mdText(f.Pointer, 120)
		}
		e.printf("| %s | %s | %s | %s | %s |\n", mdText(string(f.Severity), 10), mdText(f.Code, 80), subj,
			mdText(f.Message, maxShownLine), mdText(f.Value, maxShownLine))
	}
}

// mdProbes writes each injected failure with what came back and its
// grade, up to maxShownItems.
func mdProbes(e *mdWriter, res *probe.Result) {
	if len(res.Probes) == 0 {
		return
	}
	e.str("\n### Probes\n")
	for j := range res.Probes {
		if j == maxShownItems {
			e.printf("\n%d more probes in the JSON report.\n", len(res.Probes)-maxShownItems)
			break
		}
		p := &res.Probes[j]
		e.printf("\n**%d. %s** %s", j+1, mdText(p.Kind, 60), mdText(p.Method, 60))
		if p.Tool != "" {
			e.printf(" tool %s", mdText(p.Tool, 120))
		}
		if p.Param != "" {
			e.printf(" param %s", mdText(p.Param, 120))
		}
		e.printf(" → %s, %s", mdText(p.Class, 30), fmtMs(p.LatencyMs))
		if p.Score != nil {
			e.printf(", score %s", fmtScore(p.Score))
		}
		e.str("\n\nsent:\n\n")
		e.str(mdFence(jsonBlock(p.Sent, maxShownText), "json"))
		if resp := jsonBlock(p.Response, maxShownText); resp != "" {
			e.str("\nreceived:\n\n")
			e.str(mdFence(resp, "json"))
		}
		if txt := textBlock(p.Text, maxShownText); strings.TrimSpace(txt) != "" {
			e.str("\ntext (as graded):\n\n")
			e.str(mdFence(txt, "text"))
		}
		if len(p.Elements) > 0 {
			e.str("\n")
			for _, el := range p.Elements {
				mark := "✗"
				if el.Pass {
					mark = "✓"
				}
				e.printf("- %s %s", mark, mdText(el.Name, 40))
				if el.Evidence != "" {
					e.printf(": %s", mdText(el.Evidence, maxShownLine))
				}
				e.str("\n")
			}
		}
	}
}

// mdVerdictRules writes the verdict's rule trace.
func mdVerdictRules(e *mdWriter, res *probe.Result) {
	if res.Verdict == nil || len(res.Verdict.Rules) == 0 {
		return
	}
	v := res.Verdict
	e.str("\n### Verdict rules\n\n| Rule | Fired | Decision | Detail | Findings |\n|---|---|---|---|---|\n")
	for _, ru := range v.Rules {
		fired := "no"
		if ru.Fired {
			fired = "**yes**"
		}
		e.printf("| %s | %s | %s | %s | %s |\n", mdText(ru.Name, 80), fired, mdText(ru.Decision, 10),
			mdText(ru.Detail, maxShownLine), mdText(strings.Join(ru.Findings, ", "), maxShownLine))
	}
}

// sortedFindings returns the findings worst first, stable otherwise.
func sortedFindings(fs []probe.Finding) []probe.Finding {
	out := append([]probe.Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity.Rank() > out[j].Severity.Rank() })
	return out
}

// ciSuffix is ", 95% CI a–b" for a sampled proportion, "" for an exact one.
func ciSuffix(p results.Proportion) string {
	if ci := p.CI(); ci != "" {
		return ", 95% CI " + ci
	}
	return ""
}

// mdDropCIColumns removes the "95% CI" column from every Markdown table of
// out: a complete census has no sampling error to state. Cells are split
// at pipes that are not escaped.
func mdDropCIColumns(out []byte) []byte {
	lines := strings.SplitAfter(string(out), "\n")
	col := -1
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			col = -1
			continue
		}
		cells := mdCells(strings.TrimRight(l, "\n"))
		if col == -1 { // the header row: only it names the column
			for j, c := range cells {
				if strings.TrimSpace(c) == "95% CI" {
					col = j
				}
			}
			if col < 0 {
				col = -2 // a table without the column
			}
		}
		if col >= 0 && col < len(cells) {
			cells = append(cells[:col], cells[col+1:]...)
			lines[i] = "|" + strings.Join(cells, "|") + "|\n"
		}
	}
	return []byte(strings.Join(lines, ""))
}

// mdCells splits a table row "| a | b |" into its cells " a ", " b ",
// keeping escaped pipes inside cells.
func mdCells(row string) []string {
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row):
			cur.WriteByte(row[i])
			cur.WriteByte(row[i+1])
			i++
		case row[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, cur.String())
}
