package scoring

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
)

// Finding codes produced from graded responses. They must be registered in
// probe's catalog with these severities; [Findings] builds the findings as
// literals so it does not depend on the registration.
const (
	// CodeLeaksSecret (fatal): a secret canary appeared in a response.
	CodeLeaksSecret = "errors/leaks_secret"
	// CodeLeaksCredential (error): a credential-shaped token appeared.
	CodeLeaksCredential = "errors/leaks_credential"
	// CodeLeaksConnectionString (error): a connection string appeared.
	CodeLeaksConnectionString = "errors/leaks_connection_string"
	// CodeLeaksInternalHost (warn): a private address or internal host name
	// appeared.
	CodeLeaksInternalHost = "errors/leaks_internal_host"
	// CodeLeaksStackTrace (warn): stack frames appeared.
	CodeLeaksStackTrace = "errors/leaks_stack_trace"
	// CodeLeaksHostPath (warn): an absolute host path the caller did not
	// send appeared.
	CodeLeaksHostPath = "errors/leaks_host_path"
	// CodeAcceptedInvalidInput (error): the server returned success for
	// arguments a tool's input schema rejects ("Servers MUST validate all
	// tool inputs"), or for an unknown tool, method, prompt or resource.
	CodeAcceptedInvalidInput = "errors/accepted_invalid_input"
	// CodeIgnoredInvalidCursor (warn): a list method ignored an invalid
	// cursor instead of answering -32602.
	CodeIgnoredInvalidCursor = "errors/ignored_invalid_cursor"
	// CodeCrashOnInvalidInput (fatal): the server exited on invalid input.
	CodeCrashOnInvalidInput = "errors/crash_on_invalid_input"
	// CodeHangOnInvalidInput (fatal): the server did not answer invalid
	// input before the deadline.
	CodeHangOnInvalidInput = "errors/hang_on_invalid_input"
	// CodeWrongChannel (warn): the failure came on the channel the
	// negotiated revision does not prescribe (a validation error as a
	// JSON-RPC error since 2025-11-25, an unknown tool as a tool result).
	CodeWrongChannel = "errors/wrong_channel"
)

// CatalogEntries documents every code above, for registration in probe's
// catalog.
var CatalogEntries = []probe.CatalogEntry{
	{Code: CodeLeaksSecret, Severity: probe.SeverityFatal,
		Title: "an error response contains the value of a secret environment variable",
		Fix:   "compose error text from a fixed template with bounded, interpolated values; never echo configuration or upstream request headers"},
	{Code: CodeLeaksCredential, Severity: probe.SeverityError,
		Title: "an error response contains a credential-shaped token (API key, bearer token, JWT, private key)",
		Fix:   "redact tokens before building error text; do not proxy upstream error bodies verbatim"},
	{Code: CodeLeaksConnectionString, Severity: probe.SeverityError,
		Title: "an error response contains a connection string",
		Fix:   "report the failure by category (database unavailable) and log the connection details server-side"},
	{Code: CodeLeaksInternalHost, Severity: probe.SeverityWarn,
		Title: "an error response names a private address or internal host",
		Fix:   "name the dependency (the billing service), not its address"},
	{Code: CodeLeaksStackTrace, Severity: probe.SeverityWarn,
		Title: "an error response contains a stack trace",
		Fix:   "catch exceptions at the tool boundary and return a stable code with a one-line message; log the trace"},
	{Code: CodeLeaksHostPath, Severity: probe.SeverityWarn,
		Title: "an error response contains an absolute host path the caller did not send",
		Fix:   "echo paths as the caller sent them, relative to an allowed root"},
	{Code: CodeAcceptedInvalidInput, Severity: probe.SeverityError,
		Title: "the server returned success for invalid input: arguments the tool's input schema rejects, or an unknown tool, method, prompt or resource",
		Fix:   "validate arguments against the input schema before running the tool and return isError: true naming the field; answer unknown names with a JSON-RPC error"},
	{Code: CodeIgnoredInvalidCursor, Severity: probe.SeverityWarn,
		Title: "a list method ignored an invalid cursor",
		Fix:   "answer an unknown cursor with JSON-RPC error -32602"},
	{Code: CodeCrashOnInvalidInput, Severity: probe.SeverityFatal,
		Title: "the server exited on invalid input",
		Fix:   "catch errors at the request boundary; invalid input must produce an error response, never an exit"},
	{Code: CodeHangOnInvalidInput, Severity: probe.SeverityFatal,
		Title: "the server did not answer invalid input",
		Fix:   "answer every request, with an error if the input is invalid"},
	{Code: CodeWrongChannel, Severity: probe.SeverityWarn,
		Title: "an error came on the wrong channel for its kind and protocol revision",
		Fix:   "since 2025-11-25 report input validation errors as tool results with isError: true; report unknown tools, methods, prompts and resources as JSON-RPC errors"},
}

// LeakCodes maps each leak kind to its finding code.
var LeakCodes = map[LeakKind]string{
	LeakSecret:           CodeLeaksSecret,
	LeakCredential:       CodeLeaksCredential,
	LeakConnectionString: CodeLeaksConnectionString,
	LeakInternalHost:     CodeLeaksInternalHost,
	LeakStackTrace:       CodeLeaksStackTrace,
	LeakHostPath:         CodeLeaksHostPath,
}

func severityOf(code string) probe.Severity {
	for _, e := range CatalogEntries {
		if e.Code == code {
			return e.Severity
		}
	}
	return probe.SeverityWarn
}

func newFinding(code, subject, pointer, value, msg string) probe.Finding {
	return probe.Finding{
		Code:     code,
		Severity: severityOf(code),
		Subject:  subject,
		Pointer:  pointer,
		Value:    probe.Truncate(value, probe.MaxEvidence),
		Message:  msg,
	}
}

// LeakFindings turns the leaks of one graded response into findings, one
// per leak kind, about g.Subject.
func LeakFindings(g Graded) []probe.Finding {
	var out []probe.Finding
	seen := map[LeakKind]bool{}
	for _, l := range g.Leaks {
		if seen[l.Kind] {
			continue
		}
		seen[l.Kind] = true
		code := LeakCodes[l.Kind]
		out = append(out, newFinding(code, g.Subject, l.Where, l.Evidence,
			fmt.Sprintf("the %s response to %s probe leaks %s: %s", g.Class, article(g.Kind), article(leakNoun(l.Kind)), l.Evidence)))
	}
	return out
}

func leakNoun(k LeakKind) string {
	switch k {
	case LeakSecret:
		return "secret"
	case LeakCredential:
		return "credential"
	case LeakConnectionString:
		return "connection string"
	case LeakInternalHost:
		return "internal host"
	case LeakStackTrace:
		return "stack trace"
	case LeakHostPath:
		return "host path"
	}
	return string(k)
}

// Findings returns the findings one graded response raises: its leaks, and
// whether the server accepted, crashed on, hung on, or answered on the
// wrong channel to invalid input.
func Findings(g Graded) []probe.Finding {
	out := LeakFindings(g)
	switch g.Class {
	case ClassAccepted:
		if g.Kind == KindBadCursor {
			out = append(out, newFinding(CodeIgnoredInvalidCursor, g.Subject, "", "",
				"an invalid cursor was ignored and a page returned; answer it with JSON-RPC error -32602"))
		} else if validationKinds[g.Kind] {
			out = append(out, newFinding(CodeAcceptedInvalidInput, g.Subject, "", g.Kind,
				fmt.Sprintf("the tool returned success for %s probe; validate arguments against the input schema and return isError: true", article(g.Kind))))
		} else if nameKinds[g.Kind] && g.Kind != KindUnknownID {
			out = append(out, newFinding(CodeAcceptedInvalidInput, g.Subject, "", g.Kind,
				fmt.Sprintf("the server returned success for %s probe; answer it with a JSON-RPC error", article(g.Kind))))
		}
	case ClassCrash:
		out = append(out, newFinding(CodeCrashOnInvalidInput, g.Subject, "", g.Kind,
			fmt.Sprintf("the server exited on %s probe", article(g.Kind))))
	case ClassHang:
		out = append(out, newFinding(CodeHangOnInvalidInput, g.Subject, "", g.Kind,
			fmt.Sprintf("the server did not answer %s probe before the deadline", article(g.Kind))))
	}
	if g.WrongChannel {
		ev := ""
		for _, e := range g.Elements {
			if e.Name == ElemChannel {
				ev = e.Evidence
			}
		}
		out = append(out, newFinding(CodeWrongChannel, g.Subject, "", g.Kind, ev))
	}
	return out
}

// FindingsFor returns the findings of many graded responses, one per code
// and subject (the first occurrence), sorted by severity, code and subject.
func FindingsFor(graded []Graded) []probe.Finding {
	type key struct{ code, subject string }
	seen := map[key]bool{}
	var out []probe.Finding
	for _, g := range graded {
		for _, f := range Findings(g) {
			k := key{f.Code, f.Subject}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity.Rank() != b.Severity.Rank() {
			return a.Severity.Rank() > b.Severity.Rank()
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Subject < b.Subject
	})
	return out
}

// article prefixes a kind or noun with "a" or "an".
func article(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
