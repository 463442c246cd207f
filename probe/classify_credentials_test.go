package probe

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestCredentialWording: servers that die asking for a credential are
// missing_credentials whatever verb form they use. The stderr lines are
// those of published servers (firecrawl-mcp among them).
func TestCredentialWording(t *testing.T) {
	one := 1
	for _, tc := range []struct {
		name, stderr string
		want         vocab.Status
	}{
		{"provided (firecrawl-mcp)", "Either FIRECRAWL_API_KEY or FIRECRAWL_API_URL must be provided", vocab.StatusMissingCredentials},
		{"specified", "Error: an API token must be specified with --token or MY_SERVICE_TOKEN", vocab.StatusMissingCredentials},
		{"be set", "BRAVE_API_KEY must be set", vocab.StatusMissingCredentials},
		{"not a credential", "Either --root or --dir must be provided", vocab.StatusExitedEarly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &Result{Target: Target{Transport: "stdio"}}
			o := Options{HandshakeTimeout: time.Second, Process: func(time.Duration) ProcessInfo {
				return ProcessInfo{Exited: true, ExitCode: &one, StderrTail: "\n" + tc.stderr + "\n"}
			}}
			classifyFailure(context.Background(), res, io.EOF, newRecorder(), o)
			if res.Liveness.Status != tc.want {
				t.Errorf("status = %s (%s), want %s", res.Liveness.Status, res.Liveness.Detail, tc.want)
			}
		})
	}
}
