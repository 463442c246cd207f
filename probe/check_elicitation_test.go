package probe

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readerTool is a tool --exercise calls (read-only, closed world).
const readerTool = `{"tools":[{"name":"reader","description":"Reads.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"openWorldHint":false}}]}`

// TestElicitationShapeViolations: a server that, during an exercised
// call, asks for a form whose defaults its own properties refuse, whose
// legacy enumNames do not pair with enum and which requires a field it
// does not have: one finding per contradiction, and the request is
// answered (declined).
func TestElicitationShapeViolations(t *testing.T) {
	elicit := `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"mode":"form","message":"Tell me",
	 "requestedSchema":{"type":"object","required":["name","ghost"],"properties":{
	  "name":{"type":"string","minLength":3,"default":"ab"},
	  "color":{"type":"string","enum":["red","green"],"default":"blue"},
	  "size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}],"default":"m"},
	  "legacy":{"type":"string","enum":["a","b"],"enumNames":["A"]},
	  "count":{"type":"integer","minimum":1,"maximum":10,"default":2.5},
	  "ratio":{"type":"number","minimum":0,"maximum":1,"default":3},
	  "tags":{"type":"array","items":{"type":"string","enum":["x","y"]},"maxItems":1,"default":["x","z"]},
	  "pick":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"},{"const":"y","title":"Y"}]},"maxItems":1,"default":["x","y"]},
	  "span":{"type":"number","minimum":5,"maximum":1}}}}}`
	srv := &scriptServer{script: map[string][]string{
		"initialize": {initAnswer(`{"tools":{}}`)},
		"ping":       result(`{}`),
		"tools/list": result(readerTool),
		"tools/call": {elicit, `30ms|{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"ok"}]}}`},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res := Run(ctx, srv, &Options{CallTimeout: 2 * time.Second, Exercise: true, Inject: &InjectOptions{Disabled: true}})
	const p = "elicitation/schema_inconsistent server elicitation/create/params/requestedSchema"
	want := []string{
		p + "/properties/color/default",
		p + "/properties/count/default",
		p + "/properties/legacy/enumNames",
		p + "/properties/name/default",
		p + "/properties/pick/default",
		p + "/properties/ratio/default",
		p + "/properties/size/default",
		p + "/properties/span/minimum",
		p + "/properties/tags/default",
		p + "/required",
	}
	if diff := cmp.Diff(want, findingKeys(res, CodeElicitSchemaInconsistent)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if len(res.Exercised) != 1 || res.Exercised[0].Outcome != "result" {
		t.Errorf("exercised %+v, want one call with a result", res.Exercised)
	}
}

// TestElicitationShapeConformant: a go-sdk server that elicits, during an
// exercised call, a form with a default for every kind of property
// (SEP-1034) and every kind of enum (SEP-1330): no finding, and mcpvet
// answered the request.
func TestElicitationShapeConformant(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "elicits", Version: "1"}, nil)
	form := map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
		"name":   map[string]any{"type": "string", "minLength": 2, "maxLength": 10, "default": "Ada"},
		"email":  map[string]any{"type": "string", "format": "email", "default": "a@example.com"},
		"count":  map[string]any{"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
		"ratio":  map[string]any{"type": "number", "minimum": 0, "maximum": 1, "default": 0.5},
		"ok":     map[string]any{"type": "boolean", "default": true},
		"color":  map[string]any{"type": "string", "enum": []any{"red", "green"}, "default": "green"},
		"size":   map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "s", "title": "Small"}, map[string]any{"const": "l", "title": "Large"}}, "default": "l"},
		"legacy": map[string]any{"type": "string", "enum": []any{"a", "b"}, "enumNames": []any{"A", "B"}, "default": "a"},
		"tags":   map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"x", "y"}}, "minItems": 1, "maxItems": 2, "default": []any{"x"}},
		"pick":   map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"const": "x", "title": "X"}, map[string]any{"const": "y", "title": "Y"}}}, "default": []any{"y"}},
	}}
	elicited := make(chan error, 1)
	mcp.AddTool(server, &mcp.Tool{Name: "reader", Description: "Reads after asking.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(bool)}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			_, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Tell me", RequestedSchema: form})
			elicited <- err
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	// 2025-11-25: a 2026-07-28 server asks through input-required results instead (TestInputRequired).
	res := runExercised(t, server, "2025-11-25")
	select {
	case err := <-elicited:
		if err != nil {
			t.Fatalf("the server's elicitation failed: %v", err)
		}
	default:
		t.Fatalf("the tool was not called: exercised %+v", res.Exercised)
	}
	if got := findingKeys(res, CodeElicitSchemaInconsistent, CodeMessageSchemaViolation); len(got) != 0 {
		t.Errorf("findings on a consistent form: %v", got)
	}
	if !repliedOnce(res, "elicitation/create") {
		t.Errorf("client replies %+v, want one elicitation/create", res.Client.Replies)
	}
}
