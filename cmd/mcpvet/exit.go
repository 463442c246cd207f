package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
)

// Exit codes (STYLE.md section 6).
const (
	exitOK       = 0
	exitFindings = 1 // a verdict at or below --fail-on; grade: a malformed line or a score below --min-score
	exitUsage    = 2
	exitFailed   = 3 // infrastructure failure: database, registry, sandbox
	exitPartial  = 4 // the scan stopped early; results so far are stored
)

// usageError marks bad input from the user: flags, files, configs.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errFindings is returned when a verdict is at or below --fail-on; the
// report has been written already.
var errFindings = errors.New("verdict at or below --fail-on")

// errPartial is returned when a scan was interrupted after storing some
// results.
var errPartial = errors.New("scan interrupted; results so far are stored, rerun with --resume to finish")

// partialError is an interruption with its own message; it exits like
// [errPartial].
type partialError string

func (e partialError) Error() string        { return string(e) }
func (e partialError) Is(target error) bool { return target == errPartial }

// exitCode maps an error to the process exit code, printing it as one line.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errFindings) || errors.Is(err, errGradeInput) {
		// Reported already: the report, or each bad line on stderr.
		return exitFindings
	}
	line := safe.Line(strings.TrimSpace(err.Error()))
	fmt.Fprintln(stderr, "mcpvet: "+line)
	var ue usageError
	switch {
	case errors.As(err, &ue) || isCobraUsage(err) || errors.Is(err, results.ErrIncompleteShards):
		return exitUsage
	case errors.Is(err, errPartial):
		return exitPartial
	case errors.Is(err, results.ErrOpen):
		return exitFailed
	}
	return exitFailed
}

// isCobraUsage recognises cobra's own flag and argument errors, which it
// returns as plain errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand flag", "unknown command", "flag needs an argument",
		"invalid argument", "accepts ", "requires at least", "requires at most", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
