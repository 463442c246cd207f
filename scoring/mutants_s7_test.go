package scoring

import (
	"slices"
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

// elem_next_action.go (session 7 shard at aefdb64: 38 lived).

// TestNextActionWordEdges: prevWordApos skips a tab and keeps an
// apostrophe (:55:36, :59:38); hasCue splits words at the right bytes
// (isWordByte :184: a, z, 0 and what is below '0') and skips an
// identifier only to its end (:90:54).
func TestNextActionWordEdges(t *testing.T) {
	for _, tt := range []struct {
		s    string
		i    int
		want string
	}{{"not\tretry", 4, "not"}, {"don't retry", 6, "don't"}} {
		if got := prevWordApos(tt.s, tt.i); got != tt.want {
			t.Errorf("prevWordApos(%q, %d) = %q, want %q", tt.s, tt.i, got, tt.want)
		}
	}
	for s, want := range map[string]bool{
		"git_cherry_pick failed. retry later": true,
		"call it":                             true,
		"please retry later":                  true,
		"the fizzretry field":                 false,
		"code 0retry":                         false,
		"code 9retry":                         false,
	} {
		if got := hasCue(s); got != want {
			t.Errorf("hasCue(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestObjectOfCueEdges: the name first at byte 0 and then after a cue
// (:118:8), a name joined to a path (:122:28), a noun between two words
// that are not determiners (:134), a negated cue (:139:57, :139:64) and a
// cue that opens a condition (:139:102, :139:109).
func TestObjectOfCueEdges(t *testing.T) {
	for _, tt := range []struct {
		low, name string
		want      bool
	}{
		{"query missing; provide query as a string", "query", true},
		{"provide query/v2", "query", false},
		{"retry over value limit", "limit", false},
		{"do not provide query", "query", false},
		{"when using query", "query", false},
		{"provide query", "query", true},
	} {
		if got := objectOfCue(tt.low, tt.name); got != tt.want {
			t.Errorf("objectOfCue(%q, %q) = %v, want %v", tt.low, tt.name, got, tt.want)
		}
	}
}

// TestInIdentifierDots: a dot or colon joins two words only between a
// letter or digit on each side, and one at the end of the text joins
// nothing (:154).
func TestInIdentifierDots(t *testing.T) {
	for _, tt := range []struct {
		low  string
		i, j int
		want bool
	}{
		{"retry. now", 0, 5, false},
		{" .retry", 2, 7, false},
		{".retry", 1, 6, false},
		{"retry.", 0, 5, false},
		{"config.set", 7, 10, true},
		{"config.set", 0, 6, true},
	} {
		if got := inIdentifier(tt.low, tt.i, tt.j); got != tt.want {
			t.Errorf("inIdentifier(%q, %d, %d) = %v, want %v", tt.low, tt.i, tt.j, got, tt.want)
		}
	}
}

// TestSentencesEdges: a stop ends a sentence before a newline or a tab
// (:199), a sentence of nothing is dropped (:217), trailing blanks are cut
// and an empty one at byte 0 reads nothing before it (:214).
func TestSentencesEdges(t *testing.T) {
	for s, want := range map[string][][2]int{
		"a.\nb": {{0, 1}, {3, 4}},
		"a.\tb": {{0, 1}, {3, 4}},
		";x":    {{1, 2}},
		"a  ;":  {{0, 1}},
		";;":    nil,
	} {
		if got := sentences(s); !slices.Equal(got, want) {
			t.Errorf("sentences(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestNextActionPaths: the first sentence rejected as a human's action is
// named (:293), a tools/list call is the evidence (:302), a two-letter
// tool (:305) and a tool at byte 0 (:308) are next actions, "use one of
// these" is a reference (:327), "please" at the very end reads nothing
// past it (:350), and "please get" names a three-letter tool (:358).
func TestNextActionPaths(t *testing.T) {
	grade := func(text string, c Context) (bool, string) {
		return gradeNextAction(newInput(&Response{Kind: KindUnknownTool, Method: "tools/call", Tool: "zz_called", Class: ClassToolError, Text: text}, &c))
	}
	if ok, ev := grade("Use npx foo in a terminal. Then contact support.", Context{}); ok || !strings.Contains(ev, "not executable by the agent: text[0:25]") {
		t.Errorf("human action: %v %q", ok, ev)
	}
	if ok, ev := grade("Unknown tool. Then call tools/list to see them.", Context{}); !ok || !strings.Contains(ev, `text[19:34] "call tools/list"`) {
		t.Errorf("tools/list: %v %q", ok, ev)
	}
	if ok, ev := grade("Use ls first.", Context{ToolNames: []string{"ls"}}); !ok {
		t.Errorf("a two-letter tool: %v %q", ok, ev)
	}
	if ok, ev := grade("list_files, then retry.", Context{ToolNames: []string{"list_files"}}); !ok {
		t.Errorf("a tool at byte 0: %v %q", ok, ev)
	}
	if ok, ev := grade("Unknown method. Use one of these methods.", Context{}); ok {
		t.Errorf("use one of these: %v %q", ok, ev)
	}
	if ok, ev := grade("Retry later please", Context{ToolNames: []string{"login"}}); ok {
		t.Errorf("please at the end: %v %q", ok, ev)
	}
	in := newInput(&Response{Tool: "other"}, &Context{ToolNames: []string{"get", "other"}})
	if got := in.pleaseTool("please get the id first"); got != "get" {
		t.Errorf("pleaseTool = %q, want get", got)
	}
}

// match.go (session 7 shard at fe6744e).

// TestIsIdentEdges: the ends of each byte range of a name (:18).
func TestIsIdentEdges(t *testing.T) {
	for c, want := range map[byte]bool{
		'a': true, 'z': true, 'A': true, 'Z': true, '0': true, '9': true, '_': true, '-': true,
		'`': false, '{': false, '@': false, '[': false, '/': false, ':': false, '.': false, ' ': false,
	} {
		if got := isIdent(c); got != want {
			t.Errorf("isIdent(%q) = %v, want %v", c, got, want)
		}
	}
}
