package vocab

// Verdict decisions, best first: the values of a verdict's decision, stored
// in databases and compared across scans.
const (
	DecisionKeep = "keep"
	DecisionFix  = "fix"
	DecisionDrop = "drop"
)

// Decisions lists the verdict decisions, best first.
var Decisions = []string{DecisionKeep, DecisionFix, DecisionDrop}

// Verdict rule names, in evaluation order. A verdict's rule trace names
// each rule it evaluated; the names are stable like the statuses.
const (
	RuleNoHandshake   = "no_handshake"
	RuleCrashOrHang   = "crash_or_hang_on_invalid_input"
	RuleLeaksSecret   = "leaks_secret"
	RuleFatalFinding  = "fatal_finding"
	RuleFixFindings   = "findings_to_fix"
	RuleLowScore      = "low_actionability_score"
	RuleKeepOtherwise = "keep_otherwise"
)
