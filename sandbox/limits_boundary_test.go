package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestLimitBoundaries: a message of exactly Limits.MessageBytes (the line
// without its newline) and a stdout of exactly Limits.StdoutBytes are
// read; one byte more kills the server with the limit named.
func TestLimitBoundaries(t *testing.T) {
	const pad = 4000
	// The echo fake answers with the request's params as the result.
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":%q}`, strings.Repeat("p", pad))
	tests := []struct {
		name   string
		limits Limits
		want   string // the limit exceeded, "" for none
	}{
		{"message at the limit", Limits{MessageBytes: len(line)}, ""},
		{"message one byte over", Limits{MessageBytes: len(line) - 1}, LimitMessageSize},
		{"stdout at the limit", Limits{StdoutBytes: int64(len(line) + 1)}, ""},
		{"stdout one byte over", Limits{StdoutBytes: int64(len(line))}, LimitStdoutBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, marker := fakePlan(t, "echo")
			opts := testOptions(BackendNone)
			opts.Limits = tt.limits
			s := launch(t, plan, opts, marker)
			conn := connect(t, s)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			id, _ := jsonrpc.MakeID(float64(1))
			req := &jsonrpc.Request{ID: id, Method: "ping", Params: json.RawMessage(fmt.Sprintf("%q", strings.Repeat("p", pad)))}
			if err := conn.Write(ctx, req); err != nil {
				t.Fatal(err)
			}
			msg, err := conn.Read(ctx)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Read = %v, want the answer (info %+v)", err, s.Info(0))
				}
				if r, ok := msg.(*jsonrpc.Response); !ok || len(r.Result) != pad+2 {
					t.Fatalf("read %T %+v, want a response with a %d-byte result", msg, msg, pad+2)
				}
				if got := s.Info(0).LimitExceeded; got != "" {
					t.Errorf("LimitExceeded = %q at exactly the limit", got)
				}
				return
			}
			if err == nil || !errors.Is(err, io.EOF) {
				t.Fatalf("Read = %v, %v; want io.EOF after the kill", msg, err)
			}
			if got := s.Info(5 * time.Second).LimitExceeded; got != tt.want {
				t.Errorf("LimitExceeded = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLimitBoundariesLineReuse: the reader keeps a line buffer of up to
// maxReusedLine bytes for the next line, emptied, and drops a larger one.
func TestLimitBoundariesLineReuse(t *testing.T) {
	for _, tc := range []struct {
		cap  int
		kept bool
	}{{0, true}, {4096, true}, {maxReusedLine, true}, {maxReusedLine + 1, false}} {
		line := append(make([]byte, 0, tc.cap), "x"[:min(1, tc.cap)]...)
		got := reuseLine(line)
		if kept := got != nil; kept != tc.kept || len(got) != 0 || kept && cap(got) != tc.cap {
			t.Errorf("reuseLine(cap %d) = len %d cap %d (nil %v), want kept %v and empty", tc.cap, len(got), cap(got), got == nil, tc.kept)
		}
	}
}
