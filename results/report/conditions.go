package report

import (
	"fmt"
	"strings"

	"github.com/mcpvet/mcpvet/results"
)

// conditionLine is one line of the run conditions: what and how it was.
type conditionLine struct{ What, Value string }

// conditionLines are the run conditions a census report opens with: the
// source, DNS, the registries and indexes, the container engine, the
// runtimes, the sandbox, and the plans not assessed because of them. All
// text is plain (the writers escape it).
func conditionLines(c *results.Census) []conditionLine {
	out := []conditionLine{{"source", textLine(c.Source, 300)}}
	k := c.Conditions
	if k == nil {
		out = append(out, conditionLine{"conditions", "not recorded: the scan was made by an mcpvet that did not record them"})
	} else {
		dns := "public names resolve (" + strings.Join(k.DNS.Resolved, ", ") + ")"
		if !k.DNS.PublicNames {
			dns = "no public name resolves here (" + strings.Join(k.DNS.Failed, ", ") + " failed"
			if k.DNS.Detail != "" {
				dns += ": " + k.DNS.Detail
			}
			dns += "); remotes whose name does not resolve are not assessed"
		}
		out = append(out, conditionLine{"DNS", textLine(dns, 400)})
		var ix []string
		for _, x := range k.Indexes {
			s := x.Name + " " + x.URL
			if x.Answered {
				s += ": answered"
			} else {
				s += ": did not answer"
			}
			if x.Detail != "" {
				s += " (" + x.Detail + ")"
			}
			ix = append(ix, textLine(s, 240))
		}
		out = append(out, conditionLine{"registries and indexes", strings.Join(ix, "; ")})
		engine := "none runs here"
		if k.ContainerEngine != "" {
			engine = k.ContainerEngine
		}
		out = append(out, conditionLine{"container engine", textLine(engine, 200)})
		var found, missing []string
		for _, r := range k.Runtimes {
			if r.Found {
				found = append(found, r.Name)
			} else {
				missing = append(missing, r.Name)
			}
		}
		rt := "found " + orNone(strings.Join(found, ", "))
		if len(missing) > 0 {
			rt += "; missing " + strings.Join(missing, ", ")
		}
		out = append(out, conditionLine{"runtimes on PATH", textLine(rt, 300)})
		net := "off"
		if k.Network {
			net = "on"
		}
		out = append(out, conditionLine{"sandbox", textLine(k.Sandbox, 40) + " (network for servers " + net + "); checked " + textLine(k.CheckedAt, 40)})
	}
	v := c.Verdicts
	na := fmt.Sprintf("%s plans", fmtInt(v.NotAssessed))
	if len(v.NotAssessedCauses) > 0 {
		var causes []string
		for _, x := range v.NotAssessedCauses {
			causes = append(causes, fmt.Sprintf("%s: %s", textLine(x.Cause, 160), fmtInt(x.Plans)))
		}
		na += " (" + strings.Join(causes, "; ") + ")"
	}
	out = append(out, conditionLine{"not assessed here", na})
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// ciSentence says how a report states its rates.
func ciSentence(c *results.Census) string {
	if c.Sampled {
		return "This is a sample: every rate is stated with its denominator and a 95% interval; intervals of plan figures are clustered by registry entry (the plans of one entry are not independent), the others are Wilson score intervals."
	}
	return "This is a complete census of its source: every figure is an exact count with its denominator, without confidence intervals (there is no sampling error)."
}

// verdictLine is the verdict summary over assessed plans, with the plans
// not assessed beside it.
func verdictLine(c *results.Census) string {
	v := c.Verdicts
	s := fmt.Sprintf("Of %s assessed plans (keep, fix or drop): keep %s (%s), fix %s (%s), drop %s (%s).",
		fmtInt(v.Assessed), fmtInt(v.Keep.Count), v.Keep.Percent(), fmtInt(v.Fix.Count), v.Fix.Percent(), fmtInt(v.Drop.Count), v.Drop.Percent())
	s += fmt.Sprintf(" Not counted in these shares: %s plans need setup by their user (variables, headers, OAuth), %s plans were not assessed on this machine",
		fmtInt(v.NeedsSetup), fmtInt(v.NotAssessed))
	if v.Without > 0 {
		s += fmt.Sprintf(", %s plans carry no verdict", fmtInt(v.Without))
	}
	return s + "."
}
