package source

import (
	"testing"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestPlanEdges pins what TestEntryPlansInputs left to chance (survivors
// of plan.go in issue 26's mutation shards): a package transport with a
// URL but no type is invalid, one with a type, or with neither, is not;
// a positional argument without a hint or a name is named by its index.
func TestPlanEdges(t *testing.T) {
	tests := []struct {
		name       string
		pkg        string
		wantStatus vocab.Status
		wantDetail string
	}{
		{"url without a type", `{"registryType": "npm", "identifier": "x", "transport": {"url": "http://localhost:3000/mcp"}}`,
			vocab.StatusInvalidPlan, `transport has a "url" but no "type"; want streamable-http or sse`},
		{"stdio with a url", `{"registryType": "npm", "identifier": "x", "transport": {"type": "stdio", "url": "http://localhost:3000/mcp"}}`,
			"", ""},
		{"no type, no url", `{"registryType": "npm", "identifier": "x", "transport": {}}`, "", ""},
		{"positional argument without hint or name", `{"registryType": "npm", "identifier": "x", "transport": {"type": "stdio"},
			"packageArguments": [{"type": "positional", "value": "fixed"}, {"type": "positional", "isRequired": true}]}`,
			vocab.StatusNeedsConfiguration, "required inputs without a value: argument 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entryFrom(t, `{"server": {"name": "io.example/s", "version": "1", "packages": [`+tt.pkg+`]}}`)
			got := EntryPlans(e, &PlanOptions{})
			if len(got) != 1 {
				t.Fatalf("%d plans, want 1", len(got))
			}
			if got[0].Status != tt.wantStatus || got[0].StatusDetail != tt.wantDetail {
				t.Errorf("status %q %q, want %q %q", got[0].Status, got[0].StatusDetail, tt.wantStatus, tt.wantDetail)
			}
		})
	}
}
