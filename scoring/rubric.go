package scoring

import "github.com/mcpvet/mcpvet/vocab"

// RubricVersion identifies the element definitions, detection heuristics,
// weights and budgets below. It is stored with every graded result; any
// change that can move a score bumps it, and so does a change of the
// verdict's rules (errors-v3: who must act, needs_setup, not_assessed;
// errors-v5: packages the MCP Registry verified at publish but the index
// here lacks are not_assessed; errors-v6: the channel is a factor on the
// score, not a weight, and bounded counts o200k_base tokens; errors-v7:
// no_leak and bounded are factors, a response earns a share for
// signalling its failure, new content weights, and four element fixes;
// errors-v8: four detections, one of them a half credit for closest_matches;
// errors-v9: a success result whose text reports the failure is read on the
// wrong channel, nested arguments are arguments, a prompt's invalid
// arguments are judged by the prompt rule, and two detections;
// errors-v10: the failure text of a success result found under a heading
// or in its first sentence, "Available:" and "Supported X are:" lists, the
// received value inside an array or a nested argument, a sole echoed
// argument, a file name that is no code; errors-v11: an acronym for a
// short name, a host or "Example:" as the form, lists after two words,
// "make sure" and "please <tool>" as instructions, an absent argument
// rendered "=undefined", the tool's own name in words is not its argument;
// errors-v12: "as a number" and "a valid number" state a type, "required"
// said of authentication or of another argument is not the received
// value, an environment variable to set and "one of these methods" are not
// the agent's call; errors-v13: the score formula refitted on batches 3 to
// 10: a code alone earns nothing, a parameter alone half its weight;
// errors-v14: the JSON text of what the caller sent is an echo, so a server
// repeating its arguments with escapes, `C:\\Users\\…`, no longer leaks a
// host path).
const RubricVersion = "errors-v14"

// Element names, in rubric order: the words of vocab ([vocab.Elements]),
// which the store and the reports name without importing the grader.
const (
	ElemChannel        = vocab.ElemChannel
	ElemParam          = vocab.ElemParam
	ElemValueOrForm    = vocab.ElemValueOrForm
	ElemNextAction     = vocab.ElemNextAction
	ElemCode           = vocab.ElemCode
	ElemRetryable      = vocab.ElemRetryable
	ElemClosestMatches = vocab.ElemClosestMatches
	ElemNoLeak         = vocab.ElemNoLeak
	ElemBounded        = vocab.ElemBounded
)

// Weight is one row of the rubric's weight table.
type Weight struct {
	Element string
	Weight  float64
}

// Weights is the rubric: every element and its weight, in the order of
// [vocab.Elements]. The content elements (param, value_or_form,
// next_action, code, retryable, closest_matches) carry weights; channel,
// no_leak and bounded carry none (weight 0) and act as factors. A
// response that signals its failure scores [SignalShare] for that alone
// plus the rest in proportion to the content weight it earns over the
// content weight that applies; then times [WrongChannelFactor] on the
// wrong channel, [UnboundedFactor] when it is not bounded, [LeakFactor]
// when it leaks, and capped at [MaxLeakingScore] for a severe leak. A code
// or a parameter with nothing else earns [CodeAloneCredit] or
// [ParamAloneCredit] of its credit (errors-v13).
//
// errors-v7 (issue 25): no_leak and bounded no longer earn points, since a
// content-free "Something went wrong." earned 36.4 from them alone,
// above thin but useful argument errors; code weighs 5 (a code alone does
// not tell the agent what to do), retryable, value_or_form and
// closest_matches 15 (the background texts' payloads recover through the
// retry guidance, the permitted form and two closest matches). The
// content weights sum to 80.
var Weights = []Weight{
	{ElemChannel, 0},
	{ElemParam, 15},
	{ElemValueOrForm, 15},
	{ElemNextAction, 15},
	{ElemCode, 5},
	{ElemRetryable, 15},
	{ElemClosestMatches, 15},
	{ElemNoLeak, 0},
	{ElemBounded, 0},
}

// SignalShare is the part of the score a response earns for signalling
// its failure at all (an error rather than success, a crash or a hang):
// "Something went wrong." scores 20, and no leaking response (capped at
// [MaxLeakingScore]) outranks a non-leaking one, whose least is 20 ×
// [WrongChannelFactor] × [UnboundedFactor] × [LeakFactor] = 10.9.
const SignalShare = 0.2

// UnboundedFactor scales the score of a response that fails bounded (over
// [MaxErrorTokens] or an enumeration over [MaxEnumeration]): it still
// says what it says, at a cost to every later turn.
const UnboundedFactor = 0.8

// LeakFactor scales the score of a response that leaks what is not a
// secret, a credential or a connection string (a host path, an internal
// host, a stack trace): a defect that does not erase the content.
const LeakFactor = 0.85

// Budgets of the bounded element.
const (
	// MaxErrorTokens is the most o200k_base tokens an error response may
	// cost (its text, error message and data, structured content). The
	// background texts' figures: two closest matches cost about 25 tokens
	// (29 for their unknown_project pair as JSON), a full enumeration of
	// 300 ids about 3,000. 500 is twenty times the first and a sixth of
	// the second: room for a complete answer (the texts' whole
	// unknown_project payload is 92), never for an enumeration.
	MaxErrorTokens = 500
	// MaxEnumeration is the most items an error may enumerate (a JSON
	// array, lines, or names of the server's own tools, prompts or
	// resources).
	MaxEnumeration = 25
)

// MaxLeakingScore caps the score of a response that leaks a secret, a
// credential or a connection string: below the least any response that
// signals its failure without leaking earns (10.9, see [SignalShare]), so
// no leaking response outranks a non-leaking one (issue 25 item 4: a DNS
// failure leaking an API key scored 57.9, as much as a complete enum
// error).
const MaxLeakingScore = 5

// CodeAloneCredit is the share of its credit a code keeps when no other
// content element (param, value_or_form, next_action, retryable,
// closest_matches) earns anything: none. An errno or a code with nothing
// beside it tells the agent no more than "Something went wrong." (the
// background texts' codes matter as keys for the recovery and for retry
// policy, next to what to do). errors-v13, from the refit on batches 3 to
// 10 (docs/rubric.md, "Issue 25: errors-v13").
const CodeAloneCredit = 0.0

// ParamAloneCredit is the share of its credit param keeps when nothing
// says what is wrong with the parameter or what to do (value_or_form,
// next_action, retryable and closest_matches earn nothing): half. The
// name points the agent at the argument, but not at a fix. errors-v13.
const ParamAloneCredit = 0.5

// WrongChannelFactor scales the score of a response that signalled its
// failure on the wrong channel (or with the wrong JSON-RPC code): the
// answer may not reach the model as a tool error, so it keeps four fifths
// of what it earns. A content-free answer loses little, a complete one
// more, and content differences stay visible on either channel: a complete
// enum answer on the wrong channel (50.5) scores above "Required at
// filePaths" and "apiVersion is not a string" on the right one (47.7),
// and below its own right-channel twin (63.1). (0.75 in errors-v6; with
// code at weight 5 it put the complete answer at 47.3, below the thin
// ones.)
const WrongChannelFactor = 0.8

// ChannelCutover is the first protocol revision in which input validation
// errors belong in tool execution errors (isError: true) rather than in
// JSON-RPC errors.
const ChannelCutover = vocab.Protocol20251125

func weightOf(name string) float64 {
	for _, w := range Weights {
		if w.Element == name {
			return w.Weight
		}
	}
	return 0
}
