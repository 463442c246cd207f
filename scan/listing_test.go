package scan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testenv"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// scanBackends lists the sandbox backends that work here, none included.
// On CI (bwrap installed, namespaces allowed) both isolating ones must.
func scanBackends(t *testing.T) []string {
	out := []string{sandbox.BackendNone}
	for _, b := range []string{sandbox.BackendBwrap, sandbox.BackendBuiltin} {
		s, err := sandbox.Launch(context.Background(), &vocab.Plan{Transport: vocab.TransportStdio, Command: "true"}, &sandbox.Options{Backend: b})
		if err != nil {
			if testenv.InCI() {
				t.Errorf("backend %s unavailable on CI: %v", b, err)
			} else {
				t.Logf("backend %s unavailable: %v", b, err)
			}
			continue
		}
		s.Close()
		out = append(out, b)
	}
	return out
}

// listingOptions runs the full probe, failure injection included.
func listingOptions(backend string) *ProbeOptions {
	o := fastOptions(backend)
	o.Run.Inject = nil
	o.Run.HandshakeTimeout = 10 * time.Second
	o.Timeout = 90 * time.Second
	return o
}

// TestPaddedListingSameVerdict: a server that crashes on invalid input
// gets the same verdict whether its tools/list is small or padded past
// what the scanner used to keep (8 MiB), in a description or in an extra
// member, under every backend.
func TestPaddedListingSameVerdict(t *testing.T) {
	bin := testfixture.Path(t, "hostile-listing")
	for _, backend := range scanBackends(t) {
		t.Run(backend, func(t *testing.T) {
			var verdicts []string
			for _, args := range [][]string{nil, {"-pad", fmt.Sprint(9 << 20)}, {"-pad-extra", fmt.Sprint(9 << 20)}} {
				plan := stdio(bin)
				plan.Args = args
				res, err := Probe(context.Background(), &plan, listingOptions(backend))
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict == nil {
					t.Fatalf("%v: no verdict (status %s)", args, res.Liveness.Status)
				}
				verdicts = append(verdicts, res.Verdict.Decision)
				if len(res.Tools) != 1 || res.Tools[0].Name != "lookup" {
					t.Errorf("%v: tools = %d, want the lookup tool", args, len(res.Tools))
				}
				if !hasFinding(res, probe.CodeCrashOnInvalidInput) {
					t.Errorf("%v: the crash on invalid input was not found", args)
				}
				t.Logf("%v: verdict %s, %d findings", args, res.Verdict.Decision, len(res.Findings))
			}
			if verdicts[0] != "drop" || slices.ContainsFunc(verdicts, func(v string) bool { return v != verdicts[0] }) {
				t.Errorf("verdicts unpadded, padded description, padded member = %v, want drop for all", verdicts)
			}
		})
	}
}

// TestListingDeaths: a server that blows a limit or exits while answering
// a valid tools/list gets a finding naming the limit and its value (or
// the death) on tools/list, and no probe is blamed for it, under every
// backend.
func TestListingDeaths(t *testing.T) {
	bin := testfixture.Path(t, "hostile-listing")
	cases := []struct {
		bomb    string
		limits  sandbox.Limits
		code    string
		evident string // in the finding's value
	}{
		{"memory", sandbox.Limits{MemoryBytes: 256 << 20}, probe.CodeLimitExceeded, "memory (268435456 bytes)"},
		{"processes", sandbox.Limits{Processes: 32}, probe.CodeLimitExceeded, "processes (32 processes)"},
		{"exit", sandbox.Limits{}, probe.CodeDiedOnRequest, "exit code 3"},
	}
	for _, backend := range scanBackends(t) {
		for _, tc := range cases {
			t.Run(backend+"/"+tc.bomb, func(t *testing.T) {
				plan := stdio(bin)
				plan.Args = []string{"-bomb", tc.bomb}
				opts := listingOptions(backend)
				opts.Sandbox.Limits = tc.limits
				res, err := Probe(context.Background(), &plan, opts)
				if err != nil {
					t.Fatal(err)
				}
				var found *probe.Finding
				for i, f := range res.Findings {
					t.Logf("%s %s %s: %s", f.Severity, f.Code, f.Pointer, f.Message)
					if f.Code == tc.code {
						found = &res.Findings[i]
					}
				}
				if found == nil {
					t.Fatalf("no %s finding", tc.code)
				}
				if found.Pointer != "tools/list" || !strings.Contains(found.Value, tc.evident) {
					t.Errorf("finding on %q with %q, want tools/list and %q", found.Pointer, found.Value, tc.evident)
				}
				if hasFinding(res, probe.CodeCrashOnInvalidInput) {
					t.Errorf("a probe was blamed for the death")
				}
				for _, p := range res.Probes {
					if p.Class == probe.ClassCrash {
						t.Errorf("probe %s %s graded as a crash (%.2f ms)", p.Method, p.Kind, p.LatencyMs)
					}
				}
				if res.Verdict == nil || res.Verdict.Decision != "drop" {
					t.Errorf("verdict = %+v, want drop", res.Verdict)
				}
			})
		}
	}
}

// TestDeepListingIsALimit: a listing nested deeper than any JSON decoder
// of a client takes (10,000 levels; 20,000 here, 14 MiB in the issue) is the
// sandbox's message depth limit on tools/list, not stdout noise and a
// listing timeout (issue 22 item 9: it was stdout_pollution +
// list_timeout, verdict fix), under every backend.
func TestDeepListingIsALimit(t *testing.T) {
	bin := testfixture.Path(t, "hostile-listing")
	for _, backend := range scanBackends(t) {
		t.Run(backend, func(t *testing.T) {
			plan := stdio(bin)
			plan.Args = []string{"-nest", "20000"}
			res, err := Probe(context.Background(), &plan, listingOptions(backend))
			if err != nil {
				t.Fatal(err)
			}
			var found *probe.Finding
			for i, f := range res.Findings {
				t.Logf("%s %s %s: %s", f.Severity, f.Code, f.Pointer, f.Message)
				switch f.Code {
				case probe.CodeLimitExceeded:
					found = &res.Findings[i]
				case probe.CodeStdoutPollution, probe.CodeListTimeout:
					t.Errorf("%s: the deep listing was taken for %s", f.Code, f.Code)
				}
			}
			if found == nil || found.Pointer != "tools/list" || !strings.Contains(found.Value, "message_depth (10000 levels") {
				t.Fatalf("limit finding = %+v, want message_depth on tools/list", found)
			}
			if res.Verdict == nil || res.Verdict.Decision != "drop" {
				t.Errorf("verdict = %+v, want drop", res.Verdict)
			}
		})
	}
}
