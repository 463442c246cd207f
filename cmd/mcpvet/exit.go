package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
)

// Exit codes (STYLE.md section 6; README "Exit codes").
const (
	exitOK       = 0
	exitFindings = 1 // a verdict at or below --fail-on; grade: a malformed line or a score below --min-score
	exitUsage    = 2
	exitFailed   = 3 // infrastructure failure: database, registry, sandbox
	exitPartial  = 4 // the scan stopped early; results so far are stored
)

// The sentinels [exitCode] knows. Every other error exits [exitFailed]:
// nothing here looks at an error's text, so a wrapped EINVAL ("invalid
// argument") from a scan is a failure, not a usage error.
var (
	// errUsage is matched by every [usageError]: bad input from the user.
	errUsage = errors.New("usage")

	// errFindings is returned when a verdict is at or below --fail-on;
	// the report has been written already.
	errFindings = errors.New("verdict at or below --fail-on")

	// errPartial is returned when a scan was interrupted after storing
	// some results; [partialError] says the same with its own advice.
	errPartial = errors.New("scan interrupted; results so far are stored, rerun with --resume to finish")
)

// usageError marks bad input from the user: flags, arguments, files,
// configs. It matches [errUsage] and its cause. Errors cobra returns before
// a command's RunE (flags, arguments, unknown commands) are wrapped in it
// by [run].
type usageError struct{ err error }

func (e usageError) Error() string   { return e.err.Error() }
func (e usageError) Unwrap() []error { return []error{errUsage, e.err} }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// partialError is an interruption with advice that fits its command (probe
// and triage have no --resume); it matches [errPartial].
type partialError string

func (e partialError) Error() string        { return string(e) }
func (e partialError) Is(target error) bool { return target == errPartial }

// exitCodeOf maps an error to the process exit code by its sentinel.
func exitCodeOf(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings), errors.Is(err, errGradeInput):
		return exitFindings
	case errors.Is(err, errUsage), errors.Is(err, report.ErrUnknownFormat), errors.Is(err, results.ErrIncompleteShards):
		return exitUsage
	case errors.Is(err, errPartial):
		return exitPartial
	default:
		return exitFailed
	}
}

// exitCode maps an error to the process exit code and prints it as one
// line on stderr, unless it was reported already (the report, or each bad
// grade line).
func exitCode(err error, stderr io.Writer) int {
	code := exitCodeOf(err)
	if code != exitOK && code != exitFindings {
		fmt.Fprintln(stderr, "mcpvet: "+safe.Line(strings.TrimSpace(err.Error())))
	}
	return code
}
