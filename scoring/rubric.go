package scoring

import "github.com/mcpvet/mcpvet/vocab"

// RubricVersion identifies the element definitions, detection heuristics,
// weights and budgets below. It is stored with every graded result; any
// change that can move a score bumps it, and so does a change of the
// verdict's rules (errors-v3: who must act, needs_setup, not_assessed;
// errors-v5: packages the MCP Registry verified at publish but the index
// here lacks are not_assessed).
const RubricVersion = "errors-v5"

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
// [vocab.Elements]. A
// response's score is 100 times the weight of the elements it passes over
// the weight of the elements that apply to it. The weights sum to 100, so
// a response to which every element applies scores the sum of the weights
// it passes.
var Weights = []Weight{
	{ElemChannel, 15},
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
	// MaxErrorTokens is the most estimated tokens an error response may
	// cost. Two closest matches cost about 25 tokens; a list of 300 ids
	// about 3,000.
	MaxErrorTokens = 500
	// MaxEnumeration is the most items an error may enumerate (a JSON
	// array, lines, or names of the server's own tools, prompts or
	// resources).
	MaxEnumeration = 25
	// BytesPerToken is the token estimate's divisor: about four bytes of
	// UTF-8 per token for English and JSON.
	BytesPerToken = 4
)

// MaxLeakingScore caps the score of a response that leaks a secret, a
// credential or a connection string: below the 10 points no_leak alone
// earns any response that signals its failure without leaking, so no
// leaking response outranks a non-leaking one (issue 25 item 4: a DNS
// failure leaking an API key scored 57.9, as much as a complete enum
// error).
const MaxLeakingScore = 5

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
