package probe

import "encoding/json"

// Page is one raw protocol answer the probe received, kept for validation
// against the MCP schema of the negotiated version: the handshake result
// (Method "initialize" or "server/discover") and every page of tools/list,
// prompts/list, resources/list and resources/templates/list.
type Page struct {
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
}
