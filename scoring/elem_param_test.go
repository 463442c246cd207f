package scoring

import "testing"

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
