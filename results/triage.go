package results

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// TriageFailOn are the thresholds of [Triage.Failing]: "drop" counts only
// dropped servers, "fix" counts servers to fix or drop.
var TriageFailOn = []string{vocab.DecisionDrop, vocab.DecisionFix}

// Triage is the portfolio report of one scan of a client config: each
// server with its verdict, why, and the one next step for its owner.
//
// Its JSON encoding (`mcpvet triage --format json`) uses the field names
// below; fields are added, never renamed or removed.
type Triage struct {
	// ScanID is the scan in the results database.
	ScanID int64 `json:"scanId"`
	// Source is the scan's source, "config:FILE" for a triage.
	Source string `json:"source"`
	// Config is the config file: Source without its "config:" prefix.
	Config string `json:"config"`
	// Status is the scan's status: done, interrupted, failed or running.
	Status    string    `json:"status"`
	StartedAt time.Time `json:"startedAt"`
	// Counts are the servers per decision.
	Counts TriageCounts `json:"counts"`
	// Servers are in the order of the config.
	Servers []TriageServer `json:"servers"`
	// Portfolio are the findings about pairs of servers (a tool name two
	// servers share, a description naming another server's tool), each
	// code once per pair.
	Portfolio []probe.PortfolioFinding `json:"portfolio"`
	// Baseline is the database the definitions were compared with
	// (triage --baseline), empty without one.
	Baseline string `json:"baseline,omitempty"`
	// Skipped are the config entries not probed, each with its reason.
	Skipped []TriageSkipped `json:"skipped,omitempty"`
	// Context is what each client loads into a model's context from its
	// servers, in o200k_base tokens ([TriageContext]).
	Context []TriageContext `json:"context"`
	// Retry is the first-retry resolution of the error responses mcpvet
	// could correct, over the distinct servers: "errors that resolve on
	// the first retry: Resolved/Tried".
	Retry probe.RetryRate `json:"retry"`
	// results are the stored results by target key, for the portfolio
	// and baseline comparisons.
	results map[string]*probe.Result
	// db is the path of the database the triage was loaded from.
	db string
	// identities are the identities of the scan's target plans, by key.
	identities map[string]string
}

// TriageCounts counts the servers of a [Triage] by decision. Ungraded
// servers ran but carry no verdict; pending ones never ran because the scan
// stopped first.
type TriageCounts struct {
	Keep        int `json:"keep"`
	Fix         int `json:"fix"`
	Drop        int `json:"drop"`
	NeedsSetup  int `json:"needsSetup"`
	NotAssessed int `json:"notAssessed"`
	Ungraded    int `json:"ungraded"`
	Pending     int `json:"pending"`
}

// TriageServer is one server of a [Triage].
type TriageServer struct {
	// Key is the scan target key ("config:FILE#NAME").
	Key  string `json:"key"`
	Name string `json:"name"`
	// Status is the liveness status; empty when Pending.
	Status vocab.Status `json:"status,omitempty"`
	// Decision is keep, fix or drop; empty when the run carries no verdict
	// or the server is pending.
	Decision string `json:"decision"`
	// Rule is the verdict rule that decided.
	Rule string `json:"rule,omitempty"`
	// Actor is who must act (author, user, environment, none), and Words
	// the verdict in a user's words ("usable, author has 3 items (worst:
	// warn)", "needs setup: supply env TOKEN").
	Actor vocab.Actor `json:"actor,omitempty"`
	Words string      `json:"words,omitempty"`
	// Score is the actionability score (0-100), null when no error
	// response was graded.
	Score *float64 `json:"score"`
	// Reasons are the top reasons for the decision, most important first:
	// the fired verdict rules and the worst findings behind them.
	Reasons []string `json:"reasons"`
	// NextStep is the one thing the server's owner should do next, from
	// the deciding rule or the catalog fix of its worst finding; empty for
	// keep.
	NextStep string `json:"nextStep,omitempty"`
	// Findings are all the run's findings, worst first.
	Findings []probe.Finding `json:"findings"`
	// Pending is true when the scan stopped before the server ran.
	Pending bool `json:"pending,omitempty"`
	// Line is the 1-based line of the server's entry in the config, 0 when
	// unknown.
	Line int `json:"line,omitempty"`
	// DurationMs is the run's total time.
	DurationMs float64 `json:"durationMs"`
	// Definitions says, with a baseline, whether the server's tools,
	// prompts, resources and instructions are "changed", "unchanged" or
	// "new" since the baseline; empty without a baseline or when the
	// handshake failed on either side.
	Definitions string `json:"definitions,omitempty"`
	// Changed lists what changed since the baseline, such as
	// "description_changed tool:search".
	Changed []string `json:"changed,omitempty"`
	// Config is the config file the entry is in, when the triage read
	// several (a server in several configs is reported under each).
	Config string `json:"config,omitempty"`
	// Client names the client of Config (Claude Code, Cursor, ...), when
	// known.
	Client string `json:"client,omitempty"`
	// Project is the project folder of a per-project entry (Claude Code's
	// "projects"), which its client loads together with the config's
	// top-level entries; empty for a top-level entry.
	Project string `json:"project,omitempty"`
	// ContextTokens is what the server costs a client's context, in
	// o200k_base tokens; null when not measured.
	ContextTokens *int `json:"contextTokens"`
	// Retry is the server's first-retry resolution; null when no error
	// was retried.
	Retry *probe.RetryRate `json:"retry,omitempty"`
	// Probed is the key of the run reported for this entry: entries that
	// reach the same server (the same URL, or the same command run the same
	// way) share one run. Empty when it is the entry's own Key.
	Probed string `json:"probed,omitempty"`
}

// TriageSkipped is a config entry the triage did not probe, and why: its
// client does not run it, or mcpvet cannot read it.
type TriageSkipped struct {
	Config string `json:"config,omitempty"`
	Client string `json:"client,omitempty"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// RunKey is the key of the run reported for s.
func (s TriageServer) RunKey() string {
	if s.Probed != "" {
		return s.Probed
	}
	return s.Key
}

// triageMaxReasons bounds TriageServer.Reasons.
const triageMaxReasons = 3

// LoadTriage builds the triage report of a stored scan. Servers come in
// the order their targets were added; targets without a run are pending.
func LoadTriage(ctx context.Context, st *Store, scanID int64) (*Triage, error) {
	sc, err := st.Scan(ctx, scanID)
	if err != nil {
		return nil, err
	}
	t := &Triage{
		ScanID:    sc.ID,
		Source:    sc.Source,
		Config:    strings.TrimPrefix(sc.Source, "config:"),
		Status:    sc.Status,
		StartedAt: sc.StartedAt,
		Servers:   []TriageServer{},
		results:   map[string]*probe.Result{},
		db:        st.Path(),
	}
	byKey := map[string]TriageServer{}
	for rec, err := range st.Runs(ctx, scanID) {
		if err != nil {
			return nil, fmt.Errorf("results: loading triage of scan %d: %w", scanID, err)
		}
		byKey[rec.TargetKey] = NewTriageServer(rec.TargetKey, rec.Result)
		t.results[rec.TargetKey] = rec.Result
	}
	pending, err := st.PendingTargets(ctx, scanID)
	if err != nil {
		return nil, err
	}
	for _, p := range pending {
		byKey[p.Key] = TriageServer{Key: p.Key, Name: p.Name, Pending: true,
			Reasons: []string{"not probed: the scan stopped before this server ran"}, Findings: []probe.Finding{}}
	}
	keys, err := st.triageTargetKeys(ctx, scanID)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if s, ok := byKey[k]; ok {
			t.Servers = append(t.Servers, s)
			delete(byKey, k)
		}
	}
	rest := make([]string, 0, len(byKey))
	for k := range byKey {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	for _, k := range rest {
		t.Servers = append(t.Servers, byKey[k])
	}
	if t.identities, err = st.targetIdentities(ctx, scanID); err != nil {
		return nil, err
	}
	t.Portfolio = triagePortfolio(t.Servers, t.results)
	t.MeasureContext()
	t.Recount()
	return t, nil
}

// triageTargetKeys returns the scan's target keys in the order they were
// added.
func (s *Store) triageTargetKeys(ctx context.Context, scanID int64) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT key FROM targets WHERE scan_id = ? ORDER BY id", scanID)
	if err != nil {
		return nil, fmt.Errorf("results: listing targets of scan %d: %w", scanID, err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("results: listing targets of scan %d: %w", scanID, err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("results: listing targets of scan %d: %w", scanID, err)
	}
	return keys, nil
}

// Failing returns the servers whose decision is at or below failOn: for
// "drop" the dropped servers, for "fix" those to fix or drop. Pending and
// ungraded servers never count. An unknown failOn returns nil.
func (t *Triage) Failing(failOn string) []TriageServer {
	var out []TriageServer
	for _, s := range t.Servers {
		if TriageAtOrBelow(s.Decision, failOn) {
			out = append(out, s)
		}
	}
	return out
}

// TriageAtOrBelow reports whether decision is at or below the threshold in
// the order keep > fix > drop. An empty or unknown decision or threshold is
// never at or below.
func TriageAtOrBelow(decision, threshold string) bool {
	rank := func(d string) int {
		switch d {
		case vocab.DecisionKeep:
			return 3
		case vocab.DecisionFix:
			return 2
		case vocab.DecisionDrop:
			return 1
		}
		return 0
	}
	d, th := rank(decision), rank(threshold)
	return d > 0 && th > 0 && d <= th
}

// NewTriageServer summarises one run for a triage report: its decision,
// the top reasons and the next step.
func NewTriageServer(key string, res *probe.Result) TriageServer {
	s := TriageServer{
		Key:        key,
		Name:       res.Target.Name,
		Status:     res.Liveness.Status,
		Score:      res.Score,
		Findings:   triageWorstFirst(res.Findings),
		DurationMs: res.Liveness.Timings.TotalMs,
		Reasons:    []string{},
	}
	var deciding *probe.Rule
	if v := res.Verdict; v != nil {
		s.Decision = v.Decision
		s.Actor, s.Words = v.Who(), v.Words()
		for i := range v.Rules {
			if v.Rules[i].Fired {
				deciding = &v.Rules[i]
				s.Rule = deciding.Name
				break
			}
		}
	}
	s.Reasons = triageReasons(res)
	triageServerCost(&s, res)
	if s.Decision != vocab.DecisionKeep || s.Rule == vocab.RuleLowScore {
		s.NextStep = triageNextStep(res, deciding)
	}
	return s
}

// triageWorstFirst returns a copy of fs sorted by severity, worst first, keeping
// the order of equal severities.
func triageWorstFirst(fs []probe.Finding) []probe.Finding {
	out := append([]probe.Finding{}, fs...)
	slices.SortStableFunc(out, func(a, b probe.Finding) int { return b.Severity.Rank() - a.Severity.Rank() })
	return out
}

// triageReasons lists why a server got its verdict: each fired rule in
// evaluation order, as its worst findings (one reason per code) or its
// detail, then the worst remaining findings, up to triageMaxReasons.
func triageReasons(res *probe.Result) []string {
	out := []string{}
	add := func(r string) bool {
		if r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
		return len(out) >= triageMaxReasons
	}
	covered := map[string]bool{}
	if v := res.Verdict; v != nil {
		for _, r := range v.Rules {
			// Keep rules explain nothing, except an advisory (a low
			// score on a kept server).
			if !r.Fired || (r.Decision == vocab.DecisionKeep && r.Name != vocab.RuleLowScore) {
				continue
			}
			codes := triageFindingCodes(res.Findings, r.Findings)
			if triageUnassessed(r.Name) || len(codes) == 0 {
				line := triageHumanRule(r.Name)
				if r.Detail != "" {
					line += ": " + r.Detail
				}
				if add(line) {
					return out
				}
				if triageUnassessed(r.Name) && res.Liveness.Evidence != "" &&
					!strings.Contains(r.Detail, res.Liveness.Evidence) {
					if add("evidence: " + res.Liveness.Evidence) {
						return out
					}
				}
				for _, c := range codes {
					covered[c] = true
				}
				continue
			}
			for _, c := range codes {
				covered[c] = true
				if add(triageFindingReason(res.Findings, c)) {
					return out
				}
			}
		}
	}
	// The worst findings no rule named, warnings and worse.
	for _, f := range triageWorstFirst(res.Findings) {
		if f.Severity.Rank() < probe.SeverityWarn.Rank() || covered[f.Code] {
			continue
		}
		if res.Verdict != nil && res.Verdict.Decision == vocab.DecisionKeep {
			break // findings the policy ignores do not explain a keep
		}
		covered[f.Code] = true
		if add(triageFindingReason(res.Findings, f.Code)) {
			break
		}
	}
	return out
}

func triageHumanRule(name string) string { return strings.ReplaceAll(name, "_", " ") }

// triageUnassessed reports whether a rule decides for a server that did not
// complete the handshake, whose reason is its status, not its findings.
func triageUnassessed(rule string) bool {
	return rule == vocab.RuleNoHandshake || rule == vocab.RuleNeedsSetup || rule == vocab.RuleNotAssessed
}

// triageFindingCodes returns the entries of codes that are codes of findings in
// fs, worst severity first, keeping the given order otherwise.
func triageFindingCodes(fs []probe.Finding, codes []string) []string {
	sev := map[string]int{}
	for _, f := range fs {
		sev[f.Code] = max(sev[f.Code], f.Severity.Rank())
	}
	var out []string
	for _, c := range codes {
		if sev[c] > 0 && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return sev[b] - sev[a] })
	return out
}

// triageFindingReason describes the worst finding with code in fs, and how many
// more findings have that code.
func triageFindingReason(fs []probe.Finding, code string) string {
	var first *probe.Finding
	n := 0
	for i := range fs {
		if fs[i].Code != code {
			continue
		}
		n++
		if first == nil || fs[i].Severity.Rank() > first.Severity.Rank() {
			first = &fs[i]
		}
	}
	if first == nil {
		return ""
	}
	s := code
	if first.Subject != "" && first.Subject != "server" {
		s += " on " + first.Subject
	}
	if n > 1 {
		s += fmt.Sprintf(" and %d more", n-1)
	}
	if first.Message != "" {
		s += ": " + first.Message
	}
	return s
}

// triageNextStep derives the one next step from the deciding rule: the status
// advice for a failed handshake, the catalog fix of the rule's worst
// finding, or the advice for the weakest rubric element. Without a
// verdict it is the catalog fix of the worst finding.
func triageNextStep(res *probe.Result, deciding *probe.Rule) string {
	if deciding == nil {
		if res.Verdict != nil {
			return ""
		}
		for _, f := range triageWorstFirst(res.Findings) {
			if f.Severity.Rank() >= probe.SeverityWarn.Rank() {
				return triageFixOf(f)
			}
		}
		if !res.Liveness.HandshakeCompleted {
			if s := triageCauseStep(res); s != "" {
				return s
			}
			return triageStatusSteps[res.Liveness.Status]
		}
		return ""
	}
	if deciding.Name == vocab.RuleNeedsSetup && len(res.Verdict.Supply) > 0 {
		return "supply " + strings.Join(res.Verdict.Supply, ", ")
	}
	if deciding.Name == vocab.RuleNotAssessed && res.Verdict.Cause != "" {
		return "run the scan where this is not so: " + res.Verdict.Cause
	}
	if triageUnassessed(deciding.Name) {
		if s := triageCauseStep(res); s != "" {
			return s
		}
		if s := triageStatusSteps[res.Liveness.Status]; s != "" {
			return s
		}
	}
	if codes := triageFindingCodes(res.Findings, deciding.Findings); len(codes) > 0 {
		for _, f := range triageWorstFirst(res.Findings) {
			if f.Code == codes[0] {
				return triageFixOf(f)
			}
		}
	}
	for _, c := range deciding.Findings {
		if e, ok := strings.CutPrefix(c, "element:"); ok && triageElementSteps[e] != "" {
			return triageElementSteps[e]
		}
		if e, ok := probe.Lookup(c); ok && e.Fix != "" {
			return e.Fix
		}
	}
	if deciding.Name == vocab.RuleNoHandshake {
		if e, ok := probe.Lookup(probe.CodeNotAlive); ok {
			return e.Fix
		}
	}
	return ""
}

// triageFixOf is the catalog fix for a finding's code, or its message when the
// code is not in the catalog.
func triageFixOf(f probe.Finding) string {
	if e, ok := probe.Lookup(f.Code); ok && e.Fix != "" {
		return e.Fix
	}
	return f.Message
}

// triageStatusSteps are the next steps for servers that never completed the
// handshake, by liveness status.
var triageStatusSteps = map[vocab.Status]string{
	vocab.StatusSpawnFailed:        `install the program the entry's "command" names, or give its full path`,
	vocab.StatusExitedEarly:        "run the entry's command by hand and fix what it reports on stderr; it exits before answering initialize",
	vocab.StatusMissingCredentials: `set the credential the server names on stderr in the entry's "env", then triage again`,
	vocab.StatusHandshakeTimeout:   "make the server answer initialize within seconds; check that it speaks MCP on stdio and does not wait for input or a network service first",
	vocab.StatusProtocolError:      "check that the command starts an MCP server: stdout must carry only JSON-RPC and the server must negotiate a published protocol revision",
	vocab.StatusStdoutPollution:    "over stdio, stdout carries only newline-delimited JSON-RPC; send logs and banners to stderr",
	vocab.StatusUnreachable:        "check the URL and that the remote server is up and reachable from this machine",
	vocab.StatusNeedsConfiguration: "give values for the unresolved ${...} references in the entry",
	vocab.StatusRuntimeUnavailable: "install the runtime the package needs (npx, uvx, docker, ...)",
	vocab.StatusPackageNotFound:    "fix the package name in the entry; its registry does not know it",
	vocab.StatusVersionNotFound:    "pin a version of the package that exists",
	vocab.StatusInstallFailed:      "install the package by hand to see why it fails, or pin a version that installs",
	vocab.StatusInvalidPlan:        "fix the entry: a value in it was refused before launch (see the reasons)",
	vocab.StatusLimitExceeded:      "find out why the server needs more memory or processes than the sandbox allows at startup",
}

// triageElementSteps are the next steps for a low actionability score, by the
// rubric element failed most often.
var triageElementSteps = map[string]string{
	"channel":         "since MCP 2025-11-25, return input validation errors as tool results with isError: true, and unknown tools or methods as JSON-RPC errors",
	"param":           "name the offending parameter in every error message",
	"value_or_form":   "say in each error what value was received and what form is allowed",
	"next_action":     "tell the agent in each error one next step it can take, such as the argument to change or the tool to call",
	"code":            "give every error response a stable, machine-readable code",
	"retryable":       "say in each error whether retrying can help, and when",
	"closest_matches": "offer the closest valid names when an unknown tool, prompt or resource is asked for",
	"no_leak":         "keep stack traces, host paths, connection strings and secrets out of error messages",
	"bounded":         "keep error messages short and do not enumerate long lists in them",
}

// Recount sets Counts from Servers, after servers were added or removed.
func (t *Triage) Recount() {
	t.Counts = TriageCounts{}
	for _, s := range t.Servers {
		switch {
		case s.Pending:
			t.Counts.Pending++
		case s.Decision == vocab.DecisionKeep:
			t.Counts.Keep++
		case s.Decision == vocab.DecisionFix:
			t.Counts.Fix++
		case s.Decision == vocab.DecisionDrop:
			t.Counts.Drop++
		case s.Decision == vocab.DecisionNeedsSetup:
			t.Counts.NeedsSetup++
		case s.Decision == vocab.DecisionNotAssessed:
			t.Counts.NotAssessed++
		default:
			t.Counts.Ungraded++
		}
	}
}
