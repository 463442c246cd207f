package scoring

import (
	"encoding/json"
	"strings"
	"testing"
)

// Tests that kill the survivors shard B2 (clone /tmp/s8b at 35ee629) left
// in scoring/elem_code.go; see docs/testing.md "Survivors of session 8
// (scoring elem_code.go)". Each kill was checked with `go run
// ./internal/mutantrun -verify`: KILLED with the mutant, and the test
// passes without it.

// codePass grades text as a tool error of get_forecast and reports the
// code element.
func codePass(r Response, c Context) bool {
	r.Kind, r.Method, r.Class = KindRuntime, "tools/call", ClassToolError
	if r.Tool == "" {
		r.Tool = "get_forecast"
	}
	if c.ToolNames == nil {
		c.ToolNames = []string{"get_forecast"}
	}
	return Grade(r, c).Pass(ElemCode)
}

// TestS8cCodeTextEdges: a code field of exactly 64 bytes is a code (the
// limit is inclusive); a text whose first byte is '_' is still searched
// for an UPPER_SNAKE code; an UPPER_SNAKE token ending a sentence ("RATE_LIMIT.")
// is a code, not a file name with an empty extension; the sent string
// value, and the leaf of a dotted parameter, are names, not codes, while
// a number sent never hides a token (mutants :33:25, :46:47, :318:58,
// :321:16, :344:11, :344:14).
func TestS8cCodeTextEdges(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, tc := range []struct {
		name string
		r    Response
		c    Context
		want bool
	}{
		{"64-byte code field", Response{Text: `{"code":"` + long + `","message":"bad"}`}, Context{}, true},
		{"65-byte code field", Response{Text: `{"code":"` + long + `a","message":"bad"}`}, Context{}, false},
		{"underscore first", Response{Text: "_meta rejected: RATE_LIMIT"}, Context{}, true},
		{"code ends a sentence", Response{Text: "Failed: RATE_LIMIT. Try again later"}, Context{}, true},
		{"file name", Response{Text: "Failed: cannot open SOURCE_MAP.json now"}, Context{}, false},
		{"sent string is a name", Response{Text: "bad_value is not allowed", Param: "mode", Sent: json.RawMessage(`"bad_value"`)}, Context{}, false},
		{"sent number hides nothing", Response{Text: "bad_value is not allowed", Param: "mode", Sent: json.RawMessage(`17`)}, Context{}, true},
		{"leaf of a dotted param", Response{Text: "sort_order: must be asc or desc", Param: "options.sort_order", Sent: json.RawMessage(`"up"`)}, Context{}, false},
		{"not the param", Response{Text: "sort_order: must be asc or desc", Param: "options.limit", Sent: json.RawMessage(`"up"`)}, Context{}, true},
	} {
		if got := codePass(tc.r, tc.c); got != tc.want {
			t.Errorf("%s: %q: code %v, want %v", tc.name, tc.r.Text, got, tc.want)
		}
	}
}

// TestS8cMaybeErrno: the errno shape is an 'E' and three capitals from A
// to Z, up to the last byte, after any number of E's that are not
// (mutants :95:52, :100:8, :108:38, :108:50).
func TestS8cMaybeErrno(t *testing.T) {
	for s, want := range map[string]bool{
		"EACCES":      true,
		"EAAA":        true,
		"EZZZ":        true,
		"xEZZ":        false,
		"ends in EAB": false,
		"EEa EACCES":  true,
		"E@@@":        false,
		"E[[[":        false,
		"":            false,
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
}

// TestS8cFirstErrno: of several errno names the first in the text is the
// code, also when it stands at byte 0 (findErrno for a text without '_',
// errnoAt for one with). The search runs over a map, so each text is
// tried 30 times: a mutant that keeps a later name only in some map
// orders is caught in one of them (mutants :118:51, :118:60 negation,
// :296:37, :296:51, :296:60 negation, :300:10).
func TestS8cFirstErrno(t *testing.T) {
	for _, tc := range []struct {
		s          string
		start, end int
	}{
		{"ENOENT EACCES EPERM EEXIST EBUSY EINVAL EPIPE EROFS ELOOP EXDEV EMFILE ENOSPC", 0, 6},
		{"open x: EACCES then ENOENT", 8, 14},
		{"ENOENT: no such file, open data_dir", 0, 6},
		{"ENOENT", 0, 6},
	} {
		seg := segment{label: "text", s: tc.s, lower: asciiLower(tc.s)}
		for range 30 {
			if !strings.Contains(tc.s, "_") {
				ev, ok := findErrno(seg)
				if want := span(seg, tc.start, tc.end); !ok || ev != want {
					t.Fatalf("findErrno(%q) = %q, %v; want %q", tc.s, ev, ok, want)
				}
			}
			at, ok := errnoAt(seg)
			if !ok || at != [2]int{tc.start, tc.end} {
				t.Fatalf("errnoAt(%q) = %v, %v; want [%d %d]", tc.s, at, ok, tc.start, tc.end)
			}
		}
	}
}

// TestS8cSnakeShapes: a code token starts with any letter a-z or A-Z; a
// doubled '_' is not well formed; UPPER_SNAKE and lower_snake take the
// digits 0 to 9 (an "ERR_404", "code: err_9") and nothing else (mutants
// :188 x4, :193:16, :203 x4, :211:16, :212 x4).
func TestS8cSnakeShapes(t *testing.T) {
	for c, want := range map[byte]bool{'a': true, 'z': true, 'A': true, 'Z': true, '`': false, '{': false, '@': false, '[': false, '0': false} {
		if got := isLetter(c); got != want {
			t.Errorf("isLetter(%q) = %v, want %v", c, got, want)
		}
	}
	for s, want := range map[string]bool{"a_b": true, "a__b": false, "_a": false, "a_": false, "a": true} {
		if got := wellFormedSnake(s); got != want {
			t.Errorf("wellFormedSnake(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{"ZIP_INVALID": true, "ERR_0": true, "ERR_9": true, "ERR/9": false, "ERR:9": false, "Err_9": false} {
		if got := isUpperSnake(s); got != want {
			t.Errorf("isUpperSnake(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{"err_0": true, "err_9": true, "zip_404": true, "err/9": false, "err:9": false, "Bad_x": false} {
		if got := isLowerSnake(s); got != want {
			t.Errorf("isLowerSnake(%q) = %v, want %v", s, got, want)
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
		if got := codePass(Response{Text: text}, Context{}); got != want {
			t.Errorf("%q: code %v, want %v", text, got, want)
		}
	}
}

// TestS8cNamespacedCode: "area/name_x" is a code wherever the area is
// letters and digits starting with a letter (a-z, 'z' and '0'-'9'
// included), at the start of the text too, and after a '{'; an empty or
// digit-first area, or a path segment, is not (mutants :177:30, :223:7,
// :227 x9, :230:43, :231:10 x2, :233:7).
func TestS8cNamespacedCode(t *testing.T) {
	for _, tc := range []struct {
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
		if got := nsStart(tc.low, tc.i); got != tc.want {
			t.Errorf("nsStart(%q, %d) = %d, want %d", tc.low, tc.i, got, tc.want)
		}
	}
	if !codePass(Response{Text: "auth/expired_token"}, Context{}) {
		t.Error(`"auth/expired_token" alone: no code`)
	}
}

// TestS8cCodePosition: a lower_snake token is in code position right
// after '[', after a keyword with blanks (space, tab, newline) on either
// side of ':' or '=', after "reason", after a keyword opening a '{', and
// at the start; a ':' at the very start has no keyword. A token is in
// parentheses only with both of them (mutants :246:11, :246:39, :255:11
// x2, :261 x4, :269 x4, :270:5, :274:8, :279:24).
func TestS8cCodePosition(t *testing.T) {
	for _, tc := range []struct {
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
		i := strings.LastIndexAny(tc.low, ":=[\t\n ") + 1
		if got := codePosition(tc.low, i); got != tc.want {
			t.Errorf("codePosition(%q, %d) = %v, want %v", tc.low, i, got, tc.want)
		}
	}
	for _, tc := range []struct {
		low  string
		i, j int
		want bool
	}{
		{"bad_x) no", 0, 5, false},
		{"(bad_x", 1, 6, false},
		{"x (bad_x", 3, 8, false},
		{"(bad_x)", 1, 6, true},
	} {
		if got := parenthesised(tc.low, tc.i, tc.j); got != tc.want {
			t.Errorf("parenthesised(%q, %d, %d) = %v, want %v", tc.low, tc.i, tc.j, got, tc.want)
		}
	}
}

// TestS8cJSONRPCReserved: the reserved range is -32768 to -32000, both
// ends included; an application's own code (404, 1) is a code (mutants
// :308:53, :308:71, :308:74 x2).
func TestS8cJSONRPCReserved(t *testing.T) {
	for c, want := range map[int64]bool{-32768: true, -32000: true, -32602: true, -32769: false, -31999: false, 404: false, 1: false, 32000: false} {
		if got := jsonrpcReserved(c); got != want {
			t.Errorf("jsonrpcReserved(%d) = %v, want %v", c, got, want)
		}
	}
	for c, want := range map[int64]bool{-32768: false, -32000: false, 404: true} {
		code := c
		if got := codePass(Response{ErrorCode: &code, ErrorMessage: "failed"}, Context{}); got != want {
			t.Errorf("error.code %d: code %v, want %v", c, got, want)
		}
	}
}

// TestS8cFileNameExtension: a token followed by '.' and one to five
// lower-case letters or digits (a-z and 0-9 at both ends) then the end of
// the token is a file name, also at the end of the text; a bare '.' or a
// longer extension is not (mutants :341 x7, :344:24, :344:35).
func TestS8cFileNameExtension(t *testing.T) {
	for _, tc := range []struct {
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
		j := strings.IndexByte(tc.s, '.')
		if got := inFileName(tc.s, j); got != tc.want {
			t.Errorf("inFileName(%q, %d) = %v, want %v", tc.s, j, got, tc.want)
		}
	}
}
