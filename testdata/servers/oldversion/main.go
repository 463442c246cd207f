// Command oldversion is an MCP stdio server, written as raw newline-delimited
// JSON-RPC, that only speaks protocol revision 2024-11-05: it answers
// initialize with protocolVersion "2024-11-05" whatever the client asks,
// answers server/discover (and every other unknown method) with -32601
// method not found, and lists two tools without titles or annotations (both
// came in later revisions). It also handles ping, tools/call and the
// notifications/initialized notification.
//
// Checked by internal/testfixture (TestOldVersion); written for the probe
// tests for the server/discover fallback and version negotiation.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// request is an incoming JSON-RPC message; ID is absent for notifications.
type request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

var tools = []map[string]any{
	{
		"name":        "add",
		"description": "Add two numbers and return the sum.",
		"inputSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"a": map[string]any{"type": "number", "description": "First addend."},
				"b": map[string]any{"type": "number", "description": "Second addend."},
			},
			"required": []string{"a", "b"},
		},
	},
	{
		"name":        "reverse",
		"description": "Reverse a string.",
		"inputSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"text": map[string]any{"type": "string", "description": "Text to reverse."}},
			"required":   []string{"text"},
		},
	},
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 4<<20)
	out := json.NewEncoder(os.Stdout) // Encode writes one line per message
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			_ = out.Encode(response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32700, "Parse error"}})
			continue
		}
		if len(req.ID) == 0 || req.Method == "" {
			continue // a notification, or a response to nothing we sent
		}
		result, rerr := handle(req)
		if err := out.Encode(response{JSONRPC: "2.0", ID: req.ID, Result: result, Error: rerr}); err != nil {
			os.Exit(1)
		}
	}
}

func handle(req request) (any, *rpcError) {
	switch req.Method {
	case "initialize":
		return map[string]any{
			"protocolVersion": "2024-11-05",
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      map[string]any{"name": "oldversion", "version": "0.9.0"},
		}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		return map[string]any{"tools": tools}, nil
	case "tools/call":
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, &rpcError{-32602, "Invalid params"}
		}
		return call(p.Name, p.Arguments)
	}
	return nil, &rpcError{-32601, "Method not found"}
}

func call(name string, args map[string]any) (any, *rpcError) {
	text := func(s string, isError bool) any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}, "isError": isError}
	}
	switch name {
	case "add":
		a, okA := args["a"].(float64)
		b, okB := args["b"].(float64)
		if !okA || !okB {
			return text("a and b must both be numbers", true), nil
		}
		return text(fmt.Sprint(a+b), false), nil
	case "reverse":
		s, ok := args["text"].(string)
		if !ok {
			return text("text must be a string", true), nil
		}
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return text(string(r), false), nil
	}
	return nil, &rpcError{-32602, "Unknown tool: " + name}
}
