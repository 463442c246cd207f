package probe

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
)

// Severity grades a [Finding].
type Severity string

// Severities, from worst to mildest.
const (
	// SeverityFatal: a client cannot use the server or the item.
	SeverityFatal Severity = "fatal"
	// SeverityError: the server violates a MUST of the specification.
	SeverityError Severity = "error"
	// SeverityWarn: the server violates a SHOULD or a widely followed convention.
	SeverityWarn Severity = "warn"
	// SeverityInfo: worth knowing, nothing to fix.
	SeverityInfo Severity = "info"
)

// Rank orders severities: fatal is 4, info is 1, unknown is 0.
func (s Severity) Rank() int {
	switch s {
	case SeverityFatal:
		return 4
	case SeverityError:
		return 3
	case SeverityWarn:
		return 2
	case SeverityInfo:
		return 1
	}
	return 0
}

// A Finding is one thing wrong with (or worth noting about) a server.
type Finding struct {
	// Code is a stable "area/name" identifier from [Catalog].
	Code string `json:"code"`
	// Severity is the catalog's severity for Code.
	Severity Severity `json:"severity"`
	// Subject names what the finding is about: "server", "tool:NAME",
	// "prompt:NAME", "resource:URI", "template:URI".
	Subject string `json:"subject"`
	// Pointer is a JSON pointer or field name inside the subject, if any.
	Pointer string `json:"pointer,omitempty"`
	// Value is the offending value as seen, truncated to [MaxEvidence] bytes.
	Value string `json:"value,omitempty"`
	// Message says what is wrong and what would be correct.
	Message string `json:"message"`
}

// MaxEvidence bounds Finding.Value and other evidence strings.
const MaxEvidence = 512

// CatalogEntry documents one finding code.
type CatalogEntry struct {
	Code     string
	Severity Severity
	// Title is a one-line description of the defect.
	Title string
	// Fix says what a server author should do.
	Fix string
}

var catalog = map[string]CatalogEntry{}

// register adds entries to the catalog; it panics on a duplicate code so two
// files can never define the same code differently.
func register(entries ...CatalogEntry) {
	for _, e := range entries {
		if _, dup := catalog[e.Code]; dup {
			panic("probe: duplicate finding code " + e.Code)
		}
		catalog[e.Code] = e
	}
}

// Catalog returns every finding code, sorted by code.
func Catalog() []CatalogEntry {
	return slices.SortedFunc(maps.Values(catalog), func(a, b CatalogEntry) int { return strings.Compare(a.Code, b.Code) })
}

// Lookup returns the catalog entry for code.
func Lookup(code string) (CatalogEntry, bool) {
	e, ok := catalog[code]
	return e, ok
}

// NewFinding builds a finding for a catalog code. The message is formatted
// from format and args; the value is truncated to [MaxEvidence]. It panics on
// an unknown code: codes are compile-time constants, so that is a bug.
func NewFinding(code, subject, pointer, value, format string, args ...any) Finding {
	e, ok := catalog[code]
	if !ok {
		panic("probe: unknown finding code " + code)
	}
	return Finding{
		Code:     code,
		Severity: e.Severity,
		Subject:  subject,
		Pointer:  pointer,
		Value:    safe.Truncate(value, MaxEvidence, safe.Ellipsis),
		Message:  fmt.Sprintf(format, args...),
	}
}

// SortFindings orders findings by subject, code and pointer, keeping the
// order of equal ones, so results compare equal across runs. Findings come
// from several producers ([Run], the checks the scanner adds, the grader);
// the scanner sorts them once, when all are in.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.Subject, b.Subject), strings.Compare(a.Code, b.Code), strings.Compare(a.Pointer, b.Pointer))
	})
}
