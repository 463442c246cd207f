package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A Kind is a kind of report: each has its own formats and its own
// reporter interface.
type Kind string

// The kinds of report.
const (
	// KindCensus is the ecosystem report of a scan (`mcpvet report`),
	// written by a [CensusReporter].
	KindCensus Kind = "report"
	// KindTriage is the keep/fix/drop report of a triage (`mcpvet
	// triage`), written by a [TriageReporter].
	KindTriage Kind = "triage"
	// KindDiff is the comparison of two scans (`mcpvet diff`), written by
	// a [DiffReporter].
	KindDiff Kind = "diff"
	// KindGrade is the grading of recorded error responses (`mcpvet
	// grade`), which reads no database: cmd/mcpvet writes its JSON lines
	// and table itself, and the registry only names its formats, so that
	// every command resolves --format the same way.
	KindGrade Kind = "grade"
)

// ErrUnknownFormat is the error, wrapped in an [UnknownFormatError], for a
// format name that is not registered for a kind of report.
var ErrUnknownFormat = errors.New("unknown format")

// An UnknownFormatError names a format that no reporter of its kind
// writes, and the formats that are.
type UnknownFormatError struct {
	Kind  Kind
	Name  string
	Valid []string
}

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown %s format %q: use one of %s", e.Kind, e.Name, strings.Join(e.Valid, ", "))
}

// Is makes errors.Is(err, [ErrUnknownFormat]) hold.
func (e *UnknownFormatError) Is(target error) bool { return target == ErrUnknownFormat }

// A format is one row of the registry: a format name of one kind, the
// other names it is known by, and its reporter.
type format struct {
	kind     Kind
	name     string
	aliases  []string
	reporter any // CensusReporter, TriageReporter or DiffReporter, by kind; nil for KindGrade
}

// formats is the one registry of report formats, in the order the CLI
// lists them. TestRegistry checks each reporter against its kind.
var formats = []format{
	{KindCensus, "md", []string{"markdown"}, MarkdownReporter{}},
	{KindCensus, "html", []string{"htm"}, HTMLReporter{}},
	{KindCensus, "json", nil, CensusJSONReporter{}},
	{KindCensus, "csv", nil, CSVReporter{}},

	{KindTriage, "table", nil, TableReporter{}},
	{KindTriage, "json", nil, TriageJSONReporter{}},
	{KindTriage, "junit", nil, JUnitReporter{}},
	{KindTriage, "sarif", nil, SARIFReporter{}},

	{KindDiff, "text", nil, DiffTextReporter{}},
	{KindDiff, "json", nil, DiffJSONReporter{}},

	{KindGrade, "jsonl", nil, nil},
	{KindGrade, "table", nil, nil},
}

// Formats returns the format names of a kind of report, in the order the
// CLI lists them.
func Formats(k Kind) []string {
	var names []string
	for _, f := range formats {
		if f.kind == k {
			names = append(names, f.name)
		}
	}
	return names
}

// Format returns the canonical name of a format of kind k: names are
// matched without regard to case or surrounding space, and aliases
// ("markdown", "htm") give their format's name. Any other name is an
// [*UnknownFormatError].
func Format(k Kind, name string) (string, error) {
	f, err := lookup(k, name)
	if err != nil {
		return "", err
	}
	return f.name, nil
}

func lookup(k Kind, name string) (format, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, f := range formats {
		if f.kind == k && (f.name == n || slices.Contains(f.aliases, n)) {
			return f, nil
		}
	}
	return format{}, &UnknownFormatError{Kind: k, Name: name, Valid: Formats(k)}
}

// reporterFor returns the reporter of a format of kind k.
func reporterFor[R any](k Kind, name string) (R, error) {
	var zero R
	f, err := lookup(k, name)
	if err != nil {
		return zero, err
	}
	r, ok := f.reporter.(R)
	if !ok {
		return zero, fmt.Errorf("report: format %q of %s is registered with a %T", f.name, k, f.reporter)
	}
	return r, nil
}

// Census returns the reporter of a census format (see [Formats]).
func Census(name string) (CensusReporter, error) {
	return reporterFor[CensusReporter](KindCensus, name)
}

// Triage returns the reporter of a triage format (see [Formats]).
func Triage(name string) (TriageReporter, error) {
	return reporterFor[TriageReporter](KindTriage, name)
}

// Diff returns the reporter of a diff format (see [Formats]).
func Diff(name string) (DiffReporter, error) { return reporterFor[DiffReporter](KindDiff, name) }
