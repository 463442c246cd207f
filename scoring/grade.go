package scoring

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
)

// Graded is the grade of one error response.
type Graded struct {
	Kind  string `json:"kind"`
	Class string `json:"class"`
	// Subject is what findings about this response concern: "tool:NAME",
	// "prompt:NAME", "resource:URI" or "server".
	Subject string `json:"subject"`
	// Elements are the elements that apply to the response, in rubric
	// order, each with the evidence that decided it: the span of text or
	// the JSON field that satisfied it, or why it failed.
	Elements []probe.Element `json:"elements"`
	// NotApplicable lists the elements that do not apply to this kind.
	NotApplicable []string `json:"notApplicable,omitempty"`
	// Score is the actionability score, 0 to 100.
	Score float64 `json:"score"`
	// Credits holds, for each of Elements, the share of its weight the
	// response earned: 1 for a pass, 0 for a failure, and 0.5 for a
	// value_or_form that states the received value or the permitted form
	// but not both; a code or a parameter that passes with nothing else
	// earns [CodeAloneCredit] or [ParamAloneCredit] (errors-v13).
	Credits []float64 `json:"credits"`
	// Tokens is the estimated token cost of the response.
	Tokens int `json:"tokens"`
	// Enumeration is the largest list the response enumerates.
	Enumeration int    `json:"enumeration"`
	Leaks       []Leak `json:"leaks,omitempty"`
	// WrongChannel is set when the server answered on a channel, but the
	// wrong one for the kind and protocol revision.
	WrongChannel  bool   `json:"wrongChannel,omitempty"`
	RubricVersion string `json:"rubricVersion"`
}

// Pass reports whether the named element applied and passed.
func (g Graded) Pass(name string) bool {
	for _, e := range g.Elements {
		if e.Name == name {
			return e.Pass
		}
	}
	return false
}

// Applies reports whether the named element applied to the response.
func (g Graded) Applies(name string) bool {
	return slices.ContainsFunc(g.Elements, func(e probe.Element) bool { return e.Name == name })
}

// Apply stores the grade on a probe call: its elements and score.
func (g Graded) Apply(pc *probe.ProbeCall) {
	pc.Elements = append([]probe.Element(nil), g.Elements...)
	s := g.Score
	pc.Score = &s
}

// noSignal reports whether the class means nothing signalled the failure.
func noSignal(class string) bool {
	return class == ClassAccepted || class == ClassCrash || class == ClassHang
}

// silent reports whether nothing signalled r's failure: a crash, a hang,
// or a success result whose text does not report a failure either
// ([reportsFailure]).
func silent(r *Response) bool {
	return noSignal(r.Class) && !reportsFailure(r)
}

// Grade grades one response to a failure-injection request. It is pure and
// safe for concurrent use. A response on which nothing signalled the
// failure (accepted, crash, hang) scores 0: the channel fails, every
// message element fails, and only no_leak and bounded are judged on
// whatever output there was.
func Grade(r Response, c Context) Graded {
	in := newInput(&r, &c)
	g := Graded{
		Kind:          r.Kind,
		Class:         r.Class,
		Subject:       subject(&r),
		RubricVersion: RubricVersion,
		Elements:      make([]probe.Element, 0, len(Weights)),
	}
	silent := silent(&r)
	names, paramApplies := paramCandidates(&r, &c)
	tokens, enum := measure(in)
	g.Tokens, g.Enumeration = tokens, enum

	var got, total float64
	addCredit := func(name string, pass bool, credit float64, ev string) {
		g.Elements = append(g.Elements, probe.Element{Name: name, Pass: pass, Evidence: ev})
		g.Credits = append(g.Credits, credit)
		w := weightOf(name)
		total += w
		got += w * credit
	}
	add := func(name string, pass bool, ev string) {
		credit := 0.0
		if pass {
			credit = 1
		}
		addCredit(name, pass, credit, ev)
	}
	na := func(name string) { g.NotApplicable = append(g.NotApplicable, name) }
	// partial grades an element that may earn part of its weight; message
	// one that passes or fails.
	partial := func(name string, applies bool, grade func() (bool, float64, string)) {
		switch {
		case !applies:
			na(name)
		case silent:
			add(name, false, "no error was signalled ("+r.Class+")")
		default:
			pass, credit, ev := grade()
			addCredit(name, pass, credit, ev)
		}
	}
	message := func(name string, applies bool, grade func() (bool, string)) {
		partial(name, applies, func() (bool, float64, string) {
			pass, ev := grade()
			if pass {
				return pass, 1, ev
			}
			return pass, 0, ev
		})
	}

	pass, ev := gradeChannel(in)
	// A success result that reports its failure in text fails the channel
	// and pays its factor, but raises no wrong_channel finding: the
	// probe's accepted_invalid_input finding already reports it.
	wrong := !pass && !silent
	if wrong && r.Class != ClassAccepted {
		g.WrongChannel = true
	}
	add(ElemChannel, pass, ev)
	message(ElemParam, paramApplies, func() (bool, string) { return gradeParam(in, names) })
	partial(ElemValueOrForm, valueOrFormApplies(&r, &c), func() (bool, float64, string) { return gradeValueOrForm(in) })
	message(ElemNextAction, true, func() (bool, string) { return gradeNextAction(in) })
	message(ElemCode, true, func() (bool, string) { return gradeCode(in) })
	message(ElemRetryable, true, func() (bool, string) { return gradeRetryable(in) })
	partial(ElemClosestMatches, nameKinds[r.Kind], func() (bool, float64, string) { return gradeClosestMatches(in) })
	pass, ev, leaks := gradeNoLeak(in)
	if extra := keyedSecrets(in); len(extra) > 0 {
		// Credentials known only by their key: kept apart from the
		// shape-based scan of gradeNoLeak.
		var evs []string
		for _, l := range extra {
			evs = append(evs, fmt.Sprintf("%s at %s: %s", l.Kind, l.Where, l.Evidence))
		}
		if pass {
			ev = ""
		} else {
			ev += "; "
		}
		pass, ev = false, ev+strings.Join(evs, "; ")
		leaks = append(leaks, extra...)
	}
	g.Leaks = leaks
	add(ElemNoLeak, pass, ev)
	pass, ev = gradeBounded(tokens, enum)
	add(ElemBounded, pass, ev)

	got -= thinCredits(&g)
	if !silent {
		share := 0.0
		if total > 0 {
			share = got / total
		}
		score := 100 * (SignalShare + (1-SignalShare)*share)
		if wrong {
			score *= WrongChannelFactor
		}
		if !g.Pass(ElemBounded) {
			score *= UnboundedFactor
		}
		if !g.Pass(ElemNoLeak) {
			score *= LeakFactor
		}
		g.Score = math.Round(10*score) / 10
	}
	if severeLeak(leaks) && g.Score > MaxLeakingScore {
		g.Score = MaxLeakingScore
	}
	return g
}

// thinCredits applies the errors-v13 rules to the credits of g and returns
// the weight they take away: a code that passes while no other content
// element earns anything earns [CodeAloneCredit] of its credit ("getaddrinfo
// EAI_AGAIN" alone says no more than "Something went wrong." to the agent),
// and a parameter that passes while nothing says what is wrong with it or
// what to do (value_or_form, next_action, retryable and closest_matches earn
// nothing) earns [ParamAloneCredit] of its credit ("All PDF sources failed
// to process: " with the parameter in its words). See docs/rubric.md,
// "Issue 25: errors-v13".
func thinCredits(g *Graded) (lost float64) {
	earned := func(names ...string) bool {
		for i, e := range g.Elements {
			if g.Credits[i] > 0 && slices.Contains(names, e.Name) {
				return true
			}
		}
		return false
	}
	codeAlone := !earned(ElemParam, ElemValueOrForm, ElemNextAction, ElemRetryable, ElemClosestMatches)
	paramAlone := !earned(ElemValueOrForm, ElemNextAction, ElemRetryable, ElemClosestMatches)
	for i, e := range g.Elements {
		keep := 1.0
		switch {
		case e.Name == ElemCode && codeAlone:
			keep = CodeAloneCredit
		case e.Name == ElemParam && paramAlone:
			keep = ParamAloneCredit
		}
		if g.Credits[i] > 0 && keep < 1 {
			lost += weightOf(e.Name) * g.Credits[i] * (1 - keep)
			g.Credits[i] *= keep
		}
	}
	return lost
}

// severeLeak reports whether leaks hold a secret, a credential or a
// connection string: the leaks that cap a score at [MaxLeakingScore].
func severeLeak(leaks []Leak) bool {
	for _, l := range leaks {
		switch l.Kind {
		case LeakSecret, LeakCredential, LeakConnectionString:
			return true
		}
	}
	return false
}

// subject names what a response is about, in finding-subject form. An
// unknown tool, prompt, resource or method does not exist, so findings
// about it concern the server.
func subject(r *Response) string {
	switch r.Kind {
	case KindUnknownTool, KindUnknownMethod, KindUnknownResource, KindUnknownPrompt, KindBadCursor:
		return "server"
	}
	if r.Method == "tools/call" && r.Tool != "" {
		return "tool:" + r.Tool
	}
	return "server"
}

// String summarises a grade on one line.
func (g Graded) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s %.1f:", g.Kind, g.Class, g.Score)
	for _, e := range g.Elements {
		mark := "-"
		if e.Pass {
			mark = "+"
		}
		s.WriteString(" " + mark + e.Name)
	}
	return s.String()
}
