package scoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
)

// Policy holds the thresholds of [Decide]. Its JSON form is the --policy
// file; a field left out keeps its default.
type Policy struct {
	// MinScore is the lowest server actionability score that can keep a
	// server (0 to 100). Default 70.
	MinScore float64 `json:"minScore"`
	// FixSeverities are the finding severities that make a live server
	// "fix" (any of error, warn, info). Default error and warn. Fatal
	// findings always drop.
	FixSeverities []probe.Severity `json:"fixSeverities"`
	// IgnoreFindings are finding codes the fix rule does not count. They
	// never affect the drop rules. Default none.
	IgnoreFindings []string `json:"ignoreFindings"`
}

// Policy defaults, documented in docs/rubric.md.
const DefaultMinScore = 70

// DefaultPolicy returns the defaults: minScore 70, fixSeverities error and
// warn, no ignored findings.
func DefaultPolicy() *Policy {
	return &Policy{
		MinScore:      DefaultMinScore,
		FixSeverities: []probe.Severity{probe.SeverityError, probe.SeverityWarn},
	}
}

// policyFields are the known fields, in documentation order.
var policyFields = []string{"minScore", "fixSeverities", "ignoreFindings"}

var reFindingCode = lazy(`^[a-z][a-z0-9_]*/[a-z0-9_]+$`)

// LoadPolicy parses a policy file over the defaults. Every error is one
// line naming the field, the value and what would work, for example
// `policy: "minScore": 140 is out of range; use 0 to 100`.
func LoadPolicy(data []byte) (*Policy, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New(`policy: the file is empty; use {} for the defaults or an object such as {"minScore": 70}`)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, fmt.Errorf(`policy: invalid JSON at byte %d (%v); the file must be one JSON object such as {"minScore": 70}`, syn.Offset, syn)
		case errors.As(err, &typ):
			return nil, fmt.Errorf(`policy: the file holds a JSON %s; it must be one JSON object such as {"minScore": 70}`, typ.Value)
		}
		return nil, fmt.Errorf(`policy: %v; the file must be one JSON object such as {"minScore": 70}`, err)
	}
	if fields == nil {
		return nil, errors.New(`policy: the file holds null; it must be one JSON object such as {"minScore": 70}`)
	}
	names := slices.Sorted(maps.Keys(fields))
	for _, k := range names {
		if !slices.Contains(policyFields, k) {
			hint := ""
			for _, f := range policyFields {
				if strings.EqualFold(f, k) {
					hint = fmt.Sprintf(" (did you mean %q?)", f)
				}
			}
			return nil, fmt.Errorf("policy: unknown field %q%s; known fields are %s", k, hint, quoteJoin(policyFields))
		}
	}
	p := DefaultPolicy()
	if raw, ok := fields["minScore"]; ok {
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf(`policy: "minScore": %s is not a number; use a number from 0 to 100`, short(raw))
		}
		if f < 0 || f > 100 {
			return nil, fmt.Errorf(`policy: "minScore": %s is out of range; use 0 to 100`, short(raw))
		}
		p.MinScore = f
	}
	if raw, ok := fields["fixSeverities"]; ok {
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf(`policy: "fixSeverities": %s is not a list of strings; use a list such as ["error", "warn"]`, short(raw))
		}
		p.FixSeverities = p.FixSeverities[:0]
		for _, s := range list {
			switch probe.Severity(s) {
			case probe.SeverityError, probe.SeverityWarn, probe.SeverityInfo:
				p.FixSeverities = append(p.FixSeverities, probe.Severity(s))
			case probe.SeverityFatal:
				return nil, fmt.Errorf(`policy: "fixSeverities": "fatal" is not allowed because fatal findings always drop; use "error", "warn" or "info"`)
			default:
				return nil, fmt.Errorf(`policy: "fixSeverities": %q is not a severity; use "error", "warn" or "info"`, s)
			}
		}
	}
	if raw, ok := fields["ignoreFindings"]; ok {
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf(`policy: "ignoreFindings": %s is not a list of strings; use a list of finding codes such as ["annotations/missing_read_only_hint"]`, short(raw))
		}
		for _, c := range list {
			if !reFindingCode.MatchString(c) {
				return nil, fmt.Errorf(`policy: "ignoreFindings": %q is not a finding code; use "area/name" codes such as "annotations/missing_read_only_hint"`, c)
			}
		}
		p.IgnoreFindings = list
	}
	return p, nil
}

func quoteJoin(list []string) string {
	q := quoteAll(list)
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// short renders a raw JSON value for an error message on one line.
func short(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	return safe.Truncate(s, 40, safe.Ellipsis)
}
