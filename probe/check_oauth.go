package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpvet/mcpvet/internal/authchallenge"
	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/vocab"
)

// OAuth readiness of a remote that answers 401, checked without
// credentials (MCP 2025-11-25, Authorization): the protected resource
// metadata (RFC 9728) named by WWW-Authenticate or at its well-known path,
// then the metadata of the first authorization server it lists (RFC 8414,
// else OpenID Connect Discovery). Only the target's own host and that
// authorization server's host are contacted, through the run's HTTP client
// (whose dialer refuses private addresses for untrusted plans), with no
// redirects followed, at most [maxOAuthRequests] requests of
// [oauthTimeout] each and [maxOAuthBody] bytes read per answer. Whether the
// authorization server accepts the resource indicator (RFC 8707) in a
// request cannot be seen without a registered client, so only the
// indicator itself (the metadata's resource) is checked.

// The OAuth finding codes.
const (
	CodeOAuthNoResourceMetadata = "oauth/resource_metadata_missing"
	CodeOAuthBadResourceMeta    = "oauth/resource_metadata_invalid"
	CodeOAuthResourceMismatch   = "oauth/resource_mismatch"
	CodeOAuthNoAuthServers      = "oauth/authorization_servers_missing"
	CodeOAuthNoASMetadata       = "oauth/as_metadata_missing"
	CodeOAuthBadASMetadata      = "oauth/as_metadata_invalid"
	CodeOAuthNotHTTPS           = "oauth/endpoint_not_https"
	CodeOAuthNoPKCE             = "oauth/pkce_s256_missing"
	CodeOAuthNoRegistration     = "oauth/registration_route_missing"
)

// OAuth readiness values, counted by the census ("remotes: OAuth-ready /
// not / broken metadata").
const (
	OAuthReady      = "ready"       // metadata consistent, S256, a registration route
	OAuthNotReady   = "not_ready"   // no OAuth discovery, or no S256 or registration route
	OAuthBroken     = "broken"      // metadata present but unusable
	OAuthNotChecked = "not_checked" // metadata on a host mcpvet does not contact, or unreachable
)

const (
	specOAuthDiscovery = `"MCP servers MUST implement one of the following discovery mechanisms to provide authorization server location information to MCP clients: WWW-Authenticate Header ... Well-Known URI" (2025-11-25, Authorization, Protected Resource Metadata Discovery Requirements)`
	specOAuthPRM       = `"The Protected Resource Metadata document MUST include the authorization_servers field containing at least one authorization server." (2025-11-25, Authorization, Authorization Server Location); RFC 9728 section 3.3: a resource value that is not the protected resource's identifier makes clients discard the metadata`
	specOAuthASMeta    = `"Authorization servers MUST provide at least one of the following discovery mechanisms: OAuth 2.0 Authorization Server Metadata (RFC8414), OpenID Connect Discovery 1.0" (2025-11-25, Authorization, Authorization Server Metadata Discovery); RFC 8414 section 3.3: the issuer MUST be identical to the issuer the metadata was asked for`
	specOAuthHTTPS     = `"All authorization server endpoints MUST be served over HTTPS." (2025-11-25, Authorization, Communication Security)`
	specOAuthPKCE      = `"MCP clients MUST verify PKCE support before proceeding with authorization ... If code_challenge_methods_supported is absent, the MCP client MUST refuse to proceed with authorization." and clients "MUST use the S256 code challenge method when technically capable" (2025-11-25, Authorization, Authorization Code Protection)`
	specOAuthRegister  = `clients without a pre-registered client ID register with Client ID Metadata Documents ("Authorization servers and MCP clients SHOULD support") or Dynamic Client Registration (RFC 7591, "MAY support") (2025-11-25, Authorization, Client Registration Approaches)`
)

func init() {
	register(
		CatalogEntry{CodeOAuthNoResourceMetadata, SeverityWarn,
			"a remote answers 401 without OAuth protected resource metadata (no resource_metadata in WWW-Authenticate, nothing at the well-known path)",
			"serve RFC 9728 metadata at /.well-known/oauth-protected-resource and name it in WWW-Authenticate: Bearer resource_metadata=\"...\"; or document the header credential the server needs instead"},
		CatalogEntry{CodeOAuthBadResourceMeta, SeverityError,
			"the protected resource metadata could not be read (named in WWW-Authenticate by a URL that is not absolute while the well-known path has none, not 200, not a JSON object, or no valid resource identifier)",
			"name the metadata in WWW-Authenticate by its absolute https URL, and answer GET on it with 200 and a JSON object holding resource (the server's absolute URL, no fragment) and authorization_servers"},
		CatalogEntry{CodeOAuthResourceMismatch, SeverityError,
			"the resource of the protected resource metadata is not the server's URL, so clients must discard the metadata",
			"set resource to the canonical URL of the MCP endpoint (or a path prefix of it on the same origin)"},
		CatalogEntry{CodeOAuthNoAuthServers, SeverityError,
			"the protected resource metadata lists no authorization server",
			"list the issuer URL of at least one authorization server in authorization_servers"},
		CatalogEntry{CodeOAuthNoASMetadata, SeverityError,
			"the authorization server publishes no metadata (RFC 8414 or OpenID Connect Discovery) at the URLs clients try",
			"serve /.well-known/oauth-authorization-server (or /.well-known/openid-configuration) for the issuer"},
		CatalogEntry{CodeOAuthBadASMetadata, SeverityError,
			"the authorization server metadata is unusable (wrong issuer, or no authorization or token endpoint)",
			"publish issuer identical to the URL in authorization_servers, with authorization_endpoint and token_endpoint"},
		CatalogEntry{CodeOAuthNotHTTPS, SeverityError,
			"an authorization endpoint or issuer is not served over HTTPS (http is accepted on loopback hosts only)",
			"serve the issuer and every authorization server endpoint over https"},
		CatalogEntry{CodeOAuthNoPKCE, SeverityError,
			"the authorization server does not advertise PKCE S256, so MCP clients refuse to authorize",
			"support PKCE and list \"S256\" in code_challenge_methods_supported"},
		CatalogEntry{CodeOAuthNoRegistration, SeverityWarn,
			"the authorization server offers no registration route (no registration_endpoint, no client ID metadata documents): only pre-registered clients can connect",
			"set client_id_metadata_document_supported: true, or offer Dynamic Client Registration with registration_endpoint"},
	)
	registerWhy(map[string]string{
		CodeOAuthNoResourceMetadata: specOAuthDiscovery + ". Graded warn: authorization is optional, and a server may want a header credential instead (then it needs setup the user must know of).",
		CodeOAuthBadResourceMeta:    specOAuthDiscovery + "; RFC 9728 section 5.1: resource_metadata in WWW-Authenticate is the URL of the metadata; RFC 9728 section 3: the metadata is a JSON object whose resource is the resource identifier (RFC 8707: an absolute URI without fragment).",
		CodeOAuthResourceMismatch:   specOAuthPRM + ".",
		CodeOAuthNoAuthServers:      specOAuthPRM + ".",
		CodeOAuthNoASMetadata:       specOAuthASMeta + ".",
		CodeOAuthBadASMetadata:      specOAuthASMeta + "; RFC 8414 section 2 requires authorization_endpoint (for the code grant) and token_endpoint.",
		CodeOAuthNotHTTPS:           specOAuthHTTPS + ".",
		CodeOAuthNoPKCE:             specOAuthPKCE + ".",
		CodeOAuthNoRegistration:     specOAuthRegister + ". Graded warn: pre-registration is allowed, but then every user needs a client ID from the operator.",
	})
}

// OAuthReadiness is what the OAuth check found of a remote that answered
// 401.
type OAuthReadiness struct {
	// Readiness is ready, not_ready, broken or not_checked.
	Readiness string `json:"readiness"`
	// ResourceMetadata is the URL the protected resource metadata was read
	// from; AuthorizationServer the issuer it names first, and
	// ASMetadata the URL its metadata was read from.
	ResourceMetadata    string `json:"resourceMetadata,omitempty"`
	AuthorizationServer string `json:"authorizationServer,omitempty"`
	ASMetadata          string `json:"asMetadata,omitempty"`
	PKCES256            bool   `json:"pkceS256"`
	// Registration lists the registration routes offered:
	// client_id_metadata_document, dynamic.
	Registration []string `json:"registration,omitempty"`
	// Detail says why the check stopped, for not_checked.
	Detail   string `json:"detail,omitempty"`
	Requests int    `json:"requests"`
}

const (
	maxOAuthRequests = 7
	oauthTimeout     = 5 * time.Second
	maxOAuthBody     = 256 << 10
)

type oauthCheck struct {
	client   *http.Client
	target   *url.URL
	allowed  map[string]bool // hosts that may be contacted
	out      *OAuthReadiness
	findings []Finding
}

func (c *oauthCheck) add(code, ptr, value, format string, args ...any) {
	c.findings = append(c.findings, NewFinding(code, "server", ptr, value, format, args...))
}

// get fetches u when its host may be contacted and the budget allows, and
// returns the status and the body (bounded).
func (c *oauthCheck) do(ctx context.Context, method, u string, body []byte) (int, http.Header, []byte, error) {
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || !c.allowed[strings.ToLower(pu.Host)] {
		return 0, nil, nil, fmt.Errorf("not contacted: %s is not the target's host or a named authorization server", u)
	}
	if c.out.Requests >= maxOAuthRequests {
		return 0, nil, nil, fmt.Errorf("request budget of %d spent", maxOAuthRequests)
	}
	c.out.Requests++
	ctx, cancel := context.WithTimeout(ctx, oauthTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxOAuthBody))
	return resp.StatusCode, resp.Header, b, nil
}

// runOAuthCheck checks the OAuth readiness of the remote at target. It
// returns nil when the target does not answer an unauthenticated
// initialize with 401.
func runOAuthCheck(ctx context.Context, client *http.Client, target, version string) (*OAuthReadiness, []Finding) {
	tu, err := url.Parse(target)
	if err != nil || tu.Host == "" {
		return nil, nil
	}
	c := &oauthCheck{client: client, target: tu, allowed: map[string]bool{strings.ToLower(tu.Host): true}, out: &OAuthReadiness{}}
	if version == "" {
		version = vocab.Protocol20251125
	}
	init := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcpvet-oauth-check","version":"1"}}}`, version)
	status, hdr, _, err := c.do(ctx, http.MethodPost, target, init)
	if err != nil || status != http.StatusUnauthorized {
		return nil, nil
	}
	c.check(ctx, hdr)
	c.out.Readiness = readiness(c.out.Readiness, c.findings)
	return c.out, c.findings
}

// readiness decides the census value: broken metadata when a finding says
// the metadata is unusable, not ready when a client still cannot
// authorize (no OAuth discovery, no S256, no registration route), else
// what the check set (not_checked) or ready.
func readiness(set string, fs []Finding) string {
	out := ""
	for _, f := range fs {
		switch {
		case f.Severity == SeverityError && f.Code != CodeOAuthNoPKCE:
			return OAuthBroken
		default:
			out = OAuthNotReady
		}
	}
	switch {
	case set == OAuthBroken:
		return OAuthBroken
	case out != "":
		return out
	case set != "":
		return set
	}
	return OAuthReady
}

func (c *oauthCheck) notChecked(why string) {
	c.out.Readiness = OAuthNotChecked
	c.out.Detail = why
}

func (c *oauthCheck) check(ctx context.Context, hdr http.Header) {
	prm, prmURL, ok := c.resourceMetadata(ctx, hdr)
	if !ok {
		return
	}
	c.out.ResourceMetadata = prmURL
	var doc struct {
		Resource             *string  `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if json.Unmarshal(prm, &doc) != nil {
		c.add(CodeOAuthBadResourceMeta, prmURL, string(prm), "the protected resource metadata at %s is not a JSON object with resource and authorization_servers; the spec says %s", prmURL, specOAuthDiscovery)
		return
	}
	switch ru, err := url.Parse(deref(doc.Resource)); {
	case doc.Resource == nil || err != nil || !ru.IsAbs() || ru.Fragment != "":
		c.add(CodeOAuthBadResourceMeta, prmURL+"#/resource", deref(doc.Resource),
			"the protected resource metadata at %s has no valid resource (an absolute URI without fragment, RFC 8707); the spec says %s", prmURL, specOAuthDiscovery)
	case !resourceCovers(ru, c.target):
		c.add(CodeOAuthResourceMismatch, prmURL+"#/resource", *doc.Resource,
			"the protected resource metadata names resource %q, which is not the server's URL %s; %s", *doc.Resource, redactedURL(c.target), specOAuthPRM)
	}
	if len(doc.AuthorizationServers) == 0 {
		c.add(CodeOAuthNoAuthServers, prmURL+"#/authorization_servers", "", "the protected resource metadata at %s lists no authorization server; the spec says %s", prmURL, specOAuthPRM)
		return
	}
	issuer := doc.AuthorizationServers[0]
	c.out.AuthorizationServer = issuer
	iu, err := url.Parse(issuer)
	if err != nil || !iu.IsAbs() || iu.Host == "" {
		c.add(CodeOAuthBadASMetadata, prmURL+"#/authorization_servers/0", issuer, "the authorization server %q is not an absolute URL; the spec says %s", issuer, specOAuthASMeta)
		return
	}
	if !secureURL(iu) {
		c.add(CodeOAuthNotHTTPS, prmURL+"#/authorization_servers/0", issuer, "the authorization server %s is not an https URL; the spec says %s", issuer, specOAuthHTTPS)
	}
	c.allowed[strings.ToLower(iu.Host)] = true
	c.authorizationServer(ctx, iu)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// resourceMetadata finds the protected resource metadata: the URL in
// WWW-Authenticate's resource_metadata, else the well-known path with the
// endpoint's path, else the root one (RFC 9728 section 3.1).
func (c *oauthCheck) resourceMetadata(ctx context.Context, hdr http.Header) (json.RawMessage, string, bool) {
	var candidates []string
	named := authchallenge.ResourceMetadata(hdr)
	nu, err := url.Parse(named)
	// RFC 9728 section 5.1: resource_metadata carries the URL of the
	// metadata, which a client fetches as it stands; a relative
	// reference, a URL without host or of another scheme, or text that
	// does not parse names nothing a client can fetch.
	fetchable := named != "" && err == nil && nu.IsAbs() && nu.Host != "" && (nu.Scheme == "https" || nu.Scheme == "http")
	foreign := fetchable && !strings.EqualFold(nu.Host, c.target.Host)
	if fetchable && !foreign {
		candidates = append(candidates, named)
	}
	base := c.target.Scheme + "://" + c.target.Host + "/.well-known/oauth-protected-resource"
	if p := strings.TrimSuffix(c.target.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, base+p)
	}
	candidates = append(candidates, base)
	var answered []string // the URLs that answered without metadata
	for _, u := range candidates {
		status, _, body, err := c.do(ctx, http.MethodGet, u, nil)
		if err != nil {
			continue
		}
		if status == http.StatusOK && isJSONObject(body) {
			return body, u, true
		}
		answered = append(answered, u)
		if u == named {
			// Named by the server itself: it must be there.
			c.add(CodeOAuthBadResourceMeta, u, fmt.Sprintf("%d %s", status, firstLine(body)),
				"WWW-Authenticate names the protected resource metadata %s, which answered %d without a JSON object; the spec says %s", u, status, specOAuthDiscovery)
			c.out.Readiness = OAuthBroken
			return nil, "", false
		}
	}
	switch {
	case foreign:
		own := "the target's own well-known path has none"
		if len(answered) == 0 {
			own = "the target's own well-known paths could not be reached"
		}
		c.notChecked("WWW-Authenticate names resource metadata on another host (" + redactedRaw(named) + "), which mcpvet does not contact, and " + own)
	case len(answered) == 0:
		c.notChecked("the well-known metadata paths could not be reached")
	case named != "" && !fetchable:
		// Clients fall back to the well-known paths (the go-sdk client
		// does), so the named URL is a defect only when they have nothing.
		c.add(CodeOAuthBadResourceMeta, "WWW-Authenticate", redactedRaw(named),
			"WWW-Authenticate names the protected resource metadata %q, which is not an absolute http(s) URL (RFC 9728 section 5.1), and %s answered without metadata; the spec says %s", redactedRaw(named), strings.Join(answered, " and "), specOAuthDiscovery)
	default:
		c.add(CodeOAuthNoResourceMetadata, "WWW-Authenticate", strings.Join(hdr.Values("WWW-Authenticate"), ", "),
			"the server answered 401 without resource_metadata in WWW-Authenticate and has no protected resource metadata at %s; the spec says %s", base, specOAuthDiscovery)
		c.out.Readiness = OAuthNotReady
	}
	return nil, "", false
}

// resourceCovers reports whether the resource identifier r names the
// endpoint t: the same origin and a path that is t's or a segment prefix
// of it (as the MCP SDKs accept).
func resourceCovers(r, t *url.URL) bool {
	if !strings.EqualFold(r.Scheme, t.Scheme) || !strings.EqualFold(r.Hostname(), t.Hostname()) || effectivePort(r) != effectivePort(t) {
		return false
	}
	rp, tp := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(t.Path, "/")
	return rp == "" || rp == tp || strings.HasPrefix(tp, rp+"/")
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// asMetadataURLs are the URLs clients try for an issuer's metadata
// (2025-11-25, Authorization Server Metadata Discovery).
func asMetadataURLs(iu *url.URL) []string {
	origin := iu.Scheme + "://" + iu.Host
	p := strings.TrimSuffix(iu.EscapedPath(), "/")
	if p == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{origin + "/.well-known/oauth-authorization-server" + p, origin + "/.well-known/openid-configuration" + p, origin + p + "/.well-known/openid-configuration"}
}

func (c *oauthCheck) authorizationServer(ctx context.Context, iu *url.URL) {
	issuer := iu.String()
	var meta json.RawMessage
	var from string
	reached := false
	for _, u := range asMetadataURLs(iu) {
		status, _, body, err := c.do(ctx, http.MethodGet, u, nil)
		if err != nil {
			continue
		}
		reached = true
		if status == http.StatusOK && isJSONObject(body) {
			meta, from = body, u
			break
		}
	}
	if meta == nil {
		if !reached {
			c.notChecked("the authorization server " + issuer + " could not be reached")
			return
		}
		c.add(CodeOAuthNoASMetadata, issuer, issuer, "the authorization server %s has no metadata at %s; the spec says %s", issuer, strings.Join(asMetadataURLs(iu), ", "), specOAuthASMeta)
		return
	}
	c.out.ASMetadata = from
	var m struct {
		Issuer         string   `json:"issuer"`
		Authorization  string   `json:"authorization_endpoint"`
		Token          string   `json:"token_endpoint"`
		Registration   string   `json:"registration_endpoint"`
		PKCE           []string `json:"code_challenge_methods_supported"`
		CIMD           bool     `json:"client_id_metadata_document_supported"`
		ResponseTypes  []string `json:"response_types_supported"`
		GrantTypes     []string `json:"grant_types_supported"`
		TokenEndpoints []string `json:"token_endpoint_auth_methods_supported"`
	}
	if json.Unmarshal(meta, &m) != nil {
		c.add(CodeOAuthBadASMetadata, from, firstLine(meta), "the authorization server metadata at %s does not decode (fields of the wrong type); the spec says %s", from, specOAuthASMeta)
		return
	}
	var bad []string
	if strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
		bad = append(bad, fmt.Sprintf("issuer %q is not %q", m.Issuer, issuer))
	}
	if m.Authorization == "" {
		bad = append(bad, "no authorization_endpoint")
	}
	if m.Token == "" {
		bad = append(bad, "no token_endpoint")
	}
	if len(bad) > 0 {
		c.add(CodeOAuthBadASMetadata, from, strings.Join(bad, "; "), "the authorization server metadata at %s is unusable: %s; the spec says %s", from, strings.Join(bad, "; "), specOAuthASMeta)
	}
	var plain []string
	for name, e := range map[string]string{"authorization_endpoint": m.Authorization, "token_endpoint": m.Token, "registration_endpoint": m.Registration} {
		if u, err := url.Parse(e); e != "" && (err != nil || !secureURL(u)) {
			plain = append(plain, name+" "+e)
		}
	}
	slices.Sort(plain)
	if len(plain) > 0 {
		c.add(CodeOAuthNotHTTPS, from, strings.Join(plain, ", "), "the authorization server metadata at %s has endpoints not served over https (%s); the spec says %s", from, strings.Join(plain, ", "), specOAuthHTTPS)
	}
	c.out.PKCES256 = slices.Contains(m.PKCE, "S256")
	if !c.out.PKCES256 {
		c.add(CodeOAuthNoPKCE, from+"#/code_challenge_methods_supported", strings.Join(m.PKCE, ","),
			"the authorization server metadata at %s does not list S256 in code_challenge_methods_supported (%q); the spec says %s", from, m.PKCE, specOAuthPKCE)
	}
	if m.CIMD {
		c.out.Registration = append(c.out.Registration, "client_id_metadata_document")
	}
	if m.Registration != "" {
		c.out.Registration = append(c.out.Registration, "dynamic")
	}
	if len(c.out.Registration) == 0 {
		c.add(CodeOAuthNoRegistration, from, "", "the authorization server metadata at %s has neither client_id_metadata_document_supported nor a registration_endpoint; %s", from, specOAuthRegister)
	}
}

// secureURL reports whether u is https, or http on a loopback host (a
// server in development, which no one else can reach).
func secureURL(u *url.URL) bool {
	if u.Scheme == "https" {
		return true
	}
	if u.Scheme != "http" {
		return false
	}
	h := strings.ToLower(u.Hostname())
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}

func isJSONObject(b []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && m != nil
}

func firstLine(b []byte) string {
	s := string(b)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	// At most 200 bytes, cut at a rune boundary.
	return safe.Truncate(s, 200, "")
}

// redactedURL is u without user info, query and fragment, which may carry
// tokens.
func redactedURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment, c.ForceQuery = nil, "", "", false
	return c.String()
}

// redactedRaw is raw as [redactedURL] shows it, or, when it does not
// parse, raw cut before its query or fragment and without what comes
// before an "@" after the scheme (user info).
func redactedRaw(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return redactedURL(u)
	}
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if at := strings.LastIndexByte(rest, '@'); ok && at >= 0 {
		raw = scheme + "://" + rest[at+1:]
	}
	return raw
}

// oauthCheck401 runs the OAuth readiness check on a remote whose
// handshake failed for missing credentials.
func oauthCheck401(ctx context.Context, res *Result, o Options) {
	if o.HTTPClient == nil || res.Target.URL == "" || res.Liveness.Status != vocab.StatusMissingCredentials {
		return
	}
	r, fs := runOAuthCheck(ctx, o.HTTPClient, res.Target.URL, o.ProtocolVersion)
	if r == nil {
		return
	}
	res.OAuth = r
	res.Findings = append(res.Findings, fs...)
}
