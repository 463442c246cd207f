package sandbox

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestHTTPOutcomeResourceMetadata: a remote's 401 names OAuth
// protected-resource metadata only by a resource_metadata parameter of a
// WWW-Authenticate challenge, read as probe's OAuth check reads it
// (internal/authchallenge). Before helper i26v any header containing the
// words did, so `Bearer realm="x_resource_metadata=..."` made the
// liveness detail say "requires OAuth authorization" while the OAuth check
// found no metadata, and scoring's setup advice followed the liveness.
func TestHTTPOutcomeResourceMetadata(t *testing.T) {
	tests := []struct {
		name   string
		header []string // WWW-Authenticate lines
		want   bool
	}{
		{"named by a Bearer challenge", []string{`Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource"`}, true},
		{"unquoted, after other params", []string{`Bearer realm="mcp", error="invalid_token", resource_metadata=https://mcp.example/.well-known/oauth-protected-resource`}, true},
		{"on a second header line", []string{`Basic realm="x"`, `Bearer resource_metadata="https://mcp.example/m"`}, true},
		{"a longer name inside a quoted value", []string{`Bearer realm="x_resource_metadata=https://evil.example/m"`}, false},
		{"inside a quoted value, with an error param", []string{`Bearer realm="x_resource_metadata=https://evil.example/m", error="invalid_token"`}, false},
		{"a longer name", []string{`Bearer x_resource_metadata="https://evil.example/m"`}, false},
		{"empty", []string{`Bearer resource_metadata=""`}, false},
		{"Bearer without it", []string{`Bearer realm="mcp"`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for _, v := range tt.header {
					w.Header().Add("WWW-Authenticate", v)
				}
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
			}))
			defer hs.Close()
			s := launch(t, &vocab.Plan{Transport: vocab.TransportStreamable, URL: hs.URL + "/mcp"}, testOptions(BackendAuto), "")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			if cs, err := client.Connect(ctx, s.Transport(), nil); err == nil {
				cs.Close()
				t.Fatal("Connect succeeded against a server answering 401")
			}
			got := s.Info(0).HTTP
			want := &HTTPOutcome{Status: http.StatusUnauthorized, ContentType: "text/plain", ResourceMetadata: tt.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Info().HTTP (-want +got):\n%s", diff)
			}
		})
	}
}
