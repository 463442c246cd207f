package scoring

import (
	"reflect"
	"testing"
)

// TestSentenceHead: a name heads a sentence at the start of the text or
// after a stop, a colon or a line break, with any spaces and tabs between;
// not after a word. (9 mutants of sentenceHead's backwards scan lived
// through the whole suite: elem_param.go:89, 90, 92.)
func TestSentenceHead(t *testing.T) {
	for _, tt := range []struct {
		s    string
		i    int
		want bool
	}{
		{"Path is bad", 0, true},
		{"Error. Path is bad", 7, true},
		{"Error: \t Path is bad", 9, true},
		{"x\nPath", 2, true},
		{"x\n  Path", 4, true},
		{"the path is bad", 4, false},
		{"a  path", 3, false},
		{"a.b path", 4, false},
	} {
		if got := sentenceHead(tt.s, tt.i); got != tt.want {
			t.Errorf("sentenceHead(%q, %d) = %v, want %v", tt.s, tt.i, got, tt.want)
		}
	}
}

// TestQuoteList: up to four names are listed, more end in an ellipsis
// (the mutant `len(q) > 4` -> `>=` lived through the whole suite).
func TestQuoteList(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{[]string{"a", "b", "c", "d"}, `"a" or "b" or "c" or "d"`},
		{[]string{"a", "b", "c", "d", "e"}, `"a" or "b" or "c" or "d" or …`},
	} {
		if got := quoteList(tt.names); got != tt.want {
			t.Errorf("quoteList(%q) = %s, want %s", tt.names, got, tt.want)
		}
	}
}

// TestParamRuntimeEcho: a runtime refusal that quotes the value sent
// names the input at fault, from a 3-byte value on; empty quotes quote
// nothing. (The mutant elem_param.go:76 `len(in.sent) >= 3` -> `> 3`
// lived through the whole suite.)
func TestParamRuntimeEcho(t *testing.T) {
	c := Context{ToolNames: []string{"list_dir"}, ParamNames: []string{"dir"}}
	for _, tt := range []struct {
		sent, text string
		want       bool
	}{
		{`"abc"`, "scandir 'abc' failed: not a directory", true},
		{`"abcdef"`, "scandir '' failed: not a directory", false},
	} {
		g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "list_dir", Param: "dir", Sent: raw(tt.sent), Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: tt.text}, c)
		if got := g.Pass(ElemParam); got != tt.want {
			t.Errorf("sent %s, %q: param %v, want %v (%s)", tt.sent, tt.text, got, tt.want, evidenceOf(g, ElemParam))
		}
	}
}

// TestParamCandidates: a dotted parameter counts by its leaf and by its
// whole path, a plain one once. (The mutant elem_param.go:25 `leaf !=
// r.Param` -> `==` lived through the whole suite.)
func TestParamCandidates(t *testing.T) {
	for _, tt := range []struct {
		param string
		want  []string
	}{
		{"options.depth", []string{"depth", "options.depth"}},
		{"depth", []string{"depth"}},
	} {
		got, ok := paramCandidates(&Response{Kind: KindRuntime, Param: tt.param}, &Context{})
		if !ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("paramCandidates(%q) = %q, %v; want %q, true", tt.param, got, ok, tt.want)
		}
	}
}

// TestParamWordFirst: a common word names the input at the very start of
// the text when the value it received follows. (The mutant
// elem_param.go:60 `i >= 0` -> `> 0` lived through the whole suite.)
func TestParamWordFirst(t *testing.T) {
	// "Path": a PascalCase parameter (C# servers name them so), which the
	// lower-case sentence-head rule does not try; without the word rule
	// the evidence would be the value, not the name.
	for _, name := range []string{"path", "Path"} {
		c := Context{ToolNames: []string{"read"}, ParamNames: []string{name}}
		g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "read", Param: name, Sent: raw(`"/srv/x"`), Class: ClassToolError,
			ProtocolVersion: "2025-11-25", Text: name + " /srv/x is outside the allowed roots"}, c)
		if want := `text[0:4] "` + name + `"`; !g.Pass(ElemParam) || evidenceOf(g, ElemParam) != want {
			t.Errorf("param %q at byte 0: pass %v, evidence %s; want true, %s", name, g.Pass(ElemParam), evidenceOf(g, ElemParam), want)
		}
	}
}

// TestFindSentPart: a quoted part of the string sent states the value,
// the whole string included; empty quotes state nothing; the evidence is
// the part inside the quotes. (The mutants elem_param.go:154 `j <= 0` ->
// `< 0`, :158 `len(part) <= len(in.sent)` -> `<` and :159 `i+1` -> `i-1`
// lived through the whole suite.)
func TestFindSentPart(t *testing.T) {
	for _, tt := range []struct {
		sent, text string
		want       string
		ok         bool
	}{
		{`"99 * * * *"`, `Invalid minute: "99"`, `text[17:19] "99"`, true},
		{`"zz"`, `Invalid digit 'zz'`, `text[15:17] "zz"`, true},
		{`"zz"`, `bad value '' here`, "", false},
	} {
		in := newInput(&Response{Kind: KindRuntime, Method: "tools/call", Sent: raw(tt.sent), Class: ClassToolError, Text: tt.text}, &Context{})
		got, ok := findSentPart(in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("findSentPart(sent %s, %q) = %s, %v; want %s, %v", tt.sent, tt.text, got, ok, tt.want, tt.ok)
		}
	}
}
