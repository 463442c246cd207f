package scoring

import "github.com/mcpvet/mcpvet/vocab"

// RubricVersion identifies the element definitions, detection heuristics,
// weights and budgets below. It is stored with every graded result; any
// change that can move a score bumps it, and so does a change of the
// verdict's rules (errors-v3: who must act, needs_setup, not_assessed;
// errors-v5: packages the MCP Registry verified at publish but the index
// here lacks are not_assessed; errors-v6: the channel is a factor on the
// score, not a weight, and bounded counts o200k_base tokens).
const RubricVersion = "errors-v6"

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
// [vocab.Elements]. A response's score is 100 times the weight of the
// elements it passes over the weight of the elements that apply to it,
// times [WrongChannelFactor] when it came on the wrong channel. The
// channel is a factor, not a weight (weight 0): a fixed 15 points made a
// complete answer on the wrong channel tie thin answers on the right one
// (issue 25 item 5). The other weights sum to 85.
var Weights = []Weight{
	{ElemChannel, 0},
	{ElemParam, 15},
	{ElemValueOrForm, 10},
	{ElemNextAction, 15},
	{ElemCode, 10},
	{ElemRetryable, 10},
	{ElemClosestMatches, 5},
	{ElemNoLeak, 10},
	{ElemBounded, 10},
}

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
// credential or a connection string: below the 10 points no_leak alone
// earns any response that signals its failure without leaking, so no
// leaking response outranks a non-leaking one (issue 25 item 4: a DNS
// failure leaking an API key scored 57.9, as much as a complete enum
// error).
const MaxLeakingScore = 5

// WrongChannelFactor scales the score of a response that signalled its
// failure on the wrong channel (or with the wrong JSON-RPC code): the
// answer may not reach the model as a tool error, so it keeps three
// quarters of what its content earns. A content-free answer loses little,
// a complete one more, and content differences stay visible on either
// channel: a complete enum answer on the wrong channel (51.6) scores
// above "Required at filePaths" on the right one (50), and below its own
// right-channel twin (68.8).
const WrongChannelFactor = 0.75

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
