// Command wellbehaved is the exemplary MCP server of mcpvet's tests: a small
// in-memory project tracker served over stdio with the go-sdk.
//
// Every tool has a title, a description, all four annotation hints and a
// strict input schema (root type object, described properties, required,
// enum, number bounds, string pattern and maxLength, additionalProperties
// false); list_projects also declares an outputSchema and returns matching
// structuredContent. The fixture validates arguments itself (tools are added
// with the low-level [mcp.Server.AddTool], so the SDK does not), and every
// failure is an agent-actionable tool result: isError, a JSON object as text
// and the same object as structuredContent, with a stable code, the
// offending param, what was received, what is expected, the next action and
// a three-valued retryable. It also serves one prompt, two resources and a
// resource template; reading an unknown URI is a -32002 protocol error with
// the uri in data.
//
// Checked by internal/testfixture (TestWellbehaved*); written for the probe
// and scoring tests that need a server scoring at the top of the scale.
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	server := newServer(newTracker())
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "wellbehaved:", err)
		os.Exit(1)
	}
}

// codeResourceNotFound is the MCP "resource not found" code of the
// 2024-11-05 to 2025-11-25 specifications.
const codeResourceNotFound = -32002

func newServer(tr *tracker) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "wellbehaved", Title: "Project Tracker", Version: "1.2.3"},
		&mcp.ServerOptions{Instructions: "Track projects and their tasks. Call list_projects first to learn project ids."})
	for _, spec := range toolSpecs(tr) {
		tool := *spec.tool
		tool.InputSchema = inputSchema(spec.params)
		server.AddTool(&tool, spec.handler())
	}

	server.AddPrompt(&mcp.Prompt{
		Name:        "summarize_project",
		Title:       "Summarize a project",
		Description: "Write a status summary of one project and its open tasks for the given audience.",
		Arguments: []*mcp.PromptArgument{
			{Name: "project_id", Title: "Project id", Description: "Id of the project to summarize, such as prj_1.", Required: true},
			{Name: "audience", Title: "Audience", Description: "Who the summary is for: team or executives. Defaults to team."},
		},
	}, tr.summarizePrompt)

	server.AddResource(&mcp.Resource{
		URI: "tracker://projects", Name: "projects", Title: "All projects",
		Description: "Every project with its status, as JSON.", MIMEType: "application/json",
	}, tr.readResource)
	server.AddResource(&mcp.Resource{
		URI: "tracker://about", Name: "about", Title: "About this tracker",
		Description: "What the tracker holds and how ids look.", MIMEType: "text/markdown",
	}, tr.readResource)
	server.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "tracker://projects/{project_id}", Name: "project", Title: "One project",
		Description: "One project with its tasks, as JSON.", MIMEType: "application/json",
	}, tr.readResource)

	// Protocol errors get the same actionable payload as tool errors, in
	// the JSON-RPC error's data: the SDK's defaults only say what is wrong.
	// An unregistered URI also gets the dedicated resource-not-found code
	// instead of the SDK's -32602, so clients can tell the two apart.
	var toolNames []string
	for _, spec := range toolSpecs(tr) {
		toolNames = append(toolNames, spec.tool.Name)
	}
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) {
				return res, err
			}
			if method == "resources/read" && werr.Message == "Resource not found" {
				werr.Code = codeResourceNotFound
			}
			if te := protocolError(method, req, werr, toolNames); te != nil {
				werr.Message = te.Message
				werr.Data, _ = json.Marshal(te)
			}
			return res, err
		}
	})
	return server
}

// protocolError describes a failed request as an agent can act on it, or
// returns nil for errors it does not know.
func protocolError(method string, req mcp.Request, werr *jsonrpc.Error, toolNames []string) *toolError {
	switch method {
	case "tools/call":
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok || !strings.HasPrefix(werr.Message, "unknown tool") {
			return nil
		}
		name, _ := json.Marshal(p.Name)
		matches := closest(p.Name, toolNames)
		next := "call tools/list to see the tools this server has"
		if len(matches) > 0 {
			next = fmt.Sprintf("call %s instead, or call tools/list to see every tool", matches[0])
		}
		return &toolError{Code: "unknown_tool", Message: fmt.Sprintf("unknown tool %q", p.Name), Param: "name", Received: name,
			Expected: "one of " + strings.Join(toolNames, ", "), ClosestMatches: matches, NextAction: next, Retryable: "with_different_arguments"}
	case "resources/read":
		p, ok := req.GetParams().(*mcp.ReadResourceParams)
		if !ok {
			return nil
		}
		uri, _ := json.Marshal(p.URI)
		uris := []string{"tracker://projects", "tracker://about"}
		return &toolError{Code: "resource_not_found", Message: fmt.Sprintf("no resource %q", p.URI), Param: "uri", Received: uri,
			Expected: "a URI from resources/list, or tracker://projects/{project_id}", ClosestMatches: closest(p.URI, uris),
			NextAction: "call resources/list to see the resource URIs", Retryable: "with_different_arguments"}
	case "prompts/get":
		p, ok := req.GetParams().(*mcp.GetPromptParams)
		if !ok || !strings.Contains(werr.Message, "unknown prompt") {
			return nil
		}
		name, _ := json.Marshal(p.Name)
		return &toolError{Code: "unknown_prompt", Message: fmt.Sprintf("unknown prompt %q", p.Name), Param: "name", Received: name,
			Expected: "summarize_project", ClosestMatches: closest(p.Name, []string{"summarize_project"}),
			NextAction: "call prompts/list to see the prompts, or get summarize_project", Retryable: "with_different_arguments"}
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		var cursor string
		switch p := req.GetParams().(type) {
		case *mcp.ListToolsParams:
			cursor = p.Cursor
		case *mcp.ListPromptsParams:
			cursor = p.Cursor
		case *mcp.ListResourcesParams:
			cursor = p.Cursor
		case *mcp.ListResourceTemplatesParams:
			cursor = p.Cursor
		}
		received, _ := json.Marshal(cursor)
		return &toolError{Code: "invalid_cursor", Message: fmt.Sprintf("cursor %q was not issued by this server", cursor), Param: "cursor",
			Received: received, Expected: "a nextCursor from an earlier " + method + " page",
			NextAction: "call " + method + " again without a cursor", Retryable: "with_different_arguments"}
	}
	return nil
}

// A toolSpec is a tool with its parameters; the input schema is generated
// from the parameters, and the same parameters validate every call.
type toolSpec struct {
	tool   *mcp.Tool
	params []param
	run    func(args map[string]any) *mcp.CallToolResult
}

func (s toolSpec) handler() mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, terr := validate(s.tool.Name, s.params, req.Params.Arguments)
		if terr != nil {
			return terr.result(), nil
		}
		return s.run(args), nil
	}
}

func toolSpecs(tr *tracker) []toolSpec {
	projectID := param{Name: "project_id", Type: "string", Required: true, MaxLength: 32,
		Pattern: regexp.MustCompile(`^prj_[0-9]+$`), Example: "prj_1",
		Description: "Project id as returned by list_projects, such as prj_1."}
	return []toolSpec{
		{
			tool: &mcp.Tool{
				Name: "list_projects", Title: "List projects",
				Description: "List the projects in the tracker with their id, name, status and number of open tasks. " +
					"Use the ids with get_project and create_task.",
				Annotations:  annotations(true, false, true),
				OutputSchema: projectsOutputSchema,
			},
			params: []param{
				{Name: "status", Type: "string", Enum: []string{"active", "archived", "all"},
					Description: "Only list projects with this status. Defaults to all."},
				{Name: "limit", Type: "integer", Min: 1, Max: 50, HasRange: true,
					Description: "Maximum number of projects to return, from 1 to 50. Defaults to 50."},
			},
			run: tr.listProjects,
		},
		{
			tool: &mcp.Tool{
				Name: "get_project", Title: "Get a project",
				Description: "Get one project with all of its tasks, their priorities and estimates.",
				Annotations: annotations(true, false, true),
			},
			params: []param{projectID},
			run:    tr.getProject,
		},
		{
			tool: &mcp.Tool{
				Name: "create_task", Title: "Create a task",
				Description: "Create a task in an active project and return its new task id.",
				Annotations: annotations(false, false, false),
			},
			params: []param{
				projectID,
				{Name: "title", Type: "string", Required: true, MaxLength: 120,
					Description: "Short title of the task, at most 120 characters."},
				{Name: "priority", Type: "string", Required: true, Enum: []string{"low", "medium", "high"},
					Description: "How urgent the task is."},
				{Name: "estimate_hours", Type: "number", Min: 0, Max: 100, HasRange: true,
					Description: "Estimated effort in hours, from 0 to 100."},
			},
			run: tr.createTask,
		},
		{
			tool: &mcp.Tool{
				Name: "delete_task", Title: "Delete a task",
				Description: "Permanently delete a task. This cannot be undone.",
				Annotations: annotations(false, true, true),
			},
			params: []param{
				{Name: "task_id", Type: "string", Required: true, MaxLength: 32,
					Pattern: regexp.MustCompile(`^tsk_[0-9]+$`), Example: "tsk_1",
					Description: "Id of the task to delete, such as tsk_1, as shown by get_project."},
			},
			run: tr.deleteTask,
		},
	}
}

func annotations(readOnly, destructive, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		ReadOnlyHint:    readOnly,
		DestructiveHint: &destructive,
		IdempotentHint:  idempotent,
		OpenWorldHint:   new(false), // the tracker is a closed, in-memory world
	}
}

var projectsOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "projects": {
      "type": "array",
      "description": "The matching projects.",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "Project id."},
          "name": {"type": "string", "description": "Project name."},
          "status": {"type": "string", "enum": ["active", "archived"], "description": "Project status."},
          "open_tasks": {"type": "integer", "minimum": 0, "description": "Number of tasks in the project."}
        },
        "required": ["id", "name", "status", "open_tasks"],
        "additionalProperties": false
      }
    }
  },
  "required": ["projects"],
  "additionalProperties": false
}`)

// A param is one tool argument: it generates its JSON Schema and checks
// values against it.
type param struct {
	Name        string
	Type        string // "string", "number" or "integer"
	Description string
	Required    bool
	Enum        []string
	HasRange    bool
	Min, Max    float64
	MaxLength   int
	Pattern     *regexp.Regexp
	Example     string // a value matching Pattern, quoted in errors
}

func (p param) schema() map[string]any {
	s := map[string]any{"type": p.Type, "description": p.Description}
	if p.Enum != nil {
		s["enum"] = p.Enum
	}
	if p.HasRange {
		s["minimum"], s["maximum"] = p.Min, p.Max
	}
	if p.MaxLength > 0 {
		s["maxLength"] = p.MaxLength
	}
	if p.Pattern != nil {
		s["pattern"] = p.Pattern.String()
	}
	return s
}

// expected describes the values p accepts, in words an agent can act on.
func (p param) expected() string {
	switch {
	case p.Enum != nil:
		return "one of " + strings.Join(p.Enum, ", ")
	case p.Type == "integer" && p.HasRange:
		return fmt.Sprintf("an integer from %g to %g", p.Min, p.Max)
	case p.HasRange:
		return fmt.Sprintf("a number from %g to %g", p.Min, p.Max)
	case p.Pattern != nil:
		return fmt.Sprintf("a string matching %s, such as %s", p.Pattern, p.Example)
	case p.MaxLength > 0:
		return fmt.Sprintf("a string of 1 to %d characters", p.MaxLength)
	}
	return "a " + p.Type
}

func inputSchema(params []param) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, p := range params {
		props[p.Name] = p.schema()
		if p.Required {
			required = append(required, p.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// toolError is the error payload of every failed call. It is sent both as
// the JSON text content and as structuredContent.
type toolError struct {
	Code           string          `json:"code"`
	Message        string          `json:"message"`
	Param          string          `json:"param,omitempty"`
	Received       json.RawMessage `json:"received,omitempty"`
	Expected       string          `json:"expected,omitempty"`
	ClosestMatches []string        `json:"closest_matches,omitempty"`
	NextAction     string          `json:"next_action"`
	Retryable      string          `json:"retryable"`
}

func (e *toolError) result() *mcp.CallToolResult {
	text, err := json.Marshal(e)
	if err != nil {
		panic(err) // a toolError always marshals
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(text)}},
		StructuredContent: json.RawMessage(text),
	}
}

// invalid builds the error for an argument that is present but wrong.
func invalid(tool string, p param, v any, why string) *toolError {
	return &toolError{
		Code: "invalid_argument", Param: p.Name, Received: received(v), Expected: p.expected(),
		Message:    fmt.Sprintf("%s %s.", p.Name, why),
		NextAction: fmt.Sprintf("call %s again with %s set to %s", tool, p.Name, p.expected()),
		Retryable:  "with_different_arguments",
	}
}

// received echoes a value back, cut short so an error never reflects a large
// or hostile input in full.
func received(v any) json.RawMessage {
	const maxRunes = 64
	if s, ok := v.(string); ok && utf8.RuneCountInString(s) > maxRunes {
		v = string([]rune(s)[:maxRunes]) + "…"
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) > 256 {
		b, _ = json.Marshal(fmt.Sprintf("(%s of %d bytes)", jsonType(v), len(b)))
	}
	return b
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// validate decodes raw arguments and checks them against params, returning
// the first problem found: the arguments' shape, then unknown parameters in
// name order, then each parameter in declaration order.
func validate(tool string, params []param, raw json.RawMessage) (map[string]any, *toolError) {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			v = string(raw)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, &toolError{
				Code: "invalid_arguments", Received: received(v), Expected: "a JSON object of named arguments",
				Message:    fmt.Sprintf("arguments must be a JSON object, not %s.", jsonType(v)),
				NextAction: fmt.Sprintf("call %s again with arguments as an object with the keys %s", tool, strings.Join(names, ", ")),
				Retryable:  "with_different_arguments",
			}
		}
		args = obj
	}

	var unknown []string
	for k := range args {
		if !slices.Contains(names, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		k := unknown[0]
		return nil, &toolError{
			Code: "unknown_argument", Param: k, Received: received(args[k]),
			Expected:   "only the parameters " + strings.Join(names, ", "),
			Message:    fmt.Sprintf("%s does not take a parameter named %q.", tool, k),
			NextAction: fmt.Sprintf("call %s again without %s", tool, k),
			Retryable:  "with_different_arguments",
		}
	}

	for _, p := range params {
		v, ok := args[p.Name]
		if !ok {
			if p.Required {
				return nil, &toolError{
					Code: "missing_argument", Param: p.Name, Expected: p.expected(),
					Message:    fmt.Sprintf("%s is required.", p.Name),
					NextAction: fmt.Sprintf("call %s again with %s set to %s", tool, p.Name, p.expected()),
					Retryable:  "with_different_arguments",
				}
			}
			continue
		}
		if err := p.check(tool, v); err != nil {
			return nil, err
		}
	}
	return args, nil
}

func (p param) check(tool string, v any) *toolError {
	switch p.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return invalid(tool, p, v, "must be a string, not "+jsonType(v))
		}
		if p.Enum != nil && !slices.Contains(p.Enum, s) {
			return invalid(tool, p, v, "must be one of "+strings.Join(p.Enum, ", "))
		}
		if s == "" {
			return invalid(tool, p, v, "must not be empty")
		}
		if n := utf8.RuneCountInString(s); p.MaxLength > 0 && n > p.MaxLength {
			return invalid(tool, p, v, fmt.Sprintf("is %d characters long, more than the %d allowed", n, p.MaxLength))
		}
		if p.Pattern != nil && !p.Pattern.MatchString(s) {
			return invalid(tool, p, v, "must match "+p.Pattern.String())
		}
	case "number", "integer":
		n, ok := v.(json.Number)
		if !ok {
			return invalid(tool, p, v, "must be a "+p.Type+", not "+jsonType(v))
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) {
			return invalid(tool, p, v, "must be a finite number")
		}
		if p.Type == "integer" && f != math.Trunc(f) {
			return invalid(tool, p, v, "must be a whole number")
		}
		if p.HasRange && (f < p.Min || f > p.Max) {
			return invalid(tool, p, v, fmt.Sprintf("must be between %g and %g", p.Min, p.Max))
		}
	}
	return nil
}

// tracker is the in-memory project store.
type tracker struct {
	mu       sync.Mutex
	projects []*project
	tasks    map[string]*task
	nextTask int
}

type project struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

type task struct {
	ID            string  `json:"id"`
	ProjectID     string  `json:"project_id"`
	Title         string  `json:"title"`
	Priority      string  `json:"priority"`
	EstimateHours float64 `json:"estimate_hours"`
}

func newTracker() *tracker {
	tr := &tracker{
		projects: []*project{
			{ID: "prj_1", Name: "Website Redesign", Status: "active"},
			{ID: "prj_2", Name: "Billing Migration", Status: "active"},
			{ID: "prj_3", Name: "Legacy Importer", Status: "archived"},
		},
		tasks: map[string]*task{},
	}
	for _, t := range []task{
		{ProjectID: "prj_1", Title: "Draft the new landing page", Priority: "high", EstimateHours: 6},
		{ProjectID: "prj_1", Title: "Pick a colour palette", Priority: "low", EstimateHours: 2},
		{ProjectID: "prj_2", Title: "Export invoices from the old system", Priority: "medium", EstimateHours: 12},
	} {
		tr.addTask(t)
	}
	return tr
}

func (tr *tracker) addTask(t task) *task {
	tr.nextTask++
	t.ID = "tsk_" + strconv.Itoa(tr.nextTask)
	tr.tasks[t.ID] = &t
	return &t
}

func (tr *tracker) project(id string) *project {
	for _, p := range tr.projects {
		if p.ID == id {
			return p
		}
	}
	return nil
}

func (tr *tracker) projectTasks(id string) []*task {
	var out []*task
	for _, t := range tr.tasks {
		if t.ProjectID == id {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *task) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func (tr *tracker) unknownProject(id string) *toolError {
	ids := make([]string, len(tr.projects))
	for i, p := range tr.projects {
		ids[i] = p.ID
	}
	return &toolError{
		Code: "unknown_project", Param: "project_id", Received: received(id),
		Message:        fmt.Sprintf("No project with id %q.", id),
		ClosestMatches: closest(id, ids),
		NextAction:     "call list_projects to see valid ids",
		Retryable:      "with_different_arguments",
	}
}

type projectSummary struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	OpenTasks int    `json:"open_tasks"`
}

func (tr *tracker) listProjects(args map[string]any) *mcp.CallToolResult {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	status, _ := args["status"].(string)
	limit := 50
	if n, ok := args["limit"].(json.Number); ok {
		l, _ := n.Int64()
		limit = int(l)
	}
	out := struct {
		Projects []projectSummary `json:"projects"`
	}{Projects: []projectSummary{}}
	for _, p := range tr.projects {
		if len(out.Projects) == limit {
			break
		}
		if status != "" && status != "all" && p.Status != status {
			continue
		}
		out.Projects = append(out.Projects, projectSummary{p.ID, p.Name, p.Status, len(tr.projectTasks(p.ID))})
	}
	return jsonResult(out)
}

func (tr *tracker) getProject(args map[string]any) *mcp.CallToolResult {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	id := args["project_id"].(string)
	p := tr.project(id)
	if p == nil {
		return tr.unknownProject(id).result()
	}
	return jsonResult(tr.projectDetail(p))
}

func (tr *tracker) projectDetail(p *project) any {
	return struct {
		*project
		Tasks []*task `json:"tasks"`
	}{p, append([]*task{}, tr.projectTasks(p.ID)...)}
}

func (tr *tracker) createTask(args map[string]any) *mcp.CallToolResult {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	id := args["project_id"].(string)
	p := tr.project(id)
	if p == nil {
		return tr.unknownProject(id).result()
	}
	if p.Status != "active" {
		return (&toolError{
			Code: "project_archived", Param: "project_id", Received: received(id),
			Message:    fmt.Sprintf("Project %s (%s) is archived and takes no new tasks.", p.ID, p.Name),
			NextAction: "call list_projects with status set to active and use one of those ids",
			Retryable:  "with_different_arguments",
		}).result()
	}
	t := task{ProjectID: id, Title: args["title"].(string), Priority: args["priority"].(string)}
	if n, ok := args["estimate_hours"].(json.Number); ok {
		t.EstimateHours, _ = n.Float64()
	}
	return jsonResult(tr.addTask(t))
}

func (tr *tracker) deleteTask(args map[string]any) *mcp.CallToolResult {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	id := args["task_id"].(string)
	t, ok := tr.tasks[id]
	if !ok {
		ids := make([]string, 0, len(tr.tasks))
		for k := range tr.tasks {
			ids = append(ids, k)
		}
		slices.Sort(ids)
		return (&toolError{
			Code: "unknown_task", Param: "task_id", Received: received(id),
			Message:        fmt.Sprintf("No task with id %q; it may already have been deleted.", id),
			ClosestMatches: closest(id, ids),
			NextAction:     "call get_project to see the task ids of a project",
			Retryable:      "with_different_arguments",
		}).result()
	}
	delete(tr.tasks, id)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
		Text: fmt.Sprintf("Deleted task %s (%q) from project %s.", t.ID, t.Title, t.ProjectID)}}}
}

func (tr *tracker) summarizePrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	id := req.Params.Arguments["project_id"]
	if id == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "missing required argument project_id",
			Data: json.RawMessage(`{"param":"project_id","next_action":"call prompts/get again with project_id set to an id from list_projects"}`)}
	}
	p := tr.project(id)
	if p == nil {
		data, _ := json.Marshal(tr.unknownProject(id))
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown project %q", id), Data: data}
	}
	audience := cmp.Or(req.Params.Arguments["audience"], "team")
	var b strings.Builder
	fmt.Fprintf(&b, "Summarize the status of project %s (%s) for the %s.\nOpen tasks:\n", p.Name, p.ID, audience)
	for _, t := range tr.projectTasks(p.ID) {
		fmt.Fprintf(&b, "- %s: %s (priority %s, %g h)\n", t.ID, t.Title, t.Priority, t.EstimateHours)
	}
	return &mcp.GetPromptResult{
		Description: "Status summary of " + p.Name,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: b.String()}}},
	}, nil
}

func (tr *tracker) readResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	uri := req.Params.URI
	var text, mime string
	switch {
	case uri == "tracker://projects":
		b, _ := json.Marshal(tr.projects)
		text, mime = string(b), "application/json"
	case uri == "tracker://about":
		text, mime = "# Project tracker\n\nProject ids look like prj_1, task ids like tsk_1.\n", "text/markdown"
	case strings.HasPrefix(uri, "tracker://projects/"):
		p := tr.project(strings.TrimPrefix(uri, "tracker://projects/"))
		if p == nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		b, _ := json.Marshal(tr.projectDetail(p))
		text, mime = string(b), "application/json"
	default:
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
}

func jsonResult(v any) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the tracker's types always marshal
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}
}

// closest returns up to two candidates nearest to id by edit distance, none
// further than three edits away.
func closest(id string, candidates []string) []string {
	type scored struct {
		id   string
		dist int
	}
	var near []scored
	for _, c := range candidates {
		if d := editDistance(id, c); d <= 3 {
			near = append(near, scored{c, d})
		}
	}
	slices.SortStableFunc(near, func(a, b scored) int { return cmp.Compare(a.dist, b.dist) })
	var out []string
	for _, s := range near[:min(2, len(near))] {
		out = append(out, s.id)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}
