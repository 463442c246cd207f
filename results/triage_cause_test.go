package results

import (
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestTriageCauseStep checks that the next step follows the cause the run
// names, not only the status (before: every handshake_timeout got "make
// the server answer initialize within seconds", an npx fetch without
// network and a --timeout that fired included).
func TestTriageCauseStep(t *testing.T) {
	tests := []struct {
		status vocab.Status
		detail string
		want   string
	}{
		{vocab.StatusExitedEarly, "the process exited (exit 1); /data/seed.json exists on the host but is not exposed to the sandbox; pass --expose /data/seed.json (or --expose-rw for a folder it writes to)",
			"triage again with --expose /data/seed.json"},
		{vocab.StatusHandshakeTimeout, "no answer to the handshake within 20s; npx fetches its package at run time and the sandbox has no network: probe npm:NAME@VERSION (installed before launch) or pass --allow-network",
			"drop --no-translate"},
		{vocab.StatusHandshakeTimeout, "no answer to the handshake before the run's deadline (--timeout or --server-timeout) fired, ahead of the 20s handshake deadline",
			"raise --timeout"},
		{vocab.StatusNeedsConfiguration, "unresolved references: ${input:token} in env.TOKEN; give --input token=VALUE",
			"triage again with --input token=VALUE"},
		{vocab.StatusHandshakeTimeout, "no answer to the handshake within 20s", "make the server answer initialize within seconds"},
	}
	for _, tc := range tests {
		res := &probe.Result{Liveness: probe.Liveness{Status: tc.status, Detail: tc.detail}}
		res.Verdict = &probe.Verdict{Decision: "drop", Rules: []probe.Rule{{Name: "no_handshake", Fired: true, Decision: "drop"}}}
		got := NewTriageServer("k", res).NextStep
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s %q: next step %q, want %q", tc.status, tc.detail, got, tc.want)
		}
	}
}
