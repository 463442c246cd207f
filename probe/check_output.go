package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpvet/mcpvet/internal/safe"
)

// Finding codes of the structured output check.
const (
	CodeStructuredMissing = "output/structured_missing"
	CodeStructuredInvalid = "output/structured_invalid"
)

// maxStructuredFindings bounds the violations reported per result.
const maxStructuredFindings = 10

func init() {
	register(
		CatalogEntry{CodeStructuredMissing, SeverityError,
			"a tool with an outputSchema returned a successful result without structuredContent",
			"return structuredContent matching outputSchema in every successful result (and the same data as text for older clients)"},
		CatalogEntry{CodeStructuredInvalid, SeverityError,
			"a tool's structuredContent does not validate against its outputSchema",
			"return structuredContent that conforms to the tool's declared outputSchema, or fix the schema to describe what the tool returns"},
	)
}

// CheckStructuredOutput validates the structuredContent of one successful
// (isError false) tools/call result against the tool's outputSchema.
// Pass structured as received; nil or empty means the result carried
// none, which is a finding when the tool declares an outputSchema. It
// returns nil when the tool declares no outputSchema, and nothing when the
// schema itself is unusable (too large, not an object, does not compile):
// [Checker.Check] reports that once per tool.
func (c *Checker) CheckStructuredOutput(tool Tool, structured json.RawMessage) []Finding {
	v := viewTool(0, tool)
	if !v.hasOutput {
		return nil
	}
	subj := subjectOf("tool", v.name, 0)
	prep, _ := prepareSchema(subj, outputSide, v.output)
	if prep == nil {
		return nil
	}
	cs := c.compiled(prep.canonical)
	if cs.err != nil {
		return nil
	}
	if len(structured) == 0 {
		return []Finding{NewFinding(CodeStructuredMissing, subj, "/structuredContent", "",
			"the tool declares an outputSchema but its successful result has no structuredContent; servers must return structured results that conform to the schema")}
	}
	if len(structured) > maxStructuredBytes {
		return []Finding{NewFinding(CodeStructuredInvalid, subj, "/structuredContent", strconv.Itoa(len(structured)),
			"structuredContent is %d bytes, over the scanner's %d-byte limit; it was not validated", len(structured), maxStructuredBytes)}
	}
	doc, err := decodeExact(structured)
	if err != nil {
		return []Finding{NewFinding(CodeStructuredInvalid, subj, "/structuredContent", safe.Truncate(string(structured), MaxEvidence, safe.Ellipsis),
			"structuredContent is not valid JSON (%v)", err)}
	}
	verr := cs.schema.Validate(doc)
	if verr == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return []Finding{NewFinding(CodeStructuredInvalid, subj, "/structuredContent", "",
			"structuredContent could not be validated against outputSchema: %v", verr)}
	}
	leaves := validationLeaves(ve)
	var out []Finding
	for i, l := range leaves {
		if i == maxStructuredFindings {
			break
		}
		more := ""
		if i == maxStructuredFindings-1 && len(leaves) > maxStructuredFindings {
			more = fmt.Sprintf(" (%d more violations are not listed)", len(leaves)-maxStructuredFindings)
		}
		out = append(out, NewFinding(CodeStructuredInvalid, subj, "/structuredContent"+l.InstanceLocation, valueAtPointer(doc, l.InstanceLocation),
			"structuredContent at %q does not match outputSchema (rule %s): %s%s",
			shownPointer(l.InstanceLocation), "/outputSchema"+l.KeywordLocation, l.Message, more))
	}
	return sortUniqueFindings(out)
}
