package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestPrivateReasonTransitionForms: NAT64, 6to4, Teredo and IPv4-mapped
// or -compatible forms of loopback and private addresses are private
// (issue 22 item 11: before, 64:ff9b::7f00:1 and 2002:7f00:1:: were
// public).
func TestPrivateReasonTransitionForms(t *testing.T) {
	for _, tc := range []struct {
		ip, want string
	}{
		{"64:ff9b::7f00:1", "loopback through NAT64"},
		{"64:ff9b:1::a00:1", "private (RFC 1918) through NAT64"},
		{"2002:7f00:1::", "loopback through 6to4"},
		{"2002:a9fe:a9fe::1", "cloud metadata through 6to4"},
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback through Teredo"}, // client 127.0.0.1 inverted
		{"::ffff:10.1.2.3", "private (RFC 1918)"},
		{"::7f00:1", "loopback through IPv4-compatible"},
		{"::1", "loopback"},
		{"64:ff9b::808:808", ""},
		{"2002:808:808::", ""},
		{"2606:4700::1111", ""},
	} {
		if got := privateReason(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("privateReason(%s) = %q, want %q", tc.ip, got, tc.want)
		}
	}
}

// countingServer counts the requests it gets.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs, &n
}

// TestUntrustedEntryURLsNeverReachPrivate installs registry entries whose
// registry base URL or bundle URL is on loopback (issue 22 item 6).
// Before, mcpvet sent a GET there (and pointed npm at it), and the
// answer showed as package_not_found or not, an oracle on the user's
// network. Now each is invalid_plan and the server sees no request; the
// same entries from the user's own config are fetched.
func TestUntrustedEntryURLsNeverReachPrivate(t *testing.T) {
	hs, n := countingServer(t)
	nat64 := strings.Replace(hs.URL, "127.0.0.1", "[64:ff9b::7f00:1]", 1)
	cases := []struct {
		name string
		pkg  vocab.Package
	}{
		{"npm registry", vocab.Package{RegistryType: "npm", Identifier: "left-pad", Version: "1.3.0", RegistryBaseURL: hs.URL}},
		{"npm registry NAT64", vocab.Package{RegistryType: "npm", Identifier: "left-pad", Version: "1.3.0", RegistryBaseURL: nat64}},
		{"npm registry localhost", vocab.Package{RegistryType: "npm", Identifier: "left-pad", Version: "1.3.0", RegistryBaseURL: strings.Replace(hs.URL, "127.0.0.1", "localhost", 1)}},
		{"pypi index", vocab.Package{RegistryType: "pypi", Identifier: "mcp-x", Version: "1.0", RegistryBaseURL: hs.URL + "/simple"}},
		{"nuget feed", vocab.Package{RegistryType: "nuget", Identifier: "Mcp.X", Version: "1.0.0", RegistryBaseURL: hs.URL + "/v3/index.json"}},
		{"mcpb bundle", vocab.Package{RegistryType: "mcpb", Identifier: hs.URL + "/server.mcpb", FileSHA256: strings.Repeat("0", 64)}},
	}
	opts := (&Options{CacheDir: t.TempDir(), InstallTimeout: 30 * time.Second}).resolve()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := n.Load()
			pkg := tc.pkg
			_, err := install(context.Background(), &pkg, &opts, "registry")
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != vocab.StatusInvalidPlan {
				t.Errorf("install = %v, want an invalid_plan refusal", err)
			}
			if got := n.Load() - before; got != 0 {
				t.Errorf("the private server got %d requests", got)
			}
		})
	}
	t.Run("own config bundle is fetched", func(t *testing.T) {
		before := n.Load()
		pkg := vocab.Package{RegistryType: "mcpb", Identifier: hs.URL + "/own.mcpb", FileSHA256: strings.Repeat("0", 64)}
		_, _ = install(context.Background(), &pkg, &opts, "config")
		if n.Load() == before {
			t.Error("a bundle URL of the user's own config was not fetched")
		}
	})
}

// TestGuardedTransportRefusesPrivate: mcpvet's own requests for an
// untrusted entry refuse a private address at connect time (a name that
// resolved to a public address at the check and to loopback later).
func TestGuardedTransportRefusesPrivate(t *testing.T) {
	hs, n := countingServer(t)
	c := &http.Client{Transport: guardedTransport, Timeout: 5 * time.Second}
	req, _ := http.NewRequestWithContext(withPrivateGuard(context.Background()), http.MethodGet, hs.URL, nil)
	if resp, err := c.Do(req); err == nil || !errors.Is(err, ErrPrivateAddress) {
		if resp != nil {
			resp.Body.Close()
		}
		t.Errorf("guarded GET = %v, want ErrPrivateAddress", err)
	}
	req, _ = http.NewRequestWithContext(context.Background(), http.MethodGet, hs.URL, nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("unguarded GET: %v", err)
	}
	resp.Body.Close()
	if n.Load() != 1 {
		t.Errorf("requests = %d, want 1 (the unguarded one)", n.Load())
	}
}

// TestSSEEndpointSameOrigin: a legacy SSE server whose endpoint event
// names another origin (issue 22 items 6 and 11). Before, mcpvet POSTed
// the initialize request there; now the connection fails, the other
// origin sees nothing and a warning says why.
func TestSSEEndpointSameOrigin(t *testing.T) {
	other, n := countingServer(t)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?session=1\n\n", strings.Replace(other.URL, "127.0.0.1", "localhost", 1))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer hs.Close()
	s := launch(t, &vocab.Plan{Transport: vocab.TransportSSE, URL: hs.URL}, testOptions(BackendAuto), "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, s.Transport(), nil); err == nil {
		cs.Close()
		t.Fatal("Connect succeeded through an endpoint of another origin")
	}
	if n.Load() != 0 {
		t.Errorf("the other origin got %d requests", n.Load())
	}
	if w := strings.Join(s.Info(0).Warnings, "\n"); !strings.Contains(w, "another origin") {
		t.Errorf("warnings = %q, want the endpoint's origin named", w)
	}
}
