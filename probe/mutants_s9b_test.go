package probe

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// Tests for the mutation survivors of session 9 in probe/inject_args.go
// from line 511 on (docs/testing.md, "Survivors of session 9
// (probe/inject_args.go, lines 511 on)"): which invalid value failure
// injection sends for which schema, and which harmless value the other
// required arguments carry, on property schemas of the kinds real servers
// publish (zod's .positive(), pydantic's gt/lt, draft-04 boolean
// exclusive bounds, phone and slug patterns, TEXT-sized strings).

// s9bDecode decodes a schema text the way the generator does (numbers as
// json.Number).
func s9bDecode(t *testing.T, schema string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := decodeNumbers([]byte(schema), &m); err != nil {
		t.Fatalf("decoding %s: %v", schema, err)
	}
	return m
}

// s9bValues returns, for each probe of kind on param that invalidArguments
// generates from schema, the JSON text of the param's value.
func s9bValues(t *testing.T, schema, kind, param string) []string {
	t.Helper()
	probes, err := invalidArguments(json.RawMessage(schema), false)
	if err != nil {
		t.Fatalf("invalidArguments: %v", err)
	}
	var out []string
	for _, p := range probes {
		if p.Kind != kind || p.Param != param {
			continue
		}
		var args map[string]json.RawMessage
		if err := json.Unmarshal(p.Args, &args); err != nil {
			t.Fatalf("probe args %s: %v", p.Args, err)
		}
		out = append(out, string(args[param]))
	}
	return out
}

// TestS9bSampleNumbers: the harmless value a required numeric argument
// carries in every probe of its tool is inside its own bounds (so the
// probe's one defect is the one the server reports), and is 0 when 0 is
// inside them, else the bound itself or one step inside an exclusive one.
func TestS9bSampleNumbers(t *testing.T) {
	const draft4 = `"$schema":"http://json-schema.org/draft-04/schema#",`
	tests := []s9bSampleCase{
		{"page from 1 (GitHub list_issues)", `{"type":"integer","minimum":1,"maximum":100}`, "1"},
		{"latitude", `{"type":"number","minimum":-90,"maximum":90}`, "0"},
		{"days relative to today, up to 0", `{"type":"integer","minimum":-100,"maximum":0}`, "0"},
		{"zod positive int", `{"type":"integer","exclusiveMinimum":0}`, "1"},
		{"zod positive number", `{"type":"number","exclusiveMinimum":0}`, "1"},
		{"zod negative int", `{"type":"integer","exclusiveMaximum":0}`, "-1"},
		{"zod negative number", `{"type":"number","exclusiveMaximum":0}`, "-1"},
		{"exclusive lower bound below 0", `{"type":"integer","exclusiveMinimum":-10,"maximum":10}`, "0"},
		{"exclusive upper bound above 0", `{"type":"integer","exclusiveMaximum":10}`, "0"},
		{"pydantic ge=0 and gt=0", `{"type":"integer","minimum":0,"exclusiveMinimum":0}`, "1"},
		{"exclusive lower bound above the minimum", `{"type":"integer","minimum":0,"exclusiveMinimum":5}`, "6"},
		{"pydantic le=0 and lt=0", `{"type":"number","maximum":0,"exclusiveMaximum":0}`, "-1"},
		{"exclusive upper bound below the maximum", `{"type":"number","maximum":0,"exclusiveMaximum":-5}`, "-6"},
		{"draft-04 exclusive minimum", `{` + draft4 + `"type":"integer","minimum":0,"exclusiveMinimum":true}`, "1"},
		{"draft-04 exclusive maximum", `{` + draft4 + `"type":"integer","maximum":0,"exclusiveMaximum":true}`, "-1"},
		{"fractional minimum", `{"type":"number","minimum":0.25,"maximum":1}`, "0.25"},
	}
	s9bCheckSamples(t, tests)
}

// TestS9bSampleOpenInterval: a number strictly between two bounds less
// than 1 apart (pydantic's gt=0, lt=1 for a ratio) gets the midpoint; the
// step of 1 inside a bound used to land past the other one, so every
// probe of the tool carried a second defect (found by the survivors of
// sampleNumber, session 9).
func TestS9bSampleOpenInterval(t *testing.T) {
	s9bCheckSamples(t, []s9bSampleCase{
		{"pydantic gt=0 lt=1 (a ratio)", `{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`, "0.5"},
		{"open interval narrower than 1", `{"type":"number","exclusiveMinimum":2,"exclusiveMaximum":2.5}`, "2.25"},
		{"closed below, open above", `{"type":"number","minimum":-0.5,"exclusiveMaximum":-0.25}`, "-0.375"},
		{"open below, closed above", `{"type":"number","exclusiveMinimum":0.5,"maximum":1}`, "1"},
	})
}

type s9bSampleCase struct{ name, schema, want string }

// s9bCheckSamples checks the harmless value of each property schema, and
// that the schema accepts it.
func s9bCheckSamples(t *testing.T, tests []s9bSampleCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(sample(s9bDecode(t, tc.schema), 0))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("sample of %s = %s, want %s", tc.schema, got, tc.want)
			}
			sch, err := compileInputSchema(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if rejects(sch, got) {
				t.Errorf("sample %s breaks its own schema %s", got, tc.schema)
			}
		})
	}
}

// TestS9bOutOfRange: the out_of_range probes of a numeric argument are one
// below its lower bound and one above its upper bound, written as plain
// integers, also for a property that declares bounds but no type.
func TestS9bOutOfRange(t *testing.T) {
	tests := []struct {
		name, schema, param string
		want                []string
	}{
		{
			name:   "bounds without a type",
			schema: `{"type":"object","properties":{"limit":{"description":"Maximum results","minimum":1,"maximum":50}}}`,
			param:  "limit", want: []string{"0", "51"},
		},
		{
			name:   "amount in cents up to a million",
			schema: `{"type":"object","properties":{"amount_cents":{"type":"integer","minimum":1,"maximum":1000000}},"required":["amount_cents"]}`,
			param:  "amount_cents", want: []string{"0", "1000001"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := s9bValues(t, tc.schema, KindOutOfRange, tc.param)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("out_of_range values (-want +got):\n%s", diff)
			}
		})
	}
}

// TestS9bFormatNumber: numbers are written in full up to 1e15 and in
// exponent form from there; a fraction keeps all its digits.
func TestS9bFormatNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{1000001, "1000001"},
		{-90, "-90"},
		{999999999999999, "999999999999999"},
		{1e15, "1e+15"},
		{0.25, "0.25"},
		{2.125, "2.125"},
	} {
		if got := formatNumber(tc.v); string(got) != tc.want {
			t.Errorf("formatNumber(%v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

// s9bNest wraps inner in n levels of open + ... + close.
func s9bNest(n int, open, inner, close string) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// TestS9bRegexSample: the sample built from a pattern's syntax tree takes
// a letter, else a digit, of each class (separators and blanks read
// worse and are often special), and the walk gives up past 50 levels of
// nesting, whatever nests them, or past 256 bytes of sample.
func TestS9bRegexSample(t *testing.T) {
	alt := "a"
	for i := 0; i < 26; i++ {
		alt = "(?:" + alt + "b|c)"
	}
	alt25 := "a"
	for i := 0; i < 25; i++ {
		alt25 = "(?:" + alt25 + "b|c)"
	}
	tests := []struct {
		name, pat, want string
		ok              bool
	}{
		{"file mode flags: the letter", `^[-+rwa]+$`, "a", true},
		{"phone number: a digit, not a blank", `^[0-9 +()-]{7,20}$`, "0000000", true},
		{"padded with blanks or zeros: the zero", `^[ 0]{2}[1-9]$`, "001", true},
		{"separator class without letter or digit", `^[a-z]+[-_.][0-9]+$`, "a-0", true},
		{"RSA-1024 signature in hex, 256 bytes", `^[0-9a-f]{256}$`, strings.Repeat("a", 256), true},
		{"257 bytes", `^[0-9a-f]{257}$`, "", false},
		{"50 nested groups", s9bNest(50, "(", "a", ")"), "a", true},
		{"51 nested groups", s9bNest(51, "(", "a", ")"), "", false},
		{"25 nested alternations", alt25, "a" + strings.Repeat("b", 25), true},
		{"26 nested alternations", alt, "", false},
		{"25 nested repeated groups", s9bNest(25, "(", "a", ")+"), "a", true},
		{"26 nested repeated groups", s9bNest(26, "(", "a", ")+"), "", false},
		{"25 nested counted groups", s9bNest(25, "(", "a", "){1}"), "a", true},
		{"26 nested counted groups", s9bNest(26, "(", "a", "){1}"), "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := regexSample(tc.pat)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("regexSample(%q) = %q, %v; want %q, %v", tc.pat, got, ok, tc.want, tc.ok)
			}
			if ok && !regexp.MustCompile(tc.pat).MatchString(got) {
				t.Errorf("sample %q does not match %q", got, tc.pat)
			}
		})
	}
}

// TestS9bPatternViolation: the string sent to break a pattern respects the
// property's length bounds, counted in characters, so the pattern is the
// one defect: "not valid!" (10 characters) when minLength and maxLength
// allow it, a shorter one otherwise.
func TestS9bPatternViolation(t *testing.T) {
	tests := []struct {
		name, prop string
		want       []string
	}{
		{"phone number of at least 10", `{"type":"string","pattern":"^\\+?[0-9]{10,15}$","minLength":10,"maxLength":16}`, []string{`"not valid!"`}},
		{"username of at most 10", `{"type":"string","pattern":"^[a-z0-9_]+$","maxLength":10}`, []string{`"not valid!"`}},
		{"code of at most 5", `{"type":"string","pattern":"^[A-Z]+$","maxLength":5}`, []string{`"!"`}},
		{"at least 11: no candidate", `{"type":"string","pattern":"^[0-9]+$","minLength":11}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := `{"type":"object","properties":{"v":` + tc.prop + `},"required":["v"]}`
			got := s9bValues(t, schema, KindPatternViolation, "v")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pattern_violation values (-want +got):\n%s", diff)
			}
		})
	}
}

// TestS9bTooLong: the max_length probe is one character past maxLength,
// up to the 64 KiB cap: a TEXT column's 65535 is probed with 65536
// characters, 65536 is not probed, and maxLength 0 is probed with "x".
func TestS9bTooLong(t *testing.T) {
	tests := []struct {
		name    string
		max     int
		wantLen int // -1: no probe
	}{
		{"TEXT column", 65535, 65536},
		{"past the cap", 65536, -1},
		{"must be empty", 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := `{"type":"object","properties":{"note":{"type":"string","maxLength":` + strconv.Itoa(tc.max) + `}}}`
			got := s9bValues(t, schema, KindMaxLength, "note")
			if tc.wantLen < 0 {
				if len(got) != 0 {
					t.Fatalf("max_length probes for maxLength %d: %d, want none", tc.max, len(got))
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("max_length probes for maxLength %d: %d, want 1", tc.max, len(got))
			}
			var s string
			if err := json.Unmarshal([]byte(got[0]), &s); err != nil {
				t.Fatal(err)
			}
			if n := utf8.RuneCountInString(s); n != tc.wantLen || strings.Trim(s, "x") != "" {
				t.Errorf("max_length value: %d characters (all x: %v), want %d x's", n, strings.Trim(s, "x") == "", tc.wantLen)
			}
		})
	}
}

// TestS9bIntKeyword: a count keyword (minLength, maxLength, minItems) is
// read from 0 to 2^31-1; a negative or larger one is ignored.
func TestS9bIntKeyword(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int
		ok   bool
	}{
		{"0", 0, true},
		{"-1", 0, false},
		{"2147483647", 2147483647, true},
		{"2147483648", 0, false},
	} {
		n, ok := intKeyword(s9bDecode(t, `{"maxLength":`+tc.v+`}`), "maxLength")
		if n != tc.want || ok != tc.ok {
			t.Errorf("intKeyword(maxLength %s) = %d, %v; want %d, %v", tc.v, n, ok, tc.want, tc.ok)
		}
	}
}

// TestS9bWrongTypeUnion: for an argument that is a string or an integer
// (an issue "id or key"), the wrong-type probe sends a boolean, not a
// number: 12345 is an integer and the schema accepts it.
func TestS9bWrongTypeUnion(t *testing.T) {
	tests := []struct {
		name, prop string
		want       []string
	}{
		{"string or integer", `{"type":["string","integer"]}`, []string{"true"}},
		{"string or number", `{"type":["string","number"]}`, []string{"true"}},
		{"number", `{"type":"number"}`, []string{`"not-a-number"`}},
		{"boolean or number", `{"type":["boolean","number"]}`, []string{`"not-a-boolean"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := `{"type":"object","properties":{"id":` + tc.prop + `},"required":["id"]}`
			got := s9bValues(t, schema, KindWrongType, "id")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("wrong_type values (-want +got):\n%s", diff)
			}
		})
	}
	if got := jsonTypeOf(json.Number("1.5")); got != "number" {
		t.Errorf(`jsonTypeOf(1.5) = %q, want "number"`, got)
	}
	if got := jsonTypeOf(json.Number("12345")); got != "integer" {
		t.Errorf(`jsonTypeOf(12345) = %q, want "integer"`, got)
	}
}
