package probe

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scriptServer is a hand-written server on an in-process connection: it
// answers each request with the raw messages its script returns for the
// method, "$ID" standing for the request's id, so it can send what no SDK
// would. Unknown methods get -32601.
type scriptServer struct {
	script map[string][]string
	// onCancel, if set, is sent (with $ID) when the client cancels.
	onCancel string
}

type scriptConn struct {
	queueConn
	srv *scriptServer
}

func (s *scriptServer) Connect(context.Context) (mcp.Connection, error) {
	return &scriptConn{queueConn: newQueueConn(64), srv: s}, nil
}

func (c *scriptConn) push(raw string, id json.RawMessage) {
	msg, err := jsonrpc.DecodeMessage([]byte(strings.ReplaceAll(raw, "$ID", string(id))))
	if err != nil {
		panic(err)
	}
	select {
	case c.in <- msg:
	case <-c.done:
	}
}

func (c *scriptConn) Write(_ context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil
	}
	if !req.IsCall() {
		if req.Method == "notifications/cancelled" && c.srv.onCancel != "" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(req.Params, &p)
			go c.push(c.srv.onCancel, p.RequestID)
		}
		return nil
	}
	id, _ := json.Marshal(req.ID.Raw())
	answers, ok := c.srv.script[req.Method]
	if !ok {
		answers = []string{`{"jsonrpc":"2.0","id":$ID,"error":{"code":-32601,"message":"Method not found"}}`}
	}
	// The answers go out in order, on one goroutine.
	go func() {
		for _, a := range answers {
			if a == "" {
				continue // no answer: the request hangs
			}
			if d, rest, ok := strings.Cut(a, "|"); ok {
				// "DURATION|message" waits first.
				wait, _ := time.ParseDuration(d)
				time.Sleep(wait)
				a = rest
			}
			c.push(a, id)
		}
	}()
	return nil
}

func initAnswer(caps string) string {
	return `{"jsonrpc":"2.0","id":$ID,"result":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"serverInfo":{"name":"script","version":"1.0.0"}}}`
}

func result(body string) []string {
	return []string{`{"jsonrpc":"2.0","id":$ID,"result":` + body + `}`}
}

func runScript(t *testing.T, srv *scriptServer) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return Run(ctx, srv, &Options{CallTimeout: scriptTimeout(srv), Inject: &InjectOptions{Disabled: true}})
}

// scriptTimeout is the call timeout for srv: short only when its script
// makes a request hang (an empty answer), so that the hang is waited out
// quickly; otherwise long enough that no answer of an in-process server
// misses it on a loaded machine under -race (a 300 ms timeout for every
// script made TestBasics/conforming fail once at load 12-15: a basic
// call of the conforming server was taken for a hang).
func scriptTimeout(srv *scriptServer) time.Duration {
	for _, answers := range srv.script {
		if slices.Contains(answers, "") {
			return time.Second
		}
	}
	return 10 * time.Second
}

// findingKeys lists the findings with the given code prefixes in sorted
// order (Run leaves sorting to its caller).
func findingKeys(res *Result, prefixes ...string) []string {
	out := []string{}
	fs := slices.Clone(res.Findings)
	SortFindings(fs)
	for _, f := range fs {
		for _, p := range prefixes {
			if strings.HasPrefix(f.Code, p) {
				out = append(out, f.Code+" "+f.Subject+" "+f.Pointer)
			}
		}
	}
	return out
}

const goodResource = `{"resources":[{"uri":"file:///a.txt","name":"a","mimeType":"text/plain"}]}`

// TestBasics runs the capability-gated basics against scripted servers
// that break one rule each, and one that breaks none.
func TestBasics(t *testing.T) {
	base := func(caps string, extra map[string][]string) *scriptServer {
		s := map[string][]string{
			"initialize": {initAnswer(caps)},
			"ping":       result(`{}`),
		}
		maps.Copy(s, extra)
		return &scriptServer{script: s}
	}
	tests := []struct {
		name string
		srv  *scriptServer
		want []string
	}{
		{"conforming", base(`{"logging":{},"prompts":{},"resources":{"subscribe":true}}`, map[string][]string{
			"logging/setLevel":         result(`{}`),
			"prompts/list":             result(`{"prompts":[{"name":"p","arguments":[{"name":"topic","required":true}]}]}`),
			"prompts/get":              result(`{"messages":[{"role":"user","content":{"type":"text","text":"about 1"}}]}`),
			"resources/list":           result(goodResource),
			"resources/templates/list": result(`{"resourceTemplates":[]}`),
			"resources/read":           result(`{"contents":[{"uri":"file:///a.txt","mimeType":"text/plain","text":"a"}]}`),
			"resources/subscribe":      result(`{}`),
			"resources/unsubscribe":    result(`{}`),
		}), []string{}},
		{"ping not empty", base(`{}`, map[string][]string{"ping": result(`{"pong":true}`)}),
			[]string{"protocol/ping_not_empty server ping"}},
		{"declared logging answers -32601", base(`{"logging":{}}`, nil),
			[]string{"protocol/declared_method_missing server logging/setLevel"}},
		{"undeclared logging answered", base(`{}`, map[string][]string{"logging/setLevel": result(`{}`)}),
			[]string{"protocol/undeclared_method_answered server logging/setLevel"}},
		{"undeclared completion answered", base(`{}`, map[string][]string{"completion/complete": result(`{"completion":{"values":[]}}`)}),
			[]string{"protocol/undeclared_method_answered server completion/complete"}},
		{"declared completions answer -32601", base(`{"completions":{},"prompts":{}}`, map[string][]string{
			"prompts/list": result(`{"prompts":[{"name":"p","arguments":[{"name":"topic"}]}]}`),
			"prompts/get":  result(`{"messages":[]}`),
		}), []string{"protocol/declared_method_missing server completion/complete"}},
		{"prompts/get internal error", base(`{"prompts":{}}`, map[string][]string{
			"prompts/list": result(`{"prompts":[{"name":"p","arguments":[{"name":"topic","required":true}]}]}`),
			"prompts/get":  {`{"jsonrpc":"2.0","id":$ID,"error":{"code":-32603,"message":"boom"}}`},
		}), []string{"protocol/basic_call_failed server prompts/get"}},
		{"subscribe without capability answered", base(`{"resources":{}}`, map[string][]string{
			"resources/list":           result(goodResource),
			"resources/templates/list": result(`{"resourceTemplates":[]}`),
			"resources/read":           result(`{"contents":[{"uri":"file:///a.txt","text":"a"}]}`),
			"resources/subscribe":      result(`{}`),
		}), []string{"protocol/undeclared_method_answered server resources/subscribe"}},
		{"resource content shapes", base(`{"resources":{}}`, map[string][]string{
			"resources/list":           result(goodResource),
			"resources/templates/list": result(`{"resourceTemplates":[]}`),
			"resources/read":           result(`{"contents":[{"uri":"file:///a.txt","mimeType":"text/html","text":"a","blob":"YQ=="},{"uri":"file:///a.txt","blob":"not base64!"}]}`),
		}), []string{
			"resources/content_shape resource:file:///a.txt resources/read/contents/0",
			"resources/content_shape resource:file:///a.txt resources/read/contents/1/blob",
			"resources/mime_mismatch resource:file:///a.txt resources/read/contents/0/mimeType",
		}},
		{"hanging prompts/get", base(`{"prompts":{}}`, map[string][]string{
			"prompts/list": result(`{"prompts":[{"name":"p"}]}`),
			"prompts/get":  {""},
		}), []string{"protocol/basic_call_failed server prompts/get"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runScript(t, tt.srv)
			if !res.Liveness.HandshakeCompleted {
				t.Fatalf("handshake: %+v", res.Liveness)
			}
			got := findingKeys(res, "protocol/ping", "protocol/declared", "protocol/undeclared", "protocol/basic", "resources/content", "resources/mime")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, res.Findings)
			}
		})
	}
}

// TestMessagesValidated checks that errors, notifications, server
// requests and results beyond the list pages are validated, with the
// pointer inside the message.
func TestMessagesValidated(t *testing.T) {
	srv := &scriptServer{script: map[string][]string{
		"initialize": {
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":"x"}}`,
			`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":"none","maxTokens":10}}`,
			initAnswer(`{"prompts":{}}`)},
		"ping":         result(`{}`),
		"prompts/list": result(`{"prompts":[{"name":"p"}]}`),
		"prompts/get":  result(`{"messages":[{"role":"robot","content":{"type":"text","text":"x"}}]}`),
	}}
	res := runScript(t, srv)
	var got []string
	for _, f := range res.Findings {
		if f.Code == CodeMessageSchemaViolation {
			got = append(got, f.Pointer)
		}
	}
	want := []string{
		"notifications/message/params/level",
		"prompts/get/messages/0/role",
		"sampling/createMessage/params/messages",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema violation pointers (-want +got):\n%s\n%v", diff, res.Findings)
	}
}

// TestResponseAfterCancel: a server that answers a request after the
// probe cancelled it gets protocol/response_after_cancel.
func TestResponseAfterCancel(t *testing.T) {
	srv := &scriptServer{
		script: map[string][]string{
			"initialize":   {initAnswer(`{"prompts":{},"resources":{}}`)},
			"ping":         result(`{}`),
			"prompts/list": result(`{"prompts":[{"name":"p"}]}`),
			"prompts/get":  {""},
			// Keeps the probe busy while the late answer arrives.
			"resources/list":           result(goodResource),
			"resources/templates/list": result(`{"resourceTemplates":[]}`),
			"resources/read":           {`200ms|{"jsonrpc":"2.0","id":$ID,"result":{"contents":[{"uri":"file:///a.txt","text":"a"}]}}`},
		},
		onCancel: `{"jsonrpc":"2.0","id":$ID,"result":{"messages":[]}}`,
	}
	res := runScript(t, srv)
	got := findingKeys(res, CodeResponseAfterCancel)
	if diff := cmp.Diff([]string{CodeResponseAfterCancel + " server notifications/cancelled"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s\n%v", diff, res.Findings)
	}
	// Without the late answer there is no finding.
	srv.onCancel = ""
	if got := findingKeys(runScript(t, srv), CodeResponseAfterCancel); len(got) != 0 {
		t.Errorf("finding without a late response: %v", got)
	}
}

// TestSkipBasics: with SkipBasics (--no-inject) no basic call is sent.
func TestSkipBasics(t *testing.T) {
	srv := &scriptServer{script: map[string][]string{
		"initialize": {initAnswer(`{}`)},
		"ping":       result(`{"pong":true}`),
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res := Run(ctx, srv, &Options{SkipBasics: true, Inject: &InjectOptions{Disabled: true}})
	for _, c := range res.Calls {
		if c.Method != "server/discover" && c.Method != "initialize" {
			t.Errorf("call %s sent with SkipBasics", c.Method)
		}
	}
}

// TestSortFindingsOrder pins the one order of a result's findings:
// subject, then code, then pointer, and the producer's order among equal
// keys (a stable sort).
func TestSortFindingsOrder(t *testing.T) {
	fs := []Finding{
		{Subject: "tool:z", Code: "a/x", Message: "1"},
		{Subject: "server", Code: "b/y", Pointer: "/2", Message: "2"},
		{Subject: "server", Code: "b/y", Pointer: "/1", Message: "3"},
		{Subject: "server", Code: "a/z", Message: "4"},
		{Subject: "tool:a", Code: "a/x", Message: "5"},
		{Subject: "server", Code: "a/z", Message: "6"},
	}
	SortFindings(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Message)
	}
	if want := []string{"4", "6", "3", "2", "5", "1"}; !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}
