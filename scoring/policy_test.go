package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
)

func TestLoadPolicy(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    *Policy
		wantErr string
	}{
		{name: "empty object keeps the defaults", data: `{}`, want: DefaultPolicy()},
		{name: "byte order mark", data: "\xef\xbb\xbf{\"minScore\": 50}",
			want: &Policy{MinScore: 50, FixSeverities: []probe.Severity{"error", "warn"}}},
		{name: "all fields", data: `{"minScore": 85.5, "fixSeverities": ["error"], "ignoreFindings": ["annotations/missing_read_only_hint"]}`,
			want: &Policy{MinScore: 85.5, FixSeverities: []probe.Severity{"error"}, IgnoreFindings: []string{"annotations/missing_read_only_hint"}}},
		{name: "minScore exactly 0", data: `{"minScore": 0}`,
			want: &Policy{MinScore: 0, FixSeverities: []probe.Severity{"error", "warn"}}},
		{name: "minScore exactly 100", data: `{"minScore": 100}`,
			want: &Policy{MinScore: 100, FixSeverities: []probe.Severity{"error", "warn"}}},
		{name: "minScore just over 100", data: `{"minScore": 100.01}`,
			wantErr: `policy: "minScore": 100.01 is out of range; use 0 to 100`},
		{name: "minScore just under 0", data: `{"minScore": -0.01}`,
			wantErr: `policy: "minScore": -0.01 is out of range; use 0 to 100`},
		{name: "no severity fixes", data: `{"fixSeverities": []}`,
			want: &Policy{MinScore: 70, FixSeverities: []probe.Severity{}}},
		{name: "empty file", data: "  \n",
			wantErr: `policy: the file is empty; use {} for the defaults or an object such as {"minScore": 70}`},
		{name: "syntax error", data: `{"minScore": }`,
			wantErr: `policy: invalid JSON at byte 14 (invalid character '}' looking for beginning of value); the file must be one JSON object such as {"minScore": 70}`},
		{name: "not an object", data: `[70]`,
			wantErr: `policy: the file holds a JSON array; it must be one JSON object such as {"minScore": 70}`},
		{name: "null", data: `null`,
			wantErr: `policy: the file holds null; it must be one JSON object such as {"minScore": 70}`},
		{name: "unknown field with a case hint", data: `{"minscore": 70}`,
			wantErr: `policy: unknown field "minscore" (did you mean "minScore"?); known fields are "minScore", "fixSeverities" and "ignoreFindings"`},
		{name: "unknown field", data: `{"threshold": 70}`,
			wantErr: `policy: unknown field "threshold"; known fields are "minScore", "fixSeverities" and "ignoreFindings"`},
		{name: "score out of range", data: `{"minScore": 140}`,
			wantErr: `policy: "minScore": 140 is out of range; use 0 to 100`},
		{name: "negative score", data: `{"minScore": -1}`,
			wantErr: `policy: "minScore": -1 is out of range; use 0 to 100`},
		{name: "score as string", data: `{"minScore": "high"}`,
			wantErr: `policy: "minScore": "high" is not a number; use a number from 0 to 100`},
		{name: "severities not a list", data: `{"fixSeverities": "warn"}`,
			wantErr: `policy: "fixSeverities": "warn" is not a list of strings; use a list such as ["error", "warn"]`},
		{name: "fatal severity", data: `{"fixSeverities": ["fatal"]}`,
			wantErr: `policy: "fixSeverities": "fatal" is not allowed because fatal findings always drop; use "error", "warn" or "info"`},
		{name: "unknown severity", data: `{"fixSeverities": ["critical"]}`,
			wantErr: `policy: "fixSeverities": "critical" is not a severity; use "error", "warn" or "info"`},
		{name: "bad finding code", data: `{"ignoreFindings": ["leaks"]}`,
			wantErr: `policy: "ignoreFindings": "leaks" is not a finding code; use "area/name" codes such as "annotations/missing_read_only_hint"`},
		{name: "ignore not a list", data: `{"ignoreFindings": {"a": 1}}`,
			wantErr: `policy: "ignoreFindings": {"a": 1} is not a list of strings; use a list of finding codes such as ["annotations/missing_read_only_hint"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadPolicy([]byte(tt.data))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("LoadPolicy error = %v\nwant %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadPolicy: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LoadPolicy (-want +got):\n%s", diff)
			}
		})
	}
}

// TestQuoteJoin pins the list form of the policy's error messages at every
// length, including two items (where "and" first appears).
func TestQuoteJoin(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, `"a"`},
		{[]string{"a", "b"}, `"a" and "b"`},
		{[]string{"a", "b", "c"}, `"a", "b" and "c"`},
	} {
		if got := quoteJoin(tt.in); got != tt.want {
			t.Errorf("quoteJoin(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
