package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/internal/golden"
	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/vocab"
)

// updateGolden reports whether -update was given (see internal/golden).
func updateGolden() bool { return golden.Update() }

// rawServer is a server process spoken to in raw newline-delimited
// JSON-RPC over stdio, so that tests see exactly what it sends.
type rawServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{}
}

// startRaw starts name with args and the given extra environment.
func startRaw(t testing.TB, env []string, name string, args ...string) *rawServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	s := &rawServer{cmd: cmd, lines: make(chan []byte, 64), done: make(chan struct{})}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = lockedWriter{&s.mu, &s.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	s.stdin = stdin
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			s.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-s.done:
		case <-time.After(3 * time.Second):
			cancel()
			<-s.done
		}
		cancel()
	})
	return s
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (s *rawServer) stderrText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

func (s *rawServer) send(t testing.TB, msg any) {
	t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		t.Fatalf("writing to server: %v (stderr: %s)", err, s.stderrText())
	}
}

// call sends a request and waits for the response with the same id,
// skipping notifications and server requests. It returns the raw result
// or the raw error.
func (s *rawServer) call(t testing.TB, id int, method string, params any) (result, rpcErr json.RawMessage) {
	t.Helper()
	s.send(t, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("%s: server closed stdout (stderr: %s)", method, s.stderrText())
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
				Method string          `json:"method"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("%s: non-JSON line from server: %q", method, line)
			}
			if m.Method != "" || string(m.ID) != fmt.Sprint(id) {
				continue
			}
			return m.Result, m.Error
		case <-timeout:
			t.Fatalf("%s: no answer in 30s (stderr: %s)", method, s.stderrText())
		}
	}
}

// session is what a raw session recorded: the pages in order.
type recordedSession struct {
	// Command is how the server was started (for the record only).
	Command []string `json:"command"`
	Pages   []Page   `json:"pages"`
}

// recordSession performs the handshake at version and lists everything
// the server declares, following cursors, as the probe runner does.
func recordSession(t testing.TB, s *rawServer, version string) []Page {
	t.Helper()
	init, rpcErr := s.call(t, 1, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpvet-test", "version": "0"},
	})
	if rpcErr != nil {
		t.Fatalf("initialize failed: %s", rpcErr)
	}
	s.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	pages := []Page{{Method: "initialize", Result: init}}
	var hs struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(init, &hs); err != nil {
		t.Fatalf("initialize result: %v", err)
	}
	id := 2
	for _, k := range []struct{ method, capability, items string }{
		{"tools/list", "tools", "tools"},
		{"prompts/list", "prompts", "prompts"},
		{"resources/list", "resources", "resources"},
		{"resources/templates/list", "resources", "resourceTemplates"},
	} {
		if _, ok := hs.Capabilities[k.capability]; !ok {
			continue
		}
		cursor := ""
		for range 20 {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			res, rpcErr := s.call(t, id, k.method, params)
			id++
			if rpcErr != nil {
				t.Logf("%s failed: %s", k.method, rpcErr)
				break
			}
			pages = append(pages, Page{Method: k.method, Result: res})
			var next struct {
				NextCursor string `json:"nextCursor"`
			}
			_ = json.Unmarshal(res, &next)
			if next.NextCursor == "" {
				break
			}
			cursor = next.NextCursor
		}
	}
	return pages
}

// resultFromPages builds the probe result a successful run over pages
// produces: liveness from the handshake, items from the list pages, each
// with its exact raw JSON.
func resultFromPages(t testing.TB, pages []Page) *Result {
	t.Helper()
	res := &Result{Liveness: Liveness{Status: vocab.StatusOK, HandshakeCompleted: true}}
	for _, p := range pages {
		var body map[string]json.RawMessage
		if err := json.Unmarshal(p.Result, &body); err != nil {
			t.Fatalf("%s page: %v", p.Method, err)
		}
		items := func(key string) []json.RawMessage {
			var l []json.RawMessage
			_ = json.Unmarshal(body[key], &l)
			return l
		}
		switch p.Method {
		case "initialize", "server/discover":
			var hs struct {
				ProtocolVersion string      `json:"protocolVersion"`
				ServerInfo      *ServerInfo `json:"serverInfo"`
			}
			_ = json.Unmarshal(p.Result, &hs)
			res.Liveness.Handshake = p.Method
			res.Liveness.ProtocolVersion = hs.ProtocolVersion
			res.Liveness.ServerInfo = hs.ServerInfo
			res.Liveness.Capabilities = body["capabilities"]
		case "tools/list":
			for _, raw := range items("tools") {
				var tl Tool
				_ = json.Unmarshal(raw, &tl)
				tl.Raw = raw
				res.Tools = append(res.Tools, tl)
			}
		case "prompts/list":
			for _, raw := range items("prompts") {
				var pr Prompt
				_ = json.Unmarshal(raw, &pr)
				pr.Raw = raw
				res.Prompts = append(res.Prompts, pr)
			}
		case "resources/list":
			for _, raw := range items("resources") {
				var r Resource
				_ = json.Unmarshal(raw, &r)
				r.Raw = raw
				res.Resources = append(res.Resources, r)
			}
		case "resources/templates/list":
			for _, raw := range items("resourceTemplates") {
				var r ResourceTemplate
				_ = json.Unmarshal(raw, &r)
				r.Raw = raw
				res.ResourceTemplates = append(res.ResourceTemplates, r)
			}
		}
	}
	return res
}

// findingLines renders findings one per line for golden files: severity,
// code, subject, pointer and value, tab-separated. Messages are left out so
// that rewording one does not churn every golden file.
func findingLines(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", f.Severity, f.Code, f.Subject, f.Pointer, oneLine(f.Value))
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(safe.Truncate(s, 80, safe.Ellipsis))
}

// compareGolden compares got with the golden file, or rewrites it under
// -update.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if updateGolden() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (-want +got):\n%s\nrun `go test ./probe -run %s -update` if the change is intended", path, cmp.Diff(string(want), got), t.Name())
	}
}
