// Command badversion is an MCP stdio server, written as raw newline-delimited
// JSON-RPC, that negotiates a protocol version no client supports: it
// answers initialize with protocolVersion "1999-01-01", answers ping, and
// answers server/discover and every other method with -32601 method not
// found.
//
// Checked by internal/testfixture (TestBadVersion); written for the probe
// tests that classify an unsupported version as protocol_error.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

type request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
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

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 4<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			_ = out.Encode(response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32700, "Parse error"}})
			continue
		}
		if len(req.ID) == 0 || req.Method == "" {
			continue
		}
		resp := response{JSONRPC: "2.0", ID: req.ID}
		switch req.Method {
		case "initialize":
			resp.Result = map[string]any{
				"protocolVersion": "1999-01-01",
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "badversion", "version": "0.0.1"},
			}
		case "ping":
			resp.Result = map[string]any{}
		default:
			resp.Error = &rpcError{-32601, "Method not found"}
		}
		if err := out.Encode(resp); err != nil {
			os.Exit(1)
		}
	}
}
