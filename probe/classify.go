package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/lazyre"
	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/vocab"
)

// exitWait is how long the classifier waits for a process to exit after a
// failed handshake, so that "stdout closed" and "process exited" are told
// apart from a server that merely stopped talking.
var exitWait = 2 * time.Second

// classifyFailure decides the liveness status of a run whose handshake did
// not complete. The order matters: what the launcher knows for certain
// (spawn error, limit) comes first, then credentials (the most useful
// diagnosis), then exit, pollution, timeout, and protocol errors last.
func classifyFailure(ctx context.Context, res *Result, err error, rec *recorder, o Options) {
	l := &res.Liveness
	l.HandshakeCompleted = false
	var pi ProcessInfo
	if o.Process != nil {
		pi = o.Process(exitWait)
		l.StderrTail = pi.StderrTail
		l.ExitCode = pi.ExitCode
		l.StdoutNoise = safe.Truncate(pi.StdoutNoise, MaxEvidence, safe.Ellipsis)
	}
	msg := err.Error()
	if werr := wireError(err); werr != nil {
		msg = werr.Message + " " + string(werr.Data)
	}
	timedOut := errors.Is(err, errHandshakeTimeout)
	var st vocab.Status
	var detail, evidence string
	remote := res.Target.Transport != "" && res.Target.Transport != "stdio"
	if lst, ldetail, lev, ok := classifyLocalHTTP(res, err, pi, o); remote && ok {
		st, detail, evidence = lst, ldetail, lev
	} else if remote {
		// A URL target has no process: no exit, stdout or spawn outcome
		// applies, whatever the transport error says.
		st, detail, evidence = classifyRemote(ctx, err, msg, pi, timedOut, o)
	} else {
		st, detail, evidence = classifyLocal(ctx, err, msg, pi, timedOut, rec, o)
	}
	l.Status = st
	l.Detail = safe.Truncate(detail, MaxEvidence, safe.Ellipsis)
	l.Evidence = safe.Truncate(evidence, MaxEvidence, safe.Ellipsis)
	if st == vocab.StatusLimitExceeded && pi.LimitDetail != "" && l.Environment == "" {
		// The limit as this machine enforces it (RLIMIT_DATA without a
		// memory cgroup) stopped the server before it could be assessed:
		// the user raises --memory (issue 22).
		l.Environment = "the server " + pi.LimitDetail
	}
	RecordNotAlive(res)
	if v, ok := answeredUnknownVersion(rec); ok {
		res.Findings = append(res.Findings, NewFinding(CodeUnknownVersion, "server", "/protocolVersion", v,
			"the server answered initialize with protocolVersion %q, which is not a published MCP revision, so no client can continue the handshake; the spec says %s",
			v, specVersionNegotiation))
	}
	if l.StdoutNoise != "" {
		res.Findings = append(res.Findings, NewFinding(CodeStdoutPollution, "server", "stdout", pi.StdoutNoise,
			"the server wrote non-protocol bytes to stdout; over stdio, stdout must carry only JSON-RPC messages, so write logs and banners to stderr"))
	}
}

// RecordNotAlive adds the liveness/handshake_failed finding for res's
// liveness status and detail, which the caller has set: probe's
// classification of a failed handshake, or scan's verdict on a remote it
// found unreachable before any handshake. Probe is the code's one
// producer.
func RecordNotAlive(res *Result) {
	l := &res.Liveness
	res.Findings = append(res.Findings, NewFinding(CodeNotAlive, "server", "", string(l.Status),
		"the server did not complete the MCP handshake (%s): %s", l.Status, l.Detail))
}

// limitDetail is the liveness detail of a handshake a sandbox limit ended.
func limitDetail(pi ProcessInfo) string {
	d := "the sandbox killed the server: " + pi.LimitExceeded + " limit exceeded"
	if pi.LimitValue != "" {
		d += " (" + pi.LimitValue + ")"
	}
	if pi.LimitDetail != "" {
		d += "; the server " + pi.LimitDetail
	}
	return d
}

// classifyLocal decides the status of a process target (stdio) whose
// handshake failed, in the order [classifyFailure] gives.
func classifyLocal(ctx context.Context, err error, msg string, pi ProcessInfo, timedOut bool, rec *recorder, o Options) (vocab.Status, string, string) {
	switch {
	case pi.SpawnError != "":
		return vocab.StatusSpawnFailed, "the server could not be started: " + pi.SpawnError, pi.SpawnError
	case o.Process == nil && isSpawnError(err):
		return vocab.StatusSpawnFailed, "the server could not be started: " + err.Error(), err.Error()
	case pi.LimitExceeded != "":
		return vocab.StatusLimitExceeded, limitDetail(pi), pi.LimitExceeded
	case credentialEvidence(pi.StderrTail, pi.StdoutNoise, msg) != "":
		return vocab.StatusMissingCredentials, "the server stopped with a message naming a credential", credentialEvidence(pi.StderrTail, pi.StdoutNoise, msg)
	case timedOut && pi.StdoutNoise != "":
		// stdout_pollution is kept for servers that completed the
		// handshake despite the noise; without a handshake, the noise broke
		// the protocol (the stdout_pollution finding says so).
		return vocab.StatusProtocolError, "non-protocol bytes on stdout and no valid handshake answer within " + o.HandshakeTimeout.String(), pi.StdoutNoise
	case timedOut || (ctx.Err() != nil && !connectionClosed(err)):
		return vocab.StatusHandshakeTimeout, timeoutDetail(ctx, timedOut, rec, o), ""
	case wentAway(err, pi):
		return vocab.StatusExitedEarly, "the process exited before the handshake completed (exit " + exitOf(pi) + ")", keyLine(pi.StderrTail)
	case pi.StdoutNoise != "":
		return vocab.StatusProtocolError, "non-protocol bytes on stdout and no valid handshake answer", pi.StdoutNoise
	}
	return vocab.StatusProtocolError, "the handshake failed: " + err.Error(), msg
}

// classifyLocalHTTP decides the outcomes of a package or command that
// serves HTTP in its sandbox, which, unlike a URL target, has a process:
// it could not be started, it exited before listening on its port
// (exited_early, with its stderr), or it started and never listened on
// the port within the handshake deadline. ok is false for any other
// failure, which is classified as a remote's.
func classifyLocalHTTP(res *Result, err error, pi ProcessInfo, o Options) (st vocab.Status, detail, evidence string, ok bool) {
	if len(res.Target.Command) == 0 || o.Process == nil {
		return "", "", "", false
	}
	switch {
	case pi.SpawnError != "":
		return vocab.StatusSpawnFailed, "the server could not be started: " + pi.SpawnError, pi.SpawnError, true
	case pi.LimitExceeded != "":
		return vocab.StatusLimitExceeded, limitDetail(pi), pi.LimitExceeded, true
	case pi.Exited || strings.Contains(err.Error(), "exited before listening"):
		if ev := credentialEvidence(pi.StderrTail); ev != "" {
			return vocab.StatusMissingCredentials, "the server stopped with a message naming a credential", ev, true
		}
		return vocab.StatusExitedEarly, "the process exited before listening on its port (exit " + exitOf(pi) + ")", keyLine(pi.StderrTail), true
	case strings.Contains(err.Error(), "did not listen on"):
		return vocab.StatusHandshakeTimeout, "the server started but did not listen on the port of " + res.Target.URL +
			" within the handshake deadline (" + o.HandshakeTimeout.String() + "); it may serve stdio unless told otherwise", keyLine(pi.StderrTail), true
	}
	return "", "", "", false
}

// connectionClosed reports whether the connection closed before the
// handshake answered.
func connectionClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed)
}

// wentAway reports whether the server went away on its own: the
// connection closed before the handshake answered. (When the handshake
// fails for another reason the client closes stdin and the process exits
// after it, so Exited alone proves nothing.)
func wentAway(err error, pi ProcessInfo) bool {
	return connectionClosed(err) || (pi.Exited && wireError(err) == nil && !isShapeError(err))
}

// exitOf names how the process ended: its exit code or signal, or that it
// still runs with its stdout closed.
func exitOf(pi ProcessInfo) string {
	code := "unknown"
	if pi.ExitCode != nil {
		code = fmt.Sprint(*pi.ExitCode)
	}
	if pi.Signal != "" {
		code = pi.Signal
	}
	if !pi.Exited {
		code = "still running: stdout closed"
	}
	return code
}

// timeoutDetail says which deadline the handshake missed: its own, the
// run's (--timeout, --server-timeout, which fired first and is named
// rather than the handshake's), or an interrupt.
func timeoutDetail(ctx context.Context, timedOut bool, rec *recorder, o Options) string {
	detail := "no answer to the handshake within " + o.HandshakeTimeout.String()
	switch {
	case timedOut:
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		detail = "no answer to the handshake before the run's deadline (--timeout or --server-timeout) fired, ahead of the " + o.HandshakeTimeout.String() + " handshake deadline"
	default:
		detail = "the run was interrupted before the handshake answered"
	}
	if rec.pendingMethod("server/discover") {
		detail += " (server/discover went unanswered)"
	}
	return detail
}

// classifyRemote decides the status of a URL target whose handshake
// failed, from the HTTP answer first (each status maps to one documented
// liveness status), then the transport error.
func classifyRemote(ctx context.Context, err error, msg string, pi ProcessInfo, timedOut bool, o Options) (vocab.Status, string, string) {
	ev := err.Error()
	if st, detail, evidence, ok := remoteRefused(ev, pi); ok {
		return st, detail, evidence
	}
	code := remoteHTTPStatus(err, pi)
	answered := fmt.Sprintf("the server answered HTTP %d", code)
	if t := http.StatusText(code); t != "" {
		answered += " " + t
	}
	if st, detail, ok := httpErrorStatus(code, pi.OAuthMetadata, answered); ok {
		return st, detail, ev
	}
	switch {
	case isUnreachable(err):
		return vocab.StatusUnreachable, "the server could not be reached: " + ev, ev
	case timedOut || ctx.Err() != nil:
		return vocab.StatusHandshakeTimeout, "no answer to the handshake within " + o.HandshakeTimeout.String(), ""
	case credentialEvidence(msg) != "":
		return vocab.StatusMissingCredentials, "the server refused the handshake with a message naming a credential", credentialEvidence(msg)
	}
	return httpBodyStatus(code, pi.HTTPContentType, answered, ev, msg)
}

// remoteRefused decides the outcomes known before any HTTP answer counts:
// a target the dialer refused, a redirect not followed, a limit the
// sandbox enforced.
func remoteRefused(ev string, pi ProcessInfo) (vocab.Status, string, string, bool) {
	switch {
	case strings.Contains(ev, "private address:"):
		return vocab.StatusInvalidPlan, "the target was refused: " + ev, ev, true
	case strings.Contains(ev, "cross-origin redirect not followed"):
		return vocab.StatusProtocolError, "the server redirected to another origin; the redirect was not followed, since the headers given for the URL belong to its origin", ev, true
	case pi.LimitExceeded != "":
		return vocab.StatusLimitExceeded, "a response of the server exceeded the " + pi.LimitExceeded + " limit", pi.LimitExceeded, true
	}
	return "", "", "", false
}

// remoteHTTPStatus returns the HTTP status of the handshake's answer: the
// sandbox's, or else the one the transport error names. An answer the
// transport saw before the sandbox did (or a transport without a sandbox):
// the go-sdk ends its error with the status text ("sending \"initialize\":
// Unauthorized"), other clients name the number.
func remoteHTTPStatus(err error, pi ProcessInfo) int {
	if pi.HTTPStatus != 0 {
		return pi.HTTPStatus
	}
	for _, c := range []int{401, 403, 404, 405, 410, 500, 501, 502, 503, 504} {
		if httpStatusIn(err.Error(), c) || strings.HasSuffix(err.Error(), ": "+http.StatusText(c)) {
			return c
		}
	}
	return 0
}

// httpErrorStatus maps the HTTP statuses that decide a liveness status by
// themselves: credentials (401, 403), no endpoint (404, 405, 410), a
// server error (5xx).
func httpErrorStatus(code int, oauth bool, answered string) (vocab.Status, string, bool) {
	switch {
	case code == 401 && oauth:
		return vocab.StatusMissingCredentials, answered + "; requires OAuth authorization (WWW-Authenticate names resource_metadata)", true
	case code == 401 || code == 403:
		return vocab.StatusMissingCredentials, answered + "; pass the credentials it needs with --header", true
	case code == 404 || code == 405 || code == 410:
		return vocab.StatusUnreachable, answered + ": no MCP endpoint at this URL", true
	case code >= 500:
		return vocab.StatusUnreachable, answered, true
	}
	return "", "", false
}

// httpBodyStatus decides the remaining answers: a success whose body is
// not MCP, another 4xx, or a failure the HTTP status does not explain.
func httpBodyStatus(code int, contentType, answered, ev, msg string) (vocab.Status, string, string) {
	ok := code >= 200 && code < 300
	switch {
	case ok && contentType != "" && contentType != "application/json" && contentType != "text/event-stream":
		return vocab.StatusProtocolError, fmt.Sprintf("%s with a %s body, not MCP", answered, contentType), ev
	case code >= 400:
		return vocab.StatusProtocolError, answered + ": the handshake was refused", ev
	case ok:
		return vocab.StatusProtocolError, answered + " with a body that is not an MCP answer: " + ev, ev
	}
	return vocab.StatusProtocolError, "the handshake failed: " + ev, msg
}

// credentialWord matches the names of credentials in prose and in
// environment variable names (GITHUB_TOKEN, OPENAI_API_KEY, ...).
var (
	credentialWord = lazyre.New(`(?i)\b(?:[A-Z0-9]+_)*(?:API[_ -]?KEY|APIKEY|ACCESS[_ -]?KEY|SECRET(?:[_ -]?KEY)?|TOKEN|PASSWORD|CREDENTIALS?|CLIENT[_ -]?(?:ID|SECRET)|AUTH(?:ORIZATION)?|BEARER|PAT)\b`)
	missingWord    = lazyre.New(`(?i)\b(?:missing|required|requires|not set|not provided|must (?:be )?(?:set|provided?|specif(?:y|ied)|supplied|given)|no .{0,40}(?:found|provided|configured|set)|undefined|is empty|not configured|unauthori[sz]ed|invalid|please (?:set|provide)|need(?:s|ed)? (?:to be set|an?))\b`)
)

// credentialEvidence returns the first line of the texts that names a
// credential and says it is missing or wrong, or "".
func credentialEvidence(texts ...string) string {
	for _, t := range texts {
		for line := range strings.SplitSeq(t, "\n") {
			if credentialWord.MatchString(line) && missingWord.MatchString(line) {
				return strings.TrimSpace(line)
			}
		}
	}
	return ""
}

// isShapeError reports whether err is the client rejecting what the server
// answered (a result of the wrong shape, an unsupported version).
func isShapeError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "cannot unmarshal") || strings.Contains(msg, "unsupported protocol version") ||
		strings.Contains(msg, "invalid character") || strings.Contains(msg, "unexpected end of JSON")
}

// keyLine picks the most telling line of a stderr tail: the first that
// reads like an error, else the last non-empty one.
func keyLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if errorLine.MatchString(line) {
			return strings.TrimSpace(line)
		}
	}
	return strings.TrimSpace(lastLine(s))
}

var errorLine = lazyre.New(`(?i)\b(?:error|panic|fatal|exception|traceback|cannot|can't|failed|not found|denied|refused)\b`)

func lastLine(s string) string {
	s = strings.TrimRight(s, "\r\n\t ")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func isSpawnError(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENOEXEC) ||
		strings.Contains(err.Error(), "executable file not found")
}

func isUnreachable(err error) bool {
	var opErr *net.OpError
	var dnsErr *net.DNSError
	return errors.As(err, &opErr) || errors.As(err, &dnsErr) || errors.Is(err, syscall.ECONNREFUSED) ||
		strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "no such host")
}

// httpStatusIn reports whether msg mentions one of the HTTP statuses as a
// status (the go-sdk puts "401 Unauthorized" style text in its errors).
func httpStatusIn(msg string, codes ...int) bool {
	for _, m := range statusNumber.FindAllString(msg, -1) {
		for _, c := range codes {
			if m == fmt.Sprint(c) {
				return true
			}
		}
	}
	return false
}

var statusNumber = lazyre.New(`\b[1-5][0-9][0-9]\b`)

// specVersionNegotiation is the rule a server answering an unpublished
// revision breaks.
const specVersionNegotiation = `"If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports." (2025-11-25, Lifecycle, Version Negotiation)`

// answeredUnknownVersion returns the protocolVersion of the server's
// initialize result when it is not a published revision: the client then
// ends the handshake, and the version is the reason.
func answeredUnknownVersion(rec *recorder) (string, bool) {
	if rec == nil {
		return "", false
	}
	ex, ok := rec.last("initialize")
	if !ok || ex.result == nil {
		return "", false
	}
	var r struct {
		ProtocolVersion *string `json:"protocolVersion"`
	}
	if json.Unmarshal(ex.result, &r) != nil || r.ProtocolVersion == nil || vocab.KnownProtocol(*r.ProtocolVersion) {
		return "", false
	}
	return *r.ProtocolVersion, true
}
