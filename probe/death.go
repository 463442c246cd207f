package probe

import (
	"fmt"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
)

// Finding codes for a server that ends after the handshake.
const (
	// CodeLimitExceeded: the sandbox killed the server for a resource
	// limit while it answered a request.
	CodeLimitExceeded = "sandbox/limit_exceeded"
	// CodeDiedOnRequest: the server ended while answering a valid request.
	CodeDiedOnRequest = "liveness/died_on_request"
	// CodeRelaunched: the server died before failure injection, which
	// then ran on a fresh copy.
	CodeRelaunched = "liveness/relaunched"
	// CodeListTruncated: a listing was larger than the scanner keeps.
	CodeListTruncated = "protocol/listing_truncated"
)

func init() {
	register(
		CatalogEntry{CodeLimitExceeded, SeverityFatal,
			"the sandbox killed the server for exceeding a resource limit after the handshake; it is on the request in flight even when that request timed out first, " +
				"the server survived (a child killed by the cgroup), or the server had been relaunched, and that request is never graded as an answer. " +
				"Before the handshake the status is `limit_exceeded`; under `RLIMIT_DATA` (no writable cgroup) a server that died of an allocation failure " +
				"before writing anything is not assessed (\"raise --memory\")",
			"keep memory, processes and CPU time bounded while answering; the finding names the limit and its value"},
		CatalogEntry{CodeDiedOnRequest, SeverityFatal,
			"the server ended while answering a valid request",
			"catch errors in request handlers; a request, valid or not, must never end the process"},
		CatalogEntry{CodeRelaunched, SeverityInfo,
			"the server died before failure injection, which ran on a relaunched copy",
			"nothing beyond fixing the death the other finding names"},
		CatalogEntry{CodeListTruncated, SeverityFatal,
			"a listing was larger than the scanner keeps; the rest is judged as broken",
			"keep listings small and paginate them; no agent can use megabytes of tool descriptions"},
	)
}

// noteDeath records the end of the server while the request method was in
// flight (pointer names it in the finding): the limit the sandbox
// enforced, with its value, or the death itself with the exit evidence.
func noteDeath(res *Result, o Options, method, pointer string) {
	var pi ProcessInfo
	if o.Process != nil {
		pi = o.Process(exitWait)
	}
	if pi.LimitExceeded != "" {
		limit := pi.LimitExceeded
		if pi.LimitValue != "" {
			limit += " (" + pi.LimitValue + ")"
		}
		res.Findings = append(res.Findings, NewFinding(CodeLimitExceeded, "server", pointer, limit,
			"the sandbox killed the server while it answered %s: %s limit exceeded", method, limit))
		return
	}
	res.Findings = append(res.Findings, NewFinding(CodeDiedOnRequest, "server", pointer, exitText(pi),
		"the server ended while answering %s%s", method, suffix(exitText(pi))))
}

// exitText describes how the process ended, when the launcher knows.
func exitText(pi ProcessInfo) string {
	var parts []string
	switch {
	case pi.Signal != "":
		parts = append(parts, "killed by "+pi.Signal)
	case pi.ExitCode != nil:
		parts = append(parts, fmt.Sprintf("exit code %d", *pi.ExitCode))
	}
	if l := lastLine(pi.StderrTail); l != "" {
		parts = append(parts, "stderr: "+safe.Truncate(l, 200, safe.Ellipsis))
	}
	return strings.Join(parts, "; ")
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
