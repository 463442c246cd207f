package scoring

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

//go:fix inline

func alive() probe.Liveness {
	return probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true, ProtocolVersion: "2025-11-25"}
}

// ruleTrace projects a verdict onto "name:fired" for compact comparison.
func ruleTrace(v probe.Verdict) []string {
	var out []string
	for _, r := range v.Rules {
		s := r.Name
		if r.Fired {
			s += ":fired"
		}
		out = append(out, s)
	}
	return out
}

func TestDecide(t *testing.T) {
	secret := probe.Finding{Code: CodeLeaksSecret, Severity: probe.SeverityFatal, Subject: "tool:search"}
	schemaFatal := probe.Finding{Code: "protocol/schema_violation", Severity: probe.SeverityFatal, Subject: "server"}
	warn := probe.Finding{Code: "annotations/missing_read_only_hint", Severity: probe.SeverityWarn, Subject: "tool:search"}
	info := probe.Finding{Code: "sandbox/weak_isolation", Severity: probe.SeverityInfo, Subject: "server"}
	tests := []struct {
		name      string
		res       probe.Result
		policy    *Policy
		want      string
		wantTrace []string
		// wantRule, when set, is the first fired rule in full.
		wantRule *probe.Rule
	}{
		{
			name: "never completed the handshake",
			res: probe.Result{Liveness: probe.Liveness{Status: vocab.StatusExitedEarly, Detail: "exit status 1"},
				Findings: []probe.Finding{{Code: "liveness/handshake_failed", Severity: probe.SeverityFatal, Subject: "server"}}},
			want: vocab.DecisionDrop,
			wantTrace: []string{vocab.RuleNotAssessed, vocab.RuleNeedsSetup, vocab.RuleNoHandshake + ":fired", vocab.RuleCrashOrHang, vocab.RuleLeaksSecret, vocab.RuleFatalFinding,
				vocab.RuleFixFindings, vocab.RuleLowScore, vocab.RuleKeepOtherwise},
			wantRule: &probe.Rule{Name: vocab.RuleNoHandshake, Fired: true, Decision: vocab.DecisionDrop,
				Findings: []string{"liveness/handshake_failed"}, Detail: "liveness status exited_early: exit status 1"},
		},
		{
			name: "stdout pollution but the handshake completed",
			res:  probe.Result{Liveness: probe.Liveness{Status: vocab.StatusStdoutPollution, HandshakeCompleted: true}, Score: new(float64(90))},
			want: vocab.DecisionKeep,
			wantTrace: []string{vocab.RuleNotAssessed, vocab.RuleNeedsSetup, vocab.RuleNoHandshake, vocab.RuleCrashOrHang, vocab.RuleLeaksSecret, vocab.RuleFatalFinding,
				vocab.RuleFixFindings, vocab.RuleLowScore, vocab.RuleKeepOtherwise + ":fired"},
		},
		{
			name: "crash on invalid input, seen only in the probe classes",
			res: probe.Result{Liveness: alive(), Score: new(float64(0)), Probes: []probe.ProbeCall{
				{Kind: KindWrongType, Method: "tools/call", Tool: "run", Class: ClassToolError},
				{Kind: KindMissingRequired, Method: "tools/call", Tool: "run", Class: ClassCrash},
			}},
			want: vocab.DecisionDrop,
			wantTrace: []string{vocab.RuleNotAssessed, vocab.RuleNeedsSetup, vocab.RuleNoHandshake, vocab.RuleCrashOrHang + ":fired", vocab.RuleLeaksSecret, vocab.RuleFatalFinding,
				vocab.RuleFixFindings, vocab.RuleLowScore + ":fired", vocab.RuleKeepOtherwise},
			wantRule: &probe.Rule{Name: vocab.RuleCrashOrHang, Fired: true, Decision: vocab.DecisionDrop,
				Findings: []string{CodeCrashOnInvalidInput}, Detail: "tools/call run missing_required: crash"},
		},
		{
			name: "secret leak",
			res:  probe.Result{Liveness: alive(), Score: new(float64(95)), Findings: []probe.Finding{secret}},
			want: vocab.DecisionDrop,
			wantTrace: []string{vocab.RuleNotAssessed, vocab.RuleNeedsSetup, vocab.RuleNoHandshake, vocab.RuleCrashOrHang, vocab.RuleLeaksSecret + ":fired", vocab.RuleFatalFinding,
				vocab.RuleFixFindings, vocab.RuleLowScore, vocab.RuleKeepOtherwise},
			wantRule: &probe.Rule{Name: vocab.RuleLeaksSecret, Fired: true, Decision: vocab.DecisionDrop,
				Findings: []string{CodeLeaksSecret}, Detail: "errors/leaks_secret (fatal, tool:search)"},
		},
		{
			name: "fatal schema violation",
			res:  probe.Result{Liveness: alive(), Score: new(float64(95)), Findings: []probe.Finding{warn, schemaFatal}},
			want: vocab.DecisionDrop,
			wantTrace: []string{vocab.RuleNotAssessed, vocab.RuleNeedsSetup, vocab.RuleNoHandshake, vocab.RuleCrashOrHang, vocab.RuleLeaksSecret, vocab.RuleFatalFinding + ":fired",
				vocab.RuleFixFindings + ":fired", vocab.RuleLowScore, vocab.RuleKeepOtherwise},
		},
		{
			name: "warn finding makes fix",
			res:  probe.Result{Liveness: alive(), Score: new(float64(95)), Findings: []probe.Finding{info, warn}},
			want: vocab.DecisionFix,
			wantTrace: []string{vocab.RuleNotAssessed, vocab.RuleNeedsSetup, vocab.RuleNoHandshake, vocab.RuleCrashOrHang, vocab.RuleLeaksSecret, vocab.RuleFatalFinding,
				vocab.RuleFixFindings + ":fired", vocab.RuleLowScore, vocab.RuleKeepOtherwise},
			wantRule: &probe.Rule{Name: vocab.RuleFixFindings, Fired: true, Decision: vocab.DecisionFix,
				Findings: []string{"annotations/missing_read_only_hint"}, Detail: "annotations/missing_read_only_hint (warn, tool:search)"},
		},
		{
			name:   "ignored finding keeps",
			res:    probe.Result{Liveness: alive(), Score: new(float64(95)), Findings: []probe.Finding{info, warn}},
			policy: &Policy{MinScore: 70, FixSeverities: []probe.Severity{"error", "warn"}, IgnoreFindings: []string{"annotations/missing_read_only_hint"}},
			want:   vocab.DecisionKeep,
			wantTrace: []string{vocab.RuleNotAssessed, vocab.RuleNeedsSetup, vocab.RuleNoHandshake, vocab.RuleCrashOrHang, vocab.RuleLeaksSecret, vocab.RuleFatalFinding,
				vocab.RuleFixFindings, vocab.RuleLowScore, vocab.RuleKeepOtherwise + ":fired"},
		},
		{
			name: "low score alone keeps with an advisory and names the failed elements",
			res: probe.Result{Liveness: alive(), Score: new(63.2), Probes: []probe.ProbeCall{
				{Kind: KindWrongType, Class: ClassToolError, Elements: []probe.Element{{Name: ElemChannel, Pass: true}, {Name: ElemCode}, {Name: ElemNextAction}}},
				{Kind: KindEnumViolation, Class: ClassToolError, Elements: []probe.Element{{Name: ElemChannel, Pass: true}, {Name: ElemCode}}},
			}},
			want: vocab.DecisionKeep,
			wantTrace: []string{vocab.RuleNotAssessed, vocab.RuleNeedsSetup, vocab.RuleNoHandshake, vocab.RuleCrashOrHang, vocab.RuleLeaksSecret, vocab.RuleFatalFinding,
				vocab.RuleFixFindings, vocab.RuleLowScore + ":fired", vocab.RuleKeepOtherwise},
			wantRule: &probe.Rule{Name: vocab.RuleLowScore, Fired: true, Decision: vocab.DecisionKeep,
				Findings: []string{"element:code", "element:next_action"}, Detail: "actionability score 63.2 is below minScore 70"},
		},
		{
			name:   "a lower policy threshold keeps",
			res:    probe.Result{Liveness: alive(), Score: new(63.2)},
			policy: &Policy{MinScore: 60},
			want:   vocab.DecisionKeep,
			wantTrace: []string{vocab.RuleNotAssessed, vocab.RuleNeedsSetup, vocab.RuleNoHandshake, vocab.RuleCrashOrHang, vocab.RuleLeaksSecret, vocab.RuleFatalFinding,
				vocab.RuleFixFindings, vocab.RuleLowScore, vocab.RuleKeepOtherwise + ":fired"},
		},
		{
			name: "no graded response does not fire the score rule",
			res:  probe.Result{Liveness: alive()},
			want: vocab.DecisionKeep,
			wantTrace: []string{vocab.RuleNotAssessed, vocab.RuleNeedsSetup, vocab.RuleNoHandshake, vocab.RuleCrashOrHang, vocab.RuleLeaksSecret, vocab.RuleFatalFinding,
				vocab.RuleFixFindings, vocab.RuleLowScore, vocab.RuleKeepOtherwise + ":fired"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Decide(&tt.res, tt.policy)
			if v.Decision != tt.want {
				t.Errorf("decision = %q, want %q (%+v)", v.Decision, tt.want, v.Rules)
			}
			if diff := cmp.Diff(tt.wantTrace, ruleTrace(v)); diff != "" {
				t.Errorf("rule trace (-want +got):\n%s", diff)
			}
			if tt.wantRule != nil {
				var first *probe.Rule
				for i := range v.Rules {
					if v.Rules[i].Fired {
						first = &v.Rules[i]
						break
					}
				}
				if diff := cmp.Diff(tt.wantRule, first); diff != "" {
					t.Errorf("deciding rule (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestLowScoreElementsOrder pins the order of the low-score rule's
// elements: most failures first, and on equal counts the rubric's order
// (not the order the failures were seen in).
func TestLowScoreElementsOrder(t *testing.T) {
	call := func(failed ...string) probe.ProbeCall {
		pc := probe.ProbeCall{Elements: []probe.Element{{Name: ElemChannel, Pass: true}}}
		for _, name := range failed {
			pc.Elements = append(pc.Elements, probe.Element{Name: name})
		}
		return pc
	}
	for _, tt := range []struct {
		name   string
		probes []probe.ProbeCall
		want   []string
	}{
		{"none failed", []probe.ProbeCall{call()}, nil},
		{"ties keep rubric order", []probe.ProbeCall{call(ElemBounded, ElemCode, ElemParam)},
			[]string{"element:" + ElemParam, "element:" + ElemCode, "element:" + ElemBounded}},
		{"most failed first", []probe.ProbeCall{call(ElemParam, ElemBounded), call(ElemBounded, ElemCode), call(ElemBounded)},
			[]string{"element:" + ElemBounded, "element:" + ElemParam, "element:" + ElemCode}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, lowScoreElements(tt.probes)); diff != "" {
				t.Errorf("lowScoreElements (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDetailBound pins the rule detail's bound: a line of exactly maxDetail
// bytes is kept whole; one byte more cuts the last part into "and N more".
func TestDetailBound(t *testing.T) {
	a := strings.Repeat("a", 200)
	for _, tt := range []struct {
		name  string
		parts []string
		want  string
	}{
		{"empty", nil, ""},
		{"one", []string{"x"}, "x"},
		{"exactly maxDetail", []string{a, strings.Repeat("b", maxDetail-202)}, a + "; " + strings.Repeat("b", maxDetail-202)},
		{"one byte over", []string{a, strings.Repeat("b", maxDetail-201), "c"}, a + "; and 2 more"},
		{"first part alone over", []string{strings.Repeat("d", maxDetail+1)}, "and 1 more"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := detail(tt.parts)
			if got != tt.want {
				t.Errorf("detail = %q (%d bytes), want %q", got, len(got), tt.want)
			}
		})
	}
}
