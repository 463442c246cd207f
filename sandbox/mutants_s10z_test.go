package sandbox

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestS10ZLastCapReadsKernel: lastCap is the highest capability the
// kernel knows, read from /proc/sys/kernel/cap_last_cap (63, the most a
// 64-bit set holds, only when that cannot be read).
func TestS10ZLastCapReadsKernel(t *testing.T) {
	data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		t.Skipf("no cap_last_cap: %v", err)
	}
	want, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if got := lastCap(); got != want {
		t.Errorf("lastCap() = %d, want %d (the kernel's cap_last_cap)", got, want)
	}
}

// TestS10ZRefusePrivateAddresses: the connect-time check lets a public
// address through and refuses a private one or one it cannot parse.
func TestS10ZRefusePrivateAddresses(t *testing.T) {
	check := refusePrivate("an untrusted target")
	for _, tc := range []struct {
		address string
		refused bool
	}{
		{"93.184.216.34:443", false},
		{"[2606:2800:220:1:248:1893:25c8:1946]:443", false},
		{"127.0.0.1:80", true},
		{"10.1.2.3:80", true},
		{"not an address", true},
	} {
		err := check("tcp", tc.address, nil)
		if got := errors.Is(err, ErrPrivateAddress); got != tc.refused {
			t.Errorf("refusePrivate(%q) = %v, want refused %v", tc.address, err, tc.refused)
		}
	}
}

// TestS10ZOriginDefaultPort: an origin carries the URL's own port, and
// the scheme's default port only when the URL names none.
func TestS10ZOriginDefaultPort(t *testing.T) {
	for in, want := range map[string]string{
		"http://Example.COM/mcp":       "http://example.com:80",
		"HTTPS://example.com/mcp":      "https://example.com:443",
		"http://example.com:8080/mcp":  "http://example.com:8080",
		"https://example.com:8443/mcp": "https://example.com:8443",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := origin(u); got != want {
			t.Errorf("origin(%s) = %q, want %q", in, got, want)
		}
	}
}

func s10zRequest(t *testing.T, method, raw string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestS10ZRedirectPolicy: a remote follows at most 5 redirects; with
// headers it follows none to another origin (another port is another
// origin), records the refusal naming the request that was redirected
// (the last one, without its query), and follows those within the origin.
func TestS10ZRedirectPolicy(t *testing.T) {
	home := "https://mcp.example.com:8443"
	via := func(n int) []*http.Request {
		var out []*http.Request
		for i := range n {
			out = append(out, s10zRequest(t, http.MethodGet, "https://mcp.example.com:8443/hop"+strconv.Itoa(i)+"?token=secret"))
		}
		return out
	}
	t.Run("count", func(t *testing.T) {
		s := &Server{}
		policy := checkRedirect(s, home, false)
		next := s10zRequest(t, http.MethodGet, "https://elsewhere.example/next")
		for n := 1; n <= 4; n++ {
			if err := policy(next, via(n)); err != nil {
				t.Errorf("redirect after %d requests refused: %v", n, err)
			}
		}
		for _, n := range []int{5, 6} {
			if err := policy(next, via(n)); err == nil {
				t.Errorf("redirect after %d requests followed, want stopped after 5", n)
			}
		}
		if len(s.redirects) != 0 {
			t.Errorf("redirects noted without headers: %q", s.redirects)
		}
	})
	t.Run("same origin", func(t *testing.T) {
		s := &Server{}
		policy := checkRedirect(s, home, true)
		if err := policy(s10zRequest(t, http.MethodGet, "https://MCP.example.com:8443/other"), via(1)); err != nil {
			t.Errorf("same-origin redirect refused: %v", err)
		}
		if len(s.redirects) != 0 {
			t.Errorf("same-origin redirect noted: %q", s.redirects)
		}
	})
	t.Run("cross origin", func(t *testing.T) {
		s := &Server{}
		policy := checkRedirect(s, home, true)
		hops := via(2)
		hops[1] = s10zRequest(t, http.MethodPost, "https://mcp.example.com:8443/last?token=secret")
		err := policy(s10zRequest(t, http.MethodGet, "https://mcp.example.com:9443/stolen"), hops)
		if !errors.Is(err, errCrossOriginRedirect) {
			t.Fatalf("redirect to another port = %v, want %v", err, errCrossOriginRedirect)
		}
		want := []string{"POST https://mcp.example.com:8443/last redirected to another origin (https://mcp.example.com:9443); not followed, so the headers given for https://mcp.example.com:8443 stay there"}
		if diff := cmp.Diff(want, s.redirects); diff != "" {
			t.Errorf("redirects (-want +got):\n%s", diff)
		}
	})
}

// TestS10ZRedirectNotesCapped: a server keeps the first 8 refused
// redirects, so a redirect loop cannot grow its record without bound.
func TestS10ZRedirectNotesCapped(t *testing.T) {
	s := &Server{}
	var want []string
	for i := range 10 {
		msg := "redirect " + strconv.Itoa(i)
		s.noteRedirect(msg)
		if i < 8 {
			want = append(want, msg)
		}
	}
	if diff := cmp.Diff(want, s.redirects); diff != "" {
		t.Errorf("redirects (-want +got):\n%s", diff)
	}
}

// TestS10ZNoteHTTPFirstAndFirstError: a remote's HTTP outcome is its first
// answer, replaced once by the first error answer (status 400 or more)
// after a successful one; later answers change nothing.
func TestS10ZNoteHTTPFirstAndFirstError(t *testing.T) {
	resp := func(status int, ct string) *http.Response {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ct}}}
	}
	for _, tc := range []struct {
		name    string
		answers []*http.Response
		want    HTTPOutcome
	}{
		{"ok then ok", []*http.Response{resp(200, "application/json"), resp(202, "text/event-stream")}, HTTPOutcome{Status: 200, ContentType: "application/json"}},
		{"ok then 400", []*http.Response{resp(200, "application/json"), resp(400, "text/plain; charset=utf-8"), resp(500, "text/html")}, HTTPOutcome{Status: 400, ContentType: "text/plain"}},
		{"ok then 401", []*http.Response{resp(200, "application/json"), resp(401, "text/html")}, HTTPOutcome{Status: 401, ContentType: "text/html"}},
		{"399 then 404", []*http.Response{resp(399, "a/b"), resp(404, "c/d")}, HTTPOutcome{Status: 404, ContentType: "c/d"}},
		{"400 then 500", []*http.Response{resp(400, "text/plain"), resp(500, "text/html")}, HTTPOutcome{Status: 400, ContentType: "text/plain"}},
		{"401 then ok", []*http.Response{resp(401, "text/plain"), resp(200, "application/json")}, HTTPOutcome{Status: 401, ContentType: "text/plain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{}
			for _, r := range tc.answers {
				s.noteHTTP(r)
			}
			if s.http == nil {
				t.Fatal("no HTTP outcome recorded")
			}
			if diff := cmp.Diff(tc.want, *s.http); diff != "" {
				t.Errorf("HTTP outcome (-want +got):\n%s", diff)
			}
		})
	}
}
