package results

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// Census is the ecosystem figures of a scan: every headline figure with
// its denominator and 95% Wilson interval, and breakdowns by package
// type, transport, protocol version and SDK. [Tally] computes it in one
// pass over the runs. Its JSON form is the "census" object of
// docs/report-schema.md.
type Census struct {
	// Units: a registry entry (a server.json, "server") has one plan per
	// package and per remote; each plan has one run. A launch is a plan
	// whose package installed and whose process started (or whose remote
	// was reached); a handshake is a launch that completed the MCP
	// handshake.
	//
	// Entries counts the distinct registry entries (server names) of the
	// runs; EntriesLive those with at least one plan that completed the
	// handshake, of Entries.
	Entries     int        `json:"entries"`
	EntriesLive Proportion `json:"entriesLive"`
	// EntriesWithoutPlans counts the registry entries of the crawl that
	// list neither a package nor a remote, so they have no plan and no run
	// (known only for a whole, unfiltered crawl; 0 otherwise).
	EntriesWithoutPlans int `json:"entriesWithoutPlans,omitempty"`
	// Plans counts the runs (one per plan); Servers is the same number,
	// under its historical name.
	Plans int `json:"plans"`
	// Launches counts the runs that got past install and configuration and
	// started a process or reached a remote.
	Launches int `json:"launches"`
	// Servers counts the runs (one per target) of the scan: plans.
	Servers int `json:"servers"`
	// Handshake is the servers that completed the handshake, of Servers.
	Handshake Proportion `json:"handshakeCompleted"`
	// HandshakeOfLaunched is the servers that completed the handshake, of
	// those launched: installed, configured and started (or reached).
	// Where many packages cannot be installed (a partial mirror, yanked
	// versions) it separates the servers' behaviour from their
	// availability.
	HandshakeOfLaunched Proportion `json:"handshakeCompletedOfLaunched"`
	// Liveness partitions Servers into [LivenessGroups].
	Liveness []GroupFigure `json:"liveness"`
	// Statuses counts each liveness status, of Servers.
	Statuses    []StatusFigure    `json:"statuses"`
	Tools       ToolFigures       `json:"tools"`
	Schema      SchemaFigures     `json:"schema"`
	Annotations AnnotationFigures `json:"annotations"`
	Score       ScoreFigures      `json:"score"`
	Errors      ErrorFigures      `json:"errorResponses"`
	// Context is what a plan costs a client's context, in tokens.
	Context ContextFigures `json:"context"`
	// Retry is the first-retry resolution of the errors mcpvet corrected.
	Retry    RetryFigures   `json:"retry"`
	Verdicts VerdictFigures `json:"verdicts"`
	// Sampled is true for a --sample scan: only then are intervals
	// stated, clustered by registry entry for the plan-level figures. A
	// complete census states exact counts: its proportions are Exact.
	Sampled bool `json:"sampled"`
	// Conditions are the run conditions the scan recorded (what this
	// machine could reach and run), nil for an older scan.
	Conditions *vocab.Conditions `json:"runConditions"`
	// Source names the scan's source by what a reader can look up: the
	// registry URL, or the snapshot's file name, entry count and SHA-256;
	// never a local path.
	Source string `json:"source"`
	// Remotes are the OAuth readiness figures of the remote plans.
	Remotes RemoteFigures `json:"remotes"`
	// Findings are the finding codes, most servers affected first.
	Findings   []FindingFigure `json:"findings"`
	Breakdowns Breakdowns      `json:"breakdowns"`
}

// GroupFigure is one liveness group's share of the servers.
type GroupFigure struct {
	Group    string         `json:"group"`
	Label    string         `json:"label"`
	Statuses []vocab.Status `json:"statuses"`
	Share    Proportion     `json:"share"`
}

// StatusFigure is one liveness status's share of the servers.
type StatusFigure struct {
	Status  vocab.Status `json:"status"`
	Meaning string       `json:"meaning"`
	Share   Proportion   `json:"share"`
	// Handshake counts the runs with this status that completed the
	// handshake anyway (stdout pollution).
	Handshake int `json:"handshakeCompleted"`
}

// ToolFigures count what the servers that completed the handshake offer.
type ToolFigures struct {
	// Servers counts the servers that completed the handshake.
	Servers int `json:"servers"`
	// Total is the tools they listed.
	Total int `json:"total"`
	// PerServer is the distribution of tools per server, zeros included.
	PerServer         Distribution `json:"perServer"`
	Prompts           int          `json:"prompts"`
	Resources         int          `json:"resources"`
	ResourceTemplates int          `json:"resourceTemplates"`
}

// SchemaFigures are the tool schema violations (finding codes "schema/").
// A fatal violation makes a tool unusable (fatal severity); soft ones are
// every other severity. Tool shares are of all tools listed.
type SchemaFigures struct {
	Tools int `json:"tools"`
	// FatalTools are tools with at least one fatal schema finding.
	FatalTools Proportion `json:"fatalTools"`
	// SoftTools are tools with at least one non-fatal schema finding.
	SoftTools     Proportion `json:"softTools"`
	FatalFindings int        `json:"fatalFindings"`
	SoftFindings  int        `json:"softFindings"`
	// FatalServers are servers with a fatal schema finding, of the
	// servers that completed the handshake.
	FatalServers Proportion `json:"fatalServers"`
}

// AnnotationFigures are the omission rates of the tool annotation hints.
// Tools of servers speaking 2024-11-05, which has no annotations, are not
// checked and are counted in LegacyTools instead.
type AnnotationFigures struct {
	ToolsChecked int `json:"toolsChecked"`
	LegacyTools  int `json:"legacyTools"`
	// NoAnnotations are checked tools without an annotations object.
	NoAnnotations Proportion `json:"noAnnotations"`
	// AnyOmitted are checked tools omitting at least one hint that applies.
	AnyOmitted Proportion   `json:"anyHintOmitted"`
	Hints      []HintFigure `json:"hints"`
}

// HintFigure is the omission rate of one hint. destructiveHint and
// idempotentHint apply only to tools not marked readOnlyHint: true, so
// their denominators are smaller.
type HintFigure struct {
	Hint    string     `json:"hint"`
	Code    string     `json:"code"`
	Omitted Proportion `json:"omitted"`
}

// ScoreFigures describe the actionability scores (0-100) of the servers
// whose error responses were graded.
type ScoreFigures struct {
	// Scored is servers with a score, of those that completed the
	// handshake.
	Scored       Proportion   `json:"scored"`
	Distribution Distribution `json:"distribution"`
	Deciles      []DecileBin  `json:"deciles"`
}

// DecileBin counts scores in [Low, High); the last bin includes 100.
type DecileBin struct {
	Low   int `json:"low"`
	High  int `json:"high"`
	Count int `json:"count"`
}

// ErrorFigures describe the failure-injection probes and the graded error
// responses.
type ErrorFigures struct {
	Probes int `json:"probes"`
	// Classes are the probe outcomes (protocol_error, tool_error,
	// accepted, crash, hang), of Probes.
	Classes []ClassFigure `json:"classes"`
	// Graded counts the responses graded on the rubric, and Servers the
	// servers with at least one.
	Graded  int `json:"graded"`
	Servers int `json:"servers"`
	// Elements are the rubric elements in rubric order, each passed of
	// the graded responses it applies to.
	Elements []ElementFigure `json:"elements"`
}

// ClassFigure is one probe outcome's share of the probes.
type ClassFigure struct {
	Class string     `json:"class"`
	Share Proportion `json:"share"`
}

// ElementFigure is one rubric element's pass rate.
type ElementFigure struct {
	Element string     `json:"element"`
	Meaning string     `json:"meaning"`
	Pass    Proportion `json:"pass"`
}

// VerdictFigures are the keep / fix / drop shares of the assessed plans
// (those with one of the three decisions), with the plans that were not
// assessed beside them: needs_setup (the user has to supply something)
// and not_assessed (this machine could not run them), the latter by cause.
type VerdictFigures struct {
	WithVerdict int `json:"withVerdict"`
	Without     int `json:"without"`
	// Assessed is the plans with keep, fix or drop: the denominator of
	// Keep, Fix and Drop.
	Assessed    int        `json:"assessed"`
	Keep        Proportion `json:"keep"`
	Fix         Proportion `json:"fix"`
	Drop        Proportion `json:"drop"`
	NeedsSetup  int        `json:"needsSetup"`
	NotAssessed int        `json:"notAssessed"`
	// NotAssessedCauses count the not-assessed plans by cause, most first.
	NotAssessedCauses []CauseFigure `json:"notAssessedCauses"`
	// Actors count the plans with a verdict by who must act.
	Actors []CauseFigure `json:"actors"`
	// Rules count the rule that decided each verdict.
	Rules []RuleFigure `json:"rules"`
}

// CauseFigure counts the plans of one cause or actor.
type CauseFigure struct {
	Cause string `json:"cause"`
	Plans int    `json:"plans"`
}

// RuleFigure counts the verdicts one rule decided.
type RuleFigure struct {
	Rule     string `json:"rule"`
	Decision string `json:"decision"`
	Servers  int    `json:"servers"`
}

// RemoteFigures count the remote plans (URL targets) and, of those that
// answered 401, their OAuth readiness as mcpvet saw it without
// credentials (probe check_oauth.go): ready, not ready (no OAuth
// discovery, no PKCE S256 or no registration route), broken metadata, or
// not checked (metadata on a host mcpvet does not contact, or
// unreachable).
type RemoteFigures struct {
	Plans        int `json:"plans"`
	Unauthorized int `json:"unauthorized"`
	// OAuthReady, OAuthNotReady and OAuthBroken are of Unauthorized.
	OAuthReady    Proportion `json:"oauthReady"`
	OAuthNotReady Proportion `json:"oauthNotReady"`
	OAuthBroken   Proportion `json:"oauthBrokenMetadata"`
	NotChecked    int        `json:"oauthNotChecked"`
}

// FindingFigure is one finding code across the scan.
type FindingFigure struct {
	Code     string         `json:"code"`
	Severity probe.Severity `json:"severity"`
	Title    string         `json:"title,omitempty"`
	// Servers is the servers with at least one such finding, of all.
	Servers     Proportion `json:"servers"`
	Occurrences int        `json:"occurrences"`
}

// Breakdowns split the servers by one attribute each.
type Breakdowns struct {
	PackageType     []BreakdownRow `json:"packageType"`
	Transport       []BreakdownRow `json:"transport"`
	ProtocolVersion []BreakdownRow `json:"protocolVersion"`
	SDK             []BreakdownRow `json:"sdk"`
}

// BreakdownRow is the figures of the servers sharing one value.
type BreakdownRow struct {
	Key       string     `json:"key"`
	Servers   int        `json:"servers"`
	Handshake Proportion `json:"handshakeCompleted"`
	Tools     int        `json:"tools"`
	// Score is the distribution of the scored servers' scores.
	Score Distribution `json:"score"`
	Keep  int          `json:"keep"`
	Fix   int          `json:"fix"`
	Drop  int          `json:"drop"`
}

// A Tally accumulates a [Census] one result at a time, so a report over
// any number of runs holds only counters and one number per server. It is
// not safe for concurrent use.
type Tally struct {
	servers, handshake int
	launched           int             // runs that got past install and configuration
	entries            map[string]bool // entry name -> any plan live
	groups             map[string]int
	statuses           map[vocab.Status]*[2]int // runs, of which handshake completed

	toolsPer                      []float64
	tools, prompts, res, tmpls    int
	schemaFatalTools, schemaSoft  int
	schemaFatalServers            int
	annChecked, annLegacy, annNo  int
	annAny                        int
	hintOmitted, hintApplies      [4]int
	scores                        []float64
	probes, graded, gradedServers int
	classes                       map[string]int
	elemApplies, elemPass         map[string]int
	verdicts                      map[string]int
	noVerdict                     int
	actors, notAssessed           map[string]int
	perEntry                      map[string]*entryCounts
	rules                         map[[2]string]int
	findings                      map[string]*findingTally
	by                            [4]map[string]*bucket
	remotes                       int
	oauth                         map[string]int // OAuth readiness -> remote plans
	cost                          costTally
}

type findingTally struct {
	severity             probe.Severity
	servers, occurrences int
}

type bucket struct {
	servers, handshake, tools int
	scores                    []float64
	keep, fix, drop           int
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	t := &Tally{
		entries:     map[string]bool{},
		groups:      map[string]int{},
		statuses:    map[vocab.Status]*[2]int{},
		classes:     map[string]int{},
		elemApplies: map[string]int{},
		elemPass:    map[string]int{},
		verdicts:    map[string]int{},
		actors:      map[string]int{},
		notAssessed: map[string]int{},
		perEntry:    map[string]*entryCounts{},
		rules:       map[[2]string]int{},
		findings:    map[string]*findingTally{},
		oauth:       map[string]int{},
	}
	for i := range t.by {
		t.by[i] = map[string]*bucket{}
	}
	return t
}

// launched reports whether a run got as far as starting the server:
// every status but the pre-launch ones and an unreachable remote (nothing
// was launched, and nothing answered). A package with an HTTP transport
// that was started and then not reached was launched: its process ran.
func launched(res *probe.Result) bool {
	switch res.Liveness.Status {
	case vocab.StatusUnreachable:
		return len(res.Target.Command) > 0 && res.Target.Sandbox != "remote"
	case vocab.StatusNeedsConfiguration, vocab.StatusRuntimeUnavailable, vocab.StatusPackageNotFound,
		vocab.StatusVersionNotFound, vocab.StatusInstallFailed, vocab.StatusInvalidPlan:
		return false
	}
	return true
}

// Add counts one run's result.
func (t *Tally) Add(res *probe.Result) {
	l := &res.Liveness
	t.servers++
	if launched(res) {
		t.launched++
	}
	t.entries[res.Target.Name] = t.entries[res.Target.Name] || l.HandshakeCompleted
	t.groups[GroupOf(*l)]++
	ec := t.entry(res.Target.Name)
	ec.plans++
	ec.groups[GroupOf(*l)]++
	if launched(res) {
		ec.launched++
	}
	if l.HandshakeCompleted {
		ec.handshake++
	}
	if res.Verdict != nil {
		ec.verdicts[res.Verdict.Decision]++
	}
	st := t.statuses[l.Status]
	if st == nil {
		st = &[2]int{}
		t.statuses[l.Status] = st
	}
	st[0]++
	if l.HandshakeCompleted {
		st[1]++
		t.handshake++
		t.toolsPer = append(t.toolsPer, float64(len(res.Tools)))
		t.tools += len(res.Tools)
		t.prompts += len(res.Prompts)
		t.res += len(res.Resources)
		t.tmpls += len(res.ResourceTemplates)
		t.addTools(res)
		if res.Score != nil {
			t.scores = append(t.scores, *res.Score)
		}
	}
	t.addProbes(res.Probes)
	t.cost.add(res)
	if res.Target.URL != "" {
		t.remotes++
		if res.OAuth != nil {
			t.oauth[res.OAuth.Readiness]++
		}
	}
	decision := ""
	if v := res.Verdict; v != nil && v.Decision != "" {
		decision = v.Decision
		t.verdicts[decision]++
		t.actors[string(v.Who())]++
		if decision == vocab.DecisionNotAssessed {
			t.notAssessed[notAssessedCause(v.Cause)]++
		}
		for _, r := range v.Rules {
			if r.Fired {
				t.rules[[2]string{r.Name, decision}]++
				break
			}
		}
	} else {
		t.noVerdict++
	}
	t.addFindings(res.Findings)

	sdk, _ := SDKOfResult(res)
	for i, key := range [4]string{PackageType(res.Target), transportKey(res.Target), ProtocolKey(*l), sdk} {
		b := t.by[i][key]
		if b == nil {
			b = &bucket{}
			t.by[i][key] = b
		}
		b.servers++
		if l.HandshakeCompleted {
			b.handshake++
			b.tools += len(res.Tools)
			if res.Score != nil {
				b.scores = append(b.scores, *res.Score)
			}
		}
		switch decision {
		case vocab.DecisionKeep:
			b.keep++
		case vocab.DecisionFix:
			b.fix++
		case vocab.DecisionDrop:
			b.drop++
		}
	}
}

func transportKey(t probe.Target) string {
	if t.Transport == "" {
		return "unknown"
	}
	return t.Transport
}

// addTools counts the schema and annotation findings per tool.
func (t *Tally) addTools(res *probe.Result) {
	if len(res.Tools) == 0 {
		return
	}
	// Tool subjects with each kind of finding.
	var fatal, soft map[string]bool
	var missing [4]map[string]bool
	mark := func(m *map[string]bool, subj string) {
		if *m == nil {
			*m = map[string]bool{}
		}
		(*m)[subj] = true
	}
	fatalServer := false
	for i := range res.Findings {
		f := &res.Findings[i]
		switch {
		case strings.HasPrefix(f.Code, "schema/"):
			if f.Severity == probe.SeverityFatal {
				fatalServer = true
				if strings.HasPrefix(f.Subject, "tool:") {
					mark(&fatal, f.Subject)
				}
			} else if strings.HasPrefix(f.Subject, "tool:") {
				mark(&soft, f.Subject)
			}
		case strings.HasPrefix(f.Code, "annotations/missing_"):
			for h, hc := range hintCodes {
				if f.Code == hc.code {
					mark(&missing[h], f.Subject)
				}
			}
		}
	}
	if fatalServer {
		t.schemaFatalServers++
	}
	legacy := res.Liveness.ProtocolVersion == vocab.Protocol20241105
	for i := range res.Tools {
		tool := &res.Tools[i]
		subj := "tool:" + tool.Name
		if fatal[subj] {
			t.schemaFatalTools++
		}
		if soft[subj] {
			t.schemaSoft++
		}
		if legacy {
			t.annLegacy++
			continue
		}
		t.annChecked++
		ann := bytes.TrimSpace(tool.Annotations)
		if len(ann) == 0 || string(ann) == "null" {
			t.annNo++
		}
		readOnly := isReadOnly(ann)
		omitted := false
		for h, hc := range hintCodes {
			if hc.writeOnly && readOnly {
				continue
			}
			t.hintApplies[h]++
			if missing[h][subj] {
				t.hintOmitted[h]++
				omitted = true
			}
		}
		if omitted {
			t.annAny++
		}
	}
}

// isReadOnly reports whether annotations set readOnlyHint to true, the
// case in which destructiveHint and idempotentHint do not apply.
func isReadOnly(ann []byte) bool {
	if len(ann) == 0 || ann[0] != '{' || !bytes.Contains(ann, []byte("readOnlyHint")) {
		return false
	}
	var a struct {
		ReadOnly json.RawMessage `json:"readOnlyHint"`
	}
	if json.Unmarshal(ann, &a) != nil {
		return false
	}
	return string(a.ReadOnly) == "true"
}

func (t *Tally) addProbes(ps []probe.ProbeCall) {
	graded := false
	for i := range ps {
		p := &ps[i]
		t.probes++
		t.classes[p.Class]++
		if len(p.Elements) == 0 {
			continue
		}
		graded = true
		t.graded++
		for _, e := range p.Elements {
			t.elemApplies[e.Name]++
			if e.Pass {
				t.elemPass[e.Name]++
			}
		}
	}
	if graded {
		t.gradedServers++
	}
}

func (t *Tally) addFindings(fs []probe.Finding) {
	var seen map[string]bool
	for i := range fs {
		f := &fs[i]
		ft := t.findings[f.Code]
		if ft == nil {
			ft = &findingTally{severity: f.Severity}
			if e, ok := probe.Lookup(f.Code); ok {
				ft.severity = e.Severity
			}
			t.findings[f.Code] = ft
		}
		ft.occurrences++
		if seen == nil {
			seen = map[string]bool{}
		}
		if !seen[f.Code] {
			seen[f.Code] = true
			ft.servers++
		}
	}
}

// Census returns the figures of the results added so far.
func (t *Tally) Census() *Census {
	live := 0
	for _, ok := range t.entries {
		if ok {
			live++
		}
	}
	c := &Census{Entries: len(t.entries), EntriesLive: Prop(live, len(t.entries)), Plans: t.servers, Launches: t.launched,
		Servers: t.servers, Handshake: Prop(t.handshake, t.servers), HandshakeOfLaunched: Prop(t.handshake, t.launched)}
	for _, g := range LivenessGroups {
		c.Liveness = append(c.Liveness, GroupFigure{Group: g.Group, Label: g.Label, Statuses: g.Statuses,
			Share: Prop(t.groups[g.Group], t.servers)})
	}
	known := map[vocab.Status]bool{}
	for _, s := range vocab.Statuses {
		known[s.Status] = true
		if n := t.statuses[s.Status]; n != nil {
			c.Statuses = append(c.Statuses, StatusFigure{Status: s.Status, Meaning: s.Meaning, Share: Prop(n[0], t.servers), Handshake: n[1]})
		}
	}
	var unknown []vocab.Status
	for s := range t.statuses {
		if !known[s] {
			unknown = append(unknown, s)
		}
	}
	slices.Sort(unknown)
	for _, s := range unknown {
		n := t.statuses[s]
		c.Statuses = append(c.Statuses, StatusFigure{Status: s, Meaning: "a status this build does not know", Share: Prop(n[0], t.servers), Handshake: n[1]})
	}

	unauthorized := 0
	for _, n := range t.oauth {
		unauthorized += n
	}
	c.Remotes = RemoteFigures{Plans: t.remotes, Unauthorized: unauthorized,
		OAuthReady: Prop(t.oauth[probe.OAuthReady], unauthorized), OAuthNotReady: Prop(t.oauth[probe.OAuthNotReady], unauthorized),
		OAuthBroken: Prop(t.oauth[probe.OAuthBroken], unauthorized), NotChecked: t.oauth[probe.OAuthNotChecked]}
	c.Tools = ToolFigures{Servers: t.handshake, Total: t.tools, PerServer: Describe(t.toolsPer),
		Prompts: t.prompts, Resources: t.res, ResourceTemplates: t.tmpls}
	c.Schema = SchemaFigures{Tools: t.tools, FatalTools: Prop(t.schemaFatalTools, t.tools), SoftTools: Prop(t.schemaSoft, t.tools),
		FatalServers: Prop(t.schemaFatalServers, t.handshake)}
	for code, f := range t.findings {
		if strings.HasPrefix(code, "schema/") {
			if f.severity == probe.SeverityFatal {
				c.Schema.FatalFindings += f.occurrences
			} else {
				c.Schema.SoftFindings += f.occurrences
			}
		}
	}
	c.Annotations = AnnotationFigures{ToolsChecked: t.annChecked, LegacyTools: t.annLegacy,
		NoAnnotations: Prop(t.annNo, t.annChecked), AnyOmitted: Prop(t.annAny, t.annChecked)}
	for h, hc := range hintCodes {
		c.Annotations.Hints = append(c.Annotations.Hints, HintFigure{Hint: hc.hint, Code: hc.code,
			Omitted: Prop(t.hintOmitted[h], t.hintApplies[h])})
	}

	bins := Deciles(t.scores)
	c.Score = ScoreFigures{Scored: Prop(len(t.scores), t.handshake), Distribution: Describe(t.scores)}
	for i, n := range bins {
		c.Score.Deciles = append(c.Score.Deciles, DecileBin{Low: 10 * i, High: 10 * (i + 1), Count: n})
	}

	c.Errors = ErrorFigures{Probes: t.probes, Graded: t.graded, Servers: t.gradedServers}
	c.Context, c.Retry = t.cost.figures()
	for _, cl := range sortedKeys(t.classes, classOrder) {
		c.Errors.Classes = append(c.Errors.Classes, ClassFigure{Class: cl, Share: Prop(t.classes[cl], t.probes)})
	}
	elemOrder := map[string]int{}
	for i, e := range vocab.Elements {
		elemOrder[e] = i + 1
	}
	for _, e := range sortedKeys(t.elemApplies, elemOrder) {
		c.Errors.Elements = append(c.Errors.Elements, ElementFigure{Element: e, Meaning: elementMeanings[e],
			Pass: Prop(t.elemPass[e], t.elemApplies[e])})
	}

	nv := t.servers - t.noVerdict
	na := t.verdicts[vocab.DecisionKeep] + t.verdicts[vocab.DecisionFix] + t.verdicts[vocab.DecisionDrop]
	c.Verdicts = VerdictFigures{WithVerdict: nv, Without: t.noVerdict, Assessed: na,
		Keep: Prop(t.verdicts[vocab.DecisionKeep], na), Fix: Prop(t.verdicts[vocab.DecisionFix], na),
		Drop:       Prop(t.verdicts[vocab.DecisionDrop], na),
		NeedsSetup: t.verdicts[vocab.DecisionNeedsSetup], NotAssessed: t.verdicts[vocab.DecisionNotAssessed],
		NotAssessedCauses: causeFigures(t.notAssessed), Actors: causeFigures(t.actors)}
	for k, n := range t.rules {
		c.Verdicts.Rules = append(c.Verdicts.Rules, RuleFigure{Rule: k[0], Decision: k[1], Servers: n})
	}
	sort.Slice(c.Verdicts.Rules, func(i, j int) bool {
		a, b := c.Verdicts.Rules[i], c.Verdicts.Rules[j]
		if a.Servers != b.Servers {
			return a.Servers > b.Servers
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Decision < b.Decision
	})

	for code, f := range t.findings {
		ff := FindingFigure{Code: code, Severity: f.severity, Servers: Prop(f.servers, t.servers), Occurrences: f.occurrences}
		if e, ok := probe.Lookup(code); ok {
			ff.Title = e.Title
		}
		c.Findings = append(c.Findings, ff)
	}
	sort.Slice(c.Findings, func(i, j int) bool {
		a, b := c.Findings[i], c.Findings[j]
		if a.Servers.Count != b.Servers.Count {
			return a.Servers.Count > b.Servers.Count
		}
		if a.Occurrences != b.Occurrences {
			return a.Occurrences > b.Occurrences
		}
		return a.Code < b.Code
	})

	c.Breakdowns = Breakdowns{
		PackageType:     breakdownRows(t.by[0]),
		Transport:       breakdownRows(t.by[1]),
		ProtocolVersion: breakdownRows(t.by[2]),
		SDK:             breakdownRows(t.by[3]),
	}
	return c
}

// classOrder is the report order of probe classes, worst last.
var classOrder = func() map[string]int {
	m := map[string]int{}
	for i, c := range vocab.Classes {
		m[c] = i + 1
	}
	return m
}()

// sortedKeys returns m's keys in the given order, unknown keys last by
// name.
func sortedKeys(m map[string]int, order map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		if r, ok := order[k]; ok {
			return r
		}
		return math.MaxInt
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rank(keys[i]), rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	return keys
}

func breakdownRows(m map[string]*bucket) []BreakdownRow {
	rows := make([]BreakdownRow, 0, len(m))
	for k, b := range m {
		rows = append(rows, BreakdownRow{Key: k, Servers: b.servers, Handshake: Prop(b.handshake, b.servers),
			Tools: b.tools, Score: Describe(b.scores), Keep: b.keep, Fix: b.fix, Drop: b.drop})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Servers != rows[j].Servers {
			return rows[i].Servers > rows[j].Servers
		}
		return rows[i].Key < rows[j].Key
	})
	return rows
}

// entriesWithoutPlans reads, from a scan's options, how many entries of
// its crawl had nothing to launch. Only a whole crawl counts them: with a
// sample, limit, shard or filter the crawl's count is not about the
// entries the scan ran.
func entriesWithoutPlans(options []byte) int {
	var o struct {
		Sample       int            `json:"sample"`
		Limit        int            `json:"limit"`
		Shard        string         `json:"shard"`
		RegistryType string         `json:"registryType"`
		Transport    string         `json:"transport"`
		Flags        map[string]any `json:"flags"`
		SourceStats  *struct {
			NoTargets int `json:"noTargets"`
		} `json:"sourceStats"`
	}
	if json.Unmarshal(options, &o) != nil || o.SourceStats == nil {
		return 0
	}
	if o.Sample > 0 || o.Limit > 0 || o.Shard != "" || o.RegistryType != "" || o.Transport != "" || o.Flags["shard"] != nil && o.Flags["shard"] != "" {
		return 0
	}
	return o.SourceStats.NoTargets
}

// notAssessedCause is the cause a not-assessed plan is counted under: the
// verdict's cause without its parenthesised evidence, so that plans lacking
// the same thing count together.
func notAssessedCause(cause string) string {
	if i := strings.Index(cause, " ("); i > 0 {
		cause = cause[:i]
	}
	if cause == "" {
		return "unknown"
	}
	return safe.Truncate(cause, 120, safe.Ellipsis)
}

// causeFigures lists counts most first, then by name.
func causeFigures(m map[string]int) []CauseFigure {
	out := []CauseFigure{}
	for k, n := range m {
		out = append(out, CauseFigure{Cause: k, Plans: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Plans != out[j].Plans {
			return out[i].Plans > out[j].Plans
		}
		return out[i].Cause < out[j].Cause
	})
	return out
}
