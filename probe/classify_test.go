package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestRemoteHandshakeStatus runs the handshake over the go-sdk's own
// streamable HTTP client against servers that answer with an HTTP error,
// so the status is decided from the SDK's real error text (no sandbox
// reports the HTTP status here): 401 and 403 are missing_credentials
// (issue 17: a mutant that dropped that mapping survived the probe
// package's tests), 404/405/410 and 5xx unreachable, other 4xx a
// protocol error.
func TestRemoteHandshakeStatus(t *testing.T) {
	tests := []struct {
		code   int
		want   vocab.Status
		detail string
	}{
		{http.StatusUnauthorized, vocab.StatusMissingCredentials, "HTTP 401 Unauthorized; pass the credentials it needs with --header"},
		{http.StatusForbidden, vocab.StatusMissingCredentials, "HTTP 403 Forbidden; pass the credentials it needs with --header"},
		{http.StatusNotFound, vocab.StatusUnreachable, "HTTP 404 Not Found: no MCP endpoint at this URL"},
		{http.StatusMethodNotAllowed, vocab.StatusUnreachable, "HTTP 405 Method Not Allowed: no MCP endpoint at this URL"},
		{http.StatusGone, vocab.StatusUnreachable, "HTTP 410 Gone: no MCP endpoint at this URL"},
		{http.StatusInternalServerError, vocab.StatusUnreachable, "HTTP 500 Internal Server Error"},
		{http.StatusServiceUnavailable, vocab.StatusUnreachable, "HTTP 503 Service Unavailable"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, http.StatusText(tt.code), tt.code)
			}))
			defer srv.Close()
			tr := &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}
			res := Run(context.Background(), tr, &Options{
				Target:           Target{Name: srv.URL, Transport: "streamable-http", URL: srv.URL},
				HandshakeTimeout: 10 * time.Second,
			})
			if res.Liveness.HandshakeCompleted {
				t.Fatal("handshake completed against an HTTP error")
			}
			if res.Liveness.Status != tt.want {
				t.Errorf("status = %s, want %s (%s)", res.Liveness.Status, tt.want, res.Liveness.Detail)
			}
			if !strings.Contains(res.Liveness.Detail, tt.detail) {
				t.Errorf("detail = %q, want it to contain %q", res.Liveness.Detail, tt.detail)
			}
		})
	}
}

// TestClassifyFailure decides the status of failed handshakes from what
// the launcher reports, one case per branch, with the order that makes
// the launcher's certain knowledge win over guesses from text.
func TestClassifyFailure(t *testing.T) {
	exit := func(c int) *int { return &c }
	eof := fmt.Errorf("calling \"initialize\": %w", io.EOF)
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name      string
		transport string
		err       error
		pi        *ProcessInfo
		timeout   bool
		ctx       string // "canceled" or "deadline": how the run's context ended
		want      vocab.Status
		detail    string
		evidence  string // Liveness.Evidence, when set
	}{
		{name: "spawn error from the launcher", err: eof, pi: &ProcessInfo{SpawnError: "exec: \"nodee\": executable file not found in $PATH"},
			want: vocab.StatusSpawnFailed, detail: "could not be started"},
		{name: "spawn error without a launcher", err: &exec.Error{Name: "nodee", Err: exec.ErrNotFound},
			want: vocab.StatusSpawnFailed},
		{name: "limit beats credentials", err: eof, pi: &ProcessInfo{LimitExceeded: "memory", StderrTail: "Error: GITHUB_TOKEN is not set", Exited: true},
			want: vocab.StatusLimitExceeded, detail: "memory limit exceeded"},
		{name: "credential named in stderr", err: eof, pi: &ProcessInfo{Exited: true, ExitCode: exit(1), StderrTail: "starting\nError: GITHUB_TOKEN environment variable is required\n"},
			want: vocab.StatusMissingCredentials, detail: "naming a credential"},
		{name: "credential word without a missing word is an exit", err: eof, pi: &ProcessInfo{Exited: true, ExitCode: exit(1), StderrTail: "using API_KEY from env\nboom\n"},
			want: vocab.StatusExitedEarly, detail: "(exit 1)", evidence: "boom"},
		{name: "exit evidence is the error line", err: eof, pi: &ProcessInfo{Exited: true, ExitCode: exit(2), StderrTail: "starting\nError: config.json not found\nbye"},
			want: vocab.StatusExitedEarly, detail: "(exit 2)", evidence: "Error: config.json not found"},
		{name: "exit by signal", err: eof, pi: &ProcessInfo{Exited: true, Signal: "SIGSEGV"},
			want: vocab.StatusExitedEarly, detail: "(exit SIGSEGV)"},
		{name: "stdout closed while running", err: eof, pi: &ProcessInfo{},
			want: vocab.StatusExitedEarly, detail: "still running: stdout closed"},
		// Noise without a completed handshake broke the protocol: stdout_pollution is
		// kept for servers that completed it despite the noise.
		{name: "timeout with stdout noise", err: errHandshakeTimeout, timeout: true, pi: &ProcessInfo{StdoutNoise: "Server listening on port 3000"},
			want: vocab.StatusProtocolError, detail: "within"},
		{name: "plain timeout", err: errHandshakeTimeout, timeout: true, pi: &ProcessInfo{},
			want: vocab.StatusHandshakeTimeout, detail: "no answer to the handshake within"},
		{name: "noise without a timeout", err: errors.New("calling \"initialize\": invalid character 'S' looking for beginning of value"), pi: &ProcessInfo{StdoutNoise: "Server listening"},
			want: vocab.StatusProtocolError, detail: "non-protocol bytes on stdout"},
		{name: "shape error is a protocol error", err: errors.New("calling \"initialize\": json: cannot unmarshal string into Go value"), pi: &ProcessInfo{Exited: true},
			want: vocab.StatusProtocolError, detail: "the handshake failed"},
		{name: "remote refused connection", transport: "streamable-http", err: refused,
			want: vocab.StatusUnreachable, detail: "could not be reached"},
		{name: "remote 401 from the sandbox with OAuth", transport: "streamable-http", err: errors.New("broken session"), pi: &ProcessInfo{HTTPStatus: 401, OAuthMetadata: true},
			want: vocab.StatusMissingCredentials, detail: "requires OAuth authorization"},
		{name: "remote 403 from the sandbox", transport: "sse", err: errors.New("broken session"), pi: &ProcessInfo{HTTPStatus: 403},
			want: vocab.StatusMissingCredentials, detail: "HTTP 403 Forbidden; pass the credentials"},
		{name: "remote 400", transport: "streamable-http", err: errors.New("broken session"), pi: &ProcessInfo{HTTPStatus: 400},
			want: vocab.StatusProtocolError, detail: "HTTP 400 Bad Request: the handshake was refused"},
		{name: "remote 499 is not a server error", transport: "streamable-http", err: errors.New("broken session"), pi: &ProcessInfo{HTTPStatus: 499},
			want: vocab.StatusProtocolError, detail: "the handshake was refused"},
		{name: "remote 200 html", transport: "streamable-http", err: errors.New("bad content type"), pi: &ProcessInfo{HTTPStatus: 200, HTTPContentType: "text/html"},
			want: vocab.StatusProtocolError, detail: "HTTP 200 OK with a text/html body, not MCP"},
		{name: "remote 200 json that is not MCP", transport: "streamable-http", err: errors.New("no result"), pi: &ProcessInfo{HTTPStatus: 200, HTTPContentType: "application/json"},
			want: vocab.StatusProtocolError, detail: "with a body that is not an MCP answer"},
		{name: "remote limit", transport: "streamable-http", err: errors.New("broken session"), pi: &ProcessInfo{HTTPStatus: 200, LimitExceeded: "message_size"},
			want: vocab.StatusLimitExceeded, detail: "exceeded the message_size limit"},
		{name: "remote timeout", transport: "streamable-http", err: errHandshakeTimeout, timeout: true,
			want: vocab.StatusHandshakeTimeout},
		{name: "remote credential message", transport: "streamable-http", err: errors.New("server error: API key is missing"),
			want: vocab.StatusMissingCredentials, detail: "naming a credential"},
		{name: "remote private address", transport: "streamable-http", err: errors.New("dial: private address: 10.0.0.1"),
			want: vocab.StatusInvalidPlan, detail: "refused"},
		// Issue 26: the branches the split of classifyFailure and
		// classifyRemote must keep, pinned before the split.
		{name: "remote cross-origin redirect", transport: "streamable-http", err: errors.New("Post: cross-origin redirect not followed"), pi: &ProcessInfo{HTTPStatus: 401},
			want: vocab.StatusProtocolError, detail: "redirected to another origin"},
		{name: "remote 404 from the go-sdk's status text", transport: "streamable-http", err: errors.New(`sending "initialize": Not Found`),
			want: vocab.StatusUnreachable, detail: "HTTP 404 Not Found: no MCP endpoint at this URL"},
		{name: "remote 502 named by number", transport: "sse", err: errors.New("server returned 502 from the gateway"),
			want: vocab.StatusUnreachable, detail: "HTTP 502 Bad Gateway"},
		{name: "remote 401 without OAuth metadata", transport: "streamable-http", err: errors.New("broken session"), pi: &ProcessInfo{HTTPStatus: 401},
			want: vocab.StatusMissingCredentials, detail: "HTTP 401 Unauthorized; pass the credentials it needs with --header"},
		{name: "remote 200 event stream that is not MCP", transport: "streamable-http", err: errors.New("no result"), pi: &ProcessInfo{HTTPStatus: 200, HTTPContentType: "text/event-stream"},
			want: vocab.StatusProtocolError, detail: "HTTP 200 OK with a body that is not an MCP answer: no result"},
		{name: "remote context ended", transport: "streamable-http", err: errors.New("broken session"), ctx: "canceled",
			want: vocab.StatusHandshakeTimeout, detail: "no answer to the handshake within 5s"},
		{name: "remote other error", transport: "streamable-http", err: errors.New("weird"),
			want: vocab.StatusProtocolError, detail: "the handshake failed: weird"},
		{name: "the run's deadline fired first", err: errors.New("calling \"initialize\": context deadline exceeded"), pi: &ProcessInfo{}, ctx: "deadline",
			want: vocab.StatusHandshakeTimeout, detail: "before the run's deadline (--timeout or --server-timeout) fired, ahead of the 5s handshake deadline"},
		{name: "interrupted", err: errors.New("calling \"initialize\": canceled"), pi: &ProcessInfo{}, ctx: "canceled",
			want: vocab.StatusHandshakeTimeout, detail: "the run was interrupted before the handshake answered"},
		{name: "closed connection beats a cancelled context", err: eof, pi: &ProcessInfo{Exited: true, ExitCode: exit(3)}, ctx: "canceled",
			want: vocab.StatusExitedEarly, detail: "(exit 3)"},
		{name: "exit code unknown", err: errors.New("calling \"initialize\": write |1: broken pipe"), pi: &ProcessInfo{Exited: true},
			want: vocab.StatusExitedEarly, detail: "(exit unknown)"},
		{name: "exited after a wire error is a protocol error", err: &jsonrpc.Error{Code: -32600, Message: "bad request"}, pi: &ProcessInfo{Exited: true},
			want: vocab.StatusProtocolError, detail: "the handshake failed"},
		{name: "credential in a wire error's data", err: &jsonrpc.Error{Code: -32000, Message: "startup", Data: []byte(`"OPENAI_API_KEY is not set"`)},
			want: vocab.StatusMissingCredentials, detail: "naming a credential"},
		{name: "other error without a launcher", err: errors.New("weird"),
			want: vocab.StatusProtocolError, detail: "the handshake failed: weird", evidence: "weird"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &Result{Target: Target{Transport: tt.transport}}
			o := Options{HandshakeTimeout: 5 * time.Second}
			if tt.pi != nil {
				pi := *tt.pi
				o.Process = func(time.Duration) ProcessInfo { return pi }
			}
			ctx := context.Background()
			switch tt.ctx {
			case "canceled":
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			case "deadline":
				c, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
				defer cancel()
				ctx = c
			}
			classifyFailure(ctx, res, tt.err, newRecorder(), o)
			l := res.Liveness
			if l.Status != tt.want {
				t.Errorf("status = %s, want %s (%s)", l.Status, tt.want, l.Detail)
			}
			if !strings.Contains(l.Detail, tt.detail) {
				t.Errorf("detail = %q, want it to contain %q", l.Detail, tt.detail)
			}
			if tt.evidence != "" && l.Evidence != tt.evidence {
				t.Errorf("evidence = %q, want %q", l.Evidence, tt.evidence)
			}
			if len(res.Findings) == 0 || res.Findings[0].Code != CodeNotAlive {
				t.Errorf("findings = %+v, want %s first", res.Findings, CodeNotAlive)
			}
			// Noise on stdout is reported as its own finding, whatever the status.
			var noise []string
			for _, f := range res.Findings {
				if f.Code == CodeStdoutPollution {
					noise = append(noise, f.Value)
				}
			}
			var wantNoise []string
			if tt.pi != nil && tt.pi.StdoutNoise != "" {
				wantNoise = []string{tt.pi.StdoutNoise}
			}
			if !slices.Equal(noise, wantNoise) {
				t.Errorf("%s findings with values %q, want %q", CodeStdoutPollution, noise, wantNoise)
			}
		})
	}
}

func TestLastLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"one":               "one",
		"one\ntwo":          "two",
		"\nonly":            "only",
		"one\ntwo\r\n\t \n": "two",
		"a\n\nb":            "b",
	} {
		if got := lastLine(in); got != want {
			t.Errorf("lastLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHTTPStatusIn(t *testing.T) {
	for _, tt := range []struct {
		msg   string
		codes []int
		want  bool
	}{
		{"sending \"initialize\": 401 Unauthorized", []int{401, 403}, true},
		{"request 123 failed: 403 Forbidden", []int{401, 403}, true}, // not the first number
		{"request 123 failed: 404 Not Found", []int{401, 403}, false},
		{"port 14012 closed", []int{401}, false}, // part of a longer number
		{"no status here", []int{401}, false},
	} {
		if got := httpStatusIn(tt.msg, tt.codes...); got != tt.want {
			t.Errorf("httpStatusIn(%q, %v) = %v, want %v", tt.msg, tt.codes, got, tt.want)
		}
	}
}
