package probe

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestListCapBoundaries: listing keeps exactly MaxPages pages and exactly
// MaxItems items without a finding; one fewer allowed caps the list with
// protocol/pagination_capped. The server pages six tools two at a time.
func TestListCapBoundaries(t *testing.T) {
	tests := []struct {
		name            string
		maxPages, items int
		wantTools       int
		wantCap         bool
	}{
		{"pages at the cap", 3, 100, 6, false},
		{"one page over the cap", 2, 100, 4, true},
		{"items at the cap", 50, 6, 6, false},
		{"one item over the cap", 50, 5, 5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "1"}, &mcp.ServerOptions{PageSize: 2})
			for i := range 6 {
				srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%d", i), InputSchema: map[string]any{"type": "object"}},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return &mcp.CallToolResult{}, nil
					})
			}
			res := Run(context.Background(), serve(t, srv), &Options{MaxPages: tt.maxPages, MaxItems: tt.items,
				Inject: &InjectOptions{Disabled: true}})
			if !res.Liveness.HandshakeCompleted {
				t.Fatalf("handshake: %+v", res.Liveness)
			}
			if len(res.Tools) != tt.wantTools {
				t.Errorf("%d tools kept, want %d", len(res.Tools), tt.wantTools)
			}
			capped := false
			for _, f := range res.Findings {
				if f.Code == CodePageCap && f.Pointer == "tools/list" {
					capped = true
				}
			}
			if capped != tt.wantCap {
				t.Errorf("pagination capped = %v, want %v (%v)", capped, tt.wantCap, codesOf(res.Findings, "protocol/"))
			}
		})
	}
}
