// Command defects is an MCP server that is wrong on purpose: it speaks raw
// newline-delimited JSON-RPC over stdio, written by hand so it can send
// what no SDK would, and carries at least one defect for every conformance
// check of package probe. Each tool, prompt, resource and template is
// otherwise well formed (title, description, described parameters, full
// annotations), so that each defect shows up alone.
//
// Defects, by check:
//
//   - protocol schema: capabilities.tools.listChanged is a string; a prompt
//     argument without a name; a hint that is not a boolean;
//   - tool schemas: missing inputSchema, root type "string", a schema that
//     does not compile, an unsatisfiable required property, an undescribed
//     parameter, a required name that is not defined, a parameterless
//     schema that is not closed, an unknown $schema, a remote $ref, an
//     ECMA-only pattern, an outputSchema of type array;
//   - names: an invalid name, a duplicate name, a description that repeats
//     the name, a missing description, a missing title;
//   - annotations: a read-only delete tool, a reader without readOnlyHint,
//     a read-only destructive tool, a non-destructive drop tool, a tool
//     without annotations, a hint that is a string;
//   - structured output: the tool "structured" returns structuredContent
//     that violates its outputSchema;
//   - prompts and resources: duplicate and missing argument names, a
//     relative resource URI, an invalid and a relative URI template;
//   - declared vs observed: serverInfo.version is 0.0.1; started with the
//     argument "die" it exits at once naming two environment variables.
//
// tools/list is served in two pages.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "die" {
		fmt.Fprintln(os.Stderr, "defects: starting")
		fmt.Fprintln(os.Stderr, "Error: DEFECTS_API_KEY environment variable is required")
		fmt.Fprintln(os.Stderr, "hint: DEFECTS_REGION is not set either")
		os.Exit(1)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": -32700, "message": "parse error"}})
			continue
		}
		if len(req.ID) == 0 {
			continue // a notification
		}
		result, rpcErr := handle(req.Method, req.Params)
		msg := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if rpcErr != nil {
			msg["error"] = rpcErr
		} else {
			msg["result"] = result
		}
		if err := out.Encode(msg); err != nil {
			fmt.Fprintln(os.Stderr, "defects: writing:", err)
			os.Exit(1)
		}
	}
}

type obj = map[string]any

var supported = map[string]bool{"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}

func handle(method string, params json.RawMessage) (any, any) {
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Cursor          string          `json:"cursor"`
		Name            string          `json:"name"`
		Arguments       json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p)
	switch method {
	case "initialize":
		v := p.ProtocolVersion
		if !supported[v] {
			v = "2025-11-25"
		}
		return obj{
			"protocolVersion": v,
			"capabilities": obj{
				"tools":     obj{"listChanged": "yes"}, // defect: must be a boolean
				"prompts":   obj{},
				"resources": obj{},
			},
			"serverInfo": obj{"name": "defects", "version": "0.0.1"},
		}, nil
	case "ping":
		return obj{}, nil
	case "tools/list":
		all := tools()
		half := len(all) / 2
		if p.Cursor == "" {
			return obj{"tools": all[:half], "nextCursor": "page-2"}, nil
		}
		if p.Cursor == "page-2" {
			return obj{"tools": all[half:]}, nil
		}
		return nil, obj{"code": -32602, "message": "unknown cursor " + p.Cursor}
	case "tools/call":
		if p.Name == "structured" {
			return obj{
				"content":           []any{obj{"type": "text", "text": `{"count":"three"}`}},
				"structuredContent": obj{"count": "three"}, // defect: count must be an integer
			}, nil
		}
		return obj{"content": []any{obj{"type": "text", "text": "ok"}}}, nil
	case "prompts/list":
		return obj{"prompts": []any{
			obj{"name": "summarize", "title": "Summarize", "description": "Summarize a topic for an audience.",
				"arguments": []any{
					obj{"name": "topic", "description": "What to summarize.", "required": true},
					obj{"name": "topic", "description": "Defect: the same name again."},
				}},
			obj{"name": "translate", "title": "Translate", "description": "Translate a text.",
				"arguments": []any{obj{"description": "Defect: no name.", "required": true}}},
		}}, nil
	case "resources/list":
		return obj{"resources": []any{
			obj{"uri": "notes://readme", "name": "readme", "description": "The readme.", "mimeType": "text/plain"},
			obj{"uri": "notes.txt", "name": "notes", "description": "Defect: a relative URI.", "mimeType": "text/plain"},
		}}, nil
	case "resources/templates/list":
		return obj{"resourceTemplates": []any{
			obj{"uriTemplate": "notes://{id}", "name": "note", "description": "A note by id."},
			obj{"uriTemplate": "notes://{id", "name": "broken", "description": "Defect: unclosed expression."},
			obj{"uriTemplate": "notes/{id}", "name": "relative", "description": "Defect: no scheme."},
		}}, nil
	}
	return nil, obj{"code": -32601, "message": "method not found: " + method}
}

// safe are the annotations of a tool whose defect lies elsewhere.
func safe() obj { return obj{"readOnlyHint": true, "openWorldHint": false} }

// param is a well-described string parameter.
func param() obj {
	return obj{"type": "string", "description": "A query string, for example \"status\"."}
}

func closed(props obj, required ...string) obj {
	s := obj{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func tool(name, title, description string, input obj) obj {
	t := obj{"name": name, "title": title, "description": description, "annotations": safe()}
	if input != nil {
		t["inputSchema"] = input
	}
	return t
}

func tools() []any {
	ok := closed(obj{"q": param()}, "q")
	list := []any{
		// Tool schemas.
		tool("no_input_schema", "No input schema", "Looks up a value; defect: it has no inputSchema.", nil),
		tool("string_input", "String input", "Looks up a value; defect: its inputSchema root type is string.",
			obj{"type": "string"}),
		tool("bad_schema", "Bad schema", "Looks up a value; defect: its inputSchema uses the unknown type \"text\".",
			closed(obj{"q": obj{"type": "text", "description": "A query."}})),
		tool("impossible_args", "Impossible arguments", "Looks up a value; defect: it requires a property it forbids.",
			closed(obj{"q": param()}, "q", "scope")),
		tool("undocumented_param", "Undocumented parameter", "Looks up a value; defect: parameter q has no description.",
			closed(obj{"q": obj{"type": "string"}}, "q")),
		tool("ghost_required", "Ghost required", "Looks up a value; defect: it requires an undefined property.",
			obj{"type": "object", "properties": obj{"q": param()}, "required": []any{"q", "scope"}}),
		tool("no_params", "No parameters", "Returns the server time; defect: its empty schema is not closed.",
			obj{"type": "object"}),
		tool("custom_dialect", "Custom dialect", "Looks up a value; defect: it declares an unknown $schema.",
			obj{"$schema": "https://example.com/schemas/my-dialect", "type": "object", "properties": obj{"q": param()}, "additionalProperties": false}),
		tool("remote_ref", "Remote reference", "Looks up a value; defect: parameter q refers to a remote schema.",
			closed(obj{"q": obj{"$ref": "https://example.com/schemas/query.json", "description": "A query."}})),
		tool("lookahead_pattern", "Lookahead pattern", "Looks up a value; defect: its pattern needs lookahead.",
			closed(obj{"q": obj{"type": "string", "pattern": "^(?!tmp_)[a-z_]+$", "description": "A name not starting with tmp_."}})),
		// Structured output.
		withOutput(tool("structured", "Structured", "Counts matches; defect: its structuredContent breaks its outputSchema.", ok),
			obj{"type": "object", "properties": obj{"count": obj{"type": "integer", "description": "Matches."}}, "required": []any{"count"}}),
		withOutput(tool("bad_output_schema", "Bad output schema", "Counts matches; defect: its outputSchema root type is array.", ok),
			obj{"type": "array", "items": obj{"type": "string"}}),
		// Names, descriptions, titles.
		tool("bad name!", "Bad name", "Looks up a value; defect: its name has a space and a '!'.", ok),
		tool("twin", "Twin one", "Looks up a value; defect: another tool has the same name.", ok),
		tool("twin", "Twin two", "Looks up another value; defect: another tool has the same name.", ok),
		tool("echo_text", "Echo", "Echo text", ok),
		withoutKey(tool("undescribed", "Undescribed", "", ok), "description"),
		withoutKey(tool("untitled", "", "Looks up a value; defect: it has no title.", ok), "title"),
		// Annotations.
		withAnnotations(tool("delete_record", "Delete record", "Removes a record by id; defect: marked read-only.", ok),
			obj{"readOnlyHint": true, "openWorldHint": false}),
		withAnnotations(tool("fetch_report", "Fetch report", "Returns a report; defect: not marked read-only.", ok),
			obj{"destructiveHint": false, "idempotentHint": true, "openWorldHint": false}),
		withAnnotations(tool("state_probe", "State probe", "Returns the state; defect: read-only and destructive.", ok),
			obj{"readOnlyHint": true, "destructiveHint": true, "openWorldHint": false}),
		withAnnotations(tool("drop_table", "Drop table", "Drops a table; defect: marked non-destructive.", ok),
			obj{"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}),
		withoutKey(tool("bare_tool", "Bare tool", "Looks up a value; defect: it has no annotations.", ok), "annotations"),
		withAnnotations(tool("stringly_hinted", "Stringly hinted", "Looks up a value; defect: readOnlyHint is a string.", ok),
			obj{"readOnlyHint": "yes", "openWorldHint": false}),
	}
	return list
}

func withOutput(t obj, schema obj) obj { t["outputSchema"] = schema; return t }
func withAnnotations(t obj, a obj) obj { t["annotations"] = a; return t }
func withoutKey(t obj, key string) obj { delete(t, key); return t }
