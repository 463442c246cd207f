package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpvet/mcpvet/internal/authchallenge"
	"github.com/mcpvet/mcpvet/vocab"
)

// ErrPrivateAddress is the cause of a connection refused by the dialer of
// an untrusted remote because the resolved address is private.
var ErrPrivateAddress = errors.New("private address")

// metadataAddrs are cloud metadata endpoints outside the ranges below.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6 (also ULA)
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// privateReason says why ip may not be contacted by an untrusted target,
// or "" when it may: loopback, RFC 1918 and unique-local (fc00::/7),
// link-local (169.254.0.0/16 with the cloud metadata address, fe80::/10),
// unspecified, multicast, carrier-grade NAT and known metadata addresses.
//
// An IPv6 address carrying an IPv4 one (NAT64 64:ff9b::/96 and
// 64:ff9b:1::/48, 6to4 2002::/16, Teredo, IPv4-mapped or -compatible) is
// judged by the IPv4 address it carries: 64:ff9b::7f00:1 reaches 127.0.0.1
// through a NAT64 gateway.
func privateReason(ip netip.Addr) string {
	if v4, how, ok := embeddedIPv4(ip); ok {
		if r := privateReason(v4); r != "" {
			if how == "IPv4-mapped" {
				return r
			}
			return r + " through " + how
		}
	}
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip == netip.MustParseAddr("169.254.169.254"):
		return "cloud metadata"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsPrivate():
		if ip.Is6() {
			return "unique local (ULA)"
		}
		return "private (RFC 1918)"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast():
		return "multicast"
	case cgnat.Contains(ip):
		return "shared (carrier-grade NAT)"
	}
	if slices.Contains(metadataAddrs, ip) {
		return "cloud metadata"
	}
	return ""
}

// checkRemoteURL refuses what no remote plan may carry (user info in the
// URL) and, for an untrusted plan without allowPrivate, a host that is or
// resolves to a private address. The dialer checks again at connect time,
// which covers a name that resolves differently later (DNS rebinding).
func checkRemoteURL(ctx context.Context, plan *vocab.Plan, allowPrivate bool, resolver *net.Resolver) error {
	u, err := url.Parse(plan.URL)
	if err != nil {
		return launchErrorf(vocab.StatusInvalidPlan, "remote URL is not a URL: %v", err)
	}
	if u.User != nil {
		return launchErrorf(vocab.StatusInvalidPlan, "remote URL carries user info (user:password@); pass credentials as a header instead")
	}
	if !plan.Untrusted() || allowPrivate {
		return nil
	}
	if r := hostPrivateReason(ctx, u.Hostname(), resolver); r != "" {
		return launchErrorf(vocab.StatusInvalidPlan, "remote URL of an untrusted %s target is refused: %s; pass --allow-private-network to probe it anyway", plan.Source, r)
	}
	return nil
}

// refusePrivate is the connect-time private-address check, a dialer's
// Control hook (run after name resolution, on the address actually
// connected to, so DNS rebinding is covered): it refuses every address
// privateReason names. whom says on whose behalf in the error. Remotes
// ([guardedDial]) and mcpvet's own requests for untrusted entries
// ([guardedTransport]) share it.
func refusePrivate(whom string) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot parse %q", ErrPrivateAddress, address)
		}
		if r := privateReason(ap.Addr()); r != "" {
			return fmt.Errorf("%w: refusing to connect for %s to %s (%s); pass --allow-private-network to allow it", ErrPrivateAddress, whom, ap.Addr().Unmap(), r)
		}
		return nil
	}
}

// hostPrivateReason says why an untrusted URL's host may not be contacted
// ("" when it may): an address or localhost name that is private, or a
// name that resolves to a private address now. A name that does not
// resolve is "": the guarded dialer checks what it resolves to later.
func hostPrivateReason(ctx context.Context, host string, resolver *net.Resolver) string {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if r := privateReason(ip); r != "" {
			return fmt.Sprintf("it points at a %s address (%s)", r, ip)
		}
		return ""
	}
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return fmt.Sprintf("it points at %s (loopback)", host)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	addrs, err := resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if r := privateReason(a); r != "" {
			return fmt.Sprintf("its host %s resolves to a %s address (%s)", host, r, a.Unmap())
		}
	}
	return ""
}

// guardedDial returns the DialContext of a remote's HTTP transport. For an
// untrusted plan it refuses, in the dialer's Control hook (after name
// resolution, on the address actually connected to), every private
// address; the proxy the user configured is exempt.
func guardedDial(plan *vocab.Plan, allowPrivate bool, resolver *net.Resolver) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Resolver: resolver}
	if !plan.Untrusted() || allowPrivate {
		return d.DialContext
	}
	guarded := *d
	guarded.Control = refusePrivate("an untrusted target")
	proxy := proxyAddr(plan.URL)
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if proxy != "" && addr == proxy {
			return d.DialContext(ctx, network, addr)
		}
		return guarded.DialContext(ctx, network, addr)
	}
}

// proxyAddr is the host:port of the proxy the environment sets for target,
// or "".
func proxyAddr(target string) string {
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		return ""
	}
	p, err := http.ProxyFromEnvironment(req)
	if err != nil || p == nil {
		return ""
	}
	port := p.Port()
	if port == "" {
		port = map[string]string{"https": "443", "socks5": "1080"}[p.Scheme]
		if port == "" {
			port = "80"
		}
	}
	return net.JoinHostPort(p.Hostname(), port)
}

// origin is scheme://host:port with the default port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// errCrossOriginRedirect stops a redirect to another origin while the
// plan has headers, which belong to the plan's origin only.
var errCrossOriginRedirect = errors.New("cross-origin redirect not followed")

// checkRedirect is the redirect policy of a remote: at most 5 redirects,
// and none to another origin when the plan sends headers (they would
// follow the request there). A refused redirect is recorded on s.
func checkRedirect(s *Server, home string, withHeaders bool) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		if withHeaders && origin(req.URL) != home {
			from := via[len(via)-1].URL
			s.noteRedirect(fmt.Sprintf("%s %s redirected to another origin (%s); not followed, so the headers given for %s stay there",
				via[len(via)-1].Method, redactedURL(from), origin(req.URL), home))
			return fmt.Errorf("%w: %s", errCrossOriginRedirect, origin(req.URL))
		}
		return nil
	}
}

// redactedURL is u without query and fragment, which may carry tokens.
func redactedURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment, c.ForceQuery = nil, "", "", false
	return c.String()
}

func (s *Server) noteRedirect(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.redirects) < 8 {
		s.redirects = append(s.redirects, msg)
	}
}

// redactUserinfo drops the password of a URL for messages.
func redactUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// HTTPOutcome is what the first HTTP answer of a remote server said, for
// classifying a failed handshake.
type HTTPOutcome struct {
	// Status is the HTTP status code.
	Status int
	// ContentType is the media type of the body.
	ContentType string
	// ResourceMetadata reports whether a 401's WWW-Authenticate header
	// names OAuth protected-resource metadata: a non-empty
	// resource_metadata parameter of any of its challenges, read by
	// [authchallenge.ResourceMetadata] as probe's OAuth check reads it, so
	// the liveness detail and the OAuth check agree on the same header (a
	// longer name such as x_resource_metadata, or the words inside another
	// parameter's quoted value, name nothing).
	ResourceMetadata bool
}

// noteHTTP records the first HTTP answer, and the first error answer
// after a successful one (the handshake may fail on a later request).
func (s *Server) noteHTTP(resp *http.Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.http != nil && (s.http.Status >= 400 || resp.StatusCode < 400) {
		return
	}
	ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	s.http = &HTTPOutcome{Status: resp.StatusCode, ContentType: strings.TrimSpace(ct),
		ResourceMetadata: authchallenge.ResourceMetadata(resp.Header) != ""}
}

// CheckRemote makes, before anything connects, the checks [Launch] makes of
// a remote plan: no user info in the URL and, for an untrusted plan
// without [Options.AllowPrivateNetwork], no private address. It returns a
// [*LaunchError] with status invalid_plan, or nil.
func CheckRemote(ctx context.Context, plan *vocab.Plan, opts *Options) error {
	o := opts.resolve()
	return checkRemoteURL(ctx, plan, o.AllowPrivateNetwork, o.resolver())
}

// DialRemote connects to addr the way a remote plan's HTTP transport
// does: with the same resolver and, for an untrusted plan, the same
// refusal of private addresses at connect time.
func DialRemote(ctx context.Context, plan *vocab.Plan, opts *Options, network, addr string) (net.Conn, error) {
	o := opts.resolve()
	return guardedDial(plan, o.AllowPrivateNetwork, o.resolver())(ctx, network, addr)
}
