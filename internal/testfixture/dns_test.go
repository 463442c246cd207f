package testfixture

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// TestDNS: the fake answers A queries with the address given, and a name
// error as "no such host", as Go's resolver reads them.
func TestDNS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := Resolver(DNS(t, func(qtype uint16) (byte, net.IP) {
		if qtype == DNSTypeA {
			return DNSNoError, net.IPv4(192, 0, 2, 7)
		}
		return DNSNoError, nil
	}))
	ips, err := r.LookupIP(ctx, "ip4", "a.example.com")
	if err != nil || len(ips) != 1 || !ips[0].Equal(net.IPv4(192, 0, 2, 7)) {
		t.Errorf("LookupIP = %v, %v; want [192.0.2.7]", ips, err)
	}
	nx := Resolver(DNS(t, func(uint16) (byte, net.IP) { return DNSNameError, nil }))
	_, err = nx.LookupIP(ctx, "ip", "gone.example.com")
	var de *net.DNSError
	if !errors.As(err, &de) || !de.IsNotFound {
		t.Errorf("LookupIP of a name error = %v; want a not-found DNSError", err)
	}
}
