package scoring

import (
	"strings"
	"testing"
)

// Tests that kill the survivors issue 26's session 6 shard left in
// elem_param.go (29 lived at the blob of c156782; see docs/testing.md
// "Survivors of session 7"). Each was checked by applying the one mutant
// with go test -overlay: FAIL with it, ok without.

// TestNameWordsEdges: nameWords spells a compound name in words, and
// refuses a separator at either end or two in a row (:121 `len(n)-1`,
// `n[i-1]` -> `+1`), upper case A and Z (:126), a capital after a
// lower-case a or z (:127), a trailing capital (:127 `n[i-1]` -> `n[i+1]`
// reads past the end) and a lower-case z (:132).
func TestNameWordsEdges(t *testing.T) {
	for n, want := range map[string]string{
		"ab_": "", "_ab": "", "a_-b": "", "a-_b": "", "a__b": "",
		"byAuthor": "by author", "isZip": "is zip", "dataSet": "data set", "fizzBuzz": "fizz buzz",
		"getURL": "get url", "sizeX": "size x", "zip_code": "zip code", "max-size": "max size",
	} {
		if got := nameWords(n); got != want {
			t.Errorf("nameWords(%q) = %q, want %q", n, got, want)
		}
	}
}

// TestListedWithParamEdges: a name listed after another argument of the
// tool, by a comma (:257 `s[j-1]` -> `s[j+1]`), by "or" (:261), at the
// start of the text (:268, :272 `j > 0`, `k > 0` -> `>=` read s[-1]), a
// hyphenated argument (:272 `s[k-1] == '-'` -> `s[k+1]`), and the name
// first at byte 0 and listed later (:248 `i < 0` -> `<=`).
func TestListedWithParamEdges(t *testing.T) {
	in := newInput(&Response{}, &Context{ParamNames: []string{"channel_id", "text", "a-b"}})
	for _, tt := range []struct {
		s, name string
		want    int
	}{
		{"Missing: channel_id, text", "text", 21},
		{"Missing: channel_id or text", "text", 23},
		{"Missing: channel_id and text", "text", 24},
		{"channel_id, text", "text", 12},
		{", text", "text", -1},
		{"use a-b, text", "text", 9},
		{"text is missing: channel_id and text", "text", 32},
		{"Missing: channel_id text", "text", -1},
	} {
		if got := in.listedWithParam(tt.s, tt.name); got != tt.want {
			t.Errorf("listedWithParam(%q, %q) = %d, want %d", tt.s, tt.name, got, tt.want)
		}
	}
}

// TestInToolWordsAtTheStart: the tool's name in words at byte 0 of the
// text (:325 `k < 0` -> `<=`), and a mention that starts where the tool's
// words start (:329 `k <= i` -> `<`), lie inside the tool's name.
func TestInToolWordsAtTheStart(t *testing.T) {
	for _, tt := range []struct {
		low  string
		i, j int
		want bool
	}{
		{"select account failed", 7, 14, true},
		{"failed to select account", 10, 16, true},
		{"failed to select account", 17, 24, true},
		{"failed to select: account", 18, 25, false},
	} {
		if got := inToolWords(tt.low, tt.i, tt.j, "select account"); got != tt.want {
			t.Errorf("inToolWords(%q, %d, %d) = %v, want %v", tt.low, tt.i, tt.j, got, tt.want)
		}
	}
}

// TestFindNameOutsideSecondMention: after a mention inside the tool's
// words, the next one outside them is returned at its own place (:344
// `j+from` -> `j-from`).
func TestFindNameOutsideSecondMention(t *testing.T) {
	s := "Failed to select account: the account_id field is empty"
	seg := segment{s: s, lower: strings.ToLower(s)}
	i, j, ok := findNameOutside(seg, "account_id", "select account")
	if !ok || s[i:j] != "account_id" {
		t.Fatalf("findNameOutside = %d, %d, %v", i, j, ok)
	}
	s = "select account: account not found; account is required"
	seg = segment{s: s, lower: s}
	i, j, ok = findNameOutside(seg, "account", "select account")
	if want := strings.Index(s, ": account") + 2; !ok || i != want || j != want+len("account") {
		t.Errorf("findNameOutside = %d, %d, %v; want %d, %d", i, j, ok, want, want+len("account"))
	}
}

// TestParamAtByteZero: a four-letter name written as an acronym (:66
// `len(n) <= 4` -> `<`) and a compound name spelled in words at the start
// of the text (:84 `>= 0` -> `>`) name the parameter.
func TestParamAtByteZero(t *testing.T) {
	for _, tt := range []struct{ param, text string }{
		{"uuid", "Error: UUID is not a v4 one"},
		{"connectionString", "connection string is malformed"},
	} {
		c := Context{ToolNames: []string{"open_db"}, ParamNames: []string{tt.param}, Required: []string{tt.param}}
		g := Grade(Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "open_db", Param: tt.param, Sent: raw(`"zz-9"`),
			Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: tt.text}, c)
		if !g.Pass(ElemParam) {
			t.Errorf("%q for %s: param fails: %s", tt.text, tt.param, evidenceOf(g, ElemParam))
		}
	}
}
