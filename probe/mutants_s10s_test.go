package probe

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// Tests for the three defects of probe/check_oauth.go that i26q found in
// session 10 (notes/issue-26q.md): what the check reports when
// WWW-Authenticate names resource metadata by an invalid URL, how it
// reads the resource_metadata parameter out of the header, and where it
// cuts a finding's evidence. The header's parser and its own tests (the
// resource_metadata table, the round trip, the fuzz target) moved to
// internal/authchallenge (helper i26v), which sandbox shares.

// TestS10SNamedURLInvalid: RFC 9728 section 5.1 names the protected
// resource metadata by URL, and a client fetches it as it stands. A
// relative reference or text that does not parse gives a client nothing
// to fetch; with nothing at the target's well-known paths either, the
// server's metadata cannot be found, which is the server's defect
// (resource_metadata_invalid, as for a named URL that answers 404), not a
// host mcpvet declined to contact. The evidence is the named URL without
// what may carry a token.
func TestS10SNamedURLInvalid(t *testing.T) {
	tests := []struct {
		name, header, value string
	}{
		{"relative path", `Bearer resource_metadata="/.well-known/oauth-protected-resource?token=s3cret"`, "/.well-known/oauth-protected-resource"},
		{"scheme-relative", `Bearer resource_metadata="//mcp.example/.well-known/oauth-protected-resource"`, "//mcp.example/.well-known/oauth-protected-resource"},
		{"unparsable", `Bearer resource_metadata="https://[::1/prm?token=s3cret"`, "https://[::1/prm"},
		{"unparsable, with user info", `Bearer resource_metadata="https://user:s3cret@[::1/prm#s3cret"`, "https://[::1/prm"},
		{"no host", `Bearer resource_metadata="https:///.well-known/oauth-protected-resource"`, "https:///.well-known/oauth-protected-resource"},
		{"not http", `Bearer resource_metadata="ftp://mcp.example/.well-known/oauth-protected-resource"`, "ftp://mcp.example/.well-known/oauth-protected-resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := startS10QFixture(t, s10qFixture{header: tt.header})
			r, fs := s10qCheck(t, h, "2025-11-25")
			if r.Readiness != OAuthBroken || r.Detail != "" {
				t.Errorf("readiness %q, detail %q; want broken without a not_checked detail", r.Readiness, r.Detail)
			}
			if len(fs) != 1 {
				t.Fatalf("findings %+v; want one %s", fs, CodeOAuthBadResourceMeta)
			}
			f := fs[0]
			want := []string{CodeOAuthBadResourceMeta, "WWW-Authenticate", tt.value}
			if diff := cmp.Diff(want, []string{f.Code, f.Pointer, f.Value}); diff != "" {
				t.Errorf("code, pointer, value (-want +got):\n%s", diff)
			}
			for _, part := range []string{"WWW-Authenticate names the protected resource metadata", "which is not an absolute http(s) URL", "/.well-known/oauth-protected-resource/mcp and ", "answered without metadata", "2025-11-25, Authorization"} {
				if !strings.Contains(f.Message, part) {
					t.Errorf("message lacks %q: %s", part, f.Message)
				}
			}
			if strings.Contains(f.Message+f.Value, "s3cret") || strings.Contains(f.Message, "another host") {
				t.Errorf("the finding shows a token or claims another host: %+v", f)
			}
		})
	}
}

// TestS10SNamedURLInvalidFallback: an invalid named URL is no finding when
// the target's well-known path has the metadata, since clients fall back
// to it (the go-sdk client tries the named URL, then the well-known ones);
// and when the well-known paths could not be reached the check says so,
// not_checked, since nothing shows whether the fallback works.
func TestS10SNamedURLInvalidFallback(t *testing.T) {
	t.Run("metadata at the well-known path", func(t *testing.T) {
		h := startS10QFixture(t, s10qFixture{header: `Bearer resource_metadata="/prm"`,
			rs: map[string]s10qRoute{"/.well-known/oauth-protected-resource/mcp": {body: s10qPRM}},
			as: map[string]s10qRoute{asWK: {body: s10qAS}}})
		r, fs := s10qCheck(t, h, "2025-11-25")
		if r.Readiness != OAuthReady || len(fs) != 0 || r.ResourceMetadata != h.rs.URL+"/.well-known/oauth-protected-resource/mcp" {
			t.Errorf("readiness %+v, findings %v; want ready from the well-known path", r, fs)
		}
	})
	// The endpoint answers 401 with header; every other request has its
	// connection closed without an answer.
	unreachable := func(t *testing.T, header string) (*OAuthReadiness, []Finding, int32) {
		var gets atomic.Int32
		rs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && r.URL.Path == "/mcp" {
				w.Header().Set("WWW-Authenticate", header)
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
			gets.Add(1)
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		}))
		t.Cleanup(rs.Close)
		r, fs := runOAuthCheck(t.Context(), rs.Client(), rs.URL+"/mcp", "2025-11-25")
		if r == nil {
			t.Fatal("no readiness for a 401")
		}
		return r, fs, gets.Load()
	}
	for _, tt := range []struct{ name, header, detail string }{
		{"well-known paths unreachable", `Bearer resource_metadata="/prm"`, "the well-known metadata paths could not be reached"},
		// Before i26s the detail said the target's path "has none".
		{"on another host, well-known paths unreachable", `Bearer resource_metadata="https://auth.example/prm?token=s3cret"`,
			"WWW-Authenticate names resource metadata on another host (https://auth.example/prm), which mcpvet does not contact, and the target's own well-known paths could not be reached"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, fs, gets := unreachable(t, tt.header)
			got := []string{r.Readiness, r.Detail}
			want := []string{OAuthNotChecked, tt.detail}
			if diff := cmp.Diff(want, got); diff != "" || len(fs) != 0 || gets == 0 {
				t.Errorf("readiness, detail (-want +got):\n%s\nfindings %v, %d GETs", diff, fs, gets)
			}
		})
	}
}

// TestS10SFirstLine: the evidence is cut at a rune boundary, never past
// 200 bytes, so no multi-byte character is split into bytes that JSON
// output turns into U+FFFD.
func TestS10SFirstLine(t *testing.T) {
	a199, a198, a197 := strings.Repeat("a", 199), strings.Repeat("a", 198), strings.Repeat("a", 197)
	for _, tt := range []struct{ in, want string }{
		{a199 + "é" + "b", a199},       // é is bytes 200 and 201
		{a198 + "é" + "b", a198 + "é"}, // é ends at byte 200
		{a198 + "€" + "b", a198},       // € is 3 bytes, 199 to 201
		{a197 + "€" + "b", a197 + "€"}, // ends at byte 200
		{a197 + "😀" + "b", a197},       // 4 bytes, 198 to 201
		{a199 + "é", a199},             // cut inside the last character
		{strings.Repeat("é", 101), strings.Repeat("é", 100)},
	} {
		got := firstLine([]byte(tt.in))
		if got != tt.want || len(got) > 200 || !utf8.ValidString(got) {
			t.Errorf("firstLine(%d bytes ending %q) = %d bytes ending %q, want %d bytes", len(tt.in), tt.in[len(tt.in)-6:], len(got), got[max(0, len(got)-6):], len(tt.want))
		}
	}
}

// TestS10SRedactedRaw: a named URL that does not parse is shown without
// its query, fragment and user info, which may carry a token, as one that
// parses is.
func TestS10SRedactedRaw(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://a.example/m?token=s3cret#f", "https://a.example/m"},
		{"https://u:s3cret@a.example/m", "https://a.example/m"},
		{"/prm?token=s3cret", "/prm"},
		{"https://[::1/prm?token=s3cret", "https://[::1/prm"},
		{"https://[::1/prm#s3cret", "https://[::1/prm"},
		{"#s3cret%zz", ""},
		{"https://u:s3cret@[::1/prm", "https://[::1/prm"},
		{"https://@[::1/prm", "https://[::1/prm"},
		{"https://u@v:s3cret@[::1/prm", "https://[::1/prm"},
	} {
		if got := redactedRaw(tt.in); got != tt.want {
			t.Errorf("redactedRaw(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
