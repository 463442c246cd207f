package scoring

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// maxDetail bounds a rule's detail line.
const maxDetail = 400

// Decide triages a probed server. A server that did not complete the
// handshake for a reason of this machine is not_assessed, and one that
// waits for its user's configuration or credentials is needs_setup; an
// assessed server is keep, fix or drop. Every rule is evaluated in order
// and recorded, fired or not; the first that fired decides:
//
//  1. environment_lacking (not_assessed, actor environment): the handshake
//     never completed because this machine lacked something
//     ([EnvironmentCause]: no network or DNS, a registry or index
//     unreachable, no container engine, a runtime missing).
//  2. setup_required (needs_setup, actor user): the status is
//     needs_configuration or missing_credentials; [Supply] says what to
//     supply.
//  3. no_handshake (drop): the handshake never completed for a reason of
//     the server's own.
//  4. crash_or_hang_on_invalid_input (drop): a probe crashed or hung the
//     server.
//  5. leaks_secret (drop): a secret canary appeared in any output.
//  6. fatal_finding (drop): any other fatal finding, such as a fatal schema
//     violation.
//  7. findings_to_fix (fix): findings with a severity in p.FixSeverities,
//     except p.IgnoreFindings.
//  8. low_actionability_score (keep, with an advisory): res.Score is below
//     p.MinScore. The score alone does not make a server fix: see "Verdict"
//     in docs/rubric.md for the evidence.
//  9. keep_otherwise (keep): no earlier rule fired.
//
// Drop and fix name the author as actor and count the author's items
// (distinct findings by code and subject) and their worst severity; keep
// names nobody. A nil p means [DefaultPolicy]. Decide does not change res.
func Decide(res *probe.Result, p *Policy) probe.Verdict {
	if p == nil {
		p = DefaultPolicy()
	}
	var rules []probe.Rule
	alive := res.Liveness.HandshakeCompleted || res.Liveness.Status.Alive()
	livenessCodes := codesWhere(res.Findings, func(f probe.Finding) bool { return strings.HasPrefix(f.Code, "liveness/") })
	statusDetail := fmt.Sprintf("liveness status %s", res.Liveness.Status)
	if res.Liveness.Detail != "" {
		statusDetail += ": " + res.Liveness.Detail
	}

	// 1. The environment.
	var cause string
	if !alive {
		cause = EnvironmentCause(res)
	}
	r := probe.Rule{Name: vocab.RuleNotAssessed, Decision: vocab.DecisionNotAssessed, Fired: cause != ""}
	if r.Fired {
		r.Findings = livenessCodes
		r.Detail = detail([]string{cause, statusDetail})
	}
	rules = append(rules, r)

	// 2. Setup.
	setup := !alive && cause == "" && needsSetup(res)
	var supply []string
	r = probe.Rule{Name: vocab.RuleNeedsSetup, Decision: vocab.DecisionNeedsSetup, Fired: setup}
	if setup {
		supply = Supply(res)
		r.Findings = livenessCodes
		r.Detail = statusDetail
	}
	rules = append(rules, r)

	// 3. The handshake.
	r = probe.Rule{Name: vocab.RuleNoHandshake, Decision: vocab.DecisionDrop, Fired: !alive && cause == "" && !setup}
	if !alive {
		r.Findings = livenessCodes
		r.Detail = statusDetail
	}
	rules = append(rules, r)

	// 4. Crashes and hangs on invalid input.
	var events []string
	crashCodes := map[string]bool{}
	for _, pc := range res.Probes {
		switch pc.Class {
		case ClassCrash:
			crashCodes[CodeCrashOnInvalidInput] = true
		case ClassHang:
			crashCodes[CodeHangOnInvalidInput] = true
		default:
			continue
		}
		events = append(events, probeLabel(pc)+": "+pc.Class)
	}
	r = probe.Rule{Name: vocab.RuleCrashOrHang, Decision: vocab.DecisionDrop}
	r.Findings = codesWhere(res.Findings, func(f probe.Finding) bool {
		return f.Code == CodeCrashOnInvalidInput || f.Code == CodeHangOnInvalidInput
	})
	for _, c := range []string{CodeCrashOnInvalidInput, CodeHangOnInvalidInput} {
		if crashCodes[c] && !slices.Contains(r.Findings, c) {
			r.Findings = append(r.Findings, c)
		}
	}
	r.Fired = len(r.Findings) > 0
	if r.Fired {
		r.Detail = detail(events)
	}
	rules = append(rules, r)

	// 5. Secrets.
	secrets := findingsWhere(res.Findings, func(f probe.Finding) bool { return f.Code == CodeLeaksSecret })
	r = probe.Rule{Name: vocab.RuleLeaksSecret, Decision: vocab.DecisionDrop, Fired: len(secrets) > 0}
	if r.Fired {
		r.Findings = []string{CodeLeaksSecret}
		r.Detail = describe(secrets)
	}
	rules = append(rules, r)

	// 6. Other fatal findings.
	fatal := findingsWhere(res.Findings, func(f probe.Finding) bool {
		if f.Severity != probe.SeverityFatal || f.Code == CodeLeaksSecret ||
			f.Code == CodeCrashOnInvalidInput || f.Code == CodeHangOnInvalidInput {
			return false
		}
		// A failed handshake is rule 1's, 2's or 3's finding.
		return alive || !strings.HasPrefix(f.Code, "liveness/")
	})
	r = probe.Rule{Name: vocab.RuleFatalFinding, Decision: vocab.DecisionDrop, Fired: len(fatal) > 0}
	if r.Fired {
		r.Findings = uniqueCodes(fatal)
		r.Detail = describe(fatal)
	}
	rules = append(rules, r)

	// 7. Findings to fix.
	fixable := findingsWhere(res.Findings, func(f probe.Finding) bool {
		if slices.Contains(p.FixSeverities, f.Severity) {
			return !slices.Contains(p.IgnoreFindings, f.Code)
		}
		return false
	})
	r = probe.Rule{Name: vocab.RuleFixFindings, Decision: vocab.DecisionFix, Fired: len(fixable) > 0}
	if r.Fired {
		r.Findings = uniqueCodes(fixable)
		r.Detail = describe(fixable)
	}
	rules = append(rules, r)

	// 8. Actionability: an advisory, not a decision of its own.
	var advisories []string
	r = probe.Rule{Name: vocab.RuleLowScore, Decision: vocab.DecisionKeep}
	switch {
	case res.Score == nil:
		r.Detail = "no error response was graded"
	case *res.Score < p.MinScore:
		r.Fired = true
		r.Detail = fmt.Sprintf("actionability score %.1f is below minScore %g", *res.Score, p.MinScore)
		r.Findings = lowScoreElements(res.Probes)
		advisories = append(advisories, fmt.Sprintf("error score %.1f is below %g", *res.Score, p.MinScore))
	default:
		r.Detail = fmt.Sprintf("actionability score %.1f is at least minScore %g", *res.Score, p.MinScore)
	}
	rules = append(rules, r)

	// 9. Keep.
	decision, decidedBy := "", -1
	for i, x := range rules {
		if x.Fired {
			decision, decidedBy = x.Decision, i
			break
		}
	}
	rules = append(rules, probe.Rule{Name: vocab.RuleKeepOtherwise, Decision: vocab.DecisionKeep, Fired: decision == ""})
	if decision == "" {
		decision = vocab.DecisionKeep
	}
	v := probe.Verdict{Decision: decision, Actor: probe.ActorOf(decision), Rules: rules}
	switch decision {
	case vocab.DecisionNotAssessed:
		v.Cause = cause
	case vocab.DecisionNeedsSetup:
		v.Supply = supply
	case vocab.DecisionDrop:
		v.Cause = dropCause(rules[decidedBy], res)
		if rules[decidedBy].Name == vocab.RuleNoHandshake && entryWritten(res) {
			v.Actor = vocab.ActorUser
		}
		// Every fatal finding (a failed handshake, a crash, a leak) and
		// every finding to fix.
		v.AuthorItems, v.WorstSeverity = authorItems(findingsWhere(res.Findings, func(f probe.Finding) bool {
			return f.Severity == probe.SeverityFatal || slices.ContainsFunc(fixable, func(x probe.Finding) bool { return x == f })
		}))
	case vocab.DecisionFix:
		v.AuthorItems, v.WorstSeverity = authorItems(fixable)
		v.Advisories = advisories
	case vocab.DecisionKeep:
		v.Advisories = advisories
	}
	return v
}

// entryWritten reports whether a run never started because of what its
// entry says and the entry is the user's own (a client config or the
// command line): a package or version that does not exist, a value
// refused before launch. The package's author did nothing wrong; the
// user fixes or removes the entry. A registry entry's are its author's.
func entryWritten(res *probe.Result) bool {
	if vocab.FromRegistry(res.Target.Source) {
		return false
	}
	switch res.Liveness.Status {
	case vocab.StatusPackageNotFound, vocab.StatusVersionNotFound, vocab.StatusInvalidPlan:
		return true
	}
	return false
}

// dropCause says in a few words why a server is not to be used.
func dropCause(r probe.Rule, res *probe.Result) string {
	switch r.Name {
	case vocab.RuleNoHandshake:
		s := "never completed the handshake (" + string(res.Liveness.Status) + ")"
		if res.Liveness.Detail != "" {
			s += ": " + clip(res.Liveness.Detail)
		}
		return s
	case vocab.RuleCrashOrHang:
		return "crashed or hung on invalid input"
	case vocab.RuleLeaksSecret:
		return "leaks a secret"
	case vocab.RuleFatalFinding:
		return "fatal findings: " + clip(strings.Join(r.Findings, ", "))
	}
	return r.Name
}

// lowScoreElements names the rubric elements most often failed, as
// "element:NAME" entries, most failed first, so a low score says what to
// fix.
func lowScoreElements(probes []probe.ProbeCall) []string {
	fails := map[string]int{}
	for _, pc := range probes {
		for _, e := range pc.Elements {
			if !e.Pass {
				fails[e.Name]++
			}
		}
	}
	var out []string
	for _, w := range Weights {
		if fails[w.Element] > 0 {
			out = append(out, w.Element)
		}
	}
	// Stable order: most failures first, rubric order on ties.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && fails[out[j]] > fails[out[j-1]]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	for i := range out {
		out[i] = "element:" + out[i]
	}
	return out
}

func probeLabel(pc probe.ProbeCall) string {
	if pc.Tool != "" {
		return fmt.Sprintf("%s %s %s", pc.Method, pc.Tool, pc.Kind)
	}
	return pc.Method + " " + pc.Kind
}

func findingsWhere(fs []probe.Finding, keep func(probe.Finding) bool) []probe.Finding {
	var out []probe.Finding
	for _, f := range fs {
		if keep(f) {
			out = append(out, f)
		}
	}
	return out
}

func codesWhere(fs []probe.Finding, keep func(probe.Finding) bool) []string {
	return uniqueCodes(findingsWhere(fs, keep))
}

// uniqueCodes returns the codes of fs in order of first appearance.
func uniqueCodes(fs []probe.Finding) []string {
	var out []string
	for _, f := range fs {
		if !slices.Contains(out, f.Code) {
			out = append(out, f.Code)
		}
	}
	return out
}

// describe summarises findings as "code (severity, subject)" entries.
func describe(fs []probe.Finding) string {
	parts := make([]string, 0, len(fs))
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", f.Code, f.Severity, f.Subject))
	}
	return detail(parts)
}

// detail joins parts into one bounded line.
func detail(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString("; ")
		}
		if b.Len()+len(p) > maxDetail {
			fmt.Fprintf(&b, "and %d more", len(parts)-i)
			break
		}
		b.WriteString(p)
	}
	return b.String()
}
