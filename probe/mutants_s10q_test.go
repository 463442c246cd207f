package probe

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Tests for the mutation survivors of session 10 in probe/check_oauth.go
// (the OAuth readiness check of a remote answering 401): what the check
// sends, where it looks for the protected resource metadata and the
// authorization server metadata, which resource identifiers name the
// endpoint, and what a user reads in a finding's evidence or a
// not_checked detail.

// s10qRoute is one answer of a fixture host: status 0 means 200 with a
// JSON content type.
type s10qRoute struct {
	status int
	body   string
}

// s10qRequest is what a fixture host saw of one request.
type s10qRequest struct {
	Method, Path, ContentType, Accept, Body string
}

// s10qFixture is a remote MCP endpoint at /mcp answering 401 with header
// as WWW-Authenticate, the routes rs on its host, an authorization
// server's routes as on a second host, and a third host, other, that
// must never be contacted. In header, routes and bodies "{rs}", "{as}"
// and "{other}" stand for the hosts' origins.
type s10qFixture struct {
	header string
	rs, as map[string]s10qRoute
}

type s10qHosts struct {
	rs, as, other *httptest.Server
	mu            sync.Mutex
	seen          []s10qRequest // requests to rs and as, in order
	otherHits     int
}

func (h *s10qHosts) fill(v string) string {
	return strings.NewReplacer("{rs}", h.rs.URL, "{as}", h.as.URL, "{other}", h.other.URL).Replace(v)
}

func startS10QFixture(t *testing.T, f s10qFixture) *s10qHosts {
	t.Helper()
	h := &s10qHosts{}
	serve := func(routes map[string]s10qRoute, endpoint bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			h.mu.Lock()
			h.seen = append(h.seen, s10qRequest{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Accept"), string(b)})
			h.mu.Unlock()
			if endpoint && r.URL.Path == "/mcp" {
				if f.header != "" {
					w.Header().Set("WWW-Authenticate", h.fill(f.header))
				}
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
			rt, ok := routes[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			if rt.status != 0 {
				w.WriteHeader(rt.status)
			} else {
				w.Header().Set("Content-Type", "application/json")
			}
			_, _ = w.Write([]byte(h.fill(rt.body)))
		})
	}
	h.rs = httptest.NewTLSServer(serve(f.rs, true))
	h.as = httptest.NewTLSServer(serve(f.as, false))
	h.other = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.otherHits++
		h.mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(func() { h.rs.Close(); h.as.Close(); h.other.Close() })
	return h
}

// s10qCheck runs the OAuth check against the fixture's /mcp and returns
// the readiness and the finding codes; the third host must stay
// untouched and the request budget kept.
func s10qCheck(t *testing.T, h *s10qHosts, version string) (*OAuthReadiness, []Finding) {
	t.Helper()
	r, fs := runOAuthCheck(t.Context(), h.rs.Client(), h.rs.URL+"/mcp", version)
	if r == nil {
		t.Fatal("no readiness for a 401")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.otherHits != 0 {
		t.Errorf("a host neither the target nor its authorization server was contacted %d times", h.otherHits)
	}
	if r.Requests > maxOAuthRequests || r.Requests != len(h.seen) {
		t.Errorf("%d requests counted, %d seen, budget %d", r.Requests, len(h.seen), maxOAuthRequests)
	}
	return r, fs
}

func s10qCodes(fs []Finding) []string {
	var codes []string
	for _, f := range fs {
		codes = append(codes, f.Code)
	}
	return codes
}

// TestS10QRequests: the check asks with an unauthenticated initialize
// POST as a streamable HTTP client sends it (a JSON body in the run's
// protocol version, 2025-11-25 when none is set; Content-Type JSON;
// Accept naming both JSON and SSE, without which a conforming server may
// refuse before it checks credentials), and reads the metadata with plain
// GETs accepting JSON.
func TestS10QRequests(t *testing.T) {
	for _, tt := range []struct{ version, want string }{
		{"", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			h := startS10QFixture(t, s10qFixture{header: `Bearer resource_metadata="{rs}/.well-known/oauth-protected-resource/mcp"`,
				rs: map[string]s10qRoute{"/.well-known/oauth-protected-resource/mcp": {body: s10qPRM}},
				as: map[string]s10qRoute{asWK: {body: s10qAS}}})
			r, fs := s10qCheck(t, h, tt.version)
			if r.Readiness != OAuthReady || len(fs) != 0 {
				t.Fatalf("readiness %q, findings %v; want ready", r.Readiness, fs)
			}
			want := []s10qRequest{
				{Method: "POST", Path: "/mcp", ContentType: "application/json", Accept: "application/json, text/event-stream"},
				{Method: "GET", Path: "/.well-known/oauth-protected-resource/mcp", Accept: "application/json"},
				{Method: "GET", Path: asWK, Accept: "application/json"},
			}
			got := append([]s10qRequest(nil), h.seen...)
			if len(got) == 0 {
				t.Fatal("no request seen")
			}
			init := got[0].Body
			got[0].Body = ""
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			var msg struct {
				JSONRPC string `json:"jsonrpc"`
				Method  string `json:"method"`
				Params  struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"params"`
			}
			if err := json.Unmarshal([]byte(init), &msg); err != nil || msg.JSONRPC != "2.0" || msg.Method != "initialize" || msg.Params.ProtocolVersion != tt.want {
				t.Errorf("initialize body %q (%v): want an initialize request in %s", init, err, tt.want)
			}
		})
	}
}

const (
	s10qPRM = `{"resource":"{rs}/mcp","authorization_servers":["{as}"]}`
	s10qAS  = `{"issuer":"{as}","authorization_endpoint":"{as}/authorize","token_endpoint":"{as}/token",
		"code_challenge_methods_supported":["S256"],"client_id_metadata_document_supported":true}`
)

// TestS10QDiscovery: where the check finds the protected resource
// metadata and the authorization server metadata, which resource
// identifiers name the endpoint, and what the user reads when the check
// stops.
func TestS10QDiscovery(t *testing.T) {
	prmAt := func(path, body string) map[string]s10qRoute { return map[string]s10qRoute{path: {body: body}} }
	wk := "/.well-known/oauth-protected-resource/mcp"
	goodAS := map[string]s10qRoute{asWK: {body: s10qAS}}
	tests := []struct {
		name      string
		f         s10qFixture
		want      []string
		readiness string
		// prm and asMeta are the URLs the metadata was read from,
		// detail the not_checked detail ("{rs}" etc. filled).
		prm, asMeta, detail string
	}{
		{
			// RFC 9728 section 5.1: WWW-Authenticate may name metadata at any
			// URL; the check reads it there before the well-known paths.
			name:      "metadata named at a path of its own",
			f:         s10qFixture{header: `Bearer realm="mcp", resource_metadata="{rs}/oauth/metadata.json"`, rs: prmAt("/oauth/metadata.json", s10qPRM), as: goodAS},
			readiness: OAuthReady, prm: "{rs}/oauth/metadata.json", asMeta: "{as}" + asWK,
		},
		{
			// The parameter is read wherever it stands in the value, also
			// at its very start (a challenge sent without its scheme).
			name:      "resource_metadata without a scheme",
			f:         s10qFixture{header: `resource_metadata="{rs}/oauth/metadata.json"`, rs: prmAt("/oauth/metadata.json", s10qPRM), as: goodAS},
			readiness: OAuthReady, prm: "{rs}/oauth/metadata.json", asMeta: "{as}" + asWK,
		},
		{
			// An empty parameter names nothing: the server has no metadata,
			// a finding, not a host mcpvet declined to contact.
			name:      "empty unquoted resource_metadata",
			f:         s10qFixture{header: `Bearer resource_metadata=, realm="mcp"`},
			want:      []string{CodeOAuthNoResourceMetadata},
			readiness: OAuthNotReady,
		},
		{
			name:      "empty quoted resource_metadata",
			f:         s10qFixture{header: `Bearer resource_metadata="", realm="mcp"`},
			want:      []string{CodeOAuthNoResourceMetadata},
			readiness: OAuthNotReady,
		},
		{
			// The detail names the foreign URL without its query, which may
			// carry a token.
			name:      "metadata on another host, with a token",
			f:         s10qFixture{header: `Bearer resource_metadata="{other}/.well-known/oauth-protected-resource?token=s3cret#frag"`},
			readiness: OAuthNotChecked,
			detail:    "WWW-Authenticate names resource metadata on another host ({other}/.well-known/oauth-protected-resource), which mcpvet does not contact, and the target's own well-known path has none",
		},
		{
			// A URL that does not parse names nothing a client can fetch:
			// with nothing at the well-known paths, the server's defect
			// (i26s; TestS10SNamedURLInvalid has the other invalid forms).
			name:      "named URL unparsable",
			f:         s10qFixture{header: `Bearer resource_metadata="https://[::1/prm"`},
			want:      []string{CodeOAuthBadResourceMeta},
			readiness: OAuthBroken,
		},
		{
			name:      "resource at the origin covers /mcp",
			f:         s10qFixture{header: `Bearer realm="mcp"`, rs: prmAt(wk, strings.Replace(s10qPRM, "{rs}/mcp", "{rs}/", 1)), as: goodAS},
			readiness: OAuthReady, prm: "{rs}" + wk, asMeta: "{as}" + asWK,
		},
		{
			name:      "resource on another path of the same origin",
			f:         s10qFixture{header: `Bearer realm="mcp"`, rs: prmAt(wk, strings.Replace(s10qPRM, "{rs}/mcp", "{rs}/api/mcp", 1)), as: goodAS},
			want:      []string{CodeOAuthResourceMismatch},
			readiness: OAuthBroken, prm: "{rs}" + wk, asMeta: "{as}" + asWK,
		},
		{
			// The same host on another port is another origin (a proxy's
			// port leaking into the metadata).
			name:      "resource on another port of the same host",
			f:         s10qFixture{header: `Bearer realm="mcp"`, rs: prmAt(wk, strings.Replace(s10qPRM, "{rs}/mcp", "{other}/mcp", 1)), as: goodAS},
			want:      []string{CodeOAuthResourceMismatch},
			readiness: OAuthBroken, prm: "{rs}" + wk, asMeta: "{as}" + asWK,
		},
		{
			// An issuer with a path (a Keycloak realm): RFC 8414 section
			// 3.1 inserts the well-known path before it.
			name: "issuer with a path, RFC 8414",
			f: s10qFixture{header: `Bearer realm="mcp"`, rs: prmAt(wk, strings.Replace(s10qPRM, `["{as}"]`, `["{as}/realms/mcp"]`, 1)),
				as: map[string]s10qRoute{asWK + "/realms/mcp": {body: strings.ReplaceAll(s10qAS, `"{as}"`, `"{as}/realms/mcp"`)}}},
			readiness: OAuthReady, prm: "{rs}" + wk, asMeta: "{as}" + asWK + "/realms/mcp",
		},
		{
			// OpenID Connect Discovery appends it to the issuer.
			name: "issuer with a path, OpenID Connect",
			f: s10qFixture{header: `Bearer realm="mcp"`, rs: prmAt(wk, strings.Replace(s10qPRM, `["{as}"]`, `["{as}/realms/mcp"]`, 1)),
				as: map[string]s10qRoute{"/realms/mcp/.well-known/openid-configuration": {body: strings.ReplaceAll(s10qAS, `"{as}"`, `"{as}/realms/mcp"`)}}},
			readiness: OAuthReady, prm: "{rs}" + wk, asMeta: "{as}/realms/mcp/.well-known/openid-configuration",
		},
		{
			// Metadata at the issuer's root does not count for an issuer
			// with a path: it is another issuer's.
			name: "issuer with a path, metadata only at the root",
			f: s10qFixture{header: `Bearer realm="mcp"`, rs: prmAt(wk, strings.Replace(s10qPRM, `["{as}"]`, `["{as}/realms/mcp"]`, 1)),
				as: goodAS},
			want:      []string{CodeOAuthNoASMetadata},
			readiness: OAuthBroken, prm: "{rs}" + wk,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := startS10QFixture(t, tt.f)
			r, fs := s10qCheck(t, h, "2025-11-25")
			if diff := cmp.Diff(tt.want, s10qCodes(fs)); diff != "" {
				t.Errorf("codes (-want +got):\n%s\n%v", diff, fs)
			}
			got := []string{r.Readiness, r.ResourceMetadata, r.ASMetadata, r.Detail}
			want := []string{tt.readiness, h.fill(tt.prm), h.fill(tt.asMeta), h.fill(tt.detail)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("readiness, metadata URLs, detail (-want +got):\n%s", diff)
			}
			if strings.Contains(r.Detail, "s3cret") {
				t.Errorf("the detail shows the token: %s", r.Detail)
			}
		})
	}
}

// TestS10QResourceCovers: a resource identifier names the endpoint when it
// has the same origin (the scheme's default port written or not) and a
// path that is the endpoint's or a whole-segment prefix of it.
func TestS10QResourceCovers(t *testing.T) {
	for _, tt := range []struct {
		r, t string
		want bool
	}{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/mcp/", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/v1", "https://mcp.example.com/v1/mcp", true},
		{"HTTPS://MCP.example.com/mcp", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com:443/mcp", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/mcp", "https://mcp.example.com:443/mcp", true},
		{"http://localhost:80/mcp", "http://localhost/mcp", true},
		{"https://mcp.example.com/m", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com/api", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com/mcp/sse", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com:8443/mcp", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com:80/mcp", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com:8443/mcp", "https://mcp.example.com:9443/mcp", false},
		{"http://mcp.example.com/mcp", "https://mcp.example.com/mcp", false},
		{"https://auth.example.com/mcp", "https://mcp.example.com/mcp", false},
	} {
		r, _ := url.Parse(tt.r)
		u, _ := url.Parse(tt.t)
		if got := resourceCovers(r, u); got != tt.want {
			t.Errorf("resourceCovers(%s, %s) = %v, want %v", tt.r, tt.t, got, tt.want)
		}
	}
}

// TestS10QFirstLine: a finding's evidence from an answer body is its
// first line, at most 200 bytes; an answer opening with a blank line
// (as templated error pages do) gives none.
func TestS10QFirstLine(t *testing.T) {
	long := strings.Repeat("a", 200)
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"Not Found", "Not Found"},
		{"Not Found\n<html>", "Not Found"},
		{"\n<!DOCTYPE html>\n<title>404</title>", ""},
		{long, long},
		{long + "b", long},
		{long + "\n", long},
	} {
		if got := firstLine([]byte(tt.in)); got != tt.want {
			t.Errorf("firstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// In a finding: metadata that does not decode, pretty-printed.
	h := startS10QFixture(t, s10qFixture{header: `Bearer realm="mcp"`,
		rs: map[string]s10qRoute{"/.well-known/oauth-protected-resource/mcp": {body: s10qPRM}},
		as: map[string]s10qRoute{asWK: {body: "{\n  \"issuer\": \"{as}\",\n  \"code_challenge_methods_supported\": \"S256\"\n}"}}})
	r, fs := s10qCheck(t, h, "")
	if len(fs) != 1 || fs[0].Code != CodeOAuthBadASMetadata || fs[0].Value != "{" || r.Readiness != OAuthBroken {
		t.Errorf("readiness %q, findings %+v; want one %s with value %q", r.Readiness, fs, CodeOAuthBadASMetadata, "{")
	}
}
