package testfixture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// waitLimit bounds every wait for a fixture; it is a deadlock guard, not a
// performance assertion.
const waitLimit = 10 * time.Second

// proc is a fixture process driven with raw newline-delimited JSON-RPC.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // stdout lines without the newline; closed at EOF
	stderr bytes.Buffer
	done   chan struct{} // closed once the process has exited
}

// start launches a fixture with args and extra KEY=VALUE environment
// entries; FIXTURE_* variables of the test's own environment are dropped.
// The process is stopped when the test ends.
func start(t *testing.T, name string, args []string, env ...string) *proc {
	t.Helper()
	p := &proc{t: t, lines: make(chan []byte, 1024), done: make(chan struct{})}
	p.cmd = exec.Command(fixture(t, name), args...)
	p.cmd.Env = append(fixtureEnv(), env...)
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	// An io.Pipe rather than StdoutPipe, so Wait may run while lines are
	// still being read.
	pr, pw := io.Pipe()
	p.cmd.Stdout = pw
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		defer close(p.lines)
		r := bufio.NewReader(pr)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				select {
				case p.lines <- bytes.TrimSuffix(line, []byte("\n")):
				default: // a test that floods itself loses lines, never blocks the process
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		_ = p.cmd.Wait()
		pw.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(waitLimit):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// fixture returns the binary of a fixture. It builds all the fixtures these
// tests launch on first use: one go build for all of them is cheaper than
// one per test.
func fixture(t *testing.T, name string) string {
	t.Helper()
	p, ok := Build(t, allFixtures...)[name]
	if !ok {
		t.Fatalf("no fixture %q", name)
	}
	return p
}

func fixtureEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FIXTURE_") {
			env = append(env, kv)
		}
	}
	return env
}

// send writes one line.
func (p *proc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("writing to stdin: %v", err)
	}
}

// recv returns the next stdout line.
func (p *proc) recv() []byte {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("stdout closed; stderr: %q", p.stderrText())
		}
		return line
	case <-time.After(waitLimit):
		p.t.Fatalf("no stdout line within %v", waitLimit)
	}
	return nil
}

// response is a JSON-RPC response as received.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// call sends a request and returns its response, which must be the next
// stdout line and carry the same id.
func (p *proc) call(id int, method string, params any) response {
	p.t.Helper()
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, err := json.Marshal(req)
	if err != nil {
		p.t.Fatal(err)
	}
	p.send(string(b))
	line := p.recv()
	var resp response
	if err := json.Unmarshal(line, &resp); err != nil {
		p.t.Fatalf("%s: response %q is not JSON: %v", method, line, err)
	}
	if resp.JSONRPC != "2.0" || string(resp.ID) != jsonText(id) {
		p.t.Fatalf("%s: response %q, want jsonrpc 2.0 and id %d", method, line, id)
	}
	return resp
}

// initialize performs the initialize handshake for protocol version.
func (p *proc) initialize(version string) response {
	p.t.Helper()
	resp := p.call(1, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "testfixture", "version": "0"},
	})
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return resp
}

// exit closes stdin and returns the exit code once the process has ended.
func (p *proc) exit() int {
	p.t.Helper()
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(waitLimit):
		p.t.Fatalf("process still running %v after stdin closed", waitLimit)
	}
	return p.cmd.ProcessState.ExitCode()
}

// exited reports whether the process ended within d.
func (p *proc) exited(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// stderrText is stderr, once the process has exited.
func (p *proc) stderrText() string {
	if !p.exited(waitLimit) {
		return "(process still running)"
	}
	return p.stderr.String()
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// decode unmarshals a raw result into v or fails the test.
func decode[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %q: %v", raw, err)
	}
	return v
}

var errNoLine = errors.New("no line")

// recvWithin returns the next stdout line, or errNoLine if none arrives
// within d.
func (p *proc) recvWithin(d time.Duration) ([]byte, error) {
	select {
	case line, ok := <-p.lines:
		if !ok {
			return nil, io.EOF
		}
		return line, nil
	case <-time.After(d):
		return nil, errNoLine
	}
}
