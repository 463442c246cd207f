package testfixture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// connect starts a stdio fixture under the go-sdk client.
func connect(t *testing.T, name string, env ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(fixture(t, name))
	cmd.Env = append(fixtureEnv(), env...)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "testfixture", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

func TestWellbehavedRaw(t *testing.T) {
	p := start(t, "wellbehaved", nil)
	init := decode[struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}](t, p.initialize("2025-11-25").Result)
	if init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "wellbehaved" || init.ServerInfo.Version != "1.2.3" {
		t.Errorf("initialize = %+v, want protocol 2025-11-25 and server wellbehaved 1.2.3", init)
	}

	list := decode[struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}](t, p.call(2, "tools/list", nil).Result)
	var names []string
	for _, tool := range list.Tools {
		name := decode[string](t, tool["name"])
		names = append(names, name)
		for _, key := range []string{"title", "description", "annotations", "inputSchema"} {
			if len(tool[key]) == 0 {
				t.Errorf("tool %s has no %s", name, key)
			}
		}
		ann := decode[map[string]bool](t, tool["annotations"])
		for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := ann[hint]; !ok {
				t.Errorf("tool %s annotations %s lack %s", name, tool["annotations"], hint)
			}
		}
		schema := decode[map[string]any](t, tool["inputSchema"])
		if schema["type"] != "object" || schema["additionalProperties"] != false {
			t.Errorf("tool %s input schema %s: want type object and additionalProperties false", name, tool["inputSchema"])
		}
	}
	if diff := cmp.Diff([]string{"create_task", "delete_task", "get_project", "list_projects"}, names); diff != "" {
		t.Errorf("tools/list names mismatch (-want +got):\n%s", diff)
	}

	res := decode[struct {
		IsError           bool                `json:"isError"`
		Content           []map[string]string `json:"content"`
		StructuredContent map[string]any      `json:"structuredContent"`
	}](t, p.call(3, "tools/call", map[string]any{"name": "create_task", "arguments": map[string]any{
		"project_id": "prj_1", "title": "Ship it", "priority": "urgent",
	}}).Result)
	if !res.IsError || res.StructuredContent["code"] != "invalid_argument" || res.StructuredContent["param"] != "priority" {
		t.Errorf("create_task(priority urgent) = %+v, want isError with code invalid_argument and param priority", res)
	}

	if code := p.exit(); code != 0 {
		t.Errorf("exit code after stdin closed = %d, want 0; stderr %q", code, p.stderrText())
	}
}

func TestWellbehavedErrors(t *testing.T) {
	cs := connect(t, "wellbehaved")
	long := strings.Repeat("x", 121)
	tests := []struct {
		name  string
		tool  string
		args  any
		code  string
		param string
		// closest lists the expected closest_matches, if any.
		closest []string
	}{
		{"missing required", "create_task", map[string]any{"project_id": "prj_1", "title": "t"}, "missing_argument", "priority", nil},
		{"no arguments", "get_project", nil, "missing_argument", "project_id", nil},
		{"empty arguments", "get_project", map[string]any{}, "missing_argument", "project_id", nil},
		{"arguments not an object", "get_project", []int{1}, "invalid_arguments", "", nil},
		{"wrong type", "create_task", map[string]any{"project_id": "prj_1", "title": "t", "priority": "low", "estimate_hours": "3"}, "invalid_argument", "estimate_hours", nil},
		{"null value", "get_project", map[string]any{"project_id": nil}, "invalid_argument", "project_id", nil},
		{"enum", "create_task", map[string]any{"project_id": "prj_1", "title": "t", "priority": "urgent"}, "invalid_argument", "priority", nil},
		{"below minimum", "create_task", map[string]any{"project_id": "prj_1", "title": "t", "priority": "low", "estimate_hours": -1}, "invalid_argument", "estimate_hours", nil},
		{"above maximum", "create_task", map[string]any{"project_id": "prj_1", "title": "t", "priority": "low", "estimate_hours": 101}, "invalid_argument", "estimate_hours", nil},
		{"not an integer", "list_projects", map[string]any{"limit": 2.5}, "invalid_argument", "limit", nil},
		{"pattern", "get_project", map[string]any{"project_id": "project-1"}, "invalid_argument", "project_id", nil},
		{"max length", "create_task", map[string]any{"project_id": "prj_1", "title": long, "priority": "low"}, "invalid_argument", "title", nil},
		{"empty string", "create_task", map[string]any{"project_id": "prj_1", "title": "", "priority": "low"}, "invalid_argument", "title", nil},
		{"unknown property", "get_project", map[string]any{"project_id": "prj_1", "verbose": true}, "unknown_argument", "verbose", nil},
		{"unknown project", "get_project", map[string]any{"project_id": "prj_9"}, "unknown_project", "project_id", []string{"prj_1", "prj_2"}},
		{"unknown task", "delete_task", map[string]any{"task_id": "tsk_99"}, "unknown_task", "task_id", []string{"tsk_1", "tsk_2"}},
		{"archived project", "create_task", map[string]any{"project_id": "prj_3", "title": "t", "priority": "low"}, "project_archived", "project_id", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatalf("CallTool: %v, want a tool error result", err)
			}
			if !res.IsError {
				t.Fatalf("CallTool result isError = false, want true")
			}
			structured, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != 1 {
				t.Fatalf("got %d content blocks, want 1", len(res.Content))
			}
			text, ok := res.Content[0].(*mcp.TextContent)
			if !ok {
				t.Fatalf("content is %T, want text", res.Content[0])
			}
			// The text is the same JSON object as structuredContent.
			if diff := cmp.Diff(decode[map[string]any](t, structured), decode[map[string]any](t, []byte(text.Text))); diff != "" {
				t.Errorf("text content differs from structuredContent (-structured +text):\n%s", diff)
			}
			got := decode[struct {
				Code           string   `json:"code"`
				Param          string   `json:"param"`
				ClosestMatches []string `json:"closest_matches"`
				NextAction     string   `json:"next_action"`
				Retryable      string   `json:"retryable"`
			}](t, structured)
			if got.Code != tc.code || got.Param != tc.param || got.Retryable != "with_different_arguments" {
				t.Errorf("error %s: want code %q, param %q, retryable with_different_arguments", structured, tc.code, tc.param)
			}
			if !strings.HasPrefix(got.NextAction, "call ") {
				t.Errorf("next_action %q does not name a call to make", got.NextAction)
			}
			if diff := cmp.Diff(tc.closest, got.ClosestMatches); diff != "" {
				t.Errorf("closest_matches mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWellbehavedReceivedIsTruncated(t *testing.T) {
	cs := connect(t, "wellbehaved")
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "get_project",
		Arguments: map[string]any{"project_id": strings.Repeat("A", 5000)}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || len(text) > 1000 {
		t.Errorf("error for a 5000-byte id is %d bytes (isError %v), want a short error: %s", len(text), res.IsError, text)
	}
}

func TestWellbehavedSuccess(t *testing.T) {
	cs := connect(t, "wellbehaved")
	ctx := testCtx(t)
	if got := cs.InitializeResult().ServerInfo; got.Name != "wellbehaved" || got.Version != "1.2.3" {
		t.Errorf("server info = %+v, want wellbehaved 1.2.3", got)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var outputSchema any
	for _, tool := range tools.Tools {
		if tool.Name == "list_projects" {
			outputSchema = tool.OutputSchema
		}
	}
	if outputSchema == nil {
		t.Fatal("list_projects has no outputSchema")
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_projects", Arguments: map[string]any{"status": "active"}})
	if err != nil || res.IsError {
		t.Fatalf("list_projects = %+v, %v; want a result", res, err)
	}
	compiler := jsonschema.NewCompiler()
	if err := compiler.AddResource("output.json", strings.NewReader(jsonText(outputSchema))); err != nil {
		t.Fatal(err)
	}
	schema, err := compiler.Compile("output.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(res.StructuredContent); err != nil {
		t.Errorf("list_projects structuredContent does not match its outputSchema: %v", err)
	}
	listed := decode[struct {
		Projects []struct{ ID string } `json:"projects"`
	}](t, []byte(jsonText(res.StructuredContent)))
	if len(listed.Projects) != 2 {
		t.Errorf("list_projects(status active) = %s, want 2 projects", jsonText(res.StructuredContent))
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{
		"project_id": "prj_2", "title": "Reconcile totals", "priority": "high", "estimate_hours": 4.5}})
	if err != nil || res.IsError {
		t.Fatalf("create_task = %+v, %v; want a result", res, err)
	}
	created := decode[struct {
		ID string `json:"id"`
	}](t, []byte(jsonText(res.StructuredContent)))
	if created.ID != "tsk_4" {
		t.Errorf("create_task returned id %q, want tsk_4", created.ID)
	}

	for i, wantErr := range []bool{false, true} {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_task", Arguments: map[string]any{"task_id": created.ID}})
		if err != nil || res.IsError != wantErr {
			t.Errorf("delete_task call %d = %+v, %v; want isError %v", i+1, res, err, wantErr)
		}
	}
}

func TestWellbehavedPromptsAndResources(t *testing.T) {
	cs := connect(t, "wellbehaved")
	ctx := testCtx(t)

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 1 || len(prompts.Prompts[0].Arguments) == 0 {
		t.Fatalf("prompts/list = %s, want one prompt with arguments", jsonText(prompts))
	}
	prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize_project", Arguments: map[string]string{"project_id": "prj_1"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(jsonText(prompt.Messages), "Website Redesign") {
		t.Errorf("prompts/get = %s, want the project name", jsonText(prompt))
	}

	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resources.Resources) != 2 || len(templates.ResourceTemplates) != 1 {
		t.Errorf("got %d resources and %d templates, want 2 and 1", len(resources.Resources), len(templates.ResourceTemplates))
	}
	for _, uri := range []string{"tracker://about", "tracker://projects", "tracker://projects/prj_2"} {
		if res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil || len(res.Contents) != 1 || res.Contents[0].Text == "" {
			t.Errorf("resources/read %s = %v, %v; want one text content", uri, res, err)
		}
	}

	for _, uri := range []string{"tracker://nope", "tracker://projects/prj_9"} {
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != -32002 || !bytes.Contains(werr.Data, []byte(uri)) {
			t.Errorf("resources/read %s error = %v, want code -32002 with the uri in data", uri, err)
		}
	}

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("calling an unknown tool: error %v, want a -32602 protocol error", err)
	}
}

func TestNeedsEnv(t *testing.T) {
	p := start(t, "needsenv", nil)
	if code := p.exit(); code != 1 {
		t.Errorf("exit code without FIXTURE_API_KEY = %d, want 1", code)
	}
	want := "Error: FIXTURE_API_KEY environment variable is required. Get one at https://example.com/keys\n"
	if got := p.stderrText(); got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	if line, err := p.recvWithin(time.Second); err == nil {
		t.Errorf("stdout carried %q, want nothing", line)
	}

	cs := connect(t, "needsenv", "FIXTURE_API_KEY=secret-123")
	tools, err := cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 {
		t.Errorf("tools/list with a key = %s, want 1 tool", jsonText(tools))
	}
}

func TestBanner(t *testing.T) {
	p := start(t, "banner", nil)
	if got, want := string(p.recv()), "Banner Server v0.1 starting on stdio..."; got != want {
		t.Fatalf("first stdout line = %q, want %q", got, want)
	}
	init := decode[struct {
		ServerInfo struct{ Name string } `json:"serverInfo"`
	}](t, p.initialize("2025-06-18").Result)
	if init.ServerInfo.Name != "banner" {
		t.Errorf("server name = %q, want banner", init.ServerInfo.Name)
	}
	list := decode[struct {
		Tools []struct{ Name string } `json:"tools"`
	}](t, p.call(2, "tools/list", nil).Result)
	if len(list.Tools) != 2 {
		t.Errorf("tools/list = %+v, want 2 tools", list.Tools)
	}
}

func TestCrash(t *testing.T) {
	p := start(t, "crash", nil)
	if code := p.exit(); code != 2 {
		t.Errorf("exit code = %d, want 2", code)
	}
	if stderr := p.stderrText(); !strings.HasPrefix(stderr, "panic: ") || !strings.Contains(stderr, "goroutine 1 [running]:") {
		t.Errorf("stderr = %q, want a Go panic", stderr)
	}
}

func TestHang(t *testing.T) {
	p := start(t, "hang", nil)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if line, err := p.recvWithin(300 * time.Millisecond); !errors.Is(err, errNoLine) {
		t.Errorf("hang wrote %q (%v), want silence", line, err)
	}
	if code := p.exit(); code != 0 {
		t.Errorf("exit code after stdin closed = %d, want 0", code)
	}
}

func TestHangStubborn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the ignored-signal mask from /proc")
	}
	p := start(t, "hang", nil, "FIXTURE_HANG_STUBBORN=1")
	waitSignalIgnored(t, p.cmd.Process.Pid, syscall.SIGTERM)
	p.stdin.Close()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if p.exited(300 * time.Millisecond) {
		t.Fatalf("stubborn hang exited after stdin close and SIGTERM (%v)", p.cmd.ProcessState)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if !p.exited(waitLimit) {
		t.Fatal("stubborn hang survived SIGKILL")
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Errorf("process state = %v, want killed by SIGKILL", p.cmd.ProcessState)
	}
}

// waitSignalIgnored waits until process pid ignores sig, so a test does not
// signal it before it has set up its signal handling.
func waitSignalIgnored(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(status)) {
			if mask, ok := strings.CutPrefix(line, "SigIgn:"); ok {
				bits, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
				if err != nil {
					t.Fatalf("parsing %q: %v", line, err)
				}
				if bits&(1<<(sig-1)) != 0 {
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d did not ignore %v within %v", pid, sig, waitLimit)
}

func TestGarbage(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	tests := []struct {
		mode  string
		check func(t *testing.T, first, second []byte)
	}{
		{"", func(t *testing.T, first, _ []byte) {
			if got, want := string(first), `{"jsonrpc":"2.0","id":1,"result":"not an object"}`; got != want {
				t.Errorf("answer = %q, want %q", got, want)
			}
		}},
		{"json", func(t *testing.T, first, _ []byte) {
			var v map[string]any
			if err := json.Unmarshal(first, &v); err != nil {
				t.Fatalf("answer %q is not JSON: %v", first, err)
			}
			if _, ok := v["jsonrpc"]; ok {
				t.Errorf("answer %q has a jsonrpc member, want plain JSON", first)
			}
		}},
		{"bytes", func(t *testing.T, first, second []byte) {
			if json.Valid(first) || utf8.Valid(first) {
				t.Errorf("answer %q is valid JSON or UTF-8, want neither", first)
			}
			if !bytes.Equal(first, second) {
				t.Errorf("answers differ: %q then %q, want the same bytes", first, second)
			}
		}},
	}
	for _, tc := range tests {
		t.Run("mode="+tc.mode, func(t *testing.T) {
			p := start(t, "garbage", nil, "FIXTURE_GARBAGE="+tc.mode)
			p.send(initialize)
			first := p.recv()
			p.send(strings.Replace(initialize, `"id":1`, `"id":2`, 1))
			tc.check(t, first, p.recv())
			if code := p.exit(); code != 0 {
				t.Errorf("exit code after stdin closed = %d, want 0", code)
			}
		})
	}

	t.Run("client refuses", func(t *testing.T) {
		cmd := exec.Command(fixture(t, "garbage"))
		cmd.Env = fixtureEnv()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).
			Connect(testCtx(t), &mcp.CommandTransport{Command: cmd}, nil)
		if err == nil {
			cs.Close()
			t.Fatal("go-sdk client connected to garbage, want an error")
		}
	})

	t.Run("unknown mode", func(t *testing.T) {
		p := start(t, "garbage", nil, "FIXTURE_GARBAGE=sometimes")
		if code := p.exit(); code != 2 {
			t.Errorf("exit code = %d, want 2", code)
		}
	})
}

func TestOldVersion(t *testing.T) {
	p := start(t, "oldversion", nil)
	discover := p.call(7, "server/discover", map[string]any{})
	if discover.Error == nil || discover.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("server/discover = %+v, want error -32601", discover)
	}
	init := decode[struct {
		ProtocolVersion string `json:"protocolVersion"`
	}](t, p.initialize("2025-11-25").Result)
	if init.ProtocolVersion != "2024-11-05" {
		t.Errorf("initialize protocolVersion = %q, want 2024-11-05", init.ProtocolVersion)
	}
	if ping := p.call(2, "ping", nil); string(ping.Result) != "{}" {
		t.Errorf("ping result = %s, want {}", ping.Result)
	}
	list := decode[struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}](t, p.call(3, "tools/list", nil).Result)
	if len(list.Tools) != 2 {
		t.Fatalf("tools/list has %d tools, want 2", len(list.Tools))
	}
	for _, tool := range list.Tools {
		if tool["annotations"] != nil || tool["title"] != nil {
			t.Errorf("tool %s has fields newer than 2024-11-05", tool["name"])
		}
	}
	sum := p.call(4, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 2, "b": 3}})
	if !strings.Contains(string(sum.Result), `"text":"5"`) {
		t.Errorf("add(2, 3) = %s, want text 5", sum.Result)
	}
	if code := p.exit(); code != 0 {
		t.Errorf("exit code after stdin closed = %d, want 0", code)
	}

	cs := connect(t, "oldversion")
	if got := cs.InitializeResult().ProtocolVersion; got != "2024-11-05" {
		t.Errorf("go-sdk client negotiated %q, want 2024-11-05", got)
	}
}

func TestBadVersion(t *testing.T) {
	p := start(t, "badversion", nil)
	if d := p.call(5, "server/discover", map[string]any{}); d.Error == nil || d.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("server/discover = %+v, want error -32601", d)
	}
	init := decode[struct {
		ProtocolVersion string `json:"protocolVersion"`
	}](t, p.initialize("2025-11-25").Result)
	if init.ProtocolVersion != "1999-01-01" {
		t.Errorf("initialize protocolVersion = %q, want 1999-01-01", init.ProtocolVersion)
	}

	cmd := exec.Command(fixture(t, "badversion"))
	cmd.Env = fixtureEnv()
	_, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).
		Connect(testCtx(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err == nil || !strings.Contains(err.Error(), "1999-01-01") {
		t.Errorf("go-sdk Connect error = %v, want an unsupported version error naming 1999-01-01", err)
	}
}

// listPages follows tools/list cursors for at most max pages and returns the
// tool names of each page and the cursors received.
func listPages(t *testing.T, p *proc, max int) (pages [][]string, cursors []string) {
	t.Helper()
	cursor := ""
	for i := range max {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		page := decode[struct {
			Tools      []struct{ Name string } `json:"tools"`
			NextCursor string                  `json:"nextCursor"`
		}](t, p.call(10+i, "tools/list", params).Result)
		var names []string
		for _, tool := range page.Tools {
			names = append(names, tool.Name)
		}
		pages = append(pages, names)
		if page.NextCursor == "" {
			return pages, cursors
		}
		cursors = append(cursors, page.NextCursor)
		cursor = page.NextCursor
	}
	return pages, cursors
}

func TestPaginated(t *testing.T) {
	p := start(t, "paginated", nil)
	p.initialize("2025-11-25")
	pages, _ := listPages(t, p, 10)
	var sizes []int
	seen := map[string]bool{}
	for _, page := range pages {
		sizes = append(sizes, len(page))
		for _, name := range page {
			seen[name] = true
		}
	}
	if diff := cmp.Diff([]int{5, 5, 5, 5, 3}, sizes); diff != "" {
		t.Errorf("page sizes mismatch (-want +got):\n%s", diff)
	}
	if len(seen) != 23 {
		t.Errorf("got %d distinct tools, want 23", len(seen))
	}

	cs := connect(t, "paginated")
	var n int
	for _, err := range cs.Tools(testCtx(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 23 {
		t.Errorf("go-sdk Tools iterator yielded %d tools, want 23", n)
	}
}

func TestPaginatedCursorLoop(t *testing.T) {
	p := start(t, "paginated", nil, "FIXTURE_CURSOR_LOOP=1")
	p.initialize("2025-11-25")
	pages, cursors := listPages(t, p, 4)
	if len(pages) != 4 || len(cursors) != 4 {
		t.Fatalf("got %d pages and %d cursors, want pagination to go on", len(pages), len(cursors))
	}
	for i := 1; i < 4; i++ {
		if cursors[i] != cursors[0] || !slices.Equal(pages[i], pages[0]) {
			t.Errorf("page %d = %v with cursor %q, want page 1 %v with cursor %q again", i+1, pages[i], cursors[i], pages[0], cursors[0])
		}
	}
}

func TestHTTP(t *testing.T) {
	transports := map[string]func(endpoint string) mcp.Transport{
		"streamable": func(e string) mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: e, MaxRetries: -1} },
		"sse":        func(e string) mcp.Transport { return &mcp.SSEClientTransport{Endpoint: e} },
	}
	for name, transport := range transports {
		t.Run(name, func(t *testing.T) {
			args := []string{"-addr", "127.0.0.1:0"}
			if name == "sse" {
				args = append(args, "-sse")
			}
			p := start(t, "http", args)
			line := string(p.recv())
			endpoint, ok := strings.CutPrefix(line, "LISTENING ")
			if !ok || !strings.HasPrefix(endpoint, "http://127.0.0.1:") || !strings.HasSuffix(endpoint, "/mcp") {
				t.Fatalf("first stdout line = %q, want LISTENING http://127.0.0.1:PORT/mcp", line)
			}
			ctx := testCtx(t)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, transport(endpoint), nil)
			if err != nil {
				t.Fatalf("connecting to %s: %v", endpoint, err)
			}
			if got := cs.InitializeResult().ServerInfo.Name; got != "http" {
				t.Errorf("server name = %q, want http", got)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			if diff := cmp.Diff([]string{"get_project", "list_projects"}, names); diff != "" {
				t.Errorf("tools mismatch (-want +got):\n%s", diff)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_project", Arguments: map[string]any{"project_id": "prj_2"}})
			if err != nil || res.IsError || !strings.Contains(jsonText(res.StructuredContent), "Billing Migration") {
				t.Errorf("get_project(prj_2) = %v, %v; want the Billing Migration project", res, err)
			}
			cs.Close()
			if code := p.exit(); code != 0 {
				t.Errorf("exit code after stdin closed = %d, want 0; stderr %q", code, p.stderrText())
			}
		})
	}
}

// TestExitsWhenStdinCloses checks every stdio fixture that runs until its
// input ends.
func TestExitsWhenStdinCloses(t *testing.T) {
	tests := []struct {
		name string
		env  []string
	}{
		{"wellbehaved", nil},
		{"needsenv", []string{"FIXTURE_API_KEY=k"}},
		{"banner", nil},
		{"hang", nil},
		{"garbage", nil},
		{"oldversion", nil},
		{"badversion", nil},
		{"paginated", nil},
		{"paginated", []string{"FIXTURE_CURSOR_LOOP=1"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.name, tc.env), func(t *testing.T) {
			t.Parallel()
			p := start(t, tc.name, nil, tc.env...)
			if code := p.exit(); code != 0 {
				t.Errorf("exit code = %d, want 0; stderr %q", code, p.stderrText())
			}
		})
	}
}
