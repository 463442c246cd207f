package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// trackerSchema is create_task of the wellbehaved fixture, with a shorter
// title.
const trackerSchema = `{"type":"object","properties":{
	"project_id":{"type":"string","maxLength":32,"pattern":"^prj_[0-9]+$"},
	"title":{"type":"string","maxLength":12},
	"priority":{"type":"string","enum":["low","medium","high"]},
	"estimate_hours":{"type":"number","minimum":0,"maximum":100}},
	"required":["project_id","title","priority"],"additionalProperties":false}`

// trackerProbes are the probes of trackerSchema, unknown_property aside.
var trackerProbes = []string{
	`missing_required project_id {"priority":"low","title":"mcpvet-probe"}`,
	`missing_required title {"priority":"low","project_id":"prj_0"}`,
	`missing_required priority {"project_id":"prj_0","title":"mcpvet-probe"}`,
	`wrong_type project_id {"priority":"low","project_id":12345,"title":"mcpvet-probe"}`,
	`pattern_violation project_id {"priority":"low","project_id":"not valid!","title":"mcpvet-probe"}`,
	`max_length project_id {"priority":"low","project_id":"prj_` + strings.Repeat("0", 29) + `","title":"mcpvet-probe"}`,
	`wrong_type title {"priority":"low","project_id":"prj_0","title":12345}`,
	`max_length title {"priority":"low","project_id":"prj_0","title":"xxxxxxxxxxxxx"}`,
	`wrong_type priority {"priority":12345,"project_id":"prj_0","title":"mcpvet-probe"}`,
	`enum_violation priority {"priority":"lowx","project_id":"prj_0","title":"mcpvet-probe"}`,
	`wrong_type estimate_hours {"estimate_hours":"not-a-number","priority":"low","project_id":"prj_0","title":"mcpvet-probe"}`,
	`out_of_range estimate_hours {"estimate_hours":-1,"priority":"low","project_id":"prj_0","title":"mcpvet-probe"}`,
	`out_of_range estimate_hours {"estimate_hours":101,"priority":"low","project_id":"prj_0","title":"mcpvet-probe"}`,
}

func withUnknownProperty(probes []string) []string {
	out := append([]string{}, probes...)
	return append(out, `unknown_property mcpvet_unexpected_argument {"mcpvet_unexpected_argument":"mcpvet-probe","priority":"low","project_id":"prj_0","title":"mcpvet-probe"}`)
}

func render(ps []argProbe) []string {
	var out []string
	for _, p := range ps {
		args := string(p.Args)
		if p.Args == nil {
			args = "(absent)"
		}
		out = append(out, strings.Join(strings.Fields(p.Kind+" "+p.Param), " ")+" "+args)
	}
	return out
}

func TestInvalidArguments(t *testing.T) {
	tail := []string{"empty_arguments {}", "absent_arguments (absent)"}
	tests := []struct {
		name     string
		schema   string
		runnable bool
		want     []string
		wantErr  bool
	}{
		{
			// Without the extra key the arguments are valid: a server that
			// strips unknown keys would run the tool, so no probe.
			name: "closed object, tool not safe to run", schema: trackerSchema,
			want: append(append([]string{}, trackerProbes...), tail...),
		},
		{
			name: "closed object, read-only closed-world tool", schema: trackerSchema, runnable: true,
			want: append(withUnknownProperty(trackerProbes), tail...),
		},
		{
			// The required argument is behind a $ref the generator does not
			// follow, so its placeholder is invalid and the unknown property
			// probe stays invalid without the extra key.
			name:   "closed object whose placeholder base is invalid",
			schema: `{"type":"object","properties":{"mode":{"$ref":"#/$defs/Mode"}},"required":["mode"],"additionalProperties":false,"$defs":{"Mode":{"type":"string","enum":["a","b"]}}}`,
			want: []string{
				"missing_required mode {}",
				`unknown_property mcpvet_unexpected_argument {"mcpvet_unexpected_argument":"mcpvet-probe","mode":"mcpvet-probe"}`,
				"absent_arguments (absent)",
			},
		},
		{
			name:   "$ref property: only what the whole schema proves",
			schema: `{"type":"object","properties":{"mode":{"$ref":"#/$defs/Mode"}},"required":["mode"],"$defs":{"Mode":{"type":"string","enum":["a","b"]}}}`,
			want:   []string{"missing_required mode {}", "absent_arguments (absent)"},
		},
		{
			name:   "oneOf at the root",
			schema: `{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`,
			want:   []string{`wrong_type a {"a":12345}`, `wrong_type b {"b":"not-an-integer"}`, "empty_arguments {}", "absent_arguments (absent)"},
		},
		{
			name:   "allOf hides the keywords: nothing provable",
			schema: `{"allOf":[{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}]}`,
			want:   nil,
		},
		{
			name:   "no required argument: empty and absent are valid",
			schema: `{"type":"object","properties":{"q":{"type":"string"}}}`,
			want:   []string{`wrong_type q {"q":12345}`},
		},
		{
			name:     "unevaluatedProperties false, the probe name taken",
			schema:   `{"type":"object","properties":{"mcpvet_unexpected_argument":{"type":"string"}},"unevaluatedProperties":false}`,
			runnable: true,
			want:     []string{`wrong_type mcpvet_unexpected_argument {"mcpvet_unexpected_argument":12345}`, `unknown_property mcpvet_unexpected_argument_ {"mcpvet_unexpected_argument_":"mcpvet-probe"}`},
		},
		{
			name:   "required argument without a property",
			schema: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`,
			want:   []string{`missing_required a {"b":"mcpvet-probe"}`, `missing_required b {"a":"mcpvet-probe"}`, `wrong_type a {"a":12345,"b":"mcpvet-probe"}`, "empty_arguments {}", "absent_arguments (absent)"},
		},
		{name: "no properties", schema: `{"type":"object"}`, want: nil},
		{name: "boolean schema", schema: `true`, want: nil},
		{
			name:   "integer with exclusive minimum",
			schema: `{"properties":{"n":{"type":"integer","exclusiveMinimum":0,"maximum":10}},"required":["n"]}`,
			want:   []string{"missing_required n {}", `wrong_type n {"n":"not-an-integer"}`, `out_of_range n {"n":-1}`, `out_of_range n {"n":11}`, "absent_arguments (absent)"},
		},
		{
			name:   "draft-04 boolean exclusiveMinimum",
			schema: `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"n":{"type":"number","minimum":5,"exclusiveMinimum":true}}}`,
			want:   []string{`wrong_type n {"n":"not-a-number"}`, `out_of_range n {"n":4}`},
		},
		{
			name:   "formats",
			schema: `{"properties":{"when":{"type":"string","format":"date-time"},"email":{"type":"string","format":"email"}},"required":["when"]}`,
			want: []string{
				"missing_required when {}",
				`wrong_type when {"when":12345}`,
				`format_violation when {"when":"not a valid date-time"}`,
				`wrong_type email {"email":12345,"when":"2000-01-01T00:00:00Z"}`,
				`format_violation email {"email":"not a valid email","when":"2000-01-01T00:00:00Z"}`,
				"absent_arguments (absent)",
			},
		},
		{
			name:   "unknown format is not asserted",
			schema: `{"properties":{"c":{"type":"string","format":"color"}}}`,
			want:   []string{`wrong_type c {"c":12345}`},
		},
		{
			name:   "numeric enum without type",
			schema: `{"properties":{"level":{"enum":[1,2,3]}}}`,
			want:   []string{`enum_violation level {"level":4}`},
		},
		{
			name:   "const without type",
			schema: `{"properties":{"k":{"const":"x"}},"required":["k"]}`,
			want:   []string{"missing_required k {}", "absent_arguments (absent)"},
		},
		{
			name:   "nested object is sampled, not probed inside",
			schema: `{"properties":{"opts":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}},"required":["opts"]}`,
			want:   []string{"missing_required opts {}", `wrong_type opts {"opts":"not-an-object"}`, "absent_arguments (absent)"},
		},
		{
			name:   "pattern every candidate matches",
			schema: `{"properties":{"s":{"type":"string","pattern":".*"}}}`,
			want:   []string{`wrong_type s {"s":12345}`},
		},
		{
			name:   "nullable string",
			schema: `{"properties":{"v":{"type":["string","null"]}}}`,
			want:   []string{`wrong_type v {"v":12345}`},
		},
		{
			name:   "maxLength beyond the probe's limit",
			schema: `{"properties":{"s":{"type":"string","maxLength":1000000}}}`,
			want:   []string{`wrong_type s {"s":12345}`},
		},
		{
			name:   "declaration order is kept",
			schema: `{"properties":{"zeta":{"type":"boolean"},"alpha":{"type":"array"}}}`,
			want:   []string{`wrong_type zeta {"zeta":"not-a-boolean"}`, `wrong_type alpha {"alpha":"not-an-array"}`},
		},
		{name: "remote $ref is never fetched", schema: `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, wantErr: true},
		{name: "relative $ref is never read from disk", schema: `{"properties":{"a":{"$ref":"other.json"}}}`, wantErr: true},
		{name: "file $ref is never read", schema: `{"properties":{"a":{"$ref":"file:///etc/hostname"}}}`, wantErr: true},
		{name: "pattern Go cannot parse", schema: `{"properties":{"a":{"type":"string","pattern":"^(?=a)"}}}`, wantErr: true},
		{name: "unknown dialect", schema: `{"$schema":"https://example.com/my-dialect","type":"object"}`, wantErr: true},
		{name: "not JSON", schema: `{"type":`, wantErr: true},
		{name: "too large", schema: `{"description":"` + strings.Repeat("x", maxSchemaBytes) + `"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := invalidArguments(json.RawMessage(tt.schema), tt.runnable)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, render(got)); diff != "" {
				t.Errorf("probes (-want +got):\n%s", diff)
			}
			if len(got) > 0 {
				assertAllRejected(t, tt.schema, got)
			}
		})
	}
}

// assertAllRejected validates every probe with a separately configured
// validator: none may be a valid call.
func assertAllRejected(t *testing.T, schema string, probes []argProbe) {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	if err := c.AddResource("test:///schema.json", strings.NewReader(schema)); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("test:///schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probes {
		args := p.Args
		if args == nil {
			args = json.RawMessage(`{}`)
		}
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if sch.Validate(v) == nil {
			t.Errorf("probe %s %s sends a valid call: %s", p.Kind, p.Param, args)
		}
	}
}

func TestPickProbes(t *testing.T) {
	all, err := invalidArguments(json.RawMessage(trackerSchema), true)
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(ps []argProbe) []string {
		var out []string
		for _, p := range ps {
			out = append(out, strings.TrimSpace(p.Kind+" "+p.Param))
		}
		return out
	}
	tests := []struct {
		max  int
		want []string
	}{
		{0, nil},
		{3, []string{"missing_required project_id", "wrong_type project_id", "absent_arguments"}},
		// One of each kind first, in argKindOrder, then the second round.
		{10, []string{
			"missing_required project_id", "wrong_type project_id", "absent_arguments", "enum_violation priority",
			"out_of_range estimate_hours", "pattern_violation project_id", "unknown_property mcpvet_unexpected_argument",
			"max_length project_id", "empty_arguments", "missing_required title",
		}},
		{100, kinds(func() []argProbe {
			// Every probe, round by round.
			var out []argProbe
			for round := range 4 {
				for _, k := range argKindOrder {
					n := 0
					for _, p := range all {
						if p.Kind == k {
							if n == round {
								out = append(out, p)
							}
							n++
						}
					}
				}
			}
			return out
		}())},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			got := pickProbes(all, tt.max)
			if diff := cmp.Diff(tt.want, kinds(got)); diff != "" {
				t.Errorf("picked (-want +got):\n%s", diff)
			}
		})
	}
	if n := len(pickProbes(all, 100)); n != len(all) {
		t.Errorf("a cap above the plan picked %d of %d", n, len(all))
	}
}

func TestRegexSample(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{`^prj_[0-9]+$`, "prj_0"},
		{`^[A-Z]{3}-\d{2}$`, "AAA-00"},
		{`^(foo|bar)baz$`, "foobaz"},
		{`^[a-z0-9_-]{1,64}$`, "a"},
		{`^\w+@\w+\.com$`, "a@a.com"},
		{`^.{2}$`, "aa"},
	}
	for _, tt := range tests {
		got, ok := regexSample(tt.pattern)
		if !ok || got != tt.want {
			t.Errorf("regexSample(%q) = %q, %v; want %q", tt.pattern, got, ok, tt.want)
		}
	}
}

func TestEffectiveHints(t *testing.T) {
	tests := []struct {
		annotations           string
		destructive, openWorl bool
	}{
		{``, true, true},
		{`{}`, true, true},
		{`{"readOnlyHint":true}`, false, true},
		{`{"readOnlyHint":true,"destructiveHint":true}`, false, true},
		{`{"destructiveHint":false,"openWorldHint":false}`, false, false},
		{`{"readOnlyHint":false,"destructiveHint":true,"openWorldHint":true}`, true, true},
	}
	for _, tt := range tests {
		d, o := effectiveHints(json.RawMessage(tt.annotations))
		if d != tt.destructive || o != tt.openWorl {
			t.Errorf("effectiveHints(%s) = %v, %v; want %v, %v", tt.annotations, d, o, tt.destructive, tt.openWorl)
		}
	}
}

func TestNearMiss(t *testing.T) {
	tests := []struct {
		name  string
		taken []string
		want  string
	}{
		{"echo", []string{"echo"}, "ech"},
		{"ab", []string{"ab", "a"}, "ax"},
		{"ax", []string{"ax", "a"}, "az"},
		{"get_projects", []string{"get_projects", "get_project"}, "get_projectx"},
		{"héllo", []string{"héllo"}, "héll"},
	}
	for _, tt := range tests {
		taken := map[string]bool{}
		for _, n := range tt.taken {
			taken[n] = true
		}
		if got := nearMiss(tt.name, taken); got != tt.want {
			t.Errorf("nearMiss(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestUnknownResourceURI(t *testing.T) {
	tests := []struct {
		name string
		res  Result
		want string
	}{
		{"no resources", Result{}, unknownURI},
		{"misspelt", Result{Resources: []Resource{{URI: "file:///a.txt"}}}, "file:///a.tx"},
		{
			"a template would match the misspelling",
			Result{Resources: []Resource{{URI: "docs://guide/intro"}}, ResourceTemplates: []ResourceTemplate{{URITemplate: "docs://guide/{page}"}}},
			unknownURI,
		},
	}
	for _, tt := range tests {
		if got := unknownResourceURI(&tt.res); got != tt.want {
			t.Errorf("%s: unknownResourceURI = %q, want %q", tt.name, got, tt.want)
		}
	}
}
