package scoring

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
)

// Finding codes the grader raises, from graded responses and the canary
// search of [ScoreResult]: leaks and wrong channels. They are defined and
// registered in probe's catalog, the one place codes live. No other
// producer raises them.
const (
	CodeLeaksSecret           = probe.CodeLeaksSecret
	CodeLeaksCredential       = probe.CodeLeaksCredential
	CodeLeaksConnectionString = probe.CodeLeaksConnectionString
	CodeLeaksInternalHost     = probe.CodeLeaksInternalHost
	CodeLeaksStackTrace       = probe.CodeLeaksStackTrace
	CodeLeaksHostPath         = probe.CodeLeaksHostPath
	CodeWrongChannel          = probe.CodeWrongChannel
)

// Finding codes failure injection raises (package probe) from the class of
// an answer alone; verdicts read them.
const (
	CodeAcceptedInvalidInput = probe.CodeAcceptedInvalidInput
	CodeIgnoredInvalidCursor = probe.CodeBadCursorAccepted
	CodeCrashOnInvalidInput  = probe.CodeCrashOnInvalidInput
	CodeHangOnInvalidInput   = probe.CodeHangOnInvalidInput
)

// emittedCodes are the codes [ScoreResult] can raise.
var emittedCodes = []string{
	CodeLeaksSecret, CodeLeaksCredential, CodeLeaksConnectionString, CodeLeaksInternalHost,
	CodeLeaksStackTrace, CodeLeaksHostPath, CodeWrongChannel, probe.CodeLeaksSecretStderr,
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
		Value:    safe.Truncate(value, probe.MaxEvidence, safe.Ellipsis),
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

// gradedFindings returns the findings the graded responses raise: the
// leaks of each response and the wrong channel of each subject. The
// caller keeps one per code and subject with [firstPerSubject]: the first
// response that raises it gives the evidence.
// probes[i] is the call graded[i] grades ([ScoreResult] grades every probe,
// so the two have one length); pv is the negotiated revision.
func gradedFindings(probes []probe.ProbeCall, graded []Graded, pv string) []probe.Finding {
	var out []probe.Finding
	wrong := map[string]bool{}
	for i, g := range graded {
		out = append(out, LeakFindings(g)...)
		if g.WrongChannel && !wrong[g.Subject] {
			wrong[g.Subject] = true
			out = append(out, wrongChannel(probes, graded, i, pv))
		}
	}
	return out
}

// firstPerSubject keeps the first finding of each code and subject.
func firstPerSubject(fs []probe.Finding) []probe.Finding {
	type key struct{ code, subject string }
	seen := map[key]bool{}
	return slices.DeleteFunc(fs, func(f probe.Finding) bool {
		k := key{f.Code, f.Subject}
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

// wrongChannel is the wrong-channel finding of graded[first]'s subject,
// the first of its responses on a wrong channel. Two cases get a message
// of their own: an unknown tool answered with a tool result, and input
// validation errors sent as JSON-RPC errors since MCP 2025-11-25 (all of
// a tool's are counted).
func wrongChannel(probes []probe.ProbeCall, graded []Graded, first int, pv string) probe.Finding {
	g := graded[first]
	if g.Subject == "server" {
		if f, ok := unknownToolAsResult(probes, graded, first); ok {
			return f
		}
	}
	if f, ok := validationAsProtocolError(probes, graded, first, pv); ok {
		return f
	}
	return newFinding(CodeWrongChannel, g.Subject, "", g.Kind, channelEvidence(g))
}

// unknownToolAsResult is the finding of an unknown tool answered with a
// tool result, at or after graded[first].
func unknownToolAsResult(probes []probe.ProbeCall, graded []Graded, first int) (probe.Finding, bool) {
	for i := first; i < len(graded); i++ {
		if h := graded[i]; h.Subject == "server" && h.Kind == KindUnknownTool && h.Class == ClassToolError {
			p := probes[i]
			return probe.NewFinding(CodeWrongChannel, "server", "tools/call", p.Text,
				"calling the unknown tool %q gave a tool result with isError: true; an unknown tool is a protocol error: answer it with the JSON-RPC error -32602 and name the closest tools", p.Tool), true
		}
	}
	return probe.Finding{}, false
}

// validationAsProtocolError is the finding of a tool whose invalid
// arguments, graded[first] the first, were answered with JSON-RPC errors
// under revision pv, since 2025-11-25 the wrong channel for them.
func validationAsProtocolError(probes []probe.ProbeCall, graded []Graded, first int, pv string) (probe.Finding, bool) {
	g := graded[first]
	tool, ok := strings.CutPrefix(g.Subject, "tool:")
	if !ok || pv < ChannelCutover || !validationKinds[g.Kind] || g.Class != ClassProtocolError {
		return probe.Finding{}, false
	}
	n := 0
	for i := first; i < len(graded); i++ {
		if graded[i].Subject == g.Subject && probes[i].Class == ClassProtocolError {
			n++
		}
	}
	p := probes[first]
	return probe.NewFinding(CodeWrongChannel, g.Subject, p.ArgumentPointer(), p.Text,
		"%s answered %d invalid calls with a JSON-RPC error; since MCP 2025-11-25 input validation errors belong in a tool result with isError: true, where the model can read them and correct the call",
		tool, n), true
}

// channelEvidence is the evidence of g's channel element.
func channelEvidence(g Graded) string {
	for _, e := range g.Elements {
		if e.Name == ElemChannel {
			return e.Evidence
		}
	}
	return ""
}

// article prefixes a kind or noun with "a" or "an".
func article(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
