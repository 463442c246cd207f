package probe

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestPruneSpecKeepsEveryDefinition compiles every definition a check can
// ask for, in every revision, from the pruned document the checks use and
// from the whole embedded file: each compiles from both or from neither,
// and validates the same values alike. The whole files also still
// validate against their draft's meta-schema, which the pruned document
// no longer asks the compiler to check on every run.
func TestPruneSpecKeepsEveryDefinition(t *testing.T) {
	var names []string
	for _, n := range specResultType {
		names = append(names, n)
	}
	for _, n := range specAlias {
		names = append(names, n)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	values := []string{`{}`, `null`, `{"tools":[]}`, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`,
		`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`,
		`{"prompts":[{"name":"p"}],"nextCursor":1}`, `{"resources":[{"uri":"x:/a","name":"a"}]}`, `{"content":[{"type":"text","text":"x"}]}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"m"}}`, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`}
	for _, v := range vocab.ProtocolVersions {
		whole, err := specFiles.ReadFile("spec/schema-" + v + ".json")
		if err != nil {
			t.Fatal(err)
		}
		full, err := specCompiler(v, whole)
		if err != nil {
			t.Fatal(err)
		}
		pruned := &specSchema{version: v}
		if err := pruned.load(); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		compiled := 0
		for _, name := range names {
			a, errA := full.Compile(specBaseURL + v + ".json#/" + pruned.defsKey + "/" + name)
			b, errB := pruned.compiler.Compile(specBaseURL + v + ".json#/" + pruned.defsKey + "/" + name)
			if (errA == nil) != (errB == nil) {
				t.Errorf("%s %s: whole document %v, pruned %v", v, name, errA, errB)
				continue
			}
			if errA != nil {
				if !strings.Contains(errA.Error(), "not found") {
					t.Errorf("%s %s: %v", v, name, errA)
				}
				continue
			}
			compiled++
			for _, val := range values {
				var x any
				if err := json.Unmarshal([]byte(val), &x); err != nil {
					t.Fatal(err)
				}
				// The first error named can differ from one call to the
				// next (the library walks maps); the whole set cannot.
				ea, eb := leafErrors(a.Validate(x)), leafErrors(b.Validate(x))
				if !slices.Equal(ea, eb) {
					t.Errorf("%s %s on %s: whole %q, pruned %q", v, name, val, ea, eb)
				}
			}
		}
		if compiled < 6 {
			t.Errorf("%s: only %d definitions compiled", v, compiled)
		}
	}
}

// leafErrors lists a validation error's leaves, sorted; nil for none.
func leafErrors(err error) []string {
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{err.Error()}
	}
	var out []string
	for _, e := range ve.BasicOutput().Errors {
		out = append(out, e.AbsoluteKeywordLocation+" "+e.InstanceLocation+" "+e.Error)
	}
	slices.Sort(out)
	return out
}
