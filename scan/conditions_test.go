package scan

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
	"github.com/mcpvet/mcpvet/vocab"
)

// closedURL is an http URL on loopback where nothing listens.
func closedURL(t *testing.T, path string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + path
}

// TestCensusWithoutNetwork runs a census where DNS resolves no public
// name and the npm registry and the PyPI index do not answer (local
// fakes on loopback): its remote, npm and PyPI plans are not assessed,
// with their causes, and the report has no drop share for them (issue 28:
// "drop 98.0%" on a machine without internet).
func TestCensusWithoutNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("npm retries the closed registry for about 75 s")
	}
	ctx := context.Background()
	dns := startNXDomainDNS(t)
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", dns)
	}}
	npmURL, pypiURL := closedURL(t, "/"), closedURL(t, "/simple")
	conds := CheckConditions(ctx, &ConditionOptions{
		Resolve: func(ctx context.Context, host string) error {
			_, err := resolver.LookupHost(ctx, host)
			return err
		},
		Indexes: []vocab.IndexCondition{{Name: "npm registry", URL: npmURL}, {Name: "PyPI index", URL: pypiURL}},
		Engine: func(context.Context) (string, string) {
			return "", "no container engine: neither docker nor podman is installed"
		},
		Runtimes: func() []vocab.RuntimeCondition {
			return []vocab.RuntimeCondition{{Name: "node", Found: true}, {Name: "uv", Found: false}}
		},
		Now: func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) },
	})
	if conds.DNS.PublicNames || len(conds.DNS.Failed) != len(DNSReferenceNames) {
		t.Fatalf("DNS condition %+v; want no public name resolving", conds.DNS)
	}
	for _, ix := range conds.Indexes {
		if ix.Answered {
			t.Errorf("index %s answered: %s", ix.Name, ix.Detail)
		}
	}

	plans := []vocab.Plan{
		{Key: "remote", Name: "io.example/remote", Source: "cli", Transport: vocab.TransportStreamable, URL: "https://mcp.example.com/mcp"},
		{Key: "npm", Name: "io.example/npm", Source: "cli", Transport: vocab.TransportStdio,
			Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: npmURL, Identifier: "@example/mcp-server", Version: "1.0.0"}},
		{Key: "pypi", Name: "io.example/pypi", Source: "cli", Transport: vocab.TransportStdio,
			Package: &vocab.Package{RegistryType: "pypi", RegistryBaseURL: pypiURL, Identifier: "example-mcp-server", Version: "1.0.0"}},
	}
	st, err := results.Open(ctx, filepath.Join(t.TempDir(), "census.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := fastOptions("none")
	opts.Sandbox.Resolver = resolver
	opts.Sandbox.CacheDir = t.TempDir()
	sum, err := Run(ctx, &Options{Store: st, Plans: plans, Concurrency: 3, Probe: *opts, Conditions: &conds,
		Info: results.ScanInfo{Kind: results.KindScan, Source: "snapshot:/home/someone/servers.json (3 entries, sha256 abc)"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := results.BuildReport(ctx, st, sum.ScanID, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := r.Census.Verdicts
	for _, row := range r.Rows {
		t.Logf("%s: %s %s (%.0f ms)", row.Key, row.Status, row.Verdict, row.TotalMs)
	}
	if v.Drop.Count != 0 || v.Assessed != 0 || v.NotAssessed != 3 {
		t.Errorf("assessed %d (drop %d), not assessed %d; want 0, 0, 3: %+v", v.Assessed, v.Drop.Count, v.NotAssessed, v.NotAssessedCauses)
	}
	var causes []string
	for _, c := range v.NotAssessedCauses {
		causes = append(causes, c.Cause)
	}
	all := strings.Join(causes, "; ")
	for _, want := range []string{"DNS resolves no public name here", "the npm registry could not be reached from here", "the PyPI index could not be reached from here"} {
		if !strings.Contains(all, want) {
			t.Errorf("not-assessed causes %q lack %q", all, want)
		}
	}
	if r.Census.Conditions == nil || r.Census.Conditions.DNS.PublicNames {
		t.Errorf("the report lacks the run conditions: %+v", r.Census.Conditions)
	}
	if r.Census.Source != "snapshot:servers.json (3 entries, sha256 abc)" {
		t.Errorf("source %q; want the file name, never the local path", r.Census.Source)
	}

	var md bytes.Buffer
	if err := (report.MarkdownReporter{}).Write(ctx, &md, r); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	conditions, headline := strings.Index(out, "## Run conditions"), strings.Index(out, "## Headline figures")
	if conditions < 0 || conditions > headline {
		t.Errorf("the report does not open with its run conditions")
	}
	for _, bad := range []string{"/home/someone", "95% CI"} {
		if strings.Contains(out, bad) {
			t.Errorf("the report contains %q", bad)
		}
	}
	var html bytes.Buffer
	if err := (report.HTMLReporter{}).Write(ctx, &html, r); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	if c, hl := strings.Index(h, "Run conditions"), strings.Index(h, `id="headline"`); c < 0 || c > hl || strings.Contains(h, "95% CI") ||
		!strings.Contains(h, "Verdicts (0 assessed plans)") || strings.Contains(h, "/home/someone") {
		t.Errorf("the HTML report does not open with its run conditions, states an interval, names a local path or has no verdict card over assessed plans")
	}
	// No assessed plan: the drop share is n/a, never 100%.
	if !strings.Contains(out, "| drop: do not use | 0 | 0 assessed plans | n/a |") || !strings.Contains(out, "not assessed on this machine") {
		t.Errorf("the report states a drop share or omits the not-assessed plans:\n%s", out[:min(len(out), 3000)])
	}
}

// startNXDomainDNS answers every query with NXDOMAIN (no such name) and
// returns its UDP address on loopback.
func startNXDomainDNS(t *testing.T) string {
	return testfixture.DNS(t, func(uint16) (byte, net.IP) { return testfixture.DNSNameError, nil })
}
