package report

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// HTMLReporter writes one self-contained HTML file: inline CSS, inline SVG
// charts and a small inline script that sorts the server table. It uses
// html/template, so every string is escaped for its context, and every
// string that came from a server or a registry also passes through
// [textLine] or [textBlock], which strip escape sequences and control
// characters. A Content-Security-Policy allows only the report's own
// style and script (by hash), so even markup that slipped through could
// not run or load anything.
type HTMLReporter struct{}

const htmlStyle = `
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--card:#f6f8fa;--line:#d1d9e0;--bar:#0969da;--keep:#1a7f37;--fix:#9a6700;--drop:#d1242f}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--card:#151b23;--line:#3d444d;--bar:#4493f8;--keep:#3fb950;--fix:#d29922;--drop:#f85149}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:75rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0}h2{margin-top:2rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
h3{margin:1.2rem 0 .4rem}h4{margin:1rem 0 .3rem}
p.meta,.muted{color:var(--muted)}
p.meta{overflow-wrap:anywhere}
nav{display:flex;flex-wrap:wrap;gap:.2rem .9rem}
a{color:var(--bar)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:.75rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.6rem .8rem}
.card .big{font-size:1.7rem;font-weight:600;line-height:1.2}
.card .what{font-weight:600}
.card .of,.card .ci{color:var(--muted);font-size:.85rem}
.charts{margin-top:1rem;display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1rem}
.chart{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.6rem}
.chart h3{margin:0 0 .4rem;font-size:1rem}
svg{display:block;width:100%;height:auto}
svg text{font-size:12px;fill:var(--fg)}
svg .track{fill:var(--line)}svg .fill{fill:var(--bar)}svg .ci{stroke:var(--fg);stroke-width:1.5}
svg .keep{fill:var(--keep)}svg .fix{fill:var(--fix)}svg .drop{fill:var(--drop)}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;width:100%;font-size:.88rem}
th,td{border-bottom:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:var(--card);position:sticky;top:0}
th.n,td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th[aria-sort=ascending]::after{content:" ▲"}
table.sortable th[aria-sort=descending]::after{content:" ▼"}
table.conditions th{text-align:left;white-space:nowrap;vertical-align:top;padding-right:1em}
td.wrap{overflow-wrap:anywhere;min-width:10rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--card);border:1px solid var(--line);border-radius:6px;padding:.5rem;max-height:22rem;overflow:auto;font-size:.8rem;margin:.3rem 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .75rem;margin:.4rem 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
section.server{border-top:2px solid var(--line);margin-top:1.5rem}
details{margin:.3rem 0}summary{cursor:pointer;overflow-wrap:anywhere}
.v-keep{color:var(--keep);font-weight:600}.v-fix{color:var(--fix);font-weight:600}.v-drop{color:var(--drop);font-weight:600}
.sev-fatal,.sev-error{color:var(--drop);font-weight:600}.sev-warn{color:var(--fix)}
ul.el{list-style:none;padding-left:0;margin:.3rem 0}ul.el li{overflow-wrap:anywhere}
.pass{color:var(--keep)}.fail{color:var(--drop)}
@media (max-width:640px){body{font-size:14px}main{padding:.6rem}.hide-s{display:none}dl.facts{grid-template-columns:1fr}dl.facts dt{margin-top:.3rem}.cards{grid-template-columns:repeat(2,minmax(0,1fr));gap:.5rem}.card{padding:.5rem .6rem}.card .big{font-size:1.3rem}.charts{grid-template-columns:minmax(0,1fr)}}
`

const htmlScript = `
document.querySelectorAll("table.sortable").forEach(function (t) {
  var ths = t.tHead.rows[0].cells;
  Array.prototype.forEach.call(ths, function (th, i) {
    th.tabIndex = 0;
    function sort() {
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var asc = th.getAttribute("aria-sort") !== "ascending", num = th.classList.contains("n");
      Array.prototype.forEach.call(ths, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      function key(r) { var c = r.cells[i]; return c.hasAttribute("data-v") ? c.getAttribute("data-v") : c.textContent; }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b), d = num ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
        return asc ? d : -d;
      });
      var f = document.createDocumentFragment();
      rows.forEach(function (r) { f.appendChild(r); });
      body.appendChild(f);
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sort(); } });
  });
});
`

// htmlCSP allows nothing but the report's own style and script.
var htmlCSP = "default-src 'none'; style-src '" + cspHash(htmlStyle) + "'; script-src '" + cspHash(htmlScript) +
	"'; img-src data:; base-uri 'none'; form-action 'none'"

func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}

var htmlFuncs = template.FuncMap{
	"int":           fmtInt,
	"num":           func(x float64) string { return fmtNum(x, 1) },
	"f1":            func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) },
	"score":         fmtScore,
	"ms":            fmtMs,
	"time":          fmtTime,
	"line":          func(s string) string { return textLine(s, maxShownLine) },
	"long":          func(s string) string { return textLine(s, 2*maxShownLine) },
	"text":          func(s string) string { return textBlock(s, maxShownText) },
	"json":          func(raw []byte) string { return jsonBlock(raw, maxShownText) },
	"upper":         strings.ToUpper,
	"join":          strings.Join,
	"sectionAnchor": sectionAnchor,
	"add1":          func(i int) int { return i + 1 },
	"scorev": func(s *float64) string {
		if s == nil {
			return "-1"
		}
		return strconv.FormatFloat(*s, 'f', -1, 64)
	},
	"decile":    decileLabel,
	"interval":  retryInterval,
	"nounCount": nounCount,
	"offers":    offers,
	"hasText":   func(s string) bool { return strings.TrimSpace(textBlock(s, maxShownText)) != "" },
}

// htmlTmpl is parsed on first use: every process (the sandbox's init
// helper and exec stage included) pays each package's init before main,
// and only the html writer needs it (issue 25: probe cost).
var htmlTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(htmlFuncs).Parse(htmlTemplate))
})

// htmlHead is the data of the part of the page before the server sections.
type htmlHead struct {
	R         *results.Report
	C         *results.Census
	Scan      string
	Generated string
	CSP       string
	Units     string
	// CI is true for a sample: only then are intervals shown.
	CI          bool
	CISentence  string
	Conditions  []conditionLine
	VerdictLine string
	Style       template.CSS
	Headlines   []headline
	Charts      []hchart
	Scores      vchart
	Verdicts    stackChart
	Findings    []results.FindingFigure
	MoreFind    int
	Breakdown   []htmlBreakdown
	Capped      bool
}

type htmlBreakdown struct {
	Title string
	Rows  []results.BreakdownRow
	More  int
}

// htmlServer is the data of one server section.
type htmlServer struct {
	I        int
	Anchor   string
	Row      *results.ServerRow
	Res      *probe.Result
	Facts    [][2]string
	Fired    string
	Tools    []probe.Tool
	Findings []probe.Finding
	// Groups are the findings grouped by code, with counts.
	Groups []findingGroup
	// NoFindings says why a server has no findings.
	NoFindings string
	Probes     []probe.ProbeCall
	More       [3]int // tools, findings, probes not shown
}

// findingGroup is one finding code of one server: how often, on which
// subjects, and the first message.
type findingGroup struct {
	Severity     probe.Severity
	Code         string
	Count        int
	Subjects     []string
	MoreSubjects int
	Message      string
	Value        string
}

// maxGroupSubjects caps the subjects listed per finding code.
const maxGroupSubjects = 8

// groupFindings groups fs (sorted by severity) by code, keeping the order
// of first appearance.
func groupFindings(fs []probe.Finding) []findingGroup {
	var out []findingGroup
	index := map[string]int{}
	seen := map[string]map[string]bool{}
	for _, f := range fs {
		i, ok := index[f.Code]
		if !ok {
			i = len(out)
			index[f.Code] = i
			seen[f.Code] = map[string]bool{}
			out = append(out, findingGroup{Severity: f.Severity, Code: f.Code, Message: f.Message, Value: f.Value})
		}
		g := &out[i]
		g.Count++
		subj := f.Subject
		if f.Pointer != "" {
			subj += " " + f.Pointer
		}
		if subj == "" || seen[f.Code][subj] {
			continue
		}
		seen[f.Code][subj] = true
		if len(g.Subjects) < maxGroupSubjects {
			g.Subjects = append(g.Subjects, subj)
		} else {
			g.MoreSubjects++
		}
	}
	return out
}

// noFindingsWhy says why a run has no findings: the checks need a
// completed handshake.
func noFindingsWhy(res *probe.Result) string {
	if !res.Liveness.HandshakeCompleted {
		return "the server did not complete the handshake (" + string(res.Liveness.Status) + "), so there was nothing to check"
	}
	return "every check passed"
}

func (HTMLReporter) Write(ctx context.Context, w io.Writer, r *results.Report) error {
	c := r.Census
	h := htmlHead{
		R: r, C: c, Scan: scanLine(r, func(s string) string { return textLine(s, 200) }), CSP: htmlCSP,
		Style:     template.CSS(htmlStyle),
		Headlines: headlines(c),
		Units:     unitsLine(c),
		Capped:    r.Sections < len(r.Rows),
		CI:        c.Sampled, CISentence: ciSentence(c), Conditions: conditionLines(c), VerdictLine: verdictLine(c),
	}
	h.Generated = "Generated " + fmtTime(r.GeneratedAt)
	if r.Generator != "" {
		h.Generated += " by " + textLine(r.Generator, 100)
	}
	if r.Database != "" {
		h.Generated += " from " + textLine(filepath.Base(r.Database), 200)
	}
	h.Generated += "."

	var live, hints, elems []chartItem
	for _, g := range c.Liveness {
		live = append(live, chartItem{g.Label, g.Share})
	}
	for _, x := range c.Annotations.Hints {
		hints = append(hints, chartItem{x.Hint + " omitted", x.Omitted})
	}
	hints = append(hints, chartItem{"at least one hint omitted", c.Annotations.AnyOmitted},
		chartItem{"no annotations at all", c.Annotations.NoAnnotations})
	for _, e := range c.Errors.Elements {
		elems = append(elems, chartItem{e.Element, e.Pass})
	}
	h.Charts = []hchart{
		newHChart("Liveness (of plans)", live),
		newHChart("Annotation hints omitted (of tools)", hints),
		newHChart("Error responses passing each rubric element", elems),
	}
	h.Scores = newVChart(c.Score.Deciles)
	h.Verdicts = newStackChart(c.Verdicts)
	h.Findings = c.Findings
	if len(h.Findings) > maxShownFindings {
		h.MoreFind = len(h.Findings) - maxShownFindings
		h.Findings = h.Findings[:maxShownFindings]
	}
	for _, b := range breakdowns(c) {
		hb := htmlBreakdown{Title: b.Title, Rows: b.Rows}
		if len(hb.Rows) > maxShownKeys {
			hb.More = len(hb.Rows) - maxShownKeys
			hb.Rows = hb.Rows[:maxShownKeys]
		}
		h.Breakdown = append(h.Breakdown, hb)
	}

	if err := htmlTmpl().ExecuteTemplate(w, "head", h); err != nil {
		return err
	}
	err := renderSections(ctx, w, r, r.Sections, func(buf *bytes.Buffer, i int, row *results.ServerRow, res *probe.Result) error {
		s := htmlServer{I: i + 1, Anchor: sectionAnchor(i), Row: row, Res: res, Facts: livenessFacts(res),
			Fired: firedRule(res.Verdict), Tools: res.Tools, Findings: sortedFindings(res.Findings), Probes: res.Probes}
		for k, n := range [3]int{len(s.Tools), len(s.Findings), len(s.Probes)} {
			if n > maxShownItems {
				s.More[k] = n - maxShownItems
			}
		}
		s.Groups = groupFindings(s.Findings)
		if len(s.Groups) == 0 {
			s.NoFindings = noFindingsWhy(res)
		}
		s.Tools = s.Tools[:min(len(s.Tools), maxShownItems)]
		s.Findings = s.Findings[:min(len(s.Findings), maxShownItems)]
		s.Probes = s.Probes[:min(len(s.Probes), maxShownItems)]
		return htmlTmpl().ExecuteTemplate(buf, "server", s)
	})
	if err != nil {
		return err
	}
	return htmlTmpl().ExecuteTemplate(w, "foot", template.JS(htmlScript))
}

// chartItem is one bar: a label and a proportion.
type chartItem struct {
	Label string
	P     results.Proportion
}

// Chart geometry, in SVG user units.
const (
	chartW   = 400.0
	chartRow = 34.0
)

// hchart is a horizontal bar chart with a 95% interval whisker per bar.
type hchart struct {
	Title  string
	Height float64
	Bars   []hbar
}

type hbar struct {
	Label, Value     string
	TextY, Y, Mid, W float64
	Lo, Hi           float64
	CI               bool
}

func newHChart(title string, items []chartItem) hchart {
	c := hchart{Title: title, Height: math.Max(chartRow*float64(len(items))+4, 20)}
	for i, it := range items {
		top := chartRow * float64(i)
		b := hbar{Label: textLine(it.Label, 80), TextY: top + 13, Y: top + 18, Mid: top + 23}
		if it.P.Defined() {
			b.Value = it.P.Percent() + " (" + fmtInt(it.P.Count) + "/" + fmtInt(it.P.Total) + ")"
			b.W = it.P.Rate * chartW
			b.Lo, b.Hi, b.CI = it.P.Low*chartW, it.P.High*chartW, !it.P.Exact && !math.IsNaN(it.P.Low)
		} else {
			b.Value = "n/a (0 of 0)"
		}
		c.Bars = append(c.Bars, b)
	}
	return c
}

// vchart is the score histogram.
type vchart struct {
	N    int
	Bars []vbar
}

type vbar struct {
	X, Y, H, LabelX float64
	Count           int
	Label           string
}

func newVChart(bins []results.DecileBin) vchart {
	const top, base = 16.0, 130.0
	most := 0
	var c vchart
	for _, b := range bins {
		most = max(most, b.Count)
		c.N += b.Count
	}
	for i, b := range bins {
		h := 0.0
		if most > 0 {
			h = (base - top) * float64(b.Count) / float64(most)
		}
		x := 4 + float64(i)*39.6
		c.Bars = append(c.Bars, vbar{X: x, Y: base - h, H: h, LabelX: x + 17, Count: b.Count, Label: strconv.Itoa(b.Low)})
	}
	return c
}

// stackChart is the keep / fix / drop bar.
type stackChart struct {
	// N is the assessed plans (keep, fix or drop); NeedsSetup and
	// NotAssessed are the plans beside them.
	N, NeedsSetup, NotAssessed int
	Parts                      []stackPart
}

type stackPart struct {
	Class, Label string
	X, W, TextY  float64
	P            results.Proportion
}

func newStackChart(v results.VerdictFigures) stackChart {
	c := stackChart{N: v.Assessed, NeedsSetup: v.NeedsSetup, NotAssessed: v.NotAssessed}
	x := 0.0
	for i, p := range []struct {
		class string
		p     results.Proportion
	}{{"keep", v.Keep}, {"fix", v.Fix}, {"drop", v.Drop}} {
		w := 0.0
		if p.p.Defined() {
			w = p.p.Rate * chartW
		}
		c.Parts = append(c.Parts, stackPart{Class: p.class, Label: p.class + " " + p.p.Percent(), X: x, W: w,
			TextY: 44 + 18*float64(i), P: p.p})
		x += w
	}
	return c
}

const htmlTemplate = `
{{- define "head" -}}
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="referrer" content="no-referrer">
<title>mcpvet ecosystem report: scan {{.R.Scan.ID}}</title>
<style>{{.Style}}</style>
</head>
<body>
<main>
<h1>mcpvet ecosystem report</h1>
<p class="meta">{{.Scan}}<br>{{.Generated}} {{.CISentence}}</p>
<section id="conditions"><h2>Run conditions</h2>
<p>What this machine could reach and run; a plan it could not run is not assessed, and every verdict below holds under these conditions.</p>
<table class="conditions"><tbody>
{{- range .Conditions}}
<tr><th>{{.What}}</th><td>{{.Value}}</td></tr>
{{- end}}
</tbody></table></section>
<nav><a href="#conditions">Conditions</a><a href="#headline">Headline</a><a href="#liveness">Liveness</a><a href="#tools">Tools</a><a href="#schema">Schema</a><a href="#scores">Scores</a><a href="#errors">Errors</a><a href="#verdicts">Verdicts</a><a href="#findings">Findings</a><a href="#breakdowns">Breakdowns</a><a href="#servers">Plans</a></nav>

<h2 id="headline">Headline figures</h2>
<div class="cards">
{{- range .Headlines}}
<div class="card"><div class="big">{{.P.Percent}}</div><div class="what">{{.Label}}</div><div class="of">{{int .P.Count}} of {{int .P.Total}} {{.Unit}}</div>{{if $.CI}}<div class="ci">95% CI {{.P.CI}}</div>{{end}}</div>
{{- end}}
<div class="card"><div class="big">{{num .C.Tools.PerServer.Median}}</div><div class="what">median tools per plan</div><div class="of">mean {{num .C.Tools.PerServer.Mean}}, p90 {{num .C.Tools.PerServer.P90}}</div><div class="ci">of {{int .C.Tools.Servers}} plans that completed the handshake</div></div>
<div class="card"><div class="big">{{num .C.Score.Distribution.Median}}</div><div class="what">median actionability score</div><div class="of">mean {{num .C.Score.Distribution.Mean}}, p10 {{num .C.Score.Distribution.P10}}, p90 {{num .C.Score.Distribution.P90}}</div><div class="ci">of {{int .C.Score.Distribution.N}} scored plans</div></div>
</div>

<div class="charts">
{{- range .Charts}}
<div class="chart"><h3>{{.Title}}</h3>{{template "hchart" .}}</div>
{{- end}}
<div class="chart"><h3>Actionability scores ({{int .Scores.N}} scored plans)</h3>{{template "vchart" .Scores}}</div>
<div class="chart"><h3>Verdicts ({{int .Verdicts.N}} assessed plans)</h3>{{template "stack" .Verdicts}}<p class="ci">not in these shares: {{int .Verdicts.NeedsSetup}} plans need setup (user), {{int .Verdicts.NotAssessed}} plans not assessed here (environment)</p></div>
</div>

<h2 id="liveness">Liveness</h2>
<p>{{.Units}} Rates below are of plans; each status is in exactly one group.</p>
<div class="scroll"><table>
<thead><tr><th>Group</th><th>Statuses</th><th class="n">Plans</th><th class="n">Rate</th>{{if $.CI}}<th class="n">95% CI</th>{{end}}</tr></thead>
<tbody>
{{- range .C.Liveness}}
<tr><td>{{.Label}}</td><td>{{range $i, $s := .Statuses}}{{if $i}}, {{end}}{{$s}}{{end}}</td><td class="n">{{int .Share.Count}}</td><td class="n">{{.Share.Percent}}</td>{{if $.CI}}<td class="n">{{.Share.CI}}</td>{{end}}</tr>
{{- end}}
</tbody></table></div>
<h3>By status</h3>
<div class="scroll"><table>
<thead><tr><th>Status</th><th class="n">Plans</th><th class="n">Rate</th><th class="n">Handshake completed</th><th>Meaning</th></tr></thead>
<tbody>
{{- range .C.Statuses}}
<tr><td>{{line (print .Status)}}</td><td class="n">{{int .Share.Count}}</td><td class="n">{{.Share.Percent}}</td><td class="n">{{int .Handshake}}</td><td>{{.Meaning}}</td></tr>
{{- end}}
</tbody></table></div>

<h2 id="tools">Tools</h2>
{{if not .C.Handshake.Count}}<p class="muted">No tools: no plan completed the handshake, so none was listed.</p>{{end}}
{{with .C.Tools}}
<p>{{nounCount .Servers "server"}} completed the handshake and listed {{offers .Total .Prompts .Resources .ResourceTemplates}}.</p>
<div class="scroll"><table>
<thead><tr><th>Tools per server</th><th class="n">mean</th><th class="n">median</th><th class="n">p10</th><th class="n">p90</th><th class="n">min</th><th class="n">max</th></tr></thead>
<tbody><tr><td>{{int .PerServer.N}} plans</td><td class="n">{{num .PerServer.Mean}}</td><td class="n">{{num .PerServer.Median}}</td><td class="n">{{num .PerServer.P10}}</td><td class="n">{{num .PerServer.P90}}</td><td class="n">{{num .PerServer.Min}}</td><td class="n">{{num .PerServer.Max}}</td></tr></tbody>
</table></div>
{{end}}

<h2 id="context">Context cost</h2>
{{with .C.Context}}
<p>What a client loads into a model's context from a plan (tools, prompts and resources lists, instructions), in {{line .Encoding}} tokens; {{nounCount .Servers "plan"}} measured.</p>
{{if .Servers}}<div class="scroll"><table>
<thead><tr><th>Tokens per plan</th><th class="n">median</th><th class="n">p90</th><th class="n">max</th></tr></thead>
<tbody><tr><td>{{int .Tokens.N}} plans</td><td class="n">{{num .Tokens.Median}}</td><td class="n">{{num .Tokens.P90}}</td><td class="n">{{num .Tokens.Max}}</td></tr></tbody>
</table></div>
<div class="scroll"><table>
<thead><tr><th>Heaviest plans</th><th class="n">tokens</th></tr></thead>
<tbody>
{{- range .Heaviest}}
<tr><td>{{line .Server}}</td><td class="n">{{int .Tokens}}</td></tr>
{{- end}}
</tbody></table></div>{{end}}
{{end}}

<h2 id="schema">Schema violations and annotations</h2>
{{with .C.Schema}}
<p>Fatal: a <code>schema/</code> finding of fatal severity (the tool cannot be called correctly); soft: any other <code>schema/</code> finding. {{int .FatalFindings}} fatal and {{int .SoftFindings}} soft findings in all.</p>
<div class="scroll"><table>
<thead><tr><th>Figure</th><th class="n">Count</th><th class="n">Of</th><th class="n">Rate</th>{{if $.CI}}<th class="n">95% CI</th>{{end}}</tr></thead>
<tbody>
<tr><td>tools with a fatal violation</td><td class="n">{{int .FatalTools.Count}}</td><td class="n">{{int .FatalTools.Total}} tools</td><td class="n">{{.FatalTools.Percent}}</td>{{if $.CI}}<td class="n">{{.FatalTools.CI}}</td>{{end}}</tr>
<tr><td>tools with a soft violation</td><td class="n">{{int .SoftTools.Count}}</td><td class="n">{{int .SoftTools.Total}} tools</td><td class="n">{{.SoftTools.Percent}}</td>{{if $.CI}}<td class="n">{{.SoftTools.CI}}</td>{{end}}</tr>
<tr><td>plans with a fatal violation</td><td class="n">{{int .FatalServers.Count}}</td><td class="n">{{int .FatalServers.Total}} plans</td><td class="n">{{.FatalServers.Percent}}</td>{{if $.CI}}<td class="n">{{.FatalServers.CI}}</td>{{end}}</tr>
</tbody></table></div>
{{end}}
{{with .C.Annotations}}
<p>{{nounCount .ToolsChecked "tool"}} checked for annotation hints{{if .LegacyTools}} ({{nounCount .LegacyTools "tool"}} of plans speaking 2024-11-05, which has no annotations, not counted){{end}}. destructiveHint and idempotentHint apply only to tools not marked read-only.</p>
<div class="scroll"><table>
<thead><tr><th>Hint</th><th class="n">Omitted</th><th class="n">Of tools</th><th class="n">Rate</th>{{if $.CI}}<th class="n">95% CI</th>{{end}}</tr></thead>
<tbody>
{{- range .Hints}}
<tr><td>{{.Hint}}</td><td class="n">{{int .Omitted.Count}}</td><td class="n">{{int .Omitted.Total}}</td><td class="n">{{.Omitted.Percent}}</td>{{if $.CI}}<td class="n">{{.Omitted.CI}}</td>{{end}}</tr>
{{- end}}
<tr><td>at least one hint</td><td class="n">{{int .AnyOmitted.Count}}</td><td class="n">{{int .AnyOmitted.Total}}</td><td class="n">{{.AnyOmitted.Percent}}</td>{{if $.CI}}<td class="n">{{.AnyOmitted.CI}}</td>{{end}}</tr>
<tr><td>no annotations at all</td><td class="n">{{int .NoAnnotations.Count}}</td><td class="n">{{int .NoAnnotations.Total}}</td><td class="n">{{.NoAnnotations.Percent}}</td>{{if $.CI}}<td class="n">{{.NoAnnotations.CI}}</td>{{end}}</tr>
</tbody></table></div>
{{end}}

<h2 id="scores">Actionability scores</h2>
{{if not .C.Score.Distribution.N}}<p class="muted">No scores: {{if not .C.Handshake.Count}}no plan completed the handshake{{else if not .C.Errors.Probes}}no failure-injection probe was sent (--no-inject, or no live server offered a tool to probe){{else}}no error response could be graded{{end}}.</p>{{end}}
{{with .C.Score}}
<p>{{.Scored}} of the plans that completed the handshake have a score. Median {{num .Distribution.Median}}, mean {{num .Distribution.Mean}}, p10 {{num .Distribution.P10}}, p90 {{num .Distribution.P90}}.</p>
<div class="scroll"><table>
<thead><tr><th>Score</th>{{range .Deciles}}<th class="n">{{decile .}}</th>{{end}}</tr></thead>
<tbody><tr><td>plans</td>{{range .Deciles}}<td class="n">{{int .Count}}</td>{{end}}</tr></tbody>
</table></div>
{{end}}

<h2 id="errors">Error responses</h2>
{{if not .C.Errors.Probes}}<p class="muted">No probes: {{if not .C.Handshake.Count}}no plan completed the handshake{{else}}failure injection was off (--no-inject) or no live server offered a tool to probe{{end}}.</p>{{end}}
{{with .C.Errors}}
<p>{{int .Probes}} failure-injection probes; {{int .Graded}} responses graded on {{int .Servers}} plans.</p>
<div class="scroll"><table>
<thead><tr><th>Outcome</th><th class="n">Probes</th><th class="n">Rate</th>{{if $.CI}}<th class="n">95% CI</th>{{end}}</tr></thead>
<tbody>
{{- range .Classes}}
<tr><td>{{line .Class}}</td><td class="n">{{int .Share.Count}}</td><td class="n">{{.Share.Percent}}</td>{{if $.CI}}<td class="n">{{.Share.CI}}</td>{{end}}</tr>
{{- end}}
</tbody></table></div>
<div class="scroll"><table>
<thead><tr><th>Element</th><th>Passing means</th><th class="n">Passed</th><th class="n">Of graded</th><th class="n">Rate</th>{{if $.CI}}<th class="n">95% CI</th>{{end}}</tr></thead>
<tbody>
{{- range .Elements}}
<tr><td>{{line .Element}}</td><td>{{.Meaning}}</td><td class="n">{{int .Pass.Count}}</td><td class="n">{{int .Pass.Total}}</td><td class="n">{{.Pass.Percent}}</td>{{if $.CI}}<td class="n">{{.Pass.CI}}</td>{{end}}</tr>
{{- end}}
</tbody></table></div>
{{end}}

<h2 id="retry">First-retry resolution</h2>
{{with .C.Retry}}
{{if not .All.Tried}}<p class="muted">No error response was retried with a correction.</p>{{else}}
<p>Errors that resolve on the first retry: {{int .All.Resolved}}/{{int .All.Tried}} ({{interval .All}}) on {{nounCount .Servers "plan"}}, corrected from structured fields {{int .All.Structured}} times and from prose {{int .All.Prose}} times.</p>
<div class="scroll"><table>
<thead><tr><th>Probe kind</th><th class="n">Resolved</th><th class="n">Tried</th><th class="n">Wilson interval</th></tr></thead>
<tbody>
{{- range .ByKind}}
<tr><td>{{line .Key}}</td><td class="n">{{int .Resolved}}</td><td class="n">{{int .Tried}}</td><td class="n">{{interval .RetryRate}}</td></tr>
{{- end}}
</tbody></table></div>
<div class="scroll"><table>
<thead><tr><th>Error code</th><th class="n">Resolved</th><th class="n">Tried</th><th class="n">Wilson interval</th></tr></thead>
<tbody>
{{- range .ByCode}}
<tr><td>{{line .Key}}</td><td class="n">{{int .Resolved}}</td><td class="n">{{int .Tried}}</td><td class="n">{{interval .RetryRate}}</td></tr>
{{- end}}
</tbody></table></div>{{end}}
{{end}}

<h2 id="verdicts">Verdicts (of assessed plans)</h2>
<p>{{.VerdictLine}}</p>
{{with .C.Verdicts}}
<div class="scroll"><table>
<thead><tr><th>Verdict</th><th class="n">Assessed plans</th><th class="n">Rate</th>{{if $.CI}}<th class="n">95% CI</th>{{end}}<th>Reads</th></tr></thead>
<tbody>
<tr><td class="v-keep">keep</td><td class="n">{{int .Keep.Count}}</td><td class="n">{{.Keep.Percent}}</td>{{if $.CI}}<td class="n">{{.Keep.CI}}</td>{{end}}<td>usable</td></tr>
<tr><td class="v-fix">fix</td><td class="n">{{int .Fix.Count}}</td><td class="n">{{.Fix.Percent}}</td>{{if $.CI}}<td class="n">{{.Fix.CI}}</td>{{end}}<td>usable, the author has items to fix</td></tr>
<tr><td class="v-drop">drop</td><td class="n">{{int .Drop.Count}}</td><td class="n">{{.Drop.Percent}}</td>{{if $.CI}}<td class="n">{{.Drop.CI}}</td>{{end}}<td>do not use</td></tr>
</tbody></table></div>
<div class="scroll"><table>
<thead><tr><th>Not assessed</th><th class="n">Plans</th><th>Who acts</th></tr></thead>
<tbody>
<tr><td>needs setup (variables, headers, OAuth to supply)</td><td class="n">{{int .NeedsSetup}}</td><td>user</td></tr>
{{- range .NotAssessedCauses}}
<tr><td>not assessed: {{.Cause}}</td><td class="n">{{int .Plans}}</td><td>environment</td></tr>
{{- end}}
</tbody></table></div>
{{if .Actors}}<div class="scroll"><table>
<thead><tr><th>Who must act</th><th class="n">Plans with a verdict</th></tr></thead>
<tbody>
{{- range .Actors}}
<tr><td>{{.Cause}}</td><td class="n">{{int .Plans}}</td></tr>
{{- end}}
</tbody></table></div>{{end}}
{{if .Rules}}<div class="scroll"><table>
<thead><tr><th>Deciding rule</th><th>Verdict</th><th class="n">Plans</th></tr></thead>
<tbody>
{{- range .Rules}}
<tr><td>{{line .Rule}}</td><td class="v-{{line .Decision}}">{{line .Decision}}</td><td class="n">{{int .Servers}}</td></tr>
{{- end}}
</tbody></table></div>{{end}}
{{end}}

<h2 id="findings">Most common findings</h2>
{{if .Findings}}<div class="scroll"><table>
<thead><tr><th>Code</th><th>Severity</th><th class="n">Plans affected</th><th class="n">Rate</th><th class="n">Occurrences</th><th class="hide-s">What</th></tr></thead>
<tbody>
{{- range .Findings}}
<tr><td>{{line .Code}}</td><td class="sev-{{line (print .Severity)}}">{{line (print .Severity)}}</td><td class="n">{{int .Servers.Count}}</td><td class="n">{{.Servers.Percent}}</td><td class="n">{{int .Occurrences}}</td><td class="hide-s">{{line .Title}}</td></tr>
{{- end}}
</tbody></table></div>
{{if .MoreFind}}<p class="muted">{{.MoreFind}} more codes in the JSON report.</p>{{end}}
{{else}}<p>No findings: {{if .C.Handshake.Count}}every check passed on the {{int .C.Handshake.Count}} plans that completed the handshake{{else}}no plan completed the handshake, so there was nothing to check{{end}}.</p>{{end}}

<h2 id="breakdowns">Breakdowns</h2>
{{- range .Breakdown}}
<h3>{{.Title}}</h3>
<div class="scroll"><table>
<thead><tr><th>Value</th><th class="n">Plans</th><th class="n">Handshakes</th><th class="n">Rate</th>{{if $.CI}}<th class="n">95% CI</th>{{end}}<th class="n">Tools</th><th class="n">Median score</th><th class="n">Keep</th><th class="n">Fix</th><th class="n">Drop</th></tr></thead>
<tbody>
{{- range .Rows}}
<tr><td>{{line .Key}}</td><td class="n">{{int .Servers}}</td><td class="n">{{int .Handshake.Count}}</td><td class="n">{{.Handshake.Percent}}</td>{{if $.CI}}<td class="n">{{.Handshake.CI}}</td>{{end}}<td class="n">{{int .Tools}}</td><td class="n">{{num .Score.Median}}</td><td class="n">{{int .Keep}}</td><td class="n">{{int .Fix}}</td><td class="n">{{int .Drop}}</td></tr>
{{- end}}
</tbody></table></div>
{{if .More}}<p class="muted">{{.More}} more values in the JSON report.</p>{{end}}
{{- end}}

<h2 id="servers">Plans</h2>
<p class="muted">{{int (len .R.Rows)}} plans; click a column to sort.{{if .Capped}} Details below for the first {{int .R.Sections}} by name (the JSON report has every plan).{{end}}</p>
<div class="scroll"><table class="sortable" id="server-table">
<thead><tr><th class="n">#</th><th>Server</th><th>Version</th><th>Package</th><th class="hide-s">Transport</th><th>Status</th><th class="n">Tools</th><th class="n">Score</th><th>Verdict</th><th class="n">Findings</th></tr></thead>
<tbody>
{{- $sections := .R.Sections}}
{{- range $i, $r := .R.Rows}}
<tr><td class="n">{{add1 $i}}</td><td class="wrap">{{if lt $i $sections}}<a href="#{{sectionAnchor $i}}">{{line $r.Name}}</a>{{else}}{{line $r.Name}}{{end}}</td><td>{{line $r.Version}}{{with $r.InstalledVersion}} <span class="muted">({{line .}} installed)</span>{{end}}</td><td>{{line $r.PackageType}}</td><td class="hide-s">{{line $r.Transport}}</td><td>{{line (print $r.Status)}}</td><td class="n">{{$r.Tools}}</td><td class="n" data-v="{{scorev $r.Score}}">{{score $r.Score}}</td><td class="v-{{line $r.Verdict}}">{{line $r.Verdict}}</td><td class="n">{{$r.Findings}}</td></tr>
{{- end}}
</tbody></table></div>
{{end}}

{{- define "hchart" -}}
<svg viewBox="0 0 400 {{f1 .Height}}" role="img" aria-label="{{.Title}}">
{{- range .Bars}}
<text x="0" y="{{f1 .TextY}}">{{.Label}}</text><text x="400" y="{{f1 .TextY}}" text-anchor="end">{{.Value}}</text>
<rect class="track" x="0" y="{{f1 .Y}}" width="400" height="10" rx="2"></rect><rect class="fill" x="0" y="{{f1 .Y}}" width="{{f1 .W}}" height="10" rx="2"></rect>
{{- if .CI}}<line class="ci" x1="{{f1 .Lo}}" x2="{{f1 .Hi}}" y1="{{f1 .Mid}}" y2="{{f1 .Mid}}"></line>{{end}}
{{- end}}
</svg>
{{- end}}

{{- define "vchart" -}}
<svg viewBox="0 0 400 150" role="img" aria-label="actionability score histogram by deciles">
{{- range .Bars}}
<rect class="fill" x="{{f1 .X}}" y="{{f1 .Y}}" width="34" height="{{f1 .H}}"></rect><text x="{{f1 .LabelX}}" y="{{f1 .Y}}" dy="-3" text-anchor="middle">{{.Count}}</text><text x="{{f1 .LabelX}}" y="145" text-anchor="middle">{{.Label}}</text>
{{- end}}
<line class="ci" x1="0" x2="400" y1="130" y2="130"></line>
</svg>
{{- end}}

{{- define "stack" -}}
<svg viewBox="0 0 400 84" role="img" aria-label="keep, fix and drop shares">
{{- range .Parts}}
<rect class="{{.Class}}" x="{{f1 .X}}" y="0" width="{{f1 .W}}" height="22"></rect>
{{- end}}
{{- range .Parts}}
<rect class="{{.Class}}" x="0" y="{{f1 .TextY}}" width="10" height="10" transform="translate(0 -9)"></rect><text x="14" y="{{f1 .TextY}}">{{.Label}} ({{int .P.Count}} of {{int .P.Total}})</text>
{{- end}}
</svg>
{{- end}}

{{- define "server" -}}
<section class="server" id="{{.Anchor}}">
<h3>{{.I}}. {{line .Row.Name}}{{with .Row.Version}} <span class="muted">{{line .}}</span>{{end}}</h3>
<dl class="facts">
<dt>target</dt><dd>{{line .Row.Key}} · {{line .Row.PackageType}} · {{line .Row.Transport}}{{with .Row.Launch}} · <code>{{line .}}</code>{{end}}</dd>
{{- range .Facts}}
<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>
{{- end}}
{{- if .Row.HandshakeCompleted}}
<dt>offers</dt><dd>{{offers .Row.Tools .Row.Prompts .Row.Resources .Row.ResourceTemplates}}</dd>
<dt>SDK</dt><dd>{{line .Row.SDK}}{{with .Row.SDKEvidence}} <span class="muted">({{line .}})</span>{{end}}</dd>
{{- end}}
{{- with .Res.Score}}
<dt>score</dt><dd>{{score .}}/100 <span class="muted">(rubric {{line $.Res.RubricVersion}})</span></dd>
{{- end}}
{{- with .Res.Verdict}}
<dt>verdict</dt><dd class="v-{{line .Decision}}">{{upper (line .Decision)}}{{with $.Fired}} <span class="muted">({{line .}})</span>{{end}}</dd>
{{- end}}
</dl>
{{- if hasText .Res.Liveness.StderrTail}}
<details open><summary>stderr (last lines)</summary><pre>{{text .Res.Liveness.StderrTail}}</pre></details>
{{- end}}
{{- if hasText .Res.Liveness.StdoutNoise}}
<details open><summary>non-protocol stdout</summary><pre>{{text .Res.Liveness.StdoutNoise}}</pre></details>
{{- end}}
{{- if .Groups}}
<h4>Findings ({{len .Res.Findings}} in {{len .Groups}} codes)</h4>
<div class="scroll"><table>
<thead><tr><th>Severity</th><th>Code</th><th class="n">Count</th><th>Subjects</th><th>First message</th></tr></thead>
<tbody>
{{- range .Groups}}
<tr><td class="sev-{{line (print .Severity)}}">{{line (print .Severity)}}</td><td>{{line .Code}}</td><td class="n">{{.Count}}</td><td class="wrap">{{long (join .Subjects ", ")}}{{if .MoreSubjects}} <span class="muted">and {{.MoreSubjects}} more</span>{{end}}</td><td class="wrap">{{long .Message}}{{with .Value}} <code>{{long .}}</code>{{end}}</td></tr>
{{- end}}
</tbody></table></div>
{{- else}}
<h4>Findings</h4><p class="muted">None: {{.NoFindings}}.</p>
{{- end}}
{{- if .Probes}}
<h4>Probes ({{len .Res.Probes}})</h4>
{{- range $j, $p := .Probes}}
<details><summary>{{add1 $j}}. {{line $p.Kind}} · {{line $p.Method}}{{with $p.Tool}} · {{line .}}{{end}}{{with $p.Param}} · param {{line .}}{{end}} → {{line $p.Class}}, {{ms $p.LatencyMs}}{{with $p.Score}}, score {{score .}}{{end}}</summary>
<div>sent</div><pre>{{json $p.Sent}}</pre>
{{- with $p.Response}}<div>received</div><pre>{{json .}}</pre>{{end}}
{{- if hasText $p.Text}}<div>text (as graded)</div><pre>{{text $p.Text}}</pre>{{end}}
{{- if $p.Elements}}
<ul class="el">
{{- range $p.Elements}}
<li class="{{if .Pass}}pass{{else}}fail{{end}}">{{if .Pass}}✓{{else}}✗{{end}} {{line .Name}}{{with .Evidence}}: <span class="muted">{{line .}}</span>{{end}}</li>
{{- end}}
</ul>
{{- end}}
</details>
{{- end}}
{{- with index .More 2}}<p class="muted">{{.}} more probes in the JSON report.</p>{{end}}
{{- end}}
{{- with .Res.Verdict}}{{if .Rules}}
<h4>Verdict rules</h4>
<div class="scroll"><table>
<thead><tr><th>Rule</th><th>Fired</th><th>Decision</th><th>Detail</th><th>Findings</th></tr></thead>
<tbody>
{{- range .Rules}}
<tr><td>{{line .Name}}</td><td>{{if .Fired}}<strong>yes</strong>{{else}}no{{end}}</td><td>{{line .Decision}}</td><td class="wrap">{{long .Detail}}</td><td class="wrap">{{long (join .Findings ", ")}}</td></tr>
{{- end}}
</tbody></table></div>
{{- end}}{{end}}
{{- if .Tools}}
<details><summary>Tools ({{len .Res.Tools}})</summary>
<div class="scroll"><table>
<thead><tr><th>Tool</th><th>Description</th></tr></thead>
<tbody>
{{- range .Tools}}
<tr><td>{{line .Name}}</td><td class="wrap">{{line .Description}}</td></tr>
{{- end}}
</tbody></table></div>
{{- with index .More 0}}<p class="muted">{{.}} more tools in the JSON report.</p>{{end}}
</details>
{{- end}}
</section>
{{end}}

{{- define "foot" -}}
</main>
<script>{{.}}</script>
</body>
</html>
{{end}}
`
