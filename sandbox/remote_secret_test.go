package sandbox

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestRemoteSecretHeaderCanary: a secret header the plan leaves empty is
// sent with a canary, which Info reports so graders can look for it.
func TestRemoteSecretHeaderCanary(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	defer ts.Close()

	plan := &vocab.Plan{Key: "r", Name: "r", Transport: vocab.TransportStreamable, URL: ts.URL,
		Secrets: []string{vocab.SecretHeaderPrefix + "X-Api-Key", "PLAIN_ENV_SECRET"}}
	s, err := Launch(context.Background(), plan, &Options{Backend: BackendNone})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), s.Transport(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = cs.Close()
	canary := s.Info(0).Canaries[vocab.SecretHeaderPrefix+"X-Api-Key"]
	if !strings.HasPrefix(canary, "mcpvet-canary-") {
		t.Fatalf("canaries = %v, want one for the header", s.Info(0).Canaries)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[0] != canary {
		t.Errorf("server saw X-Api-Key %q, want the canary %q", seen, canary)
	}
}
