package probe

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/vocab"
)

// oauthFixture is a remote MCP endpoint at /mcp that answers 401, and an
// authorization server on another host, each breakable in one way.
type oauthFixture struct {
	// header is the WWW-Authenticate value; "{prm}" is replaced by the
	// metadata URL on the resource's host, "{foreign}" by one on a third
	// host.
	header string
	// prm is served at /.well-known/oauth-protected-resource/mcp unless
	// prmStatus says otherwise; "{rs}" and "{as}" are replaced.
	prm       string
	prmStatus int
	// as is the authorization server metadata at asPath.
	as     string
	asPath string
}

type oauthServers struct {
	rs, as, foreign *httptest.Server
	foreignHits     atomic.Int32
}

func startOAuthFixture(t *testing.T, f oauthFixture) *oauthServers {
	t.Helper()
	s := &oauthServers{}
	fill := func(v string) string {
		return strings.NewReplacer("{rs}", s.rs.URL, "{as}", s.as.URL, "{prm}", s.rs.URL+"/.well-known/oauth-protected-resource/mcp",
			"{foreign}", s.foreign.URL+"/.well-known/oauth-protected-resource").Replace(v)
	}
	s.foreign = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.foreignHits.Add(1)
		http.NotFound(w, r)
	}))
	s.rs = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/mcp":
			if f.header != "" {
				w.Header().Set("WWW-Authenticate", fill(f.header))
			}
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		case r.URL.Path == "/.well-known/oauth-protected-resource/mcp" && f.prm != "":
			if f.prmStatus != 0 {
				http.Error(w, "nope", f.prmStatus)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(fill(f.prm)))
		default:
			http.NotFound(w, r)
		}
	}))
	s.as = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == f.asPath && f.as != "" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(fill(f.as)))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(func() { s.rs.Close(); s.as.Close(); s.foreign.Close() })
	return s
}

const (
	goodPRM = `{"resource":"{rs}/mcp","authorization_servers":["{as}"],"bearer_methods_supported":["header"]}`
	goodAS  = `{"issuer":"{as}","authorization_endpoint":"{as}/authorize","token_endpoint":"{as}/token","registration_endpoint":"{as}/register",
		"response_types_supported":["code"],"code_challenge_methods_supported":["S256"],"client_id_metadata_document_supported":true}`
	bearerPRM = `Bearer resource_metadata="{prm}"`
	asWK      = "/.well-known/oauth-authorization-server"
)

// TestOAuthCheck runs the OAuth readiness check against a conforming
// remote and one fixture per defect; each must draw its code and the
// readiness the census counts, and no host but the resource's and the
// named authorization server's may be contacted.
func TestOAuthCheck(t *testing.T) {
	tests := []struct {
		name      string
		f         oauthFixture
		want      []string
		readiness string
	}{
		{"ready", oauthFixture{header: bearerPRM, prm: goodPRM, as: goodAS, asPath: asWK}, nil, OAuthReady},
		{"ready: metadata at the well-known path only", oauthFixture{header: `Bearer realm="mcp"`, prm: goodPRM, as: goodAS, asPath: asWK}, nil, OAuthReady},
		{"ready: OpenID Connect discovery", oauthFixture{header: bearerPRM, prm: goodPRM, as: goodAS, asPath: "/.well-known/openid-configuration"}, nil, OAuthReady},
		{"ready: dynamic registration only", oauthFixture{header: bearerPRM, prm: goodPRM, as: strings.Replace(goodAS, `,"client_id_metadata_document_supported":true`, "", 1), asPath: asWK}, nil, OAuthReady},
		{"no resource metadata", oauthFixture{header: `Bearer realm="mcp"`}, []string{CodeOAuthNoResourceMetadata}, OAuthNotReady},
		{"named metadata missing", oauthFixture{header: bearerPRM, prm: goodPRM, prmStatus: 404}, []string{CodeOAuthBadResourceMeta}, OAuthBroken},
		{"metadata not an object", oauthFixture{header: bearerPRM, prm: `[1,2]`}, []string{CodeOAuthBadResourceMeta}, OAuthBroken},
		{"resource mismatch", oauthFixture{header: bearerPRM, prm: strings.Replace(goodPRM, "{rs}/mcp", "https://other.example/mcp", 1), as: goodAS, asPath: asWK}, []string{CodeOAuthResourceMismatch}, OAuthBroken},
		{"resource with fragment", oauthFixture{header: bearerPRM, prm: strings.Replace(goodPRM, "{rs}/mcp", "{rs}/mcp#x", 1), as: goodAS, asPath: asWK}, []string{CodeOAuthBadResourceMeta}, OAuthBroken},
		{"no authorization servers", oauthFixture{header: bearerPRM, prm: `{"resource":"{rs}/mcp","authorization_servers":[]}`}, []string{CodeOAuthNoAuthServers}, OAuthBroken},
		{"no authorization server metadata", oauthFixture{header: bearerPRM, prm: goodPRM}, []string{CodeOAuthNoASMetadata}, OAuthBroken},
		{"issuer mismatch", oauthFixture{header: bearerPRM, prm: goodPRM, as: strings.Replace(goodAS, `"issuer":"{as}"`, `"issuer":"https://elsewhere.example"`, 1), asPath: asWK}, []string{CodeOAuthBadASMetadata}, OAuthBroken},
		{"no token endpoint", oauthFixture{header: bearerPRM, prm: goodPRM, as: strings.Replace(goodAS, `"token_endpoint":"{as}/token",`, "", 1), asPath: asWK}, []string{CodeOAuthBadASMetadata}, OAuthBroken},
		{"endpoint over http", oauthFixture{header: bearerPRM, prm: goodPRM, as: strings.Replace(goodAS, `"token_endpoint":"{as}/token"`, `"token_endpoint":"http://token.example/token"`, 1), asPath: asWK}, []string{CodeOAuthNotHTTPS}, OAuthBroken},
		{"no PKCE S256", oauthFixture{header: bearerPRM, prm: goodPRM, as: strings.Replace(goodAS, `["S256"]`, `["plain"]`, 1), asPath: asWK}, []string{CodeOAuthNoPKCE}, OAuthNotReady},
		{"no registration route", oauthFixture{header: bearerPRM, prm: goodPRM, as: strings.NewReplacer(`"registration_endpoint":"{as}/register",`, "", `,"client_id_metadata_document_supported":true`, "").Replace(goodAS), asPath: asWK}, []string{CodeOAuthNoRegistration}, OAuthNotReady},
		{"metadata on another host", oauthFixture{header: `Bearer resource_metadata="{foreign}"`}, nil, OAuthNotChecked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startOAuthFixture(t, tt.f)
			r, fs := runOAuthCheck(t.Context(), s.rs.Client(), s.rs.URL+"/mcp", "2025-11-25")
			if r == nil {
				t.Fatal("no readiness for a 401")
			}
			var codes []string
			for _, f := range fs {
				codes = append(codes, f.Code)
				if !strings.Contains(f.Message, "2025-11-25, Authorization") {
					t.Errorf("%s does not quote the spec: %s", f.Code, f.Message)
				}
			}
			if diff := cmp.Diff(tt.want, codes); diff != "" {
				t.Errorf("codes (-want +got):\n%s\n%v", diff, fs)
			}
			if r.Readiness != tt.readiness {
				t.Errorf("readiness = %q, want %q (%+v)", r.Readiness, tt.readiness, r)
			}
			if n := s.foreignHits.Load(); n != 0 {
				t.Errorf("a host the target did not name as authorization server was contacted %d times", n)
			}
			if r.Requests > maxOAuthRequests {
				t.Errorf("%d requests, budget %d", r.Requests, maxOAuthRequests)
			}
		})
	}
}

// TestOAuthCheckNot401: a server that does not answer 401 gets no OAuth
// readiness.
func TestOAuthCheckNot401(t *testing.T) {
	hs := httptest.NewTLSServer(conformingHandler(nil))
	t.Cleanup(hs.Close)
	if r, fs := runOAuthCheck(t.Context(), hs.Client(), hs.URL, "2025-11-25"); r != nil || fs != nil {
		t.Errorf("readiness = %+v, findings = %v; want none", r, fs)
	}
}

// TestRunOAuth: a probe of a remote answering 401 is missing_credentials
// and carries the readiness and the OAuth findings; the result's JSON
// names it.
func TestRunOAuth(t *testing.T) {
	s := startOAuthFixture(t, oauthFixture{header: bearerPRM, prm: goodPRM, as: strings.Replace(goodAS, `["S256"]`, `[]`, 1), asPath: asWK})
	u := s.rs.URL + "/mcp"
	tr := &mcp.StreamableClientTransport{Endpoint: u, HTTPClient: s.rs.Client()}
	res := Run(context.Background(), tr, &Options{Target: Target{URL: u, Transport: "streamable-http"}, HTTPClient: s.rs.Client(),
		ProtocolVersion: "2025-11-25", Inject: &InjectOptions{Disabled: true}})
	if res.Liveness.Status != vocab.StatusMissingCredentials {
		t.Fatalf("status = %q (%s), want missing_credentials", res.Liveness.Status, res.Liveness.Detail)
	}
	if res.OAuth == nil || res.OAuth.Readiness != OAuthNotReady || res.OAuth.PKCES256 {
		t.Fatalf("oauth = %+v, want not_ready without S256", res.OAuth)
	}
	found := false
	for _, f := range res.Findings {
		found = found || f.Code == CodeOAuthNoPKCE
	}
	if !found {
		t.Errorf("findings %v lack %s", res.Findings, CodeOAuthNoPKCE)
	}
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), `"oauth":{"readiness":"not_ready"`) {
		t.Errorf("result JSON lacks the readiness: %s", b)
	}
}

func TestSecureURL(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"https://as.example", true},
		{"http://as.example", false},
		{"http://localhost:3000", true},
		{"http://127.0.0.1:9000/token", true},
		{"http://[::1]:9000", true},
		{"http://10.0.0.1", false},
		{"ftp://as.example", false},
	} {
		u, _ := url.Parse(tt.in)
		if got := secureURL(u); got != tt.want {
			t.Errorf("secureURL(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
