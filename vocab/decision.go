package vocab

// Verdict decisions: the values of a verdict's decision, stored in databases
// and compared across scans. Keep, fix and drop are the three decisions for a
// server that was assessed (it ran, or failed for a reason of its own);
// needs_setup and not_assessed say why a server was not assessed.
const (
	// DecisionKeep: the server works and nobody has to act.
	DecisionKeep = "keep"
	// DecisionFix: the server works; its author has work to do.
	DecisionFix = "fix"
	// DecisionDrop: do not use the server: it never started for a reason of
	// its own, crashed or hung, leaks, is poisoned, or breaks the protocol
	// fatally.
	DecisionDrop = "drop"
	// DecisionNeedsSetup: the server cannot be assessed until its user
	// supplies something (a variable, a header, credentials, an --expose).
	DecisionNeedsSetup = "needs_setup"
	// DecisionNotAssessed: this run's environment could not run the server
	// (no network, no container engine, a registry unreachable, a runtime
	// missing); nothing is said about the server itself.
	DecisionNotAssessed = "not_assessed"
)

// Decisions lists the verdict decisions: the three assessed ones best first,
// then the two that say why a server was not assessed.
var Decisions = []string{DecisionKeep, DecisionFix, DecisionDrop, DecisionNeedsSetup, DecisionNotAssessed}

// Actor names who has to act on a verdict.
type Actor string

// Actors. The values are stable like the decisions.
const (
	// ActorNone: nobody has to act (keep).
	ActorNone Actor = "none"
	// ActorAuthor: the server's author has defects to fix.
	ActorAuthor Actor = "author"
	// ActorUser: the user has to supply configuration or credentials.
	ActorUser Actor = "user"
	// ActorEnvironment: the machine that ran the scan lacked something (a
	// network, an engine, a runtime, a reachable registry).
	ActorEnvironment Actor = "environment"
)

// Verdict rule names, in evaluation order. A verdict's rule trace names
// each rule it evaluated; the names are stable like the statuses.
const (
	// RuleNotAssessed (not_assessed) and RuleNeedsSetup (needs_setup) come
	// first: they say why a server that did not complete the handshake was
	// not assessed, before no_handshake drops it.
	RuleNotAssessed   = "environment_lacking"
	RuleNeedsSetup    = "setup_required"
	RuleNoHandshake   = "no_handshake"
	RuleCrashOrHang   = "crash_or_hang_on_invalid_input"
	RuleLeaksSecret   = "leaks_secret"
	RuleFatalFinding  = "fatal_finding"
	RuleFixFindings   = "findings_to_fix"
	RuleLowScore      = "low_actionability_score"
	RuleKeepOtherwise = "keep_otherwise"
)
