package scan

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/scoring"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestProbeOptionsDefaults: a server timeout of 0 means the default, any
// other is kept (one.go:92:15 `<= 0` -> `<` probed with no time at all;
// -> `>` replaced every timeout by the default, so a timeout already
// past was ignored), and a policy given is the one that decides the
// verdict's rules (:102:12 `policy == nil` -> `!=` used the default instead).
func TestProbeOptionsDefaults(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved")
	plan := vocab.Plan{Key: "wb", Name: "wb", Source: "test", Transport: vocab.TransportStdio, Command: bins["wellbehaved"]}
	ctx := context.Background()
	probeWith := func(edit func(*ProbeOptions)) (vocab.Status, string, error) {
		o := fastOptions("none")
		edit(o)
		res, err := Probe(ctx, &plan, o)
		if err != nil || res == nil {
			return "", "", err
		}
		b, _ := json.Marshal(res.Verdict)
		return res.Liveness.Status, string(b), nil
	}
	st, _, err := probeWith(func(o *ProbeOptions) { o.Timeout = 0 })
	if err != nil || st != vocab.StatusOK {
		t.Fatalf("timeout 0 (the default): %q, %v; want ok", st, err)
	}
	if st, _, err := probeWith(func(o *ProbeOptions) { o.Timeout = time.Nanosecond }); err == nil && st == vocab.StatusOK {
		t.Errorf("timeout 1ns: the server was probed as if it had the default's time")
	}
	_, strict, err := probeWith(func(o *ProbeOptions) {
		o.Run.Inject = nil
		o.Policy = &scoring.Policy{MinScore: 101, FixSeverities: scoring.DefaultPolicy().FixSeverities}
	})
	if err != nil || !strings.Contains(strict, "minScore 101") {
		t.Errorf("policy minScore 101: verdict %s, %v; want its rules to apply minScore 101", strict, err)
	}
}
