package scoring

import (
	"encoding/json"
	"strings"
	"testing"
)

// Tests that kill the survivors of scoring/elem_code.go (session 8's
// measure, clone /tmp/s8b at 35ee629). Session 8 settled them twice, in
// tests that overlapped (docs/testing.md "Survivors of session 8
// (scoring)" and "Survivors of session 8 (scoring elem_code.go)");
// session 9 merged each pair into one test here, keeping every distinct
// case and assertion. Each kill is checked with `go run
// ./internal/mutantrun -verify`: KILLED with the mutant, and the test
// passes without it. Positions are elem_code.go's lines and columns.

// codeGraded grades r as a tool error of get_forecast through gradeCode,
// fails t if Grade's code element says otherwise, and returns gradeCode's
// answer and evidence.
func codeGraded(t *testing.T, r Response, c Context) (bool, string) {
	t.Helper()
	r.Kind, r.Method, r.Class = KindRuntime, "tools/call", ClassToolError
	if r.Tool == "" {
		r.Tool = "get_forecast"
	}
	if c.ToolNames == nil {
		c.ToolNames = []string{"get_forecast"}
	}
	ok, ev := gradeCode(newInput(&r, &c))
	if g := Grade(r, c).Pass(ElemCode); g != ok {
		t.Errorf("%.40q: Grade's code element %v, gradeCode %v (%s)", r.Text, g, ok, ev)
	}
	return ok, ev
}

// TestCodeFieldAndTokenEdges: a "code" field of exactly 64 bytes is a code
// (:33:25 `len(v) <= 64` -> `<`), one of 65 is not; an UPPER_SNAKE code
// counts in a text whose first '_' is at byte 0 (:46:47 `>= 0` -> `>`:
// the text taken for one without underscores); a namespaced code that
// opens the text counts (:177:30 `k >= 0` -> `>`); an UPPER_SNAKE token
// ending a sentence ("RATE_LIMIT.") is a code, not a file name with an
// empty extension (:344:11, :344:14); the string value sent, and the leaf
// of a dotted parameter, are names, not codes, while a number sent hides
// no token (:318:58 `in.sentType == 's'` negated, :321:16 `in.r.Param !=
// ""` negated). Each case is graded by gradeCode and by Grade.
func TestCodeFieldAndTokenEdges(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, tt := range []struct {
		name string
		r    Response
		ok   bool
		ev   string // gradeCode's evidence, when checked
	}{
		{"64-byte code field", Response{Text: `{"code":"` + long + `"}`}, true, `text.code = "` + long + `"`},
		{"65-byte code field", Response{Text: `{"code":"` + long + `a"}`}, false, ""},
		{"underscore first", Response{Text: "__call__ raised QUOTA_EXCEEDED"}, true, `text[16:30] "QUOTA_EXCEEDED"`},
		{"namespaced code first", Response{Text: "auth/expired_token"}, true, `text[0:18] "auth/expired_token"`},
		{"code ends a sentence", Response{Text: "Failed: RATE_LIMIT. Try again later"}, true, ""},
		{"file name", Response{Text: "Failed: cannot open SOURCE_MAP.json now"}, false, ""},
		{"sent string is a name", Response{Text: "bad_value is not allowed", Param: "mode", Sent: json.RawMessage(`"bad_value"`)}, false, ""},
		{"sent number hides nothing", Response{Text: "bad_value is not allowed", Param: "mode", Sent: json.RawMessage(`17`)}, true, ""},
		{"leaf of a dotted param", Response{Text: "sort_order: must be asc or desc", Param: "options.sort_order", Sent: json.RawMessage(`"up"`)}, false, ""},
		{"not the param", Response{Text: "sort_order: must be asc or desc", Param: "options.limit", Sent: json.RawMessage(`"up"`)}, true, ""},
	} {
		ok, ev := codeGraded(t, tt.r, Context{})
		if ok != tt.ok || tt.ev != "" && ev != tt.ev {
			t.Errorf("%s: gradeCode(%.40q) = %v, %q, want %v, %q", tt.name, tt.r.Text, ok, ev, tt.ok, tt.ev)
		}
	}
}

// TestErrnoScanEdges: maybeErrno looks for an 'E' and three capitals, A
// to Z, up to the last byte: it stops at a text that ends two bytes after
// an 'E' (:95:52 `i+3 < len(s)` -> `<=`: read past the end, a panic) and
// goes on past an 'E' right after another (:100:8 `j < 0` -> `<=`);
// isUpper holds A and Z (:108:38, :108:50). Of several errno names the
// first in the text is the code, also at byte 0, for findErrno (a text
// without '_') and errnoAt (:118:51 `best < 0` -> `<=`, :118:60 `i <
// best` negated; :296:37, :296:51, :296:60 negated, :300:10 `best < 0` ->
// `<=`). The names are searched in a map's order, which is random, so
// each text is asked 64 times: a mutant that keeps a later name only in
// some orders is caught in one of them.
func TestErrnoScanEdges(t *testing.T) {
	for s, want := range map[string]bool{
		"failed: ENO": false, "EEab ENOENT": true, "ENOENT": true, "xEAB": false, "EAZ": false, "EAZX": true,
		"E@@@": false, "E[[[": false, "": false,
	} {
		if got := maybeErrno(s); got != want {
			t.Errorf("maybeErrno(%q) = %v, want %v", s, got, want)
		}
	}
	for c, want := range map[byte]bool{'A': true, 'Z': true, '@': false, '[': false, 'a': false} {
		if got := isUpper(c); got != want {
			t.Errorf("isUpper(%q) = %v, want %v", c, got, want)
		}
	}
	for _, tt := range []struct {
		s          string
		start, end int
	}{
		{"ENOENT, then EACCES and EPERM", 0, 6},
		{"open x: EACCES then ENOENT", 8, 14},
		{"ENOENT: no such file, open data_dir", 0, 6},
		{"ENOENT", 0, 6},
	} {
		seg := segment{label: "text", s: tt.s, lower: asciiLower(tt.s)}
		for range 64 {
			if !strings.Contains(tt.s, "_") {
				ev, ok := findErrno(seg)
				if want := span(seg, tt.start, tt.end); !ok || ev != want {
					t.Fatalf("findErrno(%q) = %q, %v; want %q", tt.s, ev, ok, want)
				}
			}
			if at, ok := errnoAt(seg); !ok || at != [2]int{tt.start, tt.end} {
				t.Fatalf("errnoAt(%q) = %v, %v; want [%d %d]", tt.s, at, ok, tt.start, tt.end)
			}
		}
	}
}

// TestSnakeShapes: a code token starts with any letter a-z or A-Z (the
// byte ranges of isLetter, :188 x4); an '_' stands only between two name
// bytes (:193:16 negated: every token well formed); UPPER_SNAKE is A-Z,
// 0-9 and '_' (:203 x4); lower_snake has only a-z, 0-9 and '_' (:211:16
// `i < len(t)` negated: every token lower snake; :212 x4, the ends of
// its ranges), so "ERR_404" and "code: err_9" are codes, through
// gradeCode and Grade.
func TestSnakeShapes(t *testing.T) {
	for c, want := range map[byte]bool{'a': true, 'z': true, 'A': true, 'Z': true, '`': false, '{': false, '@': false, '[': false, '0': false} {
		if got := isLetter(c); got != want {
			t.Errorf("isLetter(%q) = %v, want %v", c, got, want)
		}
	}
	for s, want := range map[string]bool{"AZ09_": true, "A_Z": true, "ZERO_0": true, "A@": false, "A[": false, "A/": false, "A:": false, "Ab": false} {
		if got := isUpperSnake(s); got != want {
			t.Errorf("isUpperSnake(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{"az09_": true, "Ab": false, "a-b": false, "err/9": false, "err:9": false} {
		if got := isLowerSnake(s); got != want {
			t.Errorf("isLowerSnake(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{"a_b": true, "a__b": false, "_a": false, "a_": false, "ab": true} {
		if got := wellFormedSnake(s); got != want {
			t.Errorf("wellFormedSnake(%q) = %v, want %v", s, got, want)
		}
	}
	for text, want := range map[string]bool{
		"Failed with ZIP_INVALID":   true,
		"Failed with ERR_404":       true,
		"Failed with ERR_0":         true,
		"Failed with ERR_9":         true,
		"Failed: code: err_404":     true,
		"Failed: code: err_0":       true,
		"Failed: code: err_9":       true,
		"Failed: code: zone_closed": true,
	} {
		if got, ev := codeGraded(t, Response{Text: text}, Context{}); got != want {
			t.Errorf("%q: code %v (%s), want %v", text, got, ev, want)
		}
	}
}

// TestNamespacedCodes: a namespaced code "area/name_x" is read back to the
// start of its area, letters a to z and digits 0 to 9 starting with a
// letter, at byte 0 too and after a '{'; an empty or digit-first area, or
// a path segment, is not one (:223:7 `i < 2` -> `<=`; :227:8 and :233:7
// `k > 0` -> `>=`: a panic; :227 the ends of the ranges and `low[k-1]` ->
// `low[k+1]`, :231:10 x2, which walk past the '{' or read "error|auth"
// as one area; :230:43 `low[k] >= 'a'`); a namespaced code that opens the
// text counts (:177:30); digits 0 and 9 are lower snake (:212 x4).
func TestNamespacedCodes(t *testing.T) {
	for _, tt := range []struct {
		low  string
		i    int
		want int
	}{
		{"auth/expired_token", 5, 0},
		{"a/expired_token", 2, 0},
		{"authz/access_denied", 6, 0},
		{"zone/not_found", 5, 0},
		{"v10/expired_token", 4, 0},
		{"v9/expired_token", 3, 0},
		{"v1/expired_token", 3, 0},
		{"{auth/expired_token}", 6, 1},
		{"x{auth/expired_token", 7, 2},
		{"failed: auth/expired_token", 13, 8},
		{"a//expired_token", 3, -1},
		{"9/expired_token", 2, -1},
		{"/srv/app_data", 5, -1},
		{"/expired_token", 1, -1},
	} {
		if got := nsStart(tt.low, tt.i); got != tt.want {
			t.Errorf("nsStart(%q, %d) = %d, want %d", tt.low, tt.i, got, tt.want)
		}
	}
	in := newInput(&Response{Kind: KindRuntime, Class: ClassToolError, Text: "x"}, &Context{})
	for _, tt := range []struct {
		s, want string
	}{
		{"auth/expired_token", "auth/expired_token"},
		{"x/rate_limited", "x/rate_limited"},
		{"failed: az/bad_input", "az/bad_input"},
		{"failed: z9/bad_input", "z9/bad_input"},
		{"failed: v0/bad_input", "v0/bad_input"},
		{"failed: a/bad_input", "a/bad_input"},
		{"failed: 9a/bad_input", ""},
		{"error|auth/expired_token", "auth/expired_token"},
		{"read /srv/app_data now", ""},
	} {
		seg := segment{label: "text", s: tt.s, lower: asciiLower(tt.s)}
		i, j, ok := in.findCodeToken(seg)
		if got := tt.s[i:j]; ok != (tt.want != "") || ok && got != tt.want {
			t.Errorf("findCodeToken(%q) = %q, %v, want %q", tt.s, got, ok, tt.want)
		}
	}
	if ok, _ := codeGraded(t, Response{Text: "auth/expired_token"}, Context{}); !ok {
		t.Error(`"auth/expired_token" alone: no code`)
	}
	for s, want := range map[string]bool{"a0_9": true, "a_0": true, "a9": true, "a/": false, "a:": false} {
		if got := isLowerSnake(s); got != want {
			t.Errorf("isLowerSnake(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestCodePositionEdges: where a lower_snake token stands as a code:
// right after '[' (:255:11 x2, `low[p-1]` -> `low[p+1]`), after a code
// keyword and a tab or a line break (:261 x4), after a ':' or '=' with
// blanks or a tab on either side (:269 x4, :270:5), at the start; a ':'
// at the very start has no keyword (:274:8 `q > 0` -> `>=`: a panic);
// after "reason" (:279:24, its 'a'), after a keyword that opens the text
// or a '{' or follows a '|' (:279:39 x2, `low[k-1]` -> `low[k+1]`); and
// in parentheses only with both of them, an unclosed one at the end of
// the text included (:246:39 `j < len(low)` -> `<=`: a panic; :246:11 `i
// > 0` -> `>=`: low[-1] read for a token at byte 0). The last piece of an
// errno name cut by the text's end is none.
func TestCodePositionEdges(t *testing.T) {
	in := newInput(&Response{Kind: KindRuntime, Class: ClassToolError, Text: "x"}, &Context{})
	for _, tt := range []struct {
		s, want string
	}{
		{"failed [rate_limited] now", "rate_limited"},
		{"reason\tquota_exceeded", "quota_exceeded"},
		{"reason\nquota_exceeded", "quota_exceeded"},
		{"code : rate_limited", "rate_limited"},
		{"code\t: rate_limited", "rate_limited"},
		{"code: rate_limited", "rate_limited"},
		{"level=error|code: rate_limited", "rate_limited"},
		{": rate_limited", ""},
		{"access denied (invalid_grant)", "invalid_grant"},
		{"access denied (invalid_grant", ""},
		{"failed rate_limited", ""},
	} {
		seg := segment{label: "text", s: tt.s, lower: asciiLower(tt.s)}
		i, j, ok := in.findCodeToken(seg)
		if got := tt.s[i:j]; ok != (tt.want != "") || ok && got != tt.want {
			t.Errorf("findCodeToken(%q) = %q, %v, want %q", tt.s, got, ok, tt.want)
		}
	}
	for _, tt := range []struct {
		low  string
		want bool
	}{
		{"failed [rate_limited]", true},
		{"code:\tbad_value", true},
		{"code:\nbad_value", true},
		{"\tbad_value", true},
		{"\nbad_value", true},
		{"code : bad_value", true},
		{"code\t: bad_value", true},
		{"error =\tbad_value", true},
		{"reason: quota_exceeded", true},
		{"{code: quota_exceeded}", true},
		{": bad_value", false},
		{":bad_value", false},
		{"=bad_value", false},
		{"decode : bad_value", false},
	} {
		i := strings.LastIndexAny(tt.low, ":=[\t\n ") + 1
		if got := codePosition(tt.low, i); got != tt.want {
			t.Errorf("codePosition(%q, %d) = %v, want %v", tt.low, i, got, tt.want)
		}
	}
	for _, tt := range []struct {
		low  string
		i, j int
		want bool
	}{
		{"bad_x) no", 0, 5, false},
		{"(bad_x", 1, 6, false},
		{"x (bad_x", 3, 8, false},
		{"(bad_x)", 1, 6, true},
	} {
		if got := parenthesised(tt.low, tt.i, tt.j); got != tt.want {
			t.Errorf("parenthesised(%q, %d, %d) = %v, want %v", tt.low, tt.i, tt.j, got, tt.want)
		}
	}
}

// TestJSONRPCReservedEnds: the reserved range is -32768 to -32000, both
// ends in it (:308:53 `>=` -> `>`, :308:71 `<=` -> `<`, :308:74 x2 the
// -32000 made 32000), so an error.code of either is no server code, while
// an application's own code (404, 1) is one, through gradeCode and Grade.
func TestJSONRPCReservedEnds(t *testing.T) {
	for c, want := range map[int64]bool{-32768: true, -32000: true, -32601: true, -32769: false, -31999: false, 1: false, 32000: false} {
		if got := jsonrpcReserved(c); got != want {
			t.Errorf("jsonrpcReserved(%d) = %v, want %v", c, got, want)
		}
	}
	for c, want := range map[int64]bool{-32768: false, -32000: false, 404: true} {
		code := c
		if ok, ev := codeGraded(t, Response{Text: "x", ErrorCode: &code, ErrorMessage: "failed"}, Context{}); ok != want {
			t.Errorf("error.code %d: code %v (%s), want %v", c, ok, ev, want)
		}
	}
}

// TestFileNamesAndNamesAreNoCodes: an UPPER_SNAKE token followed by '.'
// and a file extension of one to five lower-case letters or digits (a-z
// and 0-9 at both ends), then the end of the token, is a file's name, at
// the end of the text too (:341:8 `k < len(s)` -> `<=`: a panic; :341:38,
// :341:53, :341:68, :341:83 x2 the ends of the ranges; :344:24 the length
// bound; :344:35 `k == len(s)` negated: a panic); one followed by a bare
// '.' (a sentence's stop) or a longer extension is a code (:344:11 `k >
// j+1` -> `>=`, :344:14 `j+1` -> `j-1`); the string value sent and the
// leaf of a dotted parameter are names, not codes (:318:58 `in.sentType
// == 's'` negated, :321:16 `in.r.Param != ""` negated).
func TestFileNamesAndNamesAreNoCodes(t *testing.T) {
	in := newInput(&Response{Kind: KindRuntime, Class: ClassToolError, Text: "x"}, &Context{})
	for _, tt := range []struct {
		s, want string
	}{
		{"see SOURCE_MAP.json", ""},
		{"see SOURCE_MAP.jsonc now", ""},
		{"see SOURCE_MAP.jsonld now", "SOURCE_MAP"},
		{"see RELEASE_NOTES.adoc now", ""},
		{"see RELEASE_NOTES.zip now", ""},
		{"see ROOT_CA.x509 now", ""},
		{"see ROOT_CA.0 now", ""},
		{"see ROOT_CA.9 now", ""},
		{"see ROOT_CA.json_x now", "ROOT_CA"},
		{"failed: RATE_LIMITED.", "RATE_LIMITED"},
		{"failed: RATE_LIMITED. Retry", "RATE_LIMITED"},
	} {
		seg := segment{label: "text", s: tt.s, lower: asciiLower(tt.s)}
		i, j, ok := in.findCodeToken(seg)
		if got := tt.s[i:j]; ok != (tt.want != "") || ok && got != tt.want {
			t.Errorf("findCodeToken(%q) = %q, %v, want %q", tt.s, got, ok, tt.want)
		}
	}
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"SOURCE_MAP.json", true},
		{"SOURCE_MAP.jsonc", true},
		{"SOURCE_MAP.jsonld", false},
		{"APP_CONFIG.yaml here", true},
		{"DATA_DUMP.gz", true},
		{"ARCHIVE_PART.r00", true},
		{"ARCHIVE_PART.r99", true},
		{"INTRO_VIDEO.mp4 x", true},
		{"RATE_LIMIT.", false},
		{"RATE_LIMIT. Try", false},
		{"RATE_LIMIT.json_x", false},
		{"RATE_LIMIT.a:b", true},
	} {
		j := strings.IndexByte(tt.s, '.')
		if got := inFileName(tt.s, j); got != tt.want {
			t.Errorf("inFileName(%q, %d) = %v, want %v", tt.s, j, got, tt.want)
		}
	}
	for _, tt := range []struct {
		r    Response
		want bool
	}{
		{Response{Sent: []byte(`"BAD_MODE"`), Text: "unknown mode BAD_MODE"}, false},
		{Response{Sent: []byte(`"x"`), Text: "unknown mode BAD_MODE"}, true},
		{Response{Param: "options.sort_order", Text: "error: sort_order"}, false},
		{Response{Param: "options.limit", Text: "error: sort_order"}, true},
	} {
		if ok, ev := codeGraded(t, tt.r, Context{}); ok != tt.want {
			t.Errorf("gradeCode(sent %s, param %q, %q) = %v (%s), want %v", tt.r.Sent, tt.r.Param, tt.r.Text, ok, ev, tt.want)
		}
	}
}
