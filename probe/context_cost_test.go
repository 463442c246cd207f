package probe

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunContextCost: a probe measures what a client loads from the
// server in o200k_base tokens. The expected figures are js-tiktoken
// 1.0.21's o200k_base counts of the same compact JSON (the tool
// definition, the tools/list, prompts/list and resources/list results)
// and of the instructions, independently of internal/tokens.
func TestRunContextCost(t *testing.T) {
	res := Run(context.Background(), newMemServer(t, 2, 0), &Options{Inject: &InjectOptions{Disabled: true}})
	for _, tl := range res.Tools {
		t.Logf("tool %s: %s", tl.Name, compactRaw(tl.Raw))
	}
	var praw, rraw []string
	for _, p := range res.Prompts {
		praw = append(praw, string(compactRaw(p.Raw)))
	}
	for _, r := range res.Resources {
		rraw = append(rraw, string(compactRaw(r.Raw)))
	}
	t.Logf("prompts %v resources %v", praw, rraw)
	want := &ContextCost{Encoding: "o200k_base", Tools: wantToolsTokens, Prompts: wantPromptsTokens, Resources: wantResourcesTokens, Instructions: 2,
		Total:   wantToolsTokens + wantPromptsTokens + wantResourcesTokens + 2,
		PerTool: []ToolTokens{{"tool_aa", wantToolTokens}, {"tool_ba", wantToolTokens}}}
	if diff := cmp.Diff(want, res.Context); diff != "" {
		t.Errorf("context cost (-want +got):\n%s", diff)
	}
}

// js-tiktoken 1.0.21 o200k_base counts of the JSON the test logs.
const (
	wantToolTokens      = 53
	wantToolsTokens     = 109
	wantPromptsTokens   = 23
	wantResourcesTokens = 21
)
