package probe

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runExercised connects to server in memory and probes it with --exercise
// and no failure injection, negotiating version ("" for the newest).
func runExercised(t *testing.T, server *mcp.Server, version string) *Result {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	return Run(ctx, ct, &Options{CallTimeout: 5 * time.Second, Exercise: true, ProtocolVersion: version, Inject: &InjectOptions{Disabled: true}})
}

// repliedOnce reports whether the probe answered exactly one server
// request of method.
func repliedOnce(res *Result, method string) bool {
	for _, r := range res.Client.Replies {
		if r.Method == method && r.Count == 1 {
			return true
		}
	}
	return false
}
