package probe

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLimitKillAfterRelaunchIsNoAnswer: the sandbox kills a relaunched
// server for its memory limit while a probe of "zeta" is in flight (issue
// 22 item 10). Before, the call was recorded as a crash and graded as the
// fatal errors/crash_on_invalid_input, because the limit was looked up
// only before any relaunch. Now it is sandbox/limit_exceeded on the
// request in flight, and the call is not among the probes.
func TestLimitKillAfterRelaunchIsNoAnswer(t *testing.T) {
	tools := []memTool{
		{name: "alpha", schema: modeSchema, handler: validating(modeSchema)},
		{name: "crash", schema: modeSchema, handler: validating(modeSchema)},
		{name: "omega", schema: modeSchema, handler: validating(modeSchema)},
		{name: "zeta", schema: searchSchema, handler: validating(searchSchema)},
	}
	// The fixture's copies differ by launch: the ones before limited die on
	// "crash" by themselves, the later ones are killed by the limit on
	// "zeta". A batched injection (inject_batch.go) replays on a fresh
	// copy after the first crash, so its limited copy is the third.
	for _, mode := range []struct {
		name       string
		sequential bool
		limited    int32
	}{{"sequential", true, 2}, {"batched", false, 3}} {
		t.Run(mode.name, func(t *testing.T) {
			var launches, crashes, limits atomic.Int32
			launch := func(ctx context.Context) (mcp.Transport, error) {
				n := launches.Add(1)
				kill := "crash" // a real crash
				counter := &crashes
				if n >= mode.limited {
					kill = "zeta" // killed by the sandbox's limit
					counter = &limits
				}
				return crashTransport{inner: serve(t, newToolServer(tools)), kill: kill, crashes: counter}, nil
			}
			first, _ := launch(context.Background())
			res := Run(context.Background(), first, &Options{
				ProtocolVersion: "2025-11-25",
				Relaunch:        launch,
				Process: func(time.Duration) ProcessInfo {
					if launches.Load() >= mode.limited && limits.Load() > 0 {
						return ProcessInfo{Exited: true, LimitExceeded: "memory", LimitValue: "1 GiB"}
					}
					return ProcessInfo{Exited: crashes.Load() > 0 && launches.Load() < mode.limited}
				},
				Inject: &InjectOptions{MaxRelaunches: 2, Sequential: mode.sequential},
			})
			var got []string
			for _, p := range res.Probes {
				if p.Tool == "zeta" {
					got = append(got, p.Tool+" "+p.Kind+" "+p.Class)
				}
			}
			if len(got) != 0 {
				t.Errorf("the call the limit ended is recorded as a probe: %v", got)
			}
			if diff := cmp.Diff([]string{"tool:crash " + CodeCrashOnInvalidInput}, codesOf(res.Findings, "errors/")); diff != "" {
				t.Errorf("errors/ findings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"server " + CodeLimitExceeded}, codesOf(res.Findings, "sandbox/")); diff != "" {
				t.Errorf("sandbox/ findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestListTimeoutAfterLimitIsTheLimit: tools/list gets no answer within
// the call timeout while the sandbox's memory limit fires (a slowly
// growing allocation, issue 22 item 10). Before it ended
// protocol/list_timeout with no limit finding (fix); now the limit is
// attributed to tools/list.
func TestListTimeoutAfterLimitIsTheLimit(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "slowbomb", Version: "1"}, nil)
	var listed atomic.Bool
	release := make(chan struct{})
	defer close(release)
	server.AddTool(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				listed.Store(true)
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return next(ctx, method, req)
		}
	})
	res := Run(context.Background(), serve(t, server), &Options{
		ProtocolVersion: "2025-11-25",
		CallTimeout:     300 * time.Millisecond,
		Process: func(time.Duration) ProcessInfo {
			if listed.Load() {
				return ProcessInfo{LimitExceeded: "memory", LimitValue: "1 GiB"}
			}
			return ProcessInfo{}
		},
		SkipBasics: true,
		Inject:     &InjectOptions{MaxRelaunches: 0},
	})
	codes := codesOf(res.Findings, "")
	for _, c := range codes {
		if c == "server "+CodeListTimeout {
			t.Errorf("findings = %v: a listing the limit ended is no timeout", codes)
		}
	}
	found := false
	for _, f := range res.Findings {
		if f.Code == CodeLimitExceeded && f.Pointer == "tools/list" {
			found = true
		}
	}
	if !found {
		t.Errorf("findings = %v, want %s on tools/list", codes, CodeLimitExceeded)
	}
}
