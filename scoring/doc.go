// Package scoring grades a server's error responses for how well an agent
// can act on them, and triages servers into keep, fix or drop.
//
// It is pure: no I/O, no network, no clock. Every function is safe for
// concurrent use.
//
// # Grading one response
//
// [Grade] takes a [Response] (what one failure-injection probe got back)
// and a [Context] (the server's tools, the called tool's parameters, the
// sandbox's secret canaries) and judges nine rubric elements, each with
// the evidence that decided it: the channel, the offending parameter, the
// received value or permitted form, an executable next action, a stable
// code, retry advice, closest matches, leaks, and size. [Weights] combines
// them into a 0-100 score. docs/rubric.md explains every element and the
// [RubricVersion] stored with each result.
//
// # Grading a recorded exchange
//
// [Recorded] is one line of `mcpvet grade` input: the JSON-RPC request and
// response as they went over the wire, plus what the grader needs to know
// about the server. [Recorded.Prepare] classifies the answer as a probe
// does and returns the [Response] and [Context] for [Grade].
//
// # Grading a server
//
// [ScoreResult] grades every probe of a probe.Result in place, sets its
// score ([ServerScore]: the mean over probe kinds) and appends the findings
// the grader owns: leaks and wrong channels (accepted invalid input,
// crashes and hangs are failure injection's, in package probe). [Decide]
// then applies a [Policy] (see
// [LoadPolicy]) and returns the verdict with the ordered rules that
// decided it:
//
//	graded := scoring.ScoreResult(res, &scoring.Options{Canaries: canaries})
//	v := scoring.Decide(res, policy)
//	res.Verdict = &v
//
// # Corpus
//
// testdata/errors holds hand-labelled error responses, published, recorded
// from real servers and synthetic, and a held-out split recorded from real
// servers and labelled before the grader ever saw it; the tests report
// per-element precision and recall on each, pin the exact confusion
// counts, and fail below 0.9.
package scoring
