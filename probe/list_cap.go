package probe

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpvet/mcpvet/internal/jsonscan"
	"github.com/mcpvet/mcpvet/internal/safe"
)

// MaxItemField bounds each member of a listed item (a tool's name, title,
// description, inputSchema, outputSchema, annotations, _meta, a prompt's
// arguments, a resource's fields) as kept by the scanner, in bytes of JSON
// as sent. A longer string keeps its first MaxItemField bytes; a longer
// object or array (a schema) is replaced by an empty one ({"type":"object"}
// for a schema). Everything past the cap is counted, not held: the item's
// size as sent is in its SentBytes, the context cost estimates the tokens
// of the rest, and a CodeItemTruncated finding names each member cut. A
// single string a server sends is never held in full past this cap once
// the listing page is scanned (issue 22 item 9: one 9 MiB description
// cost the scanner 546 MB).
const MaxItemField = 1 << 20

// CodeItemTruncated: a member of a listed item was larger than the
// scanner keeps.
const CodeItemTruncated = "protocol/item_truncated"

func init() {
	register(CatalogEntry{CodeItemTruncated, SeverityFatal,
		"a member of a listed tool, prompt or resource (a description, a schema) was larger than the scanner keeps; the rest is judged as broken",
		"keep descriptions and schemas to what an agent can read (kilobytes, not megabytes); a client loads all of it into the model's context on every request"})
	registerWhy(map[string]string{
		CodeItemTruncated: fmt.Sprintf("The scanner keeps at most %d bytes (1 MiB) of each member of a listed item: a longer string keeps its head, a longer schema is replaced by {\"type\":\"object\"}. What was cut is not checked (instructions hidden past the cap would go unseen), so the finding is fatal like protocol/listing_truncated. The context cost counts the kept part and estimates the rest.", MaxItemField),
	})
}

// fieldCut is one member of an item that [capItem] shortened.
type fieldCut struct {
	member string
	sent   int // bytes of JSON as sent
}

// capItem returns raw with every member longer than MaxItemField cut (see
// MaxItemField) and the members it cut. raw itself is returned when
// nothing was cut; a raw that is not a JSON object is returned as it is.
// Members are read in place (jsonscan): a long one is never copied whole.
func capItem(raw json.RawMessage) (json.RawMessage, []fieldCut) {
	if len(raw) <= MaxItemField {
		return raw, nil
	}
	var out bytes.Buffer
	out.WriteByte('{')
	var cuts []fieldCut
	n := 0
	err := jsonscan.Members(raw, func(key string, v []byte) bool {
		if len(v) > MaxItemField {
			cuts = append(cuts, fieldCut{member: key, sent: len(v)})
			v = cutValue(key, v)
		}
		if n > 0 {
			out.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteByte(':')
		out.Write(v)
		return true
	})
	if err != nil || cuts == nil {
		return raw, nil
	}
	out.WriteByte('}')
	return bytes.Clone(out.Bytes()), cuts
}

// cutValue is the kept form of a member value longer than MaxItemField:
// a string's head (only the head is decoded), an empty object or array.
func cutValue(key string, v []byte) json.RawMessage {
	switch v[0] {
	case '"':
		for n := MaxItemField - 16; n > 0; n /= 2 {
			head, ok := jsonscan.StringHead(v, n)
			if !ok {
				return json.RawMessage(`""`)
			}
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(head + safe.Ellipsis)
			if out := bytes.TrimSuffix(b.Bytes(), []byte("\n")); len(out) <= MaxItemField {
				return out
			}
		}
		return json.RawMessage(`""`)
	case '{':
		if key == "inputSchema" || key == "outputSchema" {
			return json.RawMessage(`{"type":"object"}`)
		}
		return json.RawMessage(`{}`)
	case '[':
		return json.RawMessage(`[]`)
	}
	return json.RawMessage(`null`)
}
