package sandbox

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testenv"
	"github.com/mcpvet/mcpvet/vocab"
)

// closedURL returns an http URL on a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// TestNPMStatusNamesThePackageThe404IsAbout: npm says E404 for a missing
// dependency too; only a 404 for the package itself is package_not_found,
// and a registry that cannot be reached says nothing about the package.
func TestNPMStatusNamesThePackageThe404IsAbout(t *testing.T) {
	npmEnv(t)
	reg := newNPMRegistry(t)
	// Like anilist-mcp@1.4.0, whose dependency @yuna0x0/anilist-node was
	// missing from the registry.
	reg.addWithDeps(t, "mcpvet-anilist", "1.4.0", "server.js", map[string]string{"server.js": "x"},
		map[string]string{"@yuna0x0/anilist-node": "^1.0.0"})
	reg.add(t, "mcpvet-olddep", "0.0.1", "server.js", map[string]string{"server.js": "x"})
	reg.addWithDeps(t, "mcpvet-rangedep", "2.0.0", "server.js", map[string]string{"server.js": "x"},
		map[string]string{"mcpvet-olddep": "^5.0.0"})
	for _, tc := range []struct {
		name, base, id, version string
		want                    vocab.Status
		detail                  string
	}{
		{"missing dependency", reg.URL, "mcpvet-anilist", "1.4.0", vocab.StatusInstallFailed, "dependency @yuna0x0/anilist-node not found"},
		{"dependency without matching version", reg.URL, "mcpvet-rangedep", "2.0.0", vocab.StatusInstallFailed, "dependency mcpvet-olddep@^5.0.0"},
		{"missing package", reg.URL, "mcpvet-nothing", "1.0.0", vocab.StatusPackageNotFound, "registry answered 404"},
		{"missing version", reg.URL, "mcpvet-anilist", "9.0.0", vocab.StatusVersionNotFound, "no version or tag 9.0.0"},
		{"missing tag", reg.URL, "mcpvet-anilist", "next", vocab.StatusVersionNotFound, "no version or tag next"},
		{"registry unreachable", closedURL(t), "mcpvet-anilist", "1.4.0", vocab.StatusInstallFailed, "could not be reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			le, err := launchPackage(t, npmPackage(tc.base, tc.id, tc.version))
			if le == nil || le.Status != tc.want || !strings.Contains(le.Detail, tc.detail) {
				t.Fatalf("Launch error = %v, want status %s with %q", err, tc.want, tc.detail)
			}
			if le.Evidence == "" {
				t.Error("no evidence")
			}
		})
	}
}

// TestNPMMetadataOncePerPackage: the registry is asked about a package once
// per scan, and a missing version is known without running npm.
func TestNPMMetadataOncePerPackage(t *testing.T) {
	npmEnv(t)
	reg := newNPMRegistry(t)
	reg.add(t, "mcpvet-echo", "1.0.0", "server.js", map[string]string{"server.js": readTestdata(t, "echo-server.js")})
	cache := t.TempDir()
	for _, v := range []string{"1.0.0", "latest", "3.0.0", "1.0.0"} {
		plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: reg.URL, Identifier: "mcpvet-echo", Version: v}}
		opts := testOptions(BackendNone)
		opts.CacheDir = cache
		s, err := Launch(context.Background(), plan, opts)
		if v == "3.0.0" {
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != vocab.StatusVersionNotFound {
				t.Fatalf("3.0.0: %v, want version_not_found", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if got := s.Info(0).InstalledVersion; got != "1.0.0" {
			t.Errorf("%s: InstalledVersion = %q, want 1.0.0", v, got)
		}
		s.Close()
	}
	// npm itself reads the packument once for the one install; mcpvet once
	// for the whole scan.
	if got := reg.metas.Load(); got != 2 {
		t.Errorf("metadata requests = %d, want 2 (one by mcpvet, one by the single npm install)", got)
	}
	if got := reg.tarballs.Load(); got != 1 {
		t.Errorf("tarball downloads = %d, want 1 (latest resolves to the installed 1.0.0)", got)
	}
}

// TestPyPIUnreachableIndexIsNotPackageNotFound installs from an index
// nobody listens on. pip ends such an install with "No matching
// distribution found" (what made the old status package_not_found), but
// the index was never reached, so nothing is known about the package.
func TestPyPIUnreachableIndexIsNotPackageNotFound(t *testing.T) {
	if testing.Short() {
		t.Skip("creates a virtual environment")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Need(t, "python3 is not installed")
	}
	t.Setenv("PIP_RETRIES", "0")
	t.Setenv("PIP_TIMEOUT", "3")
	t.Setenv("PATH", pathWithout(t, "uv"))
	le, err := launchPackage(t, &vocab.Package{RegistryType: "pypi", RegistryBaseURL: closedURL(t) + "/simple", Identifier: "mcp-server-time", Version: "0.6.2"})
	if le == nil || le.Status != vocab.StatusInstallFailed || !strings.Contains(le.Detail, "could not be reached") {
		t.Fatalf("Launch error = %v, want install_failed: the index could not be reached", err)
	}
	if !isNetworkFailure(le.Evidence) {
		t.Errorf("evidence does not show the network failure:\n%s", le.Evidence)
	}
}

// pathWithout returns $PATH without the folders that hold tool.
func pathWithout(t *testing.T, tool string) string {
	t.Helper()
	var keep []string
	for d := range strings.SplitSeq(os.Getenv("PATH"), ":") {
		if p, err := exec.LookPath(d + "/" + tool); err == nil && p != "" {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, ":")
}

// forgetProcessMemos clears what one process remembers about packages
// (metadata answers and installs), so a test can act as the next run.
func forgetProcessMemos() {
	metaCache.Clear()
	installMemo.Clear()
}

// TestNPMPinnedCachedAsksNoRegistry: a pinned version already installed is
// launched by the next run without any registry request; a dist-tag still
// asks, and when the registry cannot be reached the metadata saved with the
// install resolves it (issue 25: the request cost about 0.45 s, half the
// probe of a cached server).
func TestNPMPinnedCachedAsksNoRegistry(t *testing.T) {
	npmEnv(t)
	reg := newNPMRegistry(t)
	reg.add(t, "mcpvet-echo", "1.0.0", "server.js", map[string]string{"server.js": readTestdata(t, "echo-server.js")})
	cache := t.TempDir()
	run := func(version string) (*Info, error) {
		t.Helper()
		forgetProcessMemos()
		t.Cleanup(forgetProcessMemos)
		plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: reg.URL, Identifier: "mcpvet-echo", Version: version}}
		opts := testOptions(BackendNone)
		opts.CacheDir = cache
		s, err := Launch(context.Background(), plan, opts)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		info := s.Info(0)
		return &info, nil
	}
	if _, err := run("1.0.0"); err != nil {
		t.Fatalf("first install: %v", err)
	}
	before := reg.metas.Load()
	if before == 0 {
		t.Fatal("the first install asked the registry nothing")
	}
	info, err := run("1.0.0")
	if err != nil {
		t.Fatalf("cached pinned: %v", err)
	}
	if got := reg.metas.Load() - before; got != 0 {
		t.Errorf("cached pinned 1.0.0: %d metadata requests, want 0", got)
	}
	if info.InstalledVersion != "1.0.0" {
		t.Errorf("InstalledVersion = %q, want 1.0.0", info.InstalledVersion)
	}
	if _, err := run("latest"); err != nil {
		t.Fatalf("latest: %v", err)
	}
	if got := reg.metas.Load() - before; got != 1 {
		t.Errorf("latest: %d metadata requests, want 1 (a tag still asks)", got)
	}
	reg.Close() // the registry is gone: the saved metadata answers
	info, err = run("latest")
	if err != nil {
		t.Fatalf("latest with the registry unreachable: %v", err)
	}
	if info.InstalledVersion != "1.0.0" {
		t.Errorf("InstalledVersion = %q, want 1.0.0", info.InstalledVersion)
	}
	var noted bool
	for _, w := range info.Warnings {
		noted = noted || strings.Contains(w, "resolved to 1.0.0 from the metadata saved on")
	}
	if !noted {
		t.Errorf("warnings %q do not say the saved metadata resolved latest", info.Warnings)
	}
}
