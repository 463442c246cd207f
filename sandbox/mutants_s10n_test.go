package sandbox

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestS10NEntryURLChecks: an untrusted entry's URLs that are public
// http(s) URLs pass the private-network guard, and the others are
// refused with the reason a user reads (private_url.go:63 each of the
// scheme, host and parse-error tests inverted, which refused every public
// URL or let ftp:// or a host-less URL through; :66 the user-info test
// inverted). The user's own config is not checked.
func TestS10NEntryURLChecks(t *testing.T) {
	tests := []struct {
		name   string
		pkg    vocab.Package
		source string
		want   string // in the refusal's detail, "" for none
	}{
		{name: "public https registry", pkg: vocab.Package{RegistryType: "nuget", Identifier: "Acme.Server", RegistryBaseURL: "https://8.8.8.8/v3/index.json"}},
		{name: "public http index", pkg: vocab.Package{RegistryType: "pypi", Identifier: "x", RegistryBaseURL: "http://8.8.8.8/simple"}},
		{name: "public IPv6 registry", pkg: vocab.Package{RegistryType: "npm", Identifier: "x", RegistryBaseURL: "https://[2606:4700::1111]/"}},
		{name: "public bundle", pkg: vocab.Package{RegistryType: "mcpb", Identifier: "https://8.8.8.8/server.mcpb"}},
		{name: "ftp registry", pkg: vocab.Package{RegistryType: "npm", Identifier: "x", RegistryBaseURL: "ftp://8.8.8.8/npm"},
			want: `registry base URL "ftp://8.8.8.8/npm" of an untrusted registry entry is refused: it is not an http(s) URL`},
		{name: "no host", pkg: vocab.Package{RegistryType: "npm", Identifier: "x", RegistryBaseURL: "https:///npm"},
			want: "it is not an http(s) URL"},
		{name: "not a URL", pkg: vocab.Package{RegistryType: "npm", Identifier: "x", RegistryBaseURL: "http://[::1"},
			want: "it is not an http(s) URL"},
		{name: "user info", pkg: vocab.Package{RegistryType: "npm", Identifier: "x", RegistryBaseURL: "https://me:s3cret@8.8.8.8/npm"},
			want: `registry base URL "https://me:xxxxx@8.8.8.8/npm" of an untrusted registry entry is refused: it carries user info`},
		{name: "user info in a bundle URL", pkg: vocab.Package{RegistryType: "mcpb", Identifier: "https://me@8.8.8.8/s.mcpb"},
			want: "bundle URL \"https://me@8.8.8.8/s.mcpb\" of an untrusted registry entry is refused: it carries user info"},
		{name: "snapshot entry", source: "snapshot:plans.json", pkg: vocab.Package{RegistryType: "npm", Identifier: "x", RegistryBaseURL: "ftp://8.8.8.8/npm"},
			want: "it is not an http(s) URL"},
		{name: "own config", source: "config", pkg: vocab.Package{RegistryType: "npm", Identifier: "x", RegistryBaseURL: "ftp://8.8.8.8/npm"}},
	}
	opts := (&Options{}).resolve()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			source := tc.source
			if source == "" {
				source = "registry"
			}
			err := checkEntryURLs(context.Background(), &tc.pkg, source, &opts)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("checkEntryURLs = %v, want nil", err)
				}
				return
			}
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != vocab.StatusInvalidPlan || !strings.Contains(le.Detail, tc.want) {
				t.Fatalf("checkEntryURLs = %v, want invalid_plan with %q", err, tc.want)
			}
			if strings.Contains(le.Detail, "s3cret") {
				t.Errorf("the refusal shows the URL's password: %s", le.Detail)
			}
		})
	}
}

// TestS10NNuGetValidation: NuGet's limits on what a plan names, checked
// before dotnet is looked for (install_nuget.go:20 `len(id) > 100` → `>=`:
// NuGet's own maximum id length is 100; :23 the version test inverted,
// which refused every plan without a version and let any text through as
// one). With no dotnet on PATH, a valid plan ends in runtime_unavailable.
func TestS10NNuGetValidation(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	id100 := "Acme." + strings.Repeat("x", 95)
	tests := []struct {
		name, id, version string
		want              vocab.Status
		detail            string
	}{
		{name: "id of 100", id: id100, version: "1.0.0", want: vocab.StatusRuntimeUnavailable, detail: "dotnet"},
		{name: "id of 101", id: id100 + "x", version: "1.0.0", want: vocab.StatusInvalidPlan, detail: "invalid NuGet package id"},
		{name: "no version", id: "Acme.Server", want: vocab.StatusRuntimeUnavailable, detail: "dotnet"},
		{name: "prerelease", id: "Acme.Server", version: "0.1.18-beta", want: vocab.StatusRuntimeUnavailable, detail: "dotnet"},
		{name: "version with a command", id: "Acme.Server", version: "1.0; rm -rf /", want: vocab.StatusInvalidPlan, detail: `invalid NuGet version "1.0; rm -rf /"`},
		{name: "version as an option", id: "Acme.Server", version: "--add-source=http://evil", want: vocab.StatusInvalidPlan, detail: "invalid NuGet version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			le, err := launchPackage(t, &vocab.Package{RegistryType: "nuget", Identifier: tc.id, Version: tc.version})
			if le == nil || le.Status != tc.want || !strings.Contains(le.Detail, tc.detail) {
				t.Fatalf("Launch error = %v, want %s naming %q", err, tc.want, tc.detail)
			}
		})
	}
}

// TestS10NNuGetRuntimeFolder: the folder of the dotnet that installed a
// tool is exposed read-only to the server, for the tool's apphost needs
// that runtime; a dotnet on PATH that is a symlink (/usr/bin/dotnet to
// /usr/share/dotnet/dotnet) is followed to it (install_nuget.go:71 the
// EvalSymlinks error test inverted: the folder was never exposed).
func TestS10NNuGetRuntimeFolder(t *testing.T) {
	sdk := t.TempDir()
	writeScript(t, filepath.Join(sdk, "dotnet"), `
# dotnet tool install --tool-path DIR [--version V] ID
mkdir -p "$4"
printf '#!/bin/sh\n' > "$4/acme-server"
chmod +x "$4/acme-server"
`)
	tools := fakeToolDir(t)
	if err := os.Symlink(filepath.Join(sdk, "dotnet"), filepath.Join(tools, "dotnet")); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(BackendNone).resolve()
	opts.CacheDir = t.TempDir()
	ep, err := installNuGet(context.Background(), &vocab.Package{RegistryType: "nuget", Identifier: "Acme.Server", Version: "1.0.0"}, &opts)
	if err != nil {
		t.Fatalf("installNuGet: %v", err)
	}
	real, err := filepath.EvalSymlinks(sdk)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ep.readOnly, real) {
		t.Errorf("read-only folders %q lack the dotnet runtime's %s", ep.readOnly, real)
	}
	if filepath.Base(ep.argv[0]) != "acme-server" {
		t.Errorf("argv = %q, want the installed acme-server", ep.argv)
	}
}

// TestS10NMCPBDigestWarning: a bundle without fileSha256 runs with a
// warning that its integrity was not verified, one with it runs without
// (install_mcpb.go:39 `want == ""` inverted: the warning came with the
// digest and not without it).
func TestS10NMCPBDigestWarning(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bundle := makeBundle(t, map[string]string{
		"manifest.json": `{"server":{"type":"binary","entry_point":"bin/s"}}`,
		"bin/s":         "#!/bin/sh\nexec " + exe + " " + fakeArg + " mcp\n",
	})
	path := filepath.Join(t.TempDir(), "s.mcpb")
	if err := os.WriteFile(path, bundle, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(bundle)
	const warning = "mcpb bundle has no fileSha256: its integrity was not verified"
	for _, tc := range []struct {
		name, sha string
		warned    bool
	}{
		{"without fileSha256", "", true},
		{"with fileSha256", hex.EncodeToString(sum[:]), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions(BackendNone)
			opts.CacheDir = t.TempDir()
			s := launch(t, &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "mcpb", Identifier: path, FileSHA256: tc.sha}}, opts, "")
			warnings := s.Info(0).Warnings
			if got := slices.Contains(warnings, warning); got != tc.warned {
				t.Errorf("warnings = %q, want the unverified-integrity warning: %v", warnings, tc.warned)
			}
		})
	}
}

// TestS10NReadCapped: a bundle of exactly the cap is read whole, one
// byte more is refused rather than cut (install_mcpb.go:116 the reader's
// limit max+1 → max-1: every bundle cut by a byte and none refused; :120
// `>` → `>=`: a bundle of exactly the cap refused).
func TestS10NReadCapped(t *testing.T) {
	const max = 8
	at := bytes.Repeat([]byte("b"), max)
	got, err := readCapped(bytes.NewReader(at), max)
	if err != nil || !bytes.Equal(got, at) {
		t.Errorf("readCapped(%d bytes, %d) = %q, %v; want all of it", max, max, got, err)
	}
	got, err = readCapped(bytes.NewReader(append(at, 'x')), max)
	var le *LaunchError
	if !errors.As(err, &le) || le.Status != vocab.StatusInstallFailed || le.Detail != "mcpb bundle is larger than 8 bytes" {
		t.Errorf("readCapped(%d bytes, %d) = %d bytes, %v; want install_failed: mcpb bundle is larger than 8 bytes", max+1, max, len(got), err)
	}
}

// s10nZipEntry is one entry of a bundle made by [s10nZip].
type s10nZipEntry struct {
	name string
	mode os.FileMode
	data string
	// crc, when not 0, makes data the entry's raw bytes: stored with this
	// CRC-32 (a wrong one for a damaged entry), or deflated when size is
	// set (the uncompressed size).
	crc  uint32
	size int64
}

// s10nZip returns a zip of entries, in order.
func s10nZip(t *testing.T, entries ...s10nZipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		h.SetMode(e.mode)
		var w interface{ Write([]byte) (int, error) }
		var err error
		if e.crc != 0 {
			h.Method, h.CRC32 = zip.Store, e.crc
			h.CompressedSize64, h.UncompressedSize64 = uint64(len(e.data)), uint64(len(e.data))
			if e.size != 0 {
				h.Method, h.UncompressedSize64 = zip.Deflate, uint64(e.size)
			}
			w, err = zw.CreateRaw(h)
		} else {
			w, err = zw.CreateHeader(h)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestS10NUnzipBundle: what a bundle unpacks to (install_mcpb.go:151 the
// folder entry's error test inverted: unpacking stopped, with success, at
// the first folder entry, which zip tools write before the files in it;
// :162 the executable test inverted: the entry point lost its x bit and
// data files gained one; :176 the close's error test inverted: an entry
// whose bytes fail their CRC-32 was kept; :134 `>` → `>=` on the entry
// count: a bundle of exactly mcpbMaxEntries entries refused).
func TestS10NUnzipBundle(t *testing.T) {
	t.Run("folders and modes", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "bundle")
		data := s10nZip(t,
			s10nZipEntry{name: "server/", mode: os.ModeDir | 0o755},
			s10nZipEntry{name: "server/run", mode: 0o755, data: "#!/bin/sh\n"},
			s10nZipEntry{name: "server/lib/", mode: os.ModeDir | 0o755},
			s10nZipEntry{name: "server/lib/data.json", mode: 0o644, data: "{}"},
			s10nZipEntry{name: "manifest.json", mode: 0o644, data: `{"server":{"type":"binary","entry_point":"server/run"}}`},
		)
		if err := unzipBundle(data, dir); err != nil {
			t.Fatalf("unzipBundle: %v", err)
		}
		for name, exec := range map[string]bool{"server/run": true, "server/lib/data.json": false, "manifest.json": false} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Errorf("%s not unpacked: %v", name, err)
				continue
			}
			if got := fi.Mode()&0o111 != 0; got != exec {
				t.Errorf("%s has mode %v, want executable: %v", name, fi.Mode(), exec)
			}
		}
	})
	t.Run("damaged entry", func(t *testing.T) {
		data := s10nZip(t, s10nZipEntry{name: "server/run", mode: 0o755, data: "#!/bin/sh\nexec true\n", crc: 0xdeadbeef})
		err := unzipBundle(data, filepath.Join(t.TempDir(), "bundle"))
		var le *LaunchError
		if !errors.As(err, &le) || le.Status != vocab.StatusInstallFailed || !strings.Contains(le.Detail, `extracting mcpb bundle entry "server/run": zip: checksum error`) {
			t.Fatalf("unzipBundle = %v, want install_failed naming the checksum error", err)
		}
	})
	t.Run("entry count", func(t *testing.T) {
		entries := make([]s10nZipEntry, mcpbMaxEntries)
		for i := range entries {
			entries[i] = s10nZipEntry{name: "d/", mode: os.ModeDir | 0o755}
		}
		if err := unzipBundle(s10nZip(t, entries...), filepath.Join(t.TempDir(), "bundle")); err != nil {
			t.Errorf("unzipBundle of %d entries: %v", mcpbMaxEntries, err)
		}
		err := unzipBundle(s10nZip(t, append(entries, entries[0])...), filepath.Join(t.TempDir(), "bundle"))
		want := fmt.Sprintf("mcpb bundle has %d entries (max %d)", mcpbMaxEntries+1, mcpbMaxEntries)
		var le *LaunchError
		if !errors.As(err, &le) || le.Status != vocab.StatusInstallFailed || le.Detail != want {
			t.Errorf("unzipBundle of %d entries = %v, want install_failed: %s", mcpbMaxEntries+1, err, want)
		}
	})
}

// s10nZeroEntry is a zip entry of n zero bytes, deflated without compressing
// n bytes: one flushed deflate piece of a MiB of zeros repeated (each
// piece starts with a literal and ends on a byte boundary, so copies
// chain), then the rest and the final block.
func s10nZeroEntry(t *testing.T, name string, n int64) s10nZipEntry {
	t.Helper()
	const chunk = 1 << 20
	zeros := make([]byte, chunk)
	deflate := func(n int, final bool) []byte {
		var buf bytes.Buffer
		fw, err := flate.NewWriter(&buf, flate.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(zeros[:n])
		if final {
			err = fw.Close()
		} else {
			err = fw.Flush()
		}
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	piece := deflate(chunk, false)
	var raw bytes.Buffer
	var crc uint32
	for left := n; left > 0; left -= chunk {
		if left <= chunk {
			raw.Write(deflate(int(left), true))
			crc = crc32.Update(crc, crc32.IEEETable, zeros[:left])
			break
		}
		raw.Write(piece)
		crc = crc32.Update(crc, crc32.IEEETable, zeros)
	}
	return s10nZipEntry{name: name, mode: 0o644, data: raw.String(), size: n, crc: crc}
}

// TestS10NUnzipTotalCap: a bundle that unpacks to exactly mcpbMaxTotal
// bytes is unpacked whole; one that unpacks to more is refused once the
// cap is passed, whatever entry passes it, having written at most one
// byte past the cap (the zip headers' sizes are not trusted, the bytes
// are counted as written): install_mcpb.go:180 `>` → `>=` (exactly the
// cap refused); :174 the copy's limit mcpbMaxTotal-total+1 → -1 (every
// entry cut short and nothing refused) and → mcpbMaxTotal+total+1 (an
// entry after the first written past the cap before the refusal). Each
// case writes 1 GiB of zeros to a temporary folder (about 2 s); the
// bundles are 1 MiB.
func TestS10NUnzipTotalCap(t *testing.T) {
	// onDisk is the bytes of the regular files under dir.
	onDisk := func(dir string) int64 {
		var n int64
		filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					n += fi.Size()
				}
			}
			return err
		})
		return n
	}
	t.Run("exactly the cap", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "bundle")
		defer os.RemoveAll(dir)
		if err := unzipBundle(s10nZip(t, s10nZeroEntry(t, "big", mcpbMaxTotal)), dir); err != nil {
			t.Fatalf("unzipBundle of %d bytes: %v", mcpbMaxTotal, err)
		}
		if got := onDisk(dir); got != mcpbMaxTotal {
			t.Errorf("unpacked %d bytes, want %d", got, mcpbMaxTotal)
		}
	})
	t.Run("past the cap in a second entry", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "bundle")
		defer os.RemoveAll(dir)
		data := s10nZip(t, s10nZipEntry{name: "small", mode: 0o644, data: "x"}, s10nZeroEntry(t, "big", mcpbMaxTotal+1))
		err := unzipBundle(data, dir)
		want := fmt.Sprintf("mcpb bundle expands beyond %d bytes", mcpbMaxTotal)
		var le *LaunchError
		if !errors.As(err, &le) || le.Status != vocab.StatusInstallFailed || le.Detail != want {
			t.Errorf("unzipBundle = %v, want install_failed: %s", err, want)
		}
		if got := onDisk(dir); got > mcpbMaxTotal+1 {
			t.Errorf("%d bytes written before the refusal, want at most %d", got, mcpbMaxTotal+1)
		}
	})
}

// TestS10NGuardedTransportKeepAlive: the connections of mcpvet's own
// requests for a package (registry metadata, a bundle download of up to
// five minutes) send TCP keep-alive probes after 30 s idle, as Go's
// default transport does (private_url.go:113 `30 * time.Second` → `/`:
// a zero KeepAlive, Go's 15 s). It pins that number, read from the socket
// (TCP_KEEPIDLE), without waiting; the trusted path is the one a loopback
// listener can reach, and the guarded dialer is a copy of the same one.
func TestS10NGuardedTransportKeepAlive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := guardedTransport.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("dialing %s: %v", ln.Addr(), err)
	}
	defer c.Close()
	tc, ok := c.(*net.TCPConn)
	if !ok {
		t.Fatalf("connection is a %T, want *net.TCPConn", c)
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var on, idle int
	var onErr, idleErr error
	if err := raw.Control(func(fd uintptr) {
		on, onErr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_KEEPALIVE)
		idle, idleErr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_KEEPIDLE)
	}); err != nil || onErr != nil || idleErr != nil {
		t.Fatalf("reading the socket's options: %v, %v, %v", err, onErr, idleErr)
	}
	if on != 1 || idle != 30 {
		t.Errorf("SO_KEEPALIVE = %d, TCP_KEEPIDLE = %d s; want 1, 30", on, idle)
	}
}
