package authchallenge

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The tests below moved here from probe/mutants_s10s_test.go (helper i26s,
// session 10) with the parser: TestResourceMetadata was
// TestS10SResourceMetadataParam, TestParseRoundTrip was
// TestS10SParseChallengesRoundTrip and FuzzParse was
// FuzzS10SParseChallenges.

// TestResourceMetadata: the parameter is read from the auth-params of the
// challenges (RFC 9110 section 11.6.1), never from a longer name that
// ends in it nor from inside another parameter's quoted value, and a
// quoted value keeps its escaped characters.
func TestResourceMetadata(t *testing.T) {
	const u = "https://a.example/.well-known/oauth-protected-resource"
	tests := []struct {
		name string
		in   []string // header lines
		want string
	}{
		{"quoted", []string{`Bearer resource_metadata="` + u + `"`}, u},
		{"unquoted", []string{`Bearer realm="x", resource_metadata=` + u + `, scope="a"`}, u},
		{"name in another case", []string{`Bearer Resource_Metadata="` + u + `"`}, u},
		{"spaces around =", []string{`Bearer resource_metadata = "` + u + `"`}, u},
		{"no space after the comma", []string{`Bearer error="invalid_token",resource_metadata="` + u + `"`}, u},
		{"Bearer with several params", []string{`Bearer error="invalid_token", error_description="The access token expired", resource_metadata="` + u + `", scope="mcp:read mcp:write"`}, u},
		{"another scheme before Bearer", []string{`Basic realm="x", Bearer resource_metadata="` + u + `"`}, u},
		{"token68 scheme before Bearer", []string{`Negotiate abc+/==, Bearer realm="mcp", resource_metadata="` + u + `"`}, u},
		{"on a second header line", []string{`Basic realm="x"`, `Bearer resource_metadata="` + u + `"`}, u},
		{"empty list elements", []string{`, Bearer , realm="mcp",, resource_metadata="` + u + `"`}, u},
		{"the first of a repeated name", []string{`Bearer resource_metadata="` + u + `", resource_metadata="https://b.example/m"`}, u},
		{"empty in the first challenge, set in the next", []string{`Bearer resource_metadata="", DPoP resource_metadata="` + u + `"`}, u},
		{"escaped quotes in the value", []string{`Bearer resource_metadata="https://a.example/m?q=\"x\\y\""`}, `https://a.example/m?q="x\y"`},
		{"quoted commas and escaped quotes before it", []string{`Bearer realm="say \"resource_metadata=x\", then", resource_metadata="` + u + `"`}, u},
		{"a longer name", []string{`Bearer x_resource_metadata="https://evil.example/m"`}, ""},
		{"a longer name, unquoted", []string{`Bearer x_resource_metadata=https://evil.example/m`}, ""},
		{"inside a quoted value", []string{`Bearer realm="resource_metadata=https://evil.example/m"`}, ""},
		{"a longer name inside a quoted value", []string{`Bearer realm="x_resource_metadata=https://evil.example/m", error="invalid_token"`}, ""},
		{"inside a quoted value with commas", []string{`Bearer realm="a, resource_metadata=https://evil.example/m", error="invalid_token"`}, ""},
		{"inside another scheme's quoted value", []string{`Basic realm="resource_metadata=\"https://evil.example/m\"", Bearer realm="mcp"`}, ""},
		{"unterminated quoted string", []string{`Bearer realm="mcp, resource_metadata="https://evil.example/m"`}, ""},
		{"empty quoted", []string{`Bearer resource_metadata="", realm="mcp"`}, ""},
		{"empty unquoted", []string{`Bearer resource_metadata=, realm="mcp"`}, ""},
		{"empty unquoted after another param", []string{`Bearer realm="mcp", resource_metadata=, scope="a"`}, ""},
		{"none", []string{`Bearer error="invalid_token"`}, ""},
		{"no header", nil, ""},
	}
	for _, tt := range tests {
		h := http.Header{}
		for _, v := range tt.in {
			h.Add("WWW-Authenticate", v)
		}
		if got := ResourceMetadata(h); got != tt.want {
			t.Errorf("%s: ResourceMetadata(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// quote writes v as an RFC 9110 quoted-string, escaping quotes and
// backslashes.
func quote(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// TestParseRoundTrip: any value, quoted as RFC 9110 says, reads back as it
// was, whatever parameters and challenges surround it; the scheme is read
// in lower case and a token68 is no parameter.
func TestParseRoundTrip(t *testing.T) {
	for _, v := range []string{"", "plain", `a"b`, `a\b`, `\"`, `"\\"`, "a, b=c", `x", resource_metadata="y`, "é€😀", "tab\there", `trailing\`} {
		header := `Negotiate abc+/==, Bearer realm="mcp", resource_metadata=` + quote(v) + `, scope=` + quote("a b")
		got := Parse(header)
		want := []Challenge{
			{Scheme: "negotiate", Params: map[string]string{}},
			{Scheme: "bearer", Params: map[string]string{"realm": "mcp", "resource_metadata": v, "scope": "a b"}},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", header, diff)
		}
	}
}

// FuzzParse: any header value is read without a panic, and a value quoted
// after it in a challenge of its own is read back whole unless the header
// leaves a quoted string open.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", `Bearer realm="x"`, `Basic abc==`, `"`, `Bearer realm="a\`, `a=b, c`, `, ,`, `Bearer realm=x y`} {
		f.Add(s, "https://a.example/m")
	}
	f.Fuzz(func(t *testing.T, header, v string) {
		Parse(header)
		if strings.Count(header, `"`) != 0 || strings.ContainsAny(v, "\r\n") {
			return
		}
		h := strings.TrimRight(header, " \t,")
		sep := ", "
		if h == "" {
			sep = ""
		}
		cs := Parse(h + sep + "Zz resource_metadata=" + quote(v))
		if len(cs) == 0 || cs[len(cs)-1].Scheme != "zz" || cs[len(cs)-1].Params["resource_metadata"] != v {
			// A header that stops the reading (no rule fits) may hide what
			// follows; only check headers that read whole on their own: the
			// bare scheme appended is one challenge more. (The last scheme
			// being "zz" alone is no proof: "ZZ(" stops at "(" and its own
			// challenge is zz, testdata/fuzz/FuzzParse/db2b8ee1cfab9ad0.)
			if whole := Parse(h + sep + "Zz"); len(whole) == len(Parse(h))+1 && whole[len(whole)-1].Scheme == "zz" {
				t.Errorf("after %q, the quoted value %q reads as %+v", h, v, cs)
			}
		}
	})
}
