package vocab

// Element names of the error-actionability rubric, in rubric order. The
// grader (scoring) decides whether a response passes each and weighs them;
// the store and the reports only name and order them. They are stored in
// databases; a name never changes meaning once shipped.
const (
	// ElemChannel: failure signalled on the channel the negotiated protocol
	// revision prescribes.
	ElemChannel = "channel"
	// ElemParam: names the offending parameter.
	ElemParam = "param"
	// ElemValueOrForm: states the received value and/or the permitted form.
	ElemValueOrForm = "value_or_form"
	// ElemNextAction: names one next action the agent can execute.
	ElemNextAction = "next_action"
	// ElemCode: carries a stable machine-readable code.
	ElemCode = "code"
	// ElemRetryable: says whether retrying can help, and how.
	ElemRetryable = "retryable"
	// ElemClosestMatches: offers closest matches for an unknown name or id.
	ElemClosestMatches = "closest_matches"
	// ElemNoLeak: leaks no stack trace, host path, connection string,
	// internal host, credential or secret.
	ElemNoLeak = "no_leak"
	// ElemBounded: stays within the token budget without enumerations.
	ElemBounded = "bounded"
)

// Elements lists the rubric's elements in rubric order (the order of the
// grader's weight table and of every report). Callers must not modify it.
var Elements = []string{
	ElemChannel, ElemParam, ElemValueOrForm, ElemNextAction, ElemCode,
	ElemRetryable, ElemClosestMatches, ElemNoLeak, ElemBounded,
}

// Response classes: how a server answered one probe call (set by probe,
// graded by scoring, counted by the census).
const (
	// ClassProtocolError: a JSON-RPC error response.
	ClassProtocolError = "protocol_error"
	// ClassToolError: a tools/call result with isError: true.
	ClassToolError = "tool_error"
	// ClassAccepted: a success result for a request that should have
	// failed.
	ClassAccepted = "accepted"
	// ClassCrash: the server went away (its connection closed, or it no
	// longer answered ping after the probe's response).
	ClassCrash = "crash"
	// ClassHang: no response within the probe's call timeout.
	ClassHang = "hang"
)

// Classes lists the response classes, best first (the census's order).
var Classes = []string{ClassToolError, ClassProtocolError, ClassAccepted, ClassCrash, ClassHang}
