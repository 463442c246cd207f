package results

import (
	"reflect"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// Tests written to kill the survivors of session 8's shard A in
// results/diff.go, results/triage.go and results/report_census.go
// (docs/testing.md, "Survivors of session 8 (results, results/report)").
// All in process: no store, no server.

// TestS8rDiffServerOfVerdict: a server only one scan ran carries its
// decision and who must act; one without a verdict carries none.
func TestS8rDiffServerOfVerdict(t *testing.T) {
	with := diffServerOf(Record{TargetKey: "k1", Result: &probe.Result{
		Target:  probe.Target{Name: "srv"},
		Verdict: &probe.Verdict{Decision: vocab.DecisionDrop},
	}})
	if with.Decision != vocab.DecisionDrop || with.Actor != vocab.ActorAuthor || with.Key != "k1" || with.Name != "srv" {
		t.Errorf("with a verdict: %+v, want decision drop, actor author", with)
	}
	without := diffServerOf(Record{TargetKey: "k2", Result: &probe.Result{Target: probe.Target{Name: "bare"}}})
	if without.Decision != "" || without.Actor != "" || without.Name != "bare" {
		t.Errorf("without a verdict: %+v, want no decision", without)
	}
}

// TestS8rDiffContextGrowthDetail pins the growth text exactly: the signed
// difference, and the percentage of the old count only when there was one.
func TestS8rDiffContextGrowthDetail(t *testing.T) {
	for _, c := range []struct {
		name       string
		old, cur   int
		wantDetail string
	}{
		{"grew", 200, 250, "+50 enc tokens, +25.0%"},
		{"shrank", 250, 200, "-50 enc tokens, -20.0%"},
		{"from nothing", 0, 10, "+10 enc tokens"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &probe.ContextCost{Encoding: "enc", Total: c.old, PerTool: []probe.ToolTokens{{Name: "t", Tokens: c.old}}}
			b := &probe.ContextCost{Encoding: "enc", Total: c.cur, PerTool: []probe.ToolTokens{{Name: "t", Tokens: c.cur}}}
			out := diffContext(a, b, nil)
			if len(out) != 2 {
				t.Fatalf("changes %+v, want the total's and the tool's", out)
			}
			if out[0].Kind != DiffContextChanged || out[0].Detail != c.wantDetail {
				t.Errorf("total: %+v, want detail %q", out[0], c.wantDetail)
			}
			if out[1].Kind != DiffToolTokens || out[1].Subject != "t" || out[1].Detail != c.wantDetail {
				t.Errorf("tool: %+v, want detail %q", out[1], c.wantDetail)
			}
		})
	}
}

// TestS8rDiffVersion: the target's version first, else the one the server
// named in the handshake, else none.
func TestS8rDiffVersion(t *testing.T) {
	info := &probe.ServerInfo{Name: "s", Version: "2.0"}
	for _, c := range []struct {
		name string
		r    probe.Result
		want string
	}{
		{"target", probe.Result{Target: probe.Target{Version: "1.0"}, Liveness: probe.Liveness{ServerInfo: info}}, "1.0"},
		{"handshake", probe.Result{Liveness: probe.Liveness{ServerInfo: info}}, "2.0"},
		{"none", probe.Result{}, ""},
	} {
		if got := diffVersion(&c.r); got != c.want {
			t.Errorf("%s: diffVersion = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestS8rDiffVersions: the target versions are compared when either run
// has one; the handshake's only when neither has one and both named one.
func TestS8rDiffVersions(t *testing.T) {
	tv := func(v string) probe.Target { return probe.Target{Version: v} }
	hs := func(v string) probe.Liveness { return probe.Liveness{ServerInfo: &probe.ServerInfo{Version: v}} }
	for _, c := range []struct {
		name   string
		a, b   probe.Result
		va, vb string
		ok     bool
	}{
		{"old target only", probe.Result{Target: tv("1")}, probe.Result{}, "1", "", true},
		{"new target only", probe.Result{}, probe.Result{Target: tv("2")}, "", "2", true},
		{"old target, both handshakes", probe.Result{Target: tv("1"), Liveness: hs("h1")}, probe.Result{Liveness: hs("h2")}, "1", "", true},
		{"handshakes", probe.Result{Liveness: hs("h1")}, probe.Result{Liveness: hs("h2")}, "h1", "h2", true},
		{"one handshake", probe.Result{Liveness: hs("h1")}, probe.Result{}, "", "", false},
	} {
		va, vb, ok := diffVersions(&c.a, &c.b)
		if va != c.va || vb != c.vb || ok != c.ok {
			t.Errorf("%s: diffVersions = %q, %q, %v, want %q, %q, %v", c.name, va, vb, ok, c.va, c.vb, c.ok)
		}
	}
}

// TestS8rDiffFindingEvidenceCount: "(+N more)" only when more than one
// finding has the code.
func TestS8rDiffFindingEvidenceCount(t *testing.T) {
	one := []probe.Finding{{Code: "c/x", Subject: "tool a", Message: "bad", Severity: probe.SeverityWarn}}
	if ev, sev := diffFindingEvidence(one, "c/x"); ev != "tool a: bad" || sev != "warn" {
		t.Errorf("one finding: %q, %q, want %q, warn", ev, sev, "tool a: bad")
	}
	two := append(one, probe.Finding{Code: "c/x", Subject: "tool b", Message: "worse", Severity: probe.SeverityError})
	if ev, _ := diffFindingEvidence(two, "c/x"); ev != "tool a: bad (+1 more)" {
		t.Errorf("two findings: %q, want %q", ev, "tool a: bad (+1 more)")
	}
}

// TestS8rTriageReasonsEdges: at most triageMaxReasons reasons; findings no
// rule names explain a drop but never a keep.
func TestS8rTriageReasonsEdges(t *testing.T) {
	errf := func(code string) probe.Finding {
		return probe.Finding{Code: code, Subject: "server", Severity: probe.SeverityError}
	}
	for _, c := range []struct {
		name string
		res  probe.Result
		want []string
	}{
		{"capped", probe.Result{
			Findings: []probe.Finding{errf("c/a"), errf("c/b"), errf("c/c"), errf("c/d")},
			Verdict: &probe.Verdict{Decision: vocab.DecisionDrop, Rules: []probe.Rule{
				{Name: "r", Fired: true, Decision: vocab.DecisionDrop, Findings: []string{"c/a", "c/b", "c/c", "c/d"}},
			}},
		}, []string{"c/a", "c/b", "c/c"}},
		{"drop: an unnamed warning explains", probe.Result{
			Findings: []probe.Finding{{Code: "c/w", Subject: "server", Severity: probe.SeverityWarn}},
			Verdict: &probe.Verdict{Decision: vocab.DecisionDrop, Rules: []probe.Rule{
				{Name: "some_rule", Fired: true, Decision: vocab.DecisionDrop},
			}},
		}, []string{"some rule", "c/w"}},
		{"keep: an unnamed warning does not", probe.Result{
			Findings: []probe.Finding{{Code: "c/w", Subject: "server", Severity: probe.SeverityWarn}},
			Verdict: &probe.Verdict{Decision: vocab.DecisionKeep, Rules: []probe.Rule{
				{Name: "keep_rule", Fired: true, Decision: vocab.DecisionKeep},
			}},
		}, []string{}},
	} {
		if got := triageReasons(&c.res); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: reasons %q, want %q", c.name, got, c.want)
		}
	}
}

// TestS8rTriageFindingReason: the worst finding of the code (the first of
// equal ones) and how many more have it.
func TestS8rTriageFindingReason(t *testing.T) {
	fs := []probe.Finding{
		{Code: "c/x", Subject: "tool a", Message: "m1", Severity: probe.SeverityWarn},
		{Code: "c/y", Subject: "tool y", Message: "other", Severity: probe.SeverityFatal},
		{Code: "c/x", Subject: "tool b", Message: "m2", Severity: probe.SeverityError},
		{Code: "c/x", Subject: "tool c", Message: "m3", Severity: probe.SeverityError},
	}
	for _, c := range []struct{ code, want string }{
		{"c/x", "c/x on tool b and 2 more: m2"},
		{"c/y", "c/y on tool y: other"},
		{"c/z", ""},
	} {
		if got := triageFindingReason(fs, c.code); got != c.want {
			t.Errorf("triageFindingReason(%s) = %q, want %q", c.code, got, c.want)
		}
	}
}

// TestS8rTriageNextStepPaths: each way triageNextStep finds the one next
// step.
func TestS8rTriageNextStepPaths(t *testing.T) {
	notAlive, ok := probe.Lookup(probe.CodeNotAlive)
	if !ok || notAlive.Fix == "" {
		t.Fatalf("catalog has no fix for %s", probe.CodeNotAlive)
	}
	dead := func(st vocab.Status, detail string) probe.Liveness { return probe.Liveness{Status: st, Detail: detail} }
	for _, c := range []struct {
		name     string
		res      probe.Result
		deciding *probe.Rule
		want     string
	}{
		{"no verdict: status step", probe.Result{Liveness: dead(vocab.StatusSpawnFailed, "")}, nil,
			triageStatusSteps[vocab.StatusSpawnFailed]},
		{"no verdict: cause step first", probe.Result{Liveness: dead(vocab.StatusSpawnFailed, "the run was interrupted")}, nil,
			"run triage again and let it finish"},
		{"needs setup: supply", probe.Result{Verdict: &probe.Verdict{Decision: vocab.DecisionNeedsSetup, Supply: []string{"TOKEN_A", "TOKEN_B"}}},
			&probe.Rule{Name: vocab.RuleNeedsSetup, Fired: true}, "supply TOKEN_A, TOKEN_B"},
		{"not assessed: cause", probe.Result{Verdict: &probe.Verdict{Decision: vocab.DecisionNotAssessed, Cause: "no docker here"}},
			&probe.Rule{Name: vocab.RuleNotAssessed, Fired: true}, "run the scan where this is not so: no docker here"},
		{"another rule: cause not used", probe.Result{Verdict: &probe.Verdict{Decision: vocab.DecisionDrop, Cause: "c", Supply: []string{"S"}}},
			&probe.Rule{Name: "other_rule", Fired: true}, ""},
		{"finding not in catalog: its message", probe.Result{
			Findings: []probe.Finding{{Code: "custom/x", Severity: probe.SeverityError, Message: "do the thing"}},
			Verdict:  &probe.Verdict{Decision: vocab.DecisionDrop}},
			&probe.Rule{Name: "other_rule", Fired: true, Findings: []string{"custom/x"}}, "do the thing"},
		{"named code without finding: catalog fix", probe.Result{
			Findings: []probe.Finding{{Code: "custom/y", Severity: probe.SeverityError, Message: "unrelated"}},
			Verdict:  &probe.Verdict{Decision: vocab.DecisionDrop}},
			&probe.Rule{Name: "other_rule", Fired: true, Findings: []string{"custom/absent", probe.CodeNotAlive}}, notAlive.Fix},
		{"no handshake, no status step", probe.Result{Verdict: &probe.Verdict{Decision: vocab.DecisionDrop}},
			&probe.Rule{Name: vocab.RuleNoHandshake, Fired: true}, notAlive.Fix},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := triageNextStep(&c.res, c.deciding); got != c.want {
				t.Errorf("triageNextStep = %q, want %q", got, c.want)
			}
		})
	}
}

// TestS8rRecount: each decision counted in its own bucket (the counts all
// differ, so no bucket can stand for another).
func TestS8rRecount(t *testing.T) {
	var tr Triage
	add := func(n int, s TriageServer) {
		for range n {
			tr.Servers = append(tr.Servers, s)
		}
	}
	add(1, TriageServer{Decision: vocab.DecisionKeep})
	add(2, TriageServer{Decision: vocab.DecisionFix})
	add(3, TriageServer{Decision: vocab.DecisionDrop})
	add(4, TriageServer{Decision: vocab.DecisionNeedsSetup})
	add(5, TriageServer{Decision: vocab.DecisionNotAssessed})
	add(6, TriageServer{})
	add(7, TriageServer{Pending: true, Decision: vocab.DecisionKeep})
	tr.Recount()
	want := TriageCounts{Keep: 1, Fix: 2, Drop: 3, NeedsSetup: 4, NotAssessed: 5, Ungraded: 6, Pending: 7}
	if tr.Counts != want {
		t.Errorf("counts %+v, want %+v", tr.Counts, want)
	}
}

// TestS8rLaunched: an unreachable plan was launched when mcpvet started
// its command in a sandbox, not when it was a remote.
func TestS8rLaunched(t *testing.T) {
	for _, c := range []struct {
		name string
		tg   probe.Target
		want bool
	}{
		{"sandboxed command", probe.Target{Command: []string{"srv"}, Sandbox: "bwrap"}, true},
		{"remote", probe.Target{Command: []string{"srv"}, Sandbox: "remote"}, false},
		{"no command", probe.Target{URL: "https://example.invalid/mcp"}, false},
	} {
		res := &probe.Result{Target: c.tg, Liveness: probe.Liveness{Status: vocab.StatusUnreachable}}
		if got := launched(res); got != c.want {
			t.Errorf("%s: launched = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestS8rNotAssessedCause: the cause without its parenthesised evidence,
// "unknown" for none.
func TestS8rNotAssessedCause(t *testing.T) {
	for in, want := range map[string]string{
		"no docker (docker: not found)": "no docker",
		"no docker":                     "no docker",
		" (only evidence)":              " (only evidence)",
		"":                              "unknown",
	} {
		if got := notAssessedCause(in); got != want {
			t.Errorf("notAssessedCause(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestS8rCensusCounts adds seven runs of four entries, chosen so that every
// count differs from its neighbours, and checks the figures the census
// builds from them: per status, per actor, per not-assessed cause, per
// transport (with keep, fix, drop), per entry (what a sample's intervals
// are clustered on), the rule and finding tables and their order, the
// classes' order, the schema findings, the score deciles.
func TestS8rCensusCounts(t *testing.T) {
	f := func(code string, sev probe.Severity) probe.Finding {
		return probe.Finding{Code: code, Subject: "server", Severity: sev}
	}
	verdict := func(decision, rule string) *probe.Verdict {
		v := &probe.Verdict{Decision: decision}
		if rule != "" {
			v.Rules = []probe.Rule{{Name: "unfired", Decision: vocab.DecisionKeep}, {Name: rule, Fired: true, Decision: decision}}
		}
		return v
	}
	score := func(s float64) *float64 { return &s }
	ok := probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true}
	spawn := probe.Liveness{Status: vocab.StatusSpawnFailed}
	unreach := probe.Liveness{Status: vocab.StatusUnreachable}
	stdio := func(name string) probe.Target {
		return probe.Target{Name: name, Transport: "stdio", Command: []string{"srv"}, Sandbox: "bwrap"}
	}
	na := verdict(vocab.DecisionNotAssessed, "")
	na.Cause = "no docker (docker: not found)"
	runs := []*probe.Result{
		{Target: stdio("ea"), Liveness: ok, Score: score(95), Verdict: verdict(vocab.DecisionKeep, "r_b"),
			Findings: []probe.Finding{f("s8r/x", probe.SeverityWarn)},
			Probes:   []probe.ProbeCall{{Class: vocab.ClassCrash}, {Class: "zz_b"}, {Class: vocab.ClassToolError}, {Class: "zz_a"}}},
		{Target: stdio("ea"), Liveness: ok, Score: score(15), Verdict: verdict(vocab.DecisionDrop, "r_big"),
			Findings: []probe.Finding{f("s8r/x", probe.SeverityWarn), f("s8r/y", probe.SeverityWarn), f("s8r/y", probe.SeverityWarn), f("s8r/y", probe.SeverityWarn)}},
		{Target: stdio("eb"), Liveness: ok, Verdict: verdict(vocab.DecisionDrop, "r_big"),
			Findings: []probe.Finding{f("schema/s8r_fatal", probe.SeverityFatal), f("schema/s8r_fatal", probe.SeverityFatal), f("schema/s8r_soft", probe.SeverityWarn), f("s8r/w", probe.SeverityWarn)}},
		{Target: stdio("eb"), Liveness: spawn, Verdict: verdict(vocab.DecisionDrop, "r_a"),
			Findings: []probe.Finding{f("s8r/z", probe.SeverityWarn)}},
		{Target: probe.Target{Name: "ec", Transport: "sse", URL: "https://example.invalid/sse", Sandbox: "remote"}, Liveness: unreach,
			Verdict: verdict(vocab.DecisionFix, "r_a")},
		{Target: probe.Target{Name: "ec", Command: []string{"srv"}, Sandbox: "bwrap"}, Liveness: unreach, Verdict: na},
		{Target: stdio("ed"), Liveness: spawn},
	}
	tl := NewTally()
	for _, r := range runs {
		tl.Add(r)
	}
	c := tl.Census()

	if c.Launches != 6 || c.Plans != 7 {
		t.Errorf("launches %d of %d plans, want 6 of 7", c.Launches, c.Plans)
	}
	type st struct{ n, hs int }
	statuses := map[vocab.Status]st{}
	for _, s := range c.Statuses {
		statuses[s.Status] = st{s.Share.Count, s.Handshake}
	}
	if want := map[vocab.Status]st{vocab.StatusOK: {3, 3}, vocab.StatusSpawnFailed: {2, 0}, vocab.StatusUnreachable: {2, 0}}; !reflect.DeepEqual(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}

	v := c.Verdicts
	if v.WithVerdict != 6 || v.Without != 1 || v.NeedsSetup != 0 || v.NotAssessed != 1 {
		t.Errorf("verdicts: %d with, %d without, %d not assessed; want 6, 1, 1", v.WithVerdict, v.Without, v.NotAssessed)
	}
	if want := []CauseFigure{{"author", 4}, {"environment", 1}, {"none", 1}}; !reflect.DeepEqual(v.Actors, want) {
		t.Errorf("actors %v, want %v", v.Actors, want)
	}
	if want := []CauseFigure{{"no docker", 1}}; !reflect.DeepEqual(v.NotAssessedCauses, want) {
		t.Errorf("not assessed causes %v, want %v", v.NotAssessedCauses, want)
	}
	if want := []RuleFigure{{"r_big", vocab.DecisionDrop, 2}, {"r_a", vocab.DecisionDrop, 1}, {"r_a", vocab.DecisionFix, 1}, {"r_b", vocab.DecisionKeep, 1}}; !reflect.DeepEqual(v.Rules, want) {
		t.Errorf("rules %v, want %v", v.Rules, want)
	}

	type fig struct {
		code         string
		servers, occ int
	}
	var findings []fig
	for _, x := range c.Findings {
		findings = append(findings, fig{x.Code, x.Servers.Count, x.Occurrences})
	}
	if want := []fig{{"s8r/x", 2, 2}, {"s8r/y", 1, 3}, {"schema/s8r_fatal", 1, 2}, {"s8r/w", 1, 1}, {"s8r/z", 1, 1}, {"schema/s8r_soft", 1, 1}}; !reflect.DeepEqual(findings, want) {
		t.Errorf("findings %v, want %v", findings, want)
	}
	if c.Schema.FatalFindings != 2 || c.Schema.SoftFindings != 1 {
		t.Errorf("schema findings: %d fatal, %d soft, want 2, 1", c.Schema.FatalFindings, c.Schema.SoftFindings)
	}

	var classes []string
	for _, x := range c.Errors.Classes {
		classes = append(classes, x.Class)
	}
	if want := []string{vocab.ClassToolError, vocab.ClassCrash, "zz_a", "zz_b"}; !reflect.DeepEqual(classes, want) {
		t.Errorf("classes %v, want %v", classes, want)
	}

	type row struct {
		key                      string
		servers, keep, fix, drop int
	}
	var rows []row
	for _, r := range c.Breakdowns.Transport {
		rows = append(rows, row{r.Key, r.Servers, r.Keep, r.Fix, r.Drop})
	}
	if want := []row{{"stdio", 5, 1, 0, 3}, {"sse", 1, 0, 1, 0}, {"unknown", 1, 0, 0, 0}}; !reflect.DeepEqual(rows, want) {
		t.Errorf("transport rows %v, want %v", rows, want)
	}

	if len(c.Score.Deciles) != 10 {
		t.Fatalf("deciles %v, want 10 bins", c.Score.Deciles)
	}
	for i, b := range c.Score.Deciles {
		want := DecileBin{Low: 10 * i, High: 10*i + 10}
		if i == 1 || i == 9 {
			want.Count = 1
		}
		if b != want {
			t.Errorf("decile %d: %+v, want %+v", i, b, want)
		}
	}

	type entry struct {
		plans, launched, handshake int
		groups, verdicts           map[string]int
	}
	entries := map[string]entry{}
	for name, ec := range tl.perEntry {
		entries[name] = entry{ec.plans, ec.launched, ec.handshake, ec.groups, ec.verdicts}
	}
	hs, sp, un := GroupOf(ok), GroupOf(spawn), GroupOf(unreach)
	want := map[string]entry{
		"ea": {2, 2, 2, map[string]int{hs: 2}, map[string]int{vocab.DecisionKeep: 1, vocab.DecisionDrop: 1}},
		"eb": {2, 2, 1, map[string]int{hs: 1, sp: 1}, map[string]int{vocab.DecisionDrop: 2}},
		"ec": {2, 1, 0, map[string]int{un: 2}, map[string]int{vocab.DecisionFix: 1, vocab.DecisionNotAssessed: 1}},
		"ed": {1, 1, 0, map[string]int{sp: 1}, map[string]int{}},
	}
	if !reflect.DeepEqual(entries, want) {
		t.Errorf("per entry %v, want %v", entries, want)
	}
}
