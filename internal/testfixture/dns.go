package testfixture

import (
	"context"
	"encoding/binary"
	"net"
	"testing"
)

// DNS types and response codes a fake answers with.
const (
	DNSTypeA      = 1
	DNSNoError    = 0
	DNSNameError  = 3 // NXDOMAIN: no such name
	dnsHeaderSize = 12
)

// DNS serves DNS over UDP on loopback until the test ends and returns its
// address. answer gets each query's type (DNSTypeA for A) and returns the
// response code and, for a DNSNoError answer to an A query, the IPv4
// address to answer with (nil: no answer record).
func DNS(t testing.TB, answer func(qtype uint16) (rcode byte, ip net.IP)) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			m, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if resp := dnsResponse(buf[:m], answer); resp != nil {
				_, _ = pc.WriteTo(resp, addr)
			}
		}
	}()
	return pc.LocalAddr().String()
}

// dnsResponse answers one query (nil: not a query it can read): the
// header and question of q, marked a response, authoritative, recursion
// available, with answer's code and A record.
func dnsResponse(q []byte, answer func(qtype uint16) (byte, net.IP)) []byte {
	if len(q) < dnsHeaderSize {
		return nil
	}
	// The question ends after the name's zero label and 4 bytes.
	i := dnsHeaderSize
	for i < len(q) && q[i] != 0 {
		i += int(q[i]) + 1
	}
	if i+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1:])
	rcode, ip := answer(qtype)
	resp := append([]byte(nil), q[:i+5]...)
	resp[2] |= 0x84                         // response, authoritative (opcode and RD as asked)
	resp[3] = 0x80 | rcode&0x0f             // recursion available, the code
	binary.BigEndian.PutUint16(resp[4:], 1) // the one question
	for j := 6; j < dnsHeaderSize; j++ {    // no answer, authority or additional records yet
		resp[j] = 0
	}
	if rcode == DNSNoError && qtype == DNSTypeA && ip.To4() != nil {
		binary.BigEndian.PutUint16(resp[6:], 1)
		resp = append(resp, 0xC0, dnsHeaderSize, 0, DNSTypeA, 0, 1, 0, 0, 0, 0, 0, 4)
		resp = append(resp, ip.To4()...)
	}
	return resp
}

// Resolver returns a resolver that asks only the DNS server at addr.
func Resolver(addr string) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}
