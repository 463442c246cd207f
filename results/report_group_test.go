package results

import (
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestSDKOfResult: the SDK comes from a serverInfo default, else from the
// installed package's dependencies, else from an SDK's error format.
func TestSDKOfResult(t *testing.T) {
	live := probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true, ServerInfo: &probe.ServerInfo{Name: "memory-server"}}
	for _, tc := range []struct {
		name string
		res  probe.Result
		want string
	}{
		{"named by the author", probe.Result{Liveness: live}, SDKUnknown},
		{"dependency", probe.Result{Liveness: live, Target: probe.Target{SDK: "typescript: official SDK", SDKEvidence: "the package depends on @modelcontextprotocol/sdk (npm)"}}, "typescript: official SDK"},
		{"error format", probe.Result{Liveness: live, Probes: []probe.ProbeCall{{Text: "MCP error -32602: Invalid arguments for tool create_entities: [...]"}}}, "typescript: official SDK"},
		{"serverInfo default wins", probe.Result{Liveness: probe.Liveness{Status: vocab.StatusOK, HandshakeCompleted: true, ServerInfo: &probe.ServerInfo{Name: "rmcp"}},
			Target: probe.Target{SDK: "typescript: official SDK"}}, "rust: rmcp"},
	} {
		if got, _ := SDKOfResult(&tc.res); got != tc.want {
			t.Errorf("%s: SDKOfResult = %q, want %q", tc.name, got, tc.want)
		}
	}
}
