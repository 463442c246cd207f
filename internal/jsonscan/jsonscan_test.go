package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMembersAndElements(t *testing.T) {
	in := []byte(` { "a" : [1, {"x":"}]\"["}, "s\"q"] , "b\u0041":"v" , "c": null, "d" :-1.5e3 ,"e":{} } `)
	var got []string
	if err := Members(in, func(k string, v []byte) bool {
		got = append(got, k+"="+string(v))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{`a=[1, {"x":"}]\"["}, "s\"q"]`, `bA="v"`, `c=null`, `d=-1.5e3`, `e={}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("members = %q, want %q", got, want)
	}
	var els []string
	if err := Elements([]byte(`[ 1 ,"]",[[]], {"a":[]} ]`), func(v []byte) bool { els = append(els, string(v)); return true }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(els, "|") != `1|"]"|[[]]|{"a":[]}` {
		t.Errorf("elements = %q", els)
	}
	for _, bad := range []string{``, `[]`, `{"a"}`, `{"a":1,}`, `{"a":"x`, `{"a":[1}`, `{"a":1 "b":2}`} {
		if err := Members([]byte(bad), func(string, []byte) bool { return true }); err == nil {
			t.Errorf("Members(%q) = nil error", bad)
		}
	}
	if Elements([]byte(`{}`), func([]byte) bool { return true }) == nil || Elements([]byte(`[1,`), func([]byte) bool { return true }) == nil {
		t.Error("Elements accepted a non-array")
	}
}

func TestDepth(t *testing.T) {
	deep := strings.Repeat(`{"a":[`, 6000) + strings.Repeat(`]}`, 6000)
	if d := Depth([]byte(deep), MaxDepth); d <= MaxDepth {
		t.Errorf("Depth = %d, want > %d", d, MaxDepth)
	}
	if d := Depth([]byte(`{"a":"[[[[[[","b":[{}]}`), MaxDepth); d != 3 {
		t.Errorf("Depth = %d, want 3 (brackets in strings do not count)", d)
	}
	if json.Valid([]byte(deep)) {
		t.Error("encoding/json no longer refuses this depth; MaxDepth is wrong")
	}
}

func TestStringHead(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		n    int
		want string
	}{
		{`"abcdef"`, 4, "abc"},
		{`"ab\ncd"`, 3, "ab"}, // the escape is not split
		{`"ab\ncd"`, 6, "ab\nc"},
		{`"a\u00e9b"`, 7, "a"}, // nor a \u escape
		{`"a\u00e9b"`, 8, "aé"},
		{`"aéb"`, 3, "a"}, // nor a UTF-8 sequence
		{`"abc"`, 100, "abc"},
	} {
		got, ok := StringHead([]byte(tc.lit), tc.n)
		if !ok || got != tc.want {
			t.Errorf("StringHead(%s, %d) = %q, %v; want %q", tc.lit, tc.n, got, ok, tc.want)
		}
	}
	if _, ok := StringHead([]byte(`{}`), 5); ok {
		t.Error("StringHead accepted an object")
	}
}
