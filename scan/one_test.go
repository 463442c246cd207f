package scan

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunInit()
	code := m.Run()
	testfixture.Cleanup()
	os.Exit(code)
}

// fastOptions keeps fixture runs short: no failure injection, short
// deadlines, no isolation (the sandbox has its own suite).
func fastOptions(backend string) *ProbeOptions {
	return &ProbeOptions{
		Sandbox: &sandbox.Options{Backend: backend, TerminateGrace: 200 * time.Millisecond},
		Run: probe.Options{
			HandshakeTimeout: 2 * time.Second,
			Inject:           &probe.InjectOptions{Disabled: true},
		},
		Timeout: 30 * time.Second,
	}
}

// TestLivenessStatuses produces every liveness status of the probe runner
// from a fixture that really behaves that way.
func TestLivenessStatuses(t *testing.T) {
	bins := testfixture.Build(t)
	tests := []struct {
		name     string
		plan     vocab.Plan
		want     vocab.Status
		complete bool
		evidence string // substring of Liveness.Evidence
	}{
		{"ok", stdio(bins["wellbehaved"]), vocab.StatusOK, true, ""},
		{"spawn_failed", stdio("/nonexistent/mcp-server"), vocab.StatusSpawnFailed, false, "/nonexistent/mcp-server"},
		{"exited_early", stdio(bins["crash"]), vocab.StatusExitedEarly, false, "panic:"},
		{"missing_credentials", stdio(bins["needsenv"]), vocab.StatusMissingCredentials, false, "FIXTURE_API_KEY environment variable is required"},
		{"handshake_timeout", stdio(bins["hang"]), vocab.StatusHandshakeTimeout, false, ""},
		{"protocol_error shape", stdio(bins["garbage"]), vocab.StatusProtocolError, false, "cannot unmarshal"},
		{"protocol_error version", stdio(bins["badversion"]), vocab.StatusProtocolError, false, "1999-01-01"},
		{"stdout_pollution completed", stdio(bins["banner"]), vocab.StatusStdoutPollution, true, ""},
		{"stdout_pollution garbage bytes", withEnv(stdio(bins["garbage"]), "FIXTURE_GARBAGE", "bytes"), vocab.StatusProtocolError, false, ""},
		{"old version ok", stdio(bins["oldversion"]), vocab.StatusOK, true, ""},
		{"unreachable", vocab.Plan{Key: "u", Name: "u", Transport: vocab.TransportStreamable, URL: "http://127.0.0.1:1/mcp"}, vocab.StatusUnreachable, false, "refused"},
		{"needs_configuration", vocab.Plan{Key: "n", Name: "n", Transport: "stdio", Status: "needs_configuration", StatusDetail: "API_KEY has no value"}, vocab.StatusNeedsConfiguration, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Probe(context.Background(), &tt.plan, fastOptions("none"))
			if err != nil {
				t.Fatal(err)
			}
			l := res.Liveness
			if l.Status != tt.want || l.HandshakeCompleted != tt.complete {
				t.Fatalf("status = %s (completed %v), want %s (completed %v); detail %q", l.Status, l.HandshakeCompleted, tt.want, tt.complete, l.Detail)
			}
			if !strings.Contains(l.Evidence, tt.evidence) {
				t.Errorf("evidence = %q, want it to contain %q", l.Evidence, tt.evidence)
			}
		})
	}
}

func TestLivenessDetails(t *testing.T) {
	bins := testfixture.Build(t, "crash", "banner", "oldversion", "paginated")
	t.Run("exited early keeps exit code and stderr tail", func(t *testing.T) {
		plan := stdio(bins["crash"])
		res, _ := Probe(context.Background(), &plan, fastOptions("none"))
		if res.Liveness.ExitCode == nil || *res.Liveness.ExitCode != 2 {
			t.Errorf("exit code = %v, want 2", res.Liveness.ExitCode)
		}
		if !strings.Contains(res.Liveness.StderrTail, "goroutine 1 [running]") {
			t.Errorf("stderr tail = %q", res.Liveness.StderrTail)
		}
	})
	t.Run("banner bytes recorded though the handshake succeeded", func(t *testing.T) {
		plan := stdio(bins["banner"])
		res, _ := Probe(context.Background(), &plan, fastOptions("none"))
		if !strings.HasPrefix(res.Liveness.StdoutNoise, "Banner Server v0.1 starting on stdio") {
			t.Errorf("stdout noise = %q", res.Liveness.StdoutNoise)
		}
		if len(res.Tools) != 2 {
			t.Errorf("tools = %d, want 2", len(res.Tools))
		}
		if !hasFinding(res, probe.CodeStdoutPollution) {
			t.Errorf("no %s finding in %+v", probe.CodeStdoutPollution, res.Findings)
		}
	})
	t.Run("2024-11-05 server negotiates its version through initialize", func(t *testing.T) {
		plan := stdio(bins["oldversion"])
		res, _ := Probe(context.Background(), &plan, fastOptions("none"))
		if res.Liveness.ProtocolVersion != "2024-11-05" || res.Liveness.Handshake != "initialize" {
			t.Errorf("version %q via %q", res.Liveness.ProtocolVersion, res.Liveness.Handshake)
		}
	})
	t.Run("pagination over five pages", func(t *testing.T) {
		plan := stdio(bins["paginated"])
		res, _ := Probe(context.Background(), &plan, fastOptions("none"))
		if len(res.Tools) != 23 {
			t.Errorf("tools = %d, want 23", len(res.Tools))
		}
		pages := 0
		for _, c := range res.Calls {
			if c.Method == "tools/list" {
				pages++
			}
		}
		if pages != 5 {
			t.Errorf("tools/list calls = %d, want 5", pages)
		}
	})
	t.Run("repeating cursor is a finding", func(t *testing.T) {
		plan := withEnv(stdio(bins["paginated"]), "FIXTURE_CURSOR_LOOP", "1")
		res, _ := Probe(context.Background(), &plan, fastOptions("none"))
		if !hasFinding(res, probe.CodeCursorLoop) {
			t.Errorf("no cursor loop finding: %+v", res.Findings)
		}
	})
}

// TestHTTPTransports probes the streamable-HTTP fixture and its SSE-only
// mode, the latter through the streamable client's fallback.
func TestHTTPTransports(t *testing.T) {
	for _, mode := range []string{"streamable", "sse"} {
		t.Run(mode, func(t *testing.T) {
			var args []string
			if mode == "sse" {
				args = append(args, "-sse")
			}
			url := testfixture.StartHTTP(t, args...)
			plan := vocab.Plan{Key: mode, Name: mode, Transport: vocab.TransportStreamable, URL: url}
			res, err := Probe(context.Background(), &plan, fastOptions("none"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Liveness.Status != vocab.StatusOK {
				t.Fatalf("status = %s: %s", res.Liveness.Status, res.Liveness.Detail)
			}
			if len(res.Tools) != 2 {
				t.Errorf("tools = %d, want 2", len(res.Tools))
			}
		})
	}
}

func stdio(bin string) vocab.Plan {
	return vocab.Plan{Key: bin, Name: bin, Source: "test", Transport: vocab.TransportStdio, Command: bin}
}

func withEnv(p vocab.Plan, k, v string) vocab.Plan {
	p.Env = map[string]string{k: v}
	return p
}

func hasFinding(res *probe.Result, code string) bool {
	for _, f := range res.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}

// TestWellbehavedKeep: the exemplary fixture scores at least 90, gets keep,
// and has no finding above info, with failure injection on.
func TestWellbehavedKeep(t *testing.T) {
	plan := stdio(testfixture.Path(t, "wellbehaved"))
	opts := fastOptions("none")
	opts.Run.Inject = nil
	res, err := Probe(context.Background(), &plan, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Score == nil || *res.Score < 90 {
		t.Errorf("score = %v, want at least 90", res.Score)
	}
	if res.Verdict == nil || res.Verdict.Decision != "keep" {
		t.Errorf("verdict = %+v, want keep", res.Verdict)
	}
	if len(res.Probes) < 20 {
		t.Errorf("%d probes, want the full injection", len(res.Probes))
	}
	for _, f := range res.Findings {
		if f.Severity.Rank() > probe.SeverityInfo.Rank() {
			t.Errorf("finding above info: %s %s: %s", f.Code, f.Subject, f.Message)
		}
	}
	t.Logf("score %.1f over %d probes", *res.Score, len(res.Probes))
}

// TestProbeSortsFindingsOnce: findings come from probe.Run, from Probe
// itself (plan notes, sandbox warnings) and from the grader; the result
// holds them in one sorted order, whoever added them last.
func TestProbeSortsFindingsOnce(t *testing.T) {
	plan := vocab.Plan{Key: "poisoned", Name: "poisoned", Source: "test", Transport: vocab.TransportStdio,
		Command: testfixture.Path(t, "poisoned"), Notes: []string{"volume mount /data refused"}}
	o := fastOptions("none")
	o.Run.Inject = &probe.InjectOptions{CallTimeout: 2 * time.Second}
	res, err := Probe(context.Background(), &plan, o)
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(res.Findings)
	probe.SortFindings(sorted)
	if diff := cmp.Diff(sorted, res.Findings); diff != "" {
		t.Errorf("findings not in sorted order (-sorted +got):\n%s", diff)
	}
	// One of each producer, so the order is tested across them.
	for _, code := range []string{probe.CodePoisonZeroWidth, probe.CodeVolumeRefused, probe.CodeSandboxWarning, probe.CodeWrongChannel} {
		if !slices.ContainsFunc(res.Findings, func(f probe.Finding) bool { return f.Code == code }) {
			t.Errorf("no %s finding; findings:\n%s", code, findingLines(res))
		}
	}
}
