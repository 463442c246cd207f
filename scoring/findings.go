package scoring

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
)

// Finding codes produced from graded responses. They are defined and
// registered in probe's catalog, the one place codes live; the class codes
// (accepted, crash, hang, wrong channel, bad cursor) are the same ones
// failure injection raises, so a result never carries both.
const (
	CodeLeaksSecret           = probe.CodeLeaksSecret
	CodeLeaksCredential       = probe.CodeLeaksCredential
	CodeLeaksConnectionString = probe.CodeLeaksConnectionString
	CodeLeaksInternalHost     = probe.CodeLeaksInternalHost
	CodeLeaksStackTrace       = probe.CodeLeaksStackTrace
	CodeLeaksHostPath         = probe.CodeLeaksHostPath
	CodeAcceptedInvalidInput  = probe.CodeAcceptedInvalidInput
	CodeIgnoredInvalidCursor  = probe.CodeBadCursorAccepted
	CodeCrashOnInvalidInput   = probe.CodeCrashOnInvalidInput
	CodeHangOnInvalidInput    = probe.CodeHangOnInvalidInput
	CodeWrongChannel          = probe.CodeWrongChannel
)

// emittedCodes are the codes [Findings] can produce.
var emittedCodes = []string{
	CodeLeaksSecret, CodeLeaksCredential, CodeLeaksConnectionString, CodeLeaksInternalHost,
	CodeLeaksStackTrace, CodeLeaksHostPath, CodeAcceptedInvalidInput, CodeIgnoredInvalidCursor,
	CodeCrashOnInvalidInput, CodeHangOnInvalidInput, CodeWrongChannel,
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
	if e, ok := probe.Lookup(code); ok {
		return e.Severity
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
