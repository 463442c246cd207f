package sandbox

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// One private-network guard for every URL an untrusted entry (a registry
// or snapshot plan, see [vocab.Plan.Untrusted]) names: the remote's URL,
// the package registry base URL of npm, PyPI and NuGet packages, an MCPB
// bundle's download URL. Each is checked before anything is contacted
// (the host as written and every address it resolves to), and mcpvet's own
// requests for such an entry go through a dialer that checks again on the
// address actually connected to (DNS rebinding). NAT64, 6to4, Teredo and
// IPv4-mapped or -compatible IPv6 forms are decoded to the IPv4 address
// they carry first.

var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	teredo         = netip.MustParsePrefix("2001::/32")
	ipv4Compatible = netip.MustParsePrefix("::/96")
)

// embeddedIPv4 returns the IPv4 address an IPv6 address carries by a
// transition mechanism, and the mechanism's name.
func embeddedIPv4(ip netip.Addr) (netip.Addr, string, bool) {
	if !ip.Is6() {
		return netip.Addr{}, "", false
	}
	b := ip.As16()
	last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	switch {
	case ip.Is4In6():
		return ip.Unmap(), "IPv4-mapped", true
	case nat64WellKnown.Contains(ip), nat64Local.Contains(ip):
		return last, "NAT64", true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4", true
	case teredo.Contains(ip):
		// The client address is stored inverted in the last 32 bits.
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), "Teredo", true
	case ipv4Compatible.Contains(ip) && !ip.IsLoopback() && !ip.IsUnspecified():
		return last, "IPv4-compatible", true
	}
	return netip.Addr{}, "", false
}

// untrustedURLReason says why an untrusted entry's URL may not be
// contacted ("" when it may): not http(s), user info, or a host that is or
// resolves to a private address.
func untrustedURLReason(ctx context.Context, raw string, resolver *net.Resolver) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "it is not an http(s) URL"
	}
	if u.User != nil {
		return "it carries user info"
	}
	return hostPrivateReason(ctx, u.Hostname(), resolver)
}

// checkEntryURLs refuses, for an untrusted source without allowPrivate,
// each URL of pkg that reaches a private address: its registry base URL,
// and an MCPB bundle's download URL.
func checkEntryURLs(ctx context.Context, pkg *vocab.Package, source string, o *Options) error {
	if !(&vocab.Plan{Source: source}).Untrusted() || o.AllowPrivateNetwork {
		return nil
	}
	check := func(what, raw string) error {
		if raw == "" {
			return nil
		}
		if r := untrustedURLReason(ctx, raw, o.resolver()); r != "" {
			return launchErrorf(vocab.StatusInvalidPlan, "%s %q of an untrusted %s entry is refused: %s; pass --allow-private-network to allow it", what, redactUserinfo(raw), source, r)
		}
		return nil
	}
	if err := check("registry base URL", pkg.RegistryBaseURL); err != nil {
		return err
	}
	if pkg.RegistryType == "mcpb" && (strings.HasPrefix(pkg.Identifier, "http://") || strings.HasPrefix(pkg.Identifier, "https://")) {
		return check("bundle URL", pkg.Identifier)
	}
	return nil
}

// privateGuardKey marks a request context whose connections must not reach
// a private address (an untrusted entry's metadata or bundle download).
type privateGuardKey struct{}

// withPrivateGuard marks ctx so that [guardedTransport] refuses private
// addresses for its requests.
func withPrivateGuard(ctx context.Context) context.Context {
	return context.WithValue(ctx, privateGuardKey{}, true)
}

// guardedTransport is the transport of mcpvet's own requests for a
// package (registry metadata, bundle downloads): for a context marked by
// [withPrivateGuard], the dialer refuses every private address it is
// about to connect to, except the proxy the environment names.
var guardedTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	plain := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	guarded := *plain
	guarded.Control = refusePrivate("an untrusted entry")
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if ctx.Value(privateGuardKey{}) == nil || addr == proxyAddr("https://registry.invalid/") || addr == proxyAddr("http://registry.invalid/") {
			return plain.DialContext(ctx, network, addr)
		}
		return guarded.DialContext(ctx, network, addr)
	}
	// A connection made for a trusted request must not be reused by a
	// guarded one.
	t.DisableKeepAlives = true
	return t
}()

// errSSEEndpointOrigin refuses a message POST to another origin than the
// server's (a legacy SSE "endpoint" event naming another host).
var errSSEEndpointOrigin = errors.New("the server named an endpoint of another origin")
