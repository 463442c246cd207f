package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/probe"
)

// Item kinds of an [ItemDigest].
const (
	ItemTool         = "tool"
	ItemPrompt       = "prompt"
	ItemResource     = "resource"
	ItemTemplate     = "template"
	ItemInstructions = "instructions"
)

// ItemDigest identifies the definition of one listed item of a run: its
// kind, its key (tool and prompt name, resource URI, template URI
// template; "server" for the instructions) and the SHA-256 of the fields
// that define it.
type ItemDigest struct {
	Kind   string `json:"kind"`
	Key    string `json:"key"`
	Digest string `json:"digest"`
	// Fields are the defining fields as canonical JSON, for reports of
	// what changed; not stored.
	Fields map[string]string `json:"-"`
}

// digestFields are the fields of each kind that define an item. Anything
// else (_meta, icons) may change without the item changing meaning.
var digestFields = map[string][]string{
	ItemTool:     {"name", "title", "description", "inputSchema", "outputSchema", "annotations"},
	ItemPrompt:   {"name", "title", "description", "arguments"},
	ItemResource: {"uri", "name", "title", "description", "mimeType", "annotations"},
	ItemTemplate: {"uriTemplate", "name", "title", "description", "mimeType", "annotations"},
}

// ItemDigests returns the digests of a run's tools, prompts, resources,
// resource templates and server instructions, in that order. An item
// listed twice under one key keeps its first listing. Items are read from
// their raw JSON when present, so the digest covers what the server sent.
func ItemDigests(res *probe.Result) []ItemDigest {
	var out []ItemDigest
	seen := map[string]bool{}
	add := func(kind, key string, raw json.RawMessage, fallback map[string]any) {
		if seen[kind+"\x00"+key] {
			return
		}
		seen[kind+"\x00"+key] = true
		fields := map[string]string{}
		var m map[string]json.RawMessage
		if len(raw) > 0 && json.Unmarshal(raw, &m) == nil && m != nil {
			for _, f := range digestFields[kind] {
				if v, ok := m[f]; ok && !isNullJSON(v) {
					fields[f] = canonicalJSON(v)
				}
			}
		} else {
			for _, f := range digestFields[kind] {
				if v, ok := fallback[f]; ok {
					b, _ := json.Marshal(v)
					if !isNullJSON(b) && string(b) != `""` {
						fields[f] = canonicalJSON(b)
					}
				}
			}
		}
		out = append(out, ItemDigest{Kind: kind, Key: key, Digest: digestOf(fields), Fields: fields})
	}
	for _, t := range res.Tools {
		add(ItemTool, t.Name, t.Raw, map[string]any{"name": t.Name, "title": t.Title, "description": t.Description,
			"inputSchema": t.InputSchema, "outputSchema": t.OutputSchema, "annotations": t.Annotations})
	}
	for _, p := range res.Prompts {
		add(ItemPrompt, p.Name, p.Raw, map[string]any{"name": p.Name, "title": p.Title, "description": p.Description, "arguments": p.Arguments})
	}
	for _, r := range res.Resources {
		add(ItemResource, r.URI, r.Raw, map[string]any{"uri": r.URI, "name": r.Name, "mimeType": r.MIMEType})
	}
	for _, r := range res.ResourceTemplates {
		add(ItemTemplate, r.URITemplate, r.Raw, map[string]any{"uriTemplate": r.URITemplate, "name": r.Name})
	}
	if res.Liveness.Instructions != "" {
		b, _ := json.Marshal(res.Liveness.Instructions)
		fields := map[string]string{"instructions": string(b)}
		out = append(out, ItemDigest{Kind: ItemInstructions, Key: "server", Digest: digestOf(fields), Fields: fields})
	}
	return out
}

func isNullJSON(b []byte) bool {
	s := strings.TrimSpace(string(b))
	return s == "" || s == "null"
}

// digestOf hashes the fields in name order.
func digestOf(fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(fields[k]))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON re-encodes a JSON value with sorted members and no
// insignificant space; numbers keep their text. Invalid JSON is returned
// as it is.
func canonicalJSON(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
