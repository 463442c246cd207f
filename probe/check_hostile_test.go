package probe

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// hostileSchemas are tool input schemas built to hurt a scanner, with the
// finding each must end in and the allocation bound of checking it.
func hostileSchemas() []struct {
	name, schema, code string
	maxAlloc           uint64
} {
	var props strings.Builder
	props.WriteString(`{"type":"object","properties":{`)
	for i := range 10000 {
		if i > 0 {
			props.WriteByte(',')
		}
		fmt.Fprintf(&props, `"p%d":{"type":"string","description":"Parameter %d."}`, i, i)
	}
	props.WriteString(`}}`)

	// 10,000 levels of JSON nesting: 5,000 nested object schemas.
	const levels = 5000
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, levels-1) + `{"type":"string"}` + strings.Repeat(`}}`, levels-1)

	large := `{"type":"object","description":"` + strings.Repeat("a", 10<<20) + `"}`

	cycle := `{"type":"object","properties":{"a":{"$ref":"#/$defs/x","description":"A."}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`
	selfRef := `{"$ref":"#","type":"object"}`

	return []struct {
		name, schema, code string
		maxAlloc           uint64
	}{
		{"ref cycle", cycle, CodeInputCompileFailed, 8 << 20},
		{"self reference", selfRef, CodeInputCompileFailed, 8 << 20},
		{"10 MB", large, CodeSchemaTooLarge, 32 << 20},
		{"10,000 properties", props.String(), CodeSchemaTooManyProps, 48 << 20},
		{"10,000 deep", deep, CodeSchemaTooDeep, 8 << 20},
	}
}

// hostileRun builds the probe result and the tools/list page of one tool
// with the given input schema.
func hostileRun(schema string) (*Result, []Page) {
	raw := json.RawMessage(`{"name":"hostile","title":"Hostile","description":"Looks up a value.","annotations":{"readOnlyHint":true,"openWorldHint":false},"inputSchema":` + schema + `}`)
	tool := Tool{Name: "hostile", Title: "Hostile", Description: "Looks up a value.", InputSchema: json.RawMessage(schema), Raw: raw}
	res := &Result{Liveness: Liveness{Status: vocab.StatusOK, HandshakeCompleted: true, ProtocolVersion: "2025-11-25"}, Tools: []Tool{tool}}
	page := Page{Method: "tools/list", Result: json.RawMessage(`{"tools":[` + string(raw) + `]}`)}
	return res, []Page{page}
}

// TestHostileSchemas checks that each hostile schema ends in its finding,
// within a generous time and a bounded amount of allocation.
func TestHostileSchemas(t *testing.T) {
	// Compile the MCP schema first: its one-time cost is not the hostile
	// schema's.
	warm, warmPages := hostileRun(`{"type":"object","additionalProperties":false}`)
	NewChecker().Check(warm, warmPages)
	for _, h := range hostileSchemas() {
		t.Run(h.name, func(t *testing.T) {
			res, pages := hostileRun(h.schema)
			c := NewChecker()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			got := c.Check(res, pages)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc

			found := false
			for _, f := range got {
				if f.Code == h.code && f.Subject == "tool:hostile" {
					found = true
				}
				if len(f.Value) > MaxEvidence+len("…") {
					t.Errorf("unbounded evidence: %d bytes in %s", len(f.Value), f.Code)
				}
			}
			if !found {
				t.Errorf("no %s finding; got %v", h.code, codePointers(got))
			}
			if elapsed > 10*time.Second {
				t.Errorf("checking took %s, want under 10s", elapsed)
			}
			if alloc > h.maxAlloc {
				t.Errorf("checking allocated %d MiB for a %d KiB schema, want at most %d MiB", alloc>>20, len(h.schema)>>10, h.maxAlloc>>20)
			}
			t.Logf("%s: %d KiB schema, %s, %d KiB allocated, %d findings", h.name, len(h.schema)>>10, elapsed, alloc>>10, len(got))
		})
	}
}

// TestHostileStructuredOutput checks the structured output path against
// the same limits.
func TestHostileStructuredOutput(t *testing.T) {
	c := NewChecker()
	tool := Tool{Name: "t", OutputSchema: json.RawMessage(`{"type":"object"}`)}
	big := json.RawMessage(`{"a":"` + strings.Repeat("x", maxStructuredBytes) + `"}`)
	if got := codePointers(c.CheckStructuredOutput(tool, big)); len(got) != 1 || got[0] != "output/structured_invalid /structuredContent" {
		t.Errorf("oversized structuredContent: got %v", got)
	}
	cyclic := Tool{Name: "t", OutputSchema: json.RawMessage(`{"$ref":"#"}`)}
	if got := c.CheckStructuredOutput(cyclic, json.RawMessage(`{}`)); got != nil {
		t.Errorf("cyclic outputSchema: got %v, want nil (Check reports the schema)", got)
	}
}
