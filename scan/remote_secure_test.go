package scan

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

func mcpHandler() http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Return the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
}

// processWords are words of process outcomes that no URL target's detail
// may use.
var processWords = []string{"process", "exit", "stdout", "spawn", "stderr"}

// TestRemoteHTTPOutcomes: each HTTP answer of a URL target maps to one
// documented status with the HTTP status in the detail, never a process
// status (issue 11, item 5: 401, 403, 404 and 200 text/html got
// exited_early "the process exited before the handshake completed", 500
// got protocol_error).
func TestRemoteHTTPOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    vocab.Status
		detail  string
	}{
		{"401 with OAuth resource metadata", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"`)
			http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
		}, vocab.StatusMissingCredentials, "HTTP 401 Unauthorized; requires OAuth authorization"},
		// The words in a quoted value name no metadata (internal/authchallenge,
		// as the OAuth check reads the header); before helper i26v this
		// said "requires OAuth authorization".
		{"401 with resource_metadata only inside a quoted value", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="x_resource_metadata=https://evil.example/m", error="invalid_token"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		}, vocab.StatusMissingCredentials, "HTTP 401 Unauthorized; pass the credentials"},
		{"401 bearer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		}, vocab.StatusMissingCredentials, "HTTP 401 Unauthorized; pass the credentials"},
		{"403", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "Forbidden", http.StatusForbidden)
		}, vocab.StatusMissingCredentials, "HTTP 403 Forbidden"},
		{"404", func(w http.ResponseWriter, r *http.Request) {
			http.NotFound(w, r)
		}, vocab.StatusUnreachable, "HTTP 404 Not Found"},
		{"405", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		}, vocab.StatusUnreachable, "HTTP 405 Method Not Allowed"},
		{"410", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "Gone", http.StatusGone)
		}, vocab.StatusUnreachable, "HTTP 410 Gone"},
		{"500", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		}, vocab.StatusUnreachable, "HTTP 500 Internal Server Error"},
		{"503", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		}, vocab.StatusUnreachable, "HTTP 503 Service Unavailable"},
		{"200 html", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><html><body>Welcome to our docs</body></html>")
		}, vocab.StatusProtocolError, "HTTP 200 OK with a text/html body, not MCP"},
		{"200 json not jsonrpc", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"status":"ok","version":"3.1"}`)
		}, vocab.StatusProtocolError, "HTTP 200 OK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hs := httptest.NewServer(tt.handler)
			defer hs.Close()
			plan := vocab.Plan{Key: "r", Name: "r", Source: "cli", Transport: vocab.TransportStreamable, URL: hs.URL + "/mcp"}
			res, err := Probe(context.Background(), &plan, fastOptions("none"))
			if err != nil {
				t.Fatal(err)
			}
			l := res.Liveness
			if l.Status != tt.want || !strings.Contains(l.Detail, tt.detail) {
				t.Errorf("status %s, detail %q; want %s with %q", l.Status, l.Detail, tt.want, tt.detail)
			}
			for _, w := range processWords {
				if strings.Contains(strings.ToLower(l.Detail), w) {
					t.Errorf("detail of a URL target mentions %q: %q", w, l.Detail)
				}
			}
			if l.ExitCode != nil || l.StderrTail != "" || l.StdoutNoise != "" {
				t.Errorf("URL target has process fields: %+v", l)
			}
		})
	}
}

// TestRemoteHeadersStayWithOrigin: a remote answering 307 to another origin
// does not get the plan's headers sent there; the redirect is not followed
// and is a finding (issue 11, item 3: Authorization and X-Api-Key were
// forwarded). A same-origin redirect still works.
func TestRemoteHeadersStayWithOrigin(t *testing.T) {
	var seen sync.Map // header values the other origin received
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		for _, h := range []string{"Authorization", "X-Api-Key"} {
			if v := r.Header.Get(h); v != "" {
				seen.Store(h, v)
			}
		}
		mcpHandler().ServeHTTP(w, r)
	}))
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer home.Close()
	plan := vocab.Plan{Key: "r", Name: "r", Source: "cli", Transport: vocab.TransportStreamable, URL: home.URL + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer tok-origin-only-1234", "X-Api-Key": "key-origin-only-5678"}}
	res, err := Probe(context.Background(), &plan, fastOptions("none"))
	if err != nil {
		t.Fatal(err)
	}
	seen.Range(func(k, v any) bool {
		t.Errorf("the other origin received %s: %v", k, v)
		return true
	})
	if hits.Load() != 0 {
		t.Errorf("the cross-origin redirect was followed (%d requests to the other origin)", hits.Load())
	}
	if !hasFinding(res, probe.CodeCrossOriginRedirect) {
		t.Errorf("no %s finding: %+v", probe.CodeCrossOriginRedirect, res.Findings)
	}
	if l := res.Liveness; l.Status != vocab.StatusProtocolError || !strings.Contains(l.Detail, "redirected to another origin") {
		t.Errorf("status %s, detail %q; want protocol_error naming the redirect", l.Status, l.Detail)
	}

	t.Run("same origin", func(t *testing.T) {
		var keys sync.Map
		mux := http.NewServeMux()
		h := mcpHandler()
		mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
		})
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			keys.Store(r.Header.Get("X-Api-Key"), true)
			h.ServeHTTP(w, r)
		})
		hs := httptest.NewServer(mux)
		defer hs.Close()
		plan := vocab.Plan{Key: "r", Name: "r", Source: "cli", Transport: vocab.TransportStreamable, URL: hs.URL + "/old",
			Headers: map[string]string{"X-Api-Key": "k1"}}
		res, err := Probe(context.Background(), &plan, fastOptions("none"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Liveness.Status != vocab.StatusOK {
			t.Errorf("status %s: %s", res.Liveness.Status, res.Liveness.Detail)
		}
		if _, ok := keys.Load("k1"); !ok {
			t.Error("the header was not sent after a same-origin redirect")
		}
	})
}

// TestUntrustedTargetsStayOffPrivateNetworks: remotes of registry and
// snapshot plans that point at loopback, private, link-local or metadata
// addresses get invalid_plan and are never contacted; the user's own
// targets are used as written; --allow-private-network opts in; URLs with
// user info are refused (issue 11, item 4).
func TestUntrustedTargetsStayOffPrivateNetworks(t *testing.T) {
	var hits atomic.Int32
	h := mcpHandler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(hs.URL, "http://"))
	v6 := httptest.NewUnstartedServer(hs.Config.Handler)
	if l, err := net.Listen("tcp", "[::1]:0"); err == nil {
		v6.Listener = l
		v6.Start()
		defer v6.Close()
	} else {
		v6 = nil
	}
	tests := []struct {
		name, source, url string
		allow             bool
		want              vocab.Status
		detail            string
	}{
		{"registry loopback", "registry", hs.URL + "/mcp", false, vocab.StatusInvalidPlan, "loopback"},
		{"snapshot loopback", "snapshot:servers.json", hs.URL + "/mcp", false, vocab.StatusInvalidPlan, "loopback"},
		{"registry localhost name", "registry:https://registry.example", "http://localhost:" + port + "/mcp", false, vocab.StatusInvalidPlan, "loopback"},
		{"registry metadata", "registry", "http://169.254.169.254/latest/meta-data/", false, vocab.StatusInvalidPlan, "cloud metadata"},
		{"registry rfc1918", "registry", "http://10.1.2.3:8080/mcp", false, vocab.StatusInvalidPlan, "private (RFC 1918)"},
		{"registry ula", "registry", "http://[fd12:3456::1]/mcp", false, vocab.StatusInvalidPlan, "unique local"},
		{"registry link-local v6", "registry", "http://[fe80::1]/mcp", false, vocab.StatusInvalidPlan, "link-local"},
		{"registry mapped v4 loopback", "registry", "http://[::ffff:127.0.0.1]:" + port + "/mcp", false, vocab.StatusInvalidPlan, "loopback"},
		{"registry userinfo", "registry", "https://user:hunter2@mcp.example.com/mcp", false, vocab.StatusInvalidPlan, "user info"},
		{"cli userinfo", "cli", strings.Replace(hs.URL, "http://", "http://user:hunter2@", 1) + "/mcp", false, vocab.StatusInvalidPlan, "user info"},
		{"cli loopback used as written", "cli", hs.URL + "/mcp", false, vocab.StatusOK, ""},
		{"config loopback used as written", "config:/home/u/.cursor/mcp.json", hs.URL + "/mcp", false, vocab.StatusOK, ""},
		{"registry loopback allowed", "registry", hs.URL + "/mcp", true, vocab.StatusOK, ""},
	}
	if v6 != nil {
		tests = append(tests, struct {
			name, source, url string
			allow             bool
			want              vocab.Status
			detail            string
		}{"registry ipv6 loopback", "registry", v6.URL + "/mcp", false, vocab.StatusInvalidPlan, "loopback"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := hits.Load()
			plan := vocab.Plan{Key: "r", Name: "r", Source: tt.source, Transport: vocab.TransportStreamable, URL: tt.url}
			o := fastOptions("none")
			o.Sandbox.AllowPrivateNetwork = tt.allow
			res, err := Probe(context.Background(), &plan, o)
			if err != nil {
				t.Fatal(err)
			}
			l := res.Liveness
			if l.Status != tt.want || !strings.Contains(l.Detail, tt.detail) {
				t.Errorf("status %s, detail %q; want %s with %q", l.Status, l.Detail, tt.want, tt.detail)
			}
			if strings.Contains(l.Detail+l.Evidence+res.Target.URL, "hunter2") {
				t.Errorf("the password of the URL is in the result: %q %q %q", l.Detail, l.Evidence, res.Target.URL)
			}
			if tt.want == vocab.StatusInvalidPlan && hits.Load() != before {
				t.Errorf("the private address was contacted %d times", hits.Load()-before)
			}
		})
	}
}

// TestUntrustedTargetDNSRebinding: a registry remote whose name resolves to
// a public address when checked and to 127.0.0.1 when connected is stopped
// by the dialer's Control hook on the resolved address.
func TestUntrustedTargetDNSRebinding(t *testing.T) {
	var hits atomic.Int32
	h := mcpHandler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(hs.URL, "http://"))
	dns := startRebindingDNS(t, net.IPv4(93, 184, 216, 34), net.IPv4(127, 0, 0, 1))
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", dns)
	}}
	plan := vocab.Plan{Key: "r", Name: "r", Source: "registry", Transport: vocab.TransportStreamable,
		URL: "http://rebind.mcpvet-test.example:" + port + "/mcp"}
	o := fastOptions("none")
	o.Sandbox.Resolver = resolver
	res, err := Probe(context.Background(), &plan, o)
	if err != nil {
		t.Fatal(err)
	}
	// Whichever check meets the rebound answer first (the check before
	// launch or the dialer's hook) refuses it.
	if d := res.Liveness.Detail; res.Liveness.Status != vocab.StatusInvalidPlan || !strings.Contains(d, "127.0.0.1") || !strings.Contains(d, "loopback") {
		t.Errorf("status %s, detail %q; want invalid_plan naming 127.0.0.1 (loopback)", res.Liveness.Status, res.Liveness.Detail)
	}
	if hits.Load() != 0 {
		t.Errorf("the rebound loopback address was contacted %d times", hits.Load())
	}
}

// startRebindingDNS answers A queries with first once and then with rest
// (other queries get no answer) and returns its UDP address.
func startRebindingDNS(t *testing.T, first, rest net.IP) string {
	var n atomic.Int32
	return testfixture.DNS(t, func(qtype uint16) (byte, net.IP) {
		if qtype != testfixture.DNSTypeA {
			return testfixture.DNSNoError, nil
		}
		if n.Add(1) == 1 {
			return testfixture.DNSNoError, first
		}
		return testfixture.DNSNoError, rest
	})
}
