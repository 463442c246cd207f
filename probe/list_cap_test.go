package probe

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/tokens"
)

// TestItemMembersCapped: a tool whose description and inputSchema are
// each over MaxItemField, listed by a real SDK server, is kept with the
// description's head (valid UTF-8, escapes intact), a {"type":"object"}
// schema and its size as sent; each cut member is a fatal
// protocol/item_truncated finding, and the context cost still estimates the
// whole tool. Before issue 22 item 9 the 3 MiB description was kept whole
// (and copied by every check).
func TestItemMembersCapped(t *testing.T) {
	desc := strings.Repeat("Looks up the value stored under a key, \"é\".\n", 3<<19/46)
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"q": map[string]any{"type": "string", "default": strings.Repeat("d", MaxItemField)}}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "lookup", Description: desc, InputSchema: schema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "small", Description: "Small.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	res := Run(context.Background(), serve(t, srv), &Options{Inject: &InjectOptions{Disabled: true}})
	if len(res.Tools) != 2 {
		t.Fatalf("%d tools kept, want 2", len(res.Tools))
	}
	var big, small Tool
	for _, tl := range res.Tools {
		if tl.Name == "lookup" {
			big = tl
		} else {
			small = tl
		}
	}
	if len(big.Raw) > 3*MaxItemField || len(big.Description) > MaxItemField || len(big.Description) < MaxItemField/2 {
		t.Errorf("kept raw %d bytes, description %d bytes; want the description's head within %d", len(big.Raw), len(big.Description), MaxItemField)
	}
	if !strings.HasPrefix(desc, strings.TrimSuffix(big.Description, "…")) {
		t.Errorf("the kept description is not the head of the one sent")
	}
	if string(big.InputSchema) != `{"type":"object"}` {
		t.Errorf("kept inputSchema = %.80s, want {\"type\":\"object\"}", big.InputSchema)
	}
	if big.SentBytes < len(desc) || small.SentBytes != 0 {
		t.Errorf("SentBytes = %d (small %d), want at least %d (0)", big.SentBytes, small.SentBytes, len(desc))
	}
	var cut []string
	for _, f := range res.Findings {
		if f.Code == CodeItemTruncated {
			cut = append(cut, f.Subject+" "+f.Pointer)
			if f.Severity != SeverityFatal {
				t.Errorf("%s is %s, want fatal", f.Code, f.Severity)
			}
		}
	}
	if strings.Join(cut, ",") != "tool:lookup /description,tool:lookup /inputSchema" {
		t.Errorf("item_truncated findings = %q, want tool:lookup /description and /inputSchema", cut)
	}
	// The whole tool is estimated at the kept part's rate: within 10% of
	// the description's own rate times the bytes sent.
	head := desc[:256<<10]
	n, _ := tokens.Count(head)
	full := n * big.SentBytes / len(head)
	c := MeasureContext(res)
	got, _ := c.Tool("lookup")
	if !c.Estimated || got < full*90/100 || got > full*110/100 {
		t.Errorf("lookup costs %d tokens (estimated %v), want about %d", got, c.Estimated, full)
	}
	if c.Tools < got {
		t.Errorf("tools/list costs %d tokens, less than one of its tools (%d)", c.Tools, got)
	}
}

// TestCapItemShapes: members under the cap and items that are not objects
// pass untouched; a long array becomes [], a long other object {}.
func TestCapItemShapes(t *testing.T) {
	long := strings.Repeat("1,", MaxItemField/2+1) + "1"
	raw := json.RawMessage(`{"name":"a","list":[` + long + `],"meta":{"k":[` + long + `]},"n":3}`)
	got, cuts := capItem(raw)
	if string(got) != `{"name":"a","list":[],"meta":{},"n":3}` || len(cuts) != 2 || cuts[0].member != "list" || cuts[1].member != "meta" {
		t.Errorf("capItem = %s, %+v", got, cuts)
	}
	small := json.RawMessage(`{"name":"a"}`)
	if got, cuts := capItem(small); string(got) != string(small) || cuts != nil {
		t.Errorf("a small item changed: %s %v", got, cuts)
	}
	notObject := json.RawMessage(`"` + strings.Repeat("x", MaxItemField+1) + `"`)
	if got, cuts := capItem(notObject); len(got) != len(notObject) || cuts != nil {
		t.Errorf("a non-object item changed (%d bytes, %v)", len(got), cuts)
	}
}
