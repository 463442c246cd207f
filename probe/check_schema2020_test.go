package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSchema2020Preserved is the suite's json-schema-2020-12 and
// json-schema-ref-no-deref scenarios seen from mcpvet's side: a tool
// whose input schema uses the 2020-12 keywords the suite checks ($schema,
// $defs with $anchor, additionalProperties, allOf/anyOf, if/then/else) and
// another tool's $ref to a loopback canary URL. mcpvet keeps the schema byte for byte
// in the result, draws no schema finding from the 2020-12 keywords, builds
// exercised arguments that satisfy the conditional branch, reports the
// network $ref (schema/remote_ref) and never fetches it (SEP-2106).
func TestSchema2020Preserved(t *testing.T) {
	var hits atomic.Int32
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"type":"string"}`))
	}))
	defer canary.Close()
	schema := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"$defs":{"address":{"$anchor":"addr","type":"object","properties":{"city":{"type":"string","minLength":1,"description":"City."}},"required":["city"],"additionalProperties":false}},` +
		`"properties":{"kind":{"type":"string","enum":["home","work"],"description":"Kind."},"where":{"$ref":"#addr","description":"Where."},"office":{"type":"string","description":"Office."},` +
		`"note":{"type":"string","description":"Note."}},` +
		`"required":["kind","where"],"additionalProperties":false,` +
		`"allOf":[{"anyOf":[{"required":["kind"]},{"required":["where"]}]}],` +
		`"if":{"properties":{"kind":{"const":"home"}}},"then":{"required":["where"]},"else":{"required":["office"]}}`
	remote := `{"type":"object","properties":{"profile":{"$ref":"` + canary.URL + `/profile.json","description":"Profile."}},"required":["profile"]}`
	tools := `{"tools":[{"name":"lookup","description":"Looks up an address.","inputSchema":` + schema + `,"annotations":{"readOnlyHint":true,"openWorldHint":false}},` +
		`{"name":"profile","description":"Reads a profile.","inputSchema":` + remote + `,"annotations":{"readOnlyHint":true,"openWorldHint":false}}]}`
	srv := &scriptServer{script: map[string][]string{
		"initialize": {initAnswer(`{"tools":{}}`)},
		"tools/list": result(tools),
		"tools/call": result(`{"content":[{"type":"text","text":"ok"}]}`),
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res := Run(ctx, srv, &Options{CallTimeout: 2 * time.Second, Exercise: true, SkipBasics: true})
	if len(res.Tools) != 2 {
		t.Fatalf("%d tools listed", len(res.Tools))
	}
	var want, got bytes.Buffer
	_ = json.Compact(&want, []byte(schema))
	_ = json.Compact(&got, res.Tools[0].InputSchema)
	if want.String() != got.String() {
		t.Errorf("the listed schema was not kept as sent:\n got %s\nwant %s", got.String(), want.String())
	}
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Code, "schema/") && f.Code != "schema/remote_ref" {
			t.Errorf("finding on a 2020-12 keyword: %s %s %s", f.Code, f.Pointer, f.Message)
		}
	}
	if len(findingKeys(res, "schema/remote_ref")) != 1 {
		t.Errorf("the network $ref was not reported: %v", findingKeys(res, "schema/"))
	}
	if len(res.Exercised) != 2 || res.Exercised[0].Outcome != "result" || !strings.Contains(string(res.Exercised[0].Arguments), `"where":{"city":`) ||
		res.Exercised[1].Outcome != "skipped" {
		t.Errorf("exercised %+v, want lookup called with arguments that follow #addr, profile skipped (its schema cannot be compiled without the network)", res.Exercised)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the canary $ref was fetched %d times; a network $ref must never be dereferenced (SEP-2106)", n)
	}
}

// TestInlineLocalRefsBounded: a schema whose 200 properties each refer to
// the root stays bounded when its refs are inlined for --exercise.
func TestInlineLocalRefsBounded(t *testing.T) {
	props := map[string]any{}
	for i := range 200 {
		props[strings.Repeat("p", i+1)] = map[string]any{"$ref": "#"}
	}
	root := map[string]any{"type": "object", "properties": props}
	budget := maxInlinedNodes
	start := time.Now()
	_ = inlineLocalRefs(root, root, 0, &budget)
	if budget > 0 {
		t.Errorf("budget left %d: the expansion should have hit its bound", budget)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("inlining took %v", d)
	}
}
