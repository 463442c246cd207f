package probe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestCheckPrompts(t *testing.T) {
	prompt := func(raw string) Prompt { return Prompt{Raw: json.RawMessage(raw)} }
	tests := []struct {
		name    string
		prompts []Prompt
		want    []string
	}{
		{"real: everything args-prompt", []Prompt{prompt(`{"name":"args-prompt","title":"Arguments Prompt","description":"A prompt with two arguments, one required and one optional","arguments":[{"name":"city","description":"Name of the city","required":true},{"name":"state","description":"Name of the state","required":false}]}`)}, []string{}},
		{"no arguments", []Prompt{prompt(`{"name":"simple"}`)}, []string{}},
		{"null arguments", []Prompt{prompt(`{"name":"simple","arguments":null}`)}, []string{}},
		{"typed fields without raw", []Prompt{{Name: "p", Arguments: json.RawMessage(`[{"name":"a"},{"name":"a"}]`)}}, []string{"prompt:p prompt/argument_name_duplicate /arguments/1/name"}},
		{"no name", []Prompt{prompt(`{"description":"D."}`)}, []string{"prompt:#0 prompt/name_missing /name"}},
		{"duplicate", []Prompt{prompt(`{"name":"p"}`), prompt(`{"name":"p"}`)}, []string{"prompt:p prompt/name_duplicate /name"}},
		{"arguments not an array", []Prompt{prompt(`{"name":"p","arguments":{"a":{}}}`)}, []string{"prompt:p prompt/arguments_not_array /arguments"}},
		{"argument without name", []Prompt{prompt(`{"name":"p","arguments":[{"name":"a"},{"description":"x"}]}`)}, []string{"prompt:p prompt/argument_name_missing /arguments/1/name"}},
		{"argument name not a string", []Prompt{prompt(`{"name":"p","arguments":[{"name":3}]}`)}, []string{"prompt:p prompt/argument_name_missing /arguments/0/name"}},
		{"duplicate argument", []Prompt{prompt(`{"name":"p","arguments":[{"name":"a"},{"name":"b"},{"name":"a"}]}`)}, []string{"prompt:p prompt/argument_name_duplicate /arguments/2/name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sortUniqueFindings(checkPrompts(tt.prompts))
			if diff := cmp.Diff(tt.want, subjectCodes(got, "prompt/")); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckResources(t *testing.T) {
	tests := []struct {
		name string
		uris []string
		want []string
	}{
		{"real: everything", []string{"demo://resource/static/document/architecture.md", "demo://resource/static/document/extension.md"}, []string{}},
		{"file and https", []string{"file:///home/u/notes.md", "https://example.com/a?b=c", "urn:isbn:0451450523"}, []string{}},
		{"relative", []string{"notes.md"}, []string{"resource:notes.md resource/uri_invalid /uri"}},
		{"absolute path", []string{"/etc/hosts"}, []string{"resource:/etc/hosts resource/uri_invalid /uri"}},
		{"empty", []string{""}, []string{"resource:#0 resource/uri_invalid /uri"}},
		{"space", []string{"file:///my notes.md"}, []string{"resource:file:///my notes.md resource/uri_invalid /uri"}},
		{"bad escape", []string{"file:///a%zz"}, []string{"resource:file:///a%zz resource/uri_invalid /uri"}},
		{"duplicate", []string{"a://x", "a://y", "a://x"}, []string{"resource:a://x resource/uri_duplicate /uri"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs []Resource
			for _, u := range tt.uris {
				raw, _ := json.Marshal(map[string]string{"uri": u, "name": "n"})
				rs = append(rs, Resource{URI: u, Name: "n", Raw: raw})
			}
			got := sortUniqueFindings(checkResources(rs))
			if diff := cmp.Diff(tt.want, subjectCodes(got, "resource/")); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckTemplates(t *testing.T) {
	tests := []struct {
		name      string
		templates []string
		want      []string
	}{
		{"real: everything", []string{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"}, []string{}},
		{"expression first", []string{"{+base}/items/{id}"}, []string{}},
		{"invalid", []string{"file:///{path"}, []string{"template:file:///{path template/invalid /uriTemplate"}},
		{"reserved operator", []string{"x://{=a}"}, []string{"template:x://{=a} template/invalid /uriTemplate"}},
		{"relative", []string{"items/{id}"}, []string{"template:items/{id} template/not_absolute /uriTemplate"}},
		{"missing", []string{""}, []string{"template:#0 template/uri_template_missing /uriTemplate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ts []ResourceTemplate
			for _, u := range tt.templates {
				m := map[string]string{"name": "n"}
				if u != "" {
					m["uriTemplate"] = u
				}
				raw, _ := json.Marshal(m)
				ts = append(ts, ResourceTemplate{URITemplate: u, Name: "n", Raw: raw})
			}
			got := sortUniqueFindings(checkTemplates(ts))
			if diff := cmp.Diff(tt.want, subjectCodes(got, "template/")); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateURITemplate(t *testing.T) {
	valid := []string{
		// RFC 6570 section 1.2 and 3.2 examples, levels 1 to 4.
		"{var}", "{hello}", "{+var}", "{+hello}", "{+path}/here", "here?ref={+path}",
		"X{#var}", "X{#hello}", "map?{x,y}", "{x,hello,y}", "{+x,hello,y}", "{+path,x}/here",
		"{#x,hello,y}", "{#path,x}/here", "X{.var}", "X{.x,y}", "{/var}", "{/var,x}/here",
		"{;x,y}", "{;x,y,empty}", "{?x,y}", "{?x,y,empty}", "?fixed=yes{&x}", "{&x,y,empty}",
		"{var:3}", "{var:30}", "{list}", "{list*}", "{keys}", "{keys*}", "{+path:6}/here",
		"{#keys*}", "X{.list*}", "{/var:1,var}", "{/list*,path:4}", "{;hello:5}", "{?var:3}",
		"{&keys*}", "{var:9999}", "{a.b}", "{%20x}", "file:///{+path}", "http://example.com/~{user}",
		"literal%20text", "résumé/{id}", "{x}{y}", "",
	}
	for _, tmpl := range valid {
		if err := validateURITemplate(tmpl); err != nil {
			t.Errorf("validateURITemplate(%q) = %v, want nil", tmpl, err)
		}
	}
	invalid := []string{
		"{", "}", "{}", "{var", "var}", "{{var}}", "{va r}", "{var:0}", "{var:10000}", "{var:}",
		"{var*:3}", "{var.}", "{.var.}", "{=var}", "{,var}", "{!var}", "{@var}", "{|var}", "{var,}",
		"a b", "a\"b", "a<b>", "a\\b", "a^b", "a`b", "a|b", "100%", "%zz", "{%zz}", "a\x01b", "\xff",
		"{var-x}", "{x}}",
	}
	for _, tmpl := range invalid {
		if err := validateURITemplate(tmpl); err == nil {
			t.Errorf("validateURITemplate(%q) = nil, want an error", tmpl)
		}
	}
}

// TestValidateURITemplateMessage checks that an invalid template's error
// names the rule and the offset, not the bytes the server sent.
func TestValidateURITemplateMessage(t *testing.T) {
	tests := []struct{ tmpl, want string }{
		{"a b", "unacceptable character (hint: use %XX encoding) at offset 1"},
		{" b", "unacceptable character (hint: use %XX encoding) at offset 0"},
		{"file:///{x", "incomplete expression at offset 10"},
		{"{=var}", "unimplemented operator (op-reserved) at offset 2"},
		{"x\x1b[31m{var-x}", "unacceptable character (hint: use %XX encoding) at offset 1"},
		{"{a}\x1b]0;pwned\x07", "unacceptable character (hint: use %XX encoding) at offset 3"},
	}
	for _, tt := range tests {
		tmpl := tt.tmpl
		err := validateURITemplate(tmpl)
		if err == nil || err.Error() != tt.want {
			t.Errorf("validateURITemplate(%q) = %v, want %q", tmpl, err, tt.want)
		}
	}
}

func FuzzValidateURITemplate(f *testing.F) {
	for _, s := range []string{"{var}", "x://{+a,b*}{?c:3}", "{", "%", "é{x}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := validateURITemplate(s)
		if err == nil {
			return
		}
		// The finding quotes the template; the error adds no server bytes.
		if msg := err.Error(); !utf8.ValidString(msg) || strings.ContainsFunc(msg, unicode.IsControl) {
			t.Errorf("validateURITemplate(%q) = %q: control or invalid bytes", s, msg)
		}
	})
}
