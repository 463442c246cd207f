package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"

	"github.com/mcpvet/mcpvet/internal/golden"
)

// Failure-injection transcripts, in the manner of the go-sdk's conformance
// tests (mcp/conformance_test.go, mcp/testdata/conformance/server): each
// testdata/inject/*.txtar file scripts a server and records what failure
// injection made of it. Its sections:
//
//   - server.json: the initialize result's protocolVersion, capabilities
//     and serverInfo, and the tools tools/list returns.
//   - answers.jsonl: how the server answers, one rule a line, the first
//     that matches a request wins: {"method", "tool" (a tools/call of that
//     name), "cursor" (true: only a request with a cursor)} and one of
//     "result", "error" (the JSON-RPC member), "hang" (no answer) or
//     "crash" (the connection closes). initialize, ping and tools/list
//     without a cursor are answered from server.json when no rule
//     matches; any other method gets -32601.
//   - probes.jsonl (expected): each probe sent, with its class and the
//     error text recorded.
//   - findings.jsonl (expected): the errors/ findings, sorted.
//
// `go test ./probe -run TestInjectTranscripts -update` rewrites the
// expected sections.

// transcriptServer is the server of one transcript.
type transcriptServer struct {
	Listing struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Tools           json.RawMessage `json:"tools"`
	}
	Answers []transcriptAnswer
}

type transcriptAnswer struct {
	Method string          `json:"method"`
	Tool   string          `json:"tool,omitempty"`
	Cursor bool            `json:"cursor,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	Hang   bool            `json:"hang,omitempty"`
	Crash  bool            `json:"crash,omitempty"`
}

// answer returns the rule for req, or nil when no rule matches.
func (s *transcriptServer) answer(req *jsonrpc.Request) *transcriptAnswer {
	var p struct {
		Name   string `json:"name"`
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(req.Params, &p)
	for i, a := range s.Answers {
		if a.Method == req.Method && (a.Tool == "" || a.Tool == p.Name) && (!a.Cursor || p.Cursor != "") {
			return &s.Answers[i]
		}
	}
	var r json.RawMessage
	switch req.Method {
	case "initialize":
		r, _ = json.Marshal(map[string]json.RawMessage{"protocolVersion": json.RawMessage(fmt.Sprintf("%q", s.Listing.ProtocolVersion)),
			"capabilities": s.Listing.Capabilities, "serverInfo": s.Listing.ServerInfo})
	case "ping":
		r = json.RawMessage(`{}`)
	case "tools/list":
		if p.Cursor == "" {
			r, _ = json.Marshal(map[string]json.RawMessage{"tools": s.Listing.Tools})
		}
	}
	if r != nil {
		return &transcriptAnswer{Result: r}
	}
	return &transcriptAnswer{Error: json.RawMessage(`{"code":-32601,"message":"Method not found"}`)}
}

func (s *transcriptServer) Connect(context.Context) (mcp.Connection, error) {
	return &transcriptConn{queueConn: newQueueConn(16), srv: s}, nil
}

type transcriptConn struct {
	queueConn
	srv *transcriptServer
}

func (c *transcriptConn) Write(_ context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return nil
	}
	a := c.srv.answer(req)
	switch {
	case a.Crash:
		return c.Close()
	case a.Hang:
		return nil
	}
	resp := &jsonrpc.Response{ID: req.ID, Result: a.Result}
	if a.Error != nil {
		var werr jsonrpc.Error
		if err := json.Unmarshal(a.Error, &werr); err != nil {
			return fmt.Errorf("answer to %s: %w", req.Method, err)
		}
		resp = &jsonrpc.Response{ID: req.ID, Error: &werr}
	}
	select {
	case c.in <- resp:
	case <-c.done:
	}
	return nil
}

// transcriptProbe is one line of probes.jsonl.
type transcriptProbe struct {
	Kind        string `json:"kind"`
	Method      string `json:"method"`
	Tool        string `json:"tool,omitempty"`
	Param       string `json:"param,omitempty"`
	Class       string `json:"class"`
	Destructive bool   `json:"destructive,omitempty"`
	OpenWorld   bool   `json:"openWorld,omitempty"`
	// Meta: the params carried the 2026-07-28 _meta (left out of Sent,
	// which would otherwise hold the build's version).
	Meta bool            `json:"meta,omitempty"`
	Sent json.RawMessage `json:"sent"`
	Text string          `json:"text,omitempty"`
}

// withoutMeta returns sent without its _meta member, and whether it had one.
func withoutMeta(sent json.RawMessage) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(sent, &m) != nil {
		return sent, false
	}
	if _, ok := m["_meta"]; !ok {
		return sent, false
	}
	delete(m, "_meta")
	out, _ := json.Marshal(m)
	return out, true
}

func jsonLines[T any](items []T) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			panic(err)
		}
	}
	return b.Bytes()
}

func TestInjectTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "inject", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string][]byte{}
			for _, f := range ar.Files {
				sections[f.Name] = f.Data
			}
			srv := &transcriptServer{}
			if err := json.Unmarshal(sections["server.json"], &srv.Listing); err != nil {
				t.Fatalf("server.json: %v", err)
			}
			dec := json.NewDecoder(bytes.NewReader(sections["answers.jsonl"]))
			dec.DisallowUnknownFields()
			for dec.More() {
				var a transcriptAnswer
				if err := dec.Decode(&a); err != nil {
					t.Fatalf("answers.jsonl: %v", err)
				}
				srv.Answers = append(srv.Answers, a)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// The injected calls' timeout is short only for a transcript
			// with a hang, which it waits out; an answer of this
			// in-process server never comes near 10 s, where 300 ms for
			// every transcript made crash.txtar fail once at load 12-15
			// under -race.
			injectTimeout := 10 * time.Second
			for _, a := range srv.Answers {
				if a.Hang {
					injectTimeout = time.Second
				}
			}
			res := Run(ctx, srv, &Options{ProtocolVersion: srv.Listing.ProtocolVersion, CallTimeout: 10 * time.Second, SkipBasics: true,
				Inject: &InjectOptions{CallTimeout: injectTimeout}})
			if !res.Liveness.HandshakeCompleted || res.Liveness.ProtocolVersion != srv.Listing.ProtocolVersion {
				t.Fatalf("handshake: %+v", res.Liveness)
			}
			var probes []transcriptProbe
			for _, p := range res.Probes {
				sent, meta := withoutMeta(p.Sent)
				probes = append(probes, transcriptProbe{Kind: p.Kind, Method: p.Method, Tool: p.Tool, Param: p.Param, Class: p.Class,
					Destructive: p.Destructive, OpenWorld: p.OpenWorld, Meta: meta, Sent: sent, Text: p.Text})
			}
			var findings []Finding
			for _, f := range res.Findings {
				if strings.HasPrefix(f.Code, "errors/") {
					findings = append(findings, f)
				}
			}
			SortFindings(findings)
			got := map[string][]byte{"probes.jsonl": jsonLines(probes), "findings.jsonl": jsonLines(findings)}

			if golden.Update() {
				for i, f := range ar.Files {
					if data, ok := got[f.Name]; ok {
						ar.Files[i].Data = data
						delete(got, f.Name)
					}
				}
				for _, name := range []string{"probes.jsonl", "findings.jsonl"} {
					if data, ok := got[name]; ok {
						ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
					}
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"probes.jsonl", "findings.jsonl"} {
				if diff := cmp.Diff(string(sections[name]), string(got[name])); diff != "" {
					t.Errorf("%s (-want +got); rerun with -update if the change is intended:\n%s", name, diff)
				}
			}
		})
	}
}
