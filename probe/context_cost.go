package probe

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/mcpvet/mcpvet/internal/tokens"
)

// ContextCost is what a client loads into a model's context from a server,
// in tokens of [ContextCost.Encoding]: the tool definitions as sent (name,
// title, description, input and output schema, annotations; a list of
// tool definitions is paid on every request), the whole tools/list, the
// prompts and resources lists, and the server instructions.
type ContextCost struct {
	// Encoding names the tokenizer: "o200k_base".
	Encoding string `json:"encoding"`
	// Tools counts the tools/list result {"tools":[...]} as compact JSON.
	Tools        int `json:"tools"`
	Prompts      int `json:"prompts"`
	Resources    int `json:"resources"`
	Instructions int `json:"instructions"`
	// Total is Tools + Prompts + Resources + Instructions: what one
	// client loads from this server.
	Total int `json:"total"`
	// PerTool holds each tool's own definition, heaviest first.
	PerTool []ToolTokens `json:"perTool,omitempty"`
	// Estimated is true when a part was too long to count exactly (see
	// tokens.MaxExact) or the instructions were cut.
	Estimated bool `json:"estimated,omitempty"`
}

// ToolTokens is one tool definition's token count.
type ToolTokens struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

// Tool returns the tokens of the tool named name, and whether it is listed.
func (c *ContextCost) Tool(name string) (int, bool) {
	for _, t := range c.PerTool {
		if t.Name == name {
			return t.Tokens, true
		}
	}
	return 0, false
}

// compactRaw returns raw as compact JSON (a client re-encodes what it
// decoded); raw that is not JSON is counted as it came.
func compactRaw(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// listJSON is {"<key>":[raw,...]} in compact JSON.
func listJSON(key string, raws []json.RawMessage) string {
	var b bytes.Buffer
	b.WriteString(`{"` + key + `":[`)
	for i, r := range raws {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(compactRaw(r))
	}
	b.WriteString("]}")
	return b.String()
}

// cutTokens estimates the tokens of the bytes an item lost to
// MaxItemField: sent-kept bytes at the kept part's rate (tokens n over kept
// bytes). It is 0 when nothing was cut (sent is 0).
func cutTokens(n, kept, sent int) int {
	if sent <= kept || kept == 0 {
		return 0
	}
	return int(float64(n)*float64(sent-kept)/float64(kept) + 0.5)
}

// MeasureContext counts what res's listings and instructions cost.
func MeasureContext(res *Result) *ContextCost {
	c := &ContextCost{Encoding: tokens.Encoding}
	count := func(s string) int {
		n, est := tokens.Count(s)
		c.Estimated = c.Estimated || est
		return n
	}
	var tools, prompts, resources []json.RawMessage
	// Tokens estimated for what the listing cut from items (MaxItemField).
	var toolsCut, promptsCut, resourcesCut int
	for _, t := range res.Tools {
		raw := t.Raw
		if len(raw) == 0 {
			raw, _ = json.Marshal(struct {
				Name         string          `json:"name"`
				Title        string          `json:"title,omitempty"`
				Description  string          `json:"description,omitempty"`
				InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
				OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
				Annotations  json.RawMessage `json:"annotations,omitempty"`
			}{t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations})
		}
		tools = append(tools, raw)
		n := count(string(compactRaw(raw)))
		extra := cutTokens(n, len(raw), t.SentBytes)
		toolsCut += extra
		c.PerTool = append(c.PerTool, ToolTokens{Name: t.Name, Tokens: n + extra})
	}
	for _, p := range res.Prompts {
		prompts = append(prompts, p.Raw)
		if p.SentBytes > 0 {
			promptsCut += cutTokens(count(string(compactRaw(p.Raw))), len(p.Raw), p.SentBytes)
		}
	}
	for _, r := range res.Resources {
		resources = append(resources, r.Raw)
		if r.SentBytes > 0 {
			resourcesCut += cutTokens(count(string(compactRaw(r.Raw))), len(r.Raw), r.SentBytes)
		}
	}
	if toolsCut+promptsCut+resourcesCut > 0 {
		c.Estimated = true
	}
	if len(tools) > 0 {
		c.Tools = count(listJSON("tools", tools)) + toolsCut
	}
	if len(prompts) > 0 {
		c.Prompts = count(listJSON("prompts", prompts)) + promptsCut
	}
	if len(resources) > 0 {
		c.Resources = count(listJSON("resources", resources)) + resourcesCut
	}
	if in := res.Liveness.Instructions; in != "" {
		c.Instructions = count(in)
		if full := res.Liveness.InstructionsBytes; full > len(in) {
			c.Instructions = int(float64(c.Instructions)*float64(full)/float64(len(in)) + 0.5)
			c.Estimated = true
		}
	}
	c.Total = c.Tools + c.Prompts + c.Resources + c.Instructions
	sort.SliceStable(c.PerTool, func(i, j int) bool { return c.PerTool[i].Tokens > c.PerTool[j].Tokens })
	return c
}
