package results_test

import (
	"testing"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestCensusUnits: the census counts registry entries, plans, launches and
// handshakes apart; an entry is live when any of its plans completed the
// handshake; an unreachable remote is not a launch; each status is in
// exactly one liveness group.
func TestCensusUnits(t *testing.T) {
	run := func(name string, status vocab.Status, handshake bool, url string) *probe.Result {
		r := &probe.Result{Target: probe.Target{Name: name, Transport: "stdio"}, Liveness: probe.Liveness{Status: status, HandshakeCompleted: handshake}}
		if url != "" {
			r.Target.Transport, r.Target.URL = "streamable-http", url
		}
		return r
	}
	tally := results.NewTally()
	for _, r := range []*probe.Result{
		run("io.example/a", vocab.StatusOK, true, ""),
		run("io.example/a", vocab.StatusUnreachable, false, "http://localhost:8089/mcp"),
		run("io.example/b", vocab.StatusUnreachable, false, "https://b.example/mcp"),
		run("io.example/c", vocab.StatusInstallFailed, false, ""),
		run("io.example/d", vocab.StatusExitedEarly, false, ""),
		run("io.example/e", vocab.StatusStdoutPollution, true, ""),
	} {
		tally.Add(r)
	}
	c := tally.Census()
	if c.Entries != 5 || c.EntriesLive.Count != 2 || c.EntriesLive.Total != 5 {
		t.Errorf("entries %d, live %d of %d; want 5, 2 of 5", c.Entries, c.EntriesLive.Count, c.EntriesLive.Total)
	}
	if c.Plans != 6 || c.Launches != 3 || c.Handshake.Count != 2 || c.HandshakeOfLaunched.Total != 3 {
		t.Errorf("plans %d, launches %d, handshakes %d (of launches: %d); want 6, 3, 2 (of 3)", c.Plans, c.Launches, c.Handshake.Count, c.HandshakeOfLaunched.Total)
	}
	groupOf := map[vocab.Status][]string{}
	for _, g := range results.LivenessGroups {
		for _, s := range g.Statuses {
			groupOf[s] = append(groupOf[s], g.Group)
		}
	}
	for _, s := range vocab.Statuses {
		if len(groupOf[s.Status]) != 1 {
			t.Errorf("status %s is in groups %v, want exactly one", s.Status, groupOf[s.Status])
		}
	}
	sum := 0
	for _, g := range c.Liveness {
		sum += g.Share.Count
	}
	if sum != c.Plans {
		t.Errorf("liveness groups add up to %d, want the %d plans", sum, c.Plans)
	}
}
