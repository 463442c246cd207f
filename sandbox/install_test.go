package sandbox

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testenv"
	"github.com/mcpvet/mcpvet/vocab"
)

// npmRegistry is a loopback npm registry serving packuments and tarballs
// built in memory.
type npmRegistry struct {
	*httptest.Server
	mu       sync.Mutex
	pkgs     map[string]map[string][]byte // name -> version -> tarball
	bins     map[string]any               // name -> package.json "bin"
	deps     map[string]map[string]string // name -> package.json "dependencies"
	tarballs atomic.Int32                 // tarball downloads
	metas    atomic.Int32                 // metadata (packument) requests
}

func newNPMRegistry(t testing.TB) *npmRegistry {
	r := &npmRegistry{pkgs: map[string]map[string][]byte{}, bins: map[string]any{}, deps: map[string]map[string]string{}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

// add publishes name@version with the given files (path -> content) and
// package.json "bin".
func (r *npmRegistry) add(t testing.TB, name, version string, bin any, files map[string]string) {
	t.Helper()
	r.addWithDeps(t, name, version, bin, files, nil)
}

// addWithDeps is add with package.json "dependencies".
func (r *npmRegistry) addWithDeps(t testing.TB, name, version string, bin any, files map[string]string, deps map[string]string) {
	t.Helper()
	pj, _ := json.Marshal(map[string]any{"name": name, "version": version, "bin": bin, "dependencies": deps})
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	all := map[string]string{"package.json": string(pj)}
	maps.Copy(all, files)
	for p, content := range all {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + p, Mode: 0o755, Size: int64(len(content)), Typeflag: tar.TypeReg, ModTime: time.Unix(1e9, 0)}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(content))
	}
	tw.Close()
	gz.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pkgs[name] == nil {
		r.pkgs[name] = map[string][]byte{}
	}
	r.pkgs[name][version] = buf.Bytes()
	r.bins[name] = bin
	r.deps[name] = deps
}

func (r *npmRegistry) serve(w http.ResponseWriter, req *http.Request) {
	path, _ := url.PathUnescape(req.URL.EscapedPath())
	path = strings.TrimPrefix(path, "/")
	r.mu.Lock()
	defer r.mu.Unlock()
	if name, file, ok := strings.Cut(path, "/-/"); ok {
		for v, tgz := range r.pkgs[name] {
			if strings.HasSuffix(file, "-"+v+".tgz") {
				r.tarballs.Add(1)
				w.Write(tgz)
				return
			}
		}
		http.NotFound(w, req)
		return
	}
	r.metas.Add(1)
	versions, ok := r.pkgs[path]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"Not found"}`))
		return
	}
	doc := map[string]any{"name": path, "dist-tags": map[string]string{}, "versions": map[string]any{}}
	for v, tgz := range versions {
		s1 := sha1.Sum(tgz)
		s512 := sha512.Sum512(tgz)
		base := path[strings.LastIndex(path, "/")+1:]
		doc["versions"].(map[string]any)[v] = map[string]any{
			"name": path, "version": v, "bin": r.bins[path], "dependencies": r.deps[path],
			"dist": map[string]any{
				"tarball":   fmt.Sprintf("%s/%s/-/%s-%s.tgz", r.URL, path, base, v),
				"shasum":    hex.EncodeToString(s1[:]),
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
			},
		}
		doc["dist-tags"].(map[string]string)["latest"] = v
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(doc)
}

// npmEnv isolates npm from the user's cache and config.
func npmEnv(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		testenv.Need(t, "npm is not installed")
	}
	dir := t.TempDir()
	t.Setenv("npm_config_cache", filepath.Join(dir, "npm-cache"))
	t.Setenv("npm_config_userconfig", filepath.Join(dir, "npmrc"))
	t.Setenv("npm_config_update_notifier", "false")
	t.Setenv("npm_config_fetch_retries", "0")
}

func readTestdata(t testing.TB, name string) string {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestNPMInstallAndRun(t *testing.T) {
	npmEnv(t)
	reg := newNPMRegistry(t)
	server := readTestdata(t, "echo-server.js")
	reg.add(t, "mcpvet-echo", "1.0.0", map[string]string{"mcpvet-echo": "bin/server.js"}, map[string]string{"bin/server.js": server})
	reg.add(t, "@mcpvet/scoped-echo", "2.1.0-beta.1", "server.js", map[string]string{"server.js": server})
	cache := t.TempDir()
	for _, backend := range testBackends(t) {
		for _, tc := range []struct{ name, version string }{
			{"mcpvet-echo", "1.0.0"},
			{"@mcpvet/scoped-echo", "2.1.0-beta.1"},
		} {
			t.Run(backend+"/"+tc.name, func(t *testing.T) {
				plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: reg.URL, Identifier: tc.name, Version: tc.version}}
				opts := testOptions(backend)
				opts.CacheDir = cache
				s := launch(t, plan, opts, "")
				cs := clientSession(t, s)
				if got := callEcho(t, cs, "from node"); got != "from node" {
					t.Errorf("echo = %q", got)
				}
				cs.Close()
			})
		}
	}
	// Every backend after the first used the cache.
	if got := reg.tarballs.Load(); got != 2 {
		t.Errorf("tarball downloads = %d, want 2 (one per package, then the cache)", got)
	}
}

func TestNPMConcurrentInstallsShareOneInstall(t *testing.T) {
	npmEnv(t)
	reg := newNPMRegistry(t)
	reg.add(t, "mcpvet-echo", "1.0.0", "server.js", map[string]string{"server.js": readTestdata(t, "echo-server.js")})
	cache := t.TempDir()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: reg.URL, Identifier: "mcpvet-echo", Version: "1.0.0"}}
			opts := testOptions(BackendNone)
			opts.CacheDir = cache
			s, err := Launch(context.Background(), plan, opts)
			if err != nil {
				t.Errorf("Launch: %v", err)
				return
			}
			s.Close()
		})
	}
	wg.Wait()
	if got := reg.tarballs.Load(); got != 1 {
		t.Errorf("tarball downloads = %d, want 1", got)
	}
	entries, _ := os.ReadDir(filepath.Join(cache, "npm"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 3 || names[0] != ".locks" || names[1] != ".meta" || !strings.HasPrefix(names[2], "mcpvet-echo@1.0.0@") {
		t.Errorf("cache folder holds %v, want the lock folder, the saved metadata and one install", names)
	}
}

func TestNPMErrors(t *testing.T) {
	npmEnv(t)
	reg := newNPMRegistry(t)
	reg.add(t, "mcpvet-echo", "1.0.0", "server.js", map[string]string{"server.js": "x"})
	reg.add(t, "mcpvet-nobin", "1.0.0", nil, nil)
	reg.add(t, "mcpvet-twobins", "1.0.0", map[string]string{"a": "a.js", "b": "b.js"}, map[string]string{"a.js": "", "b.js": ""})
	reg.add(t, "mcpvet-escape", "1.0.0", map[string]string{"mcpvet-escape": "../../../../etc/passwd"}, nil)
	for _, tc := range []struct {
		name, id, version string
		want              vocab.Status
	}{
		{"missing package", "mcpvet-does-not-exist", "1.0.0", vocab.StatusPackageNotFound},
		{"missing version", "mcpvet-echo", "9.9.9", vocab.StatusVersionNotFound},
		{"no bin", "mcpvet-nobin", "1.0.0", vocab.StatusInstallFailed},
		{"two bins", "mcpvet-twobins", "1.0.0", vocab.StatusInstallFailed},
		{"bin outside", "mcpvet-escape", "1.0.0", vocab.StatusInstallFailed},
		{"shell", "x; rm -rf /", "1.0.0", vocab.StatusInvalidPlan},
		{"option", "--registry=http://evil", "1.0.0", vocab.StatusInvalidPlan},
		{"option version", "mcpvet-echo", "--registry=http://evil", vocab.StatusInvalidPlan},
		{"range", "mcpvet-echo", ">=1.0.0", vocab.StatusInvalidPlan},
		{"traversal", "../x", "1.0.0", vocab.StatusInvalidPlan},
		{"dot", ".hidden", "1.0.0", vocab.StatusInvalidPlan},
		{"empty scope", "@/x", "1.0.0", vocab.StatusInvalidPlan},
		{"url", "http://evil/x.tgz", "1.0.0", vocab.StatusInvalidPlan},
		{"too long", strings.Repeat("a", 215), "1.0.0", vocab.StatusInvalidPlan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			le, err := launchPackage(t, npmPackage(reg.URL, tc.id, tc.version))
			if le == nil || le.Status != tc.want {
				t.Fatalf("Launch error = %v, want status %s", err, tc.want)
			}
			if tc.want == vocab.StatusPackageNotFound || tc.want == vocab.StatusVersionNotFound {
				if le.Evidence == "" {
					t.Error("no evidence from npm")
				}
			}
		})
	}
}

func TestRuntimeUnavailable(t *testing.T) {
	empty := t.TempDir()
	failingDocker := t.TempDir()
	writeScript(t, filepath.Join(failingDocker, "docker"), "echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n")
	for _, tc := range []struct {
		name, path string
		pkg        vocab.Package
		want       string
	}{
		{"npm", empty, vocab.Package{RegistryType: "npm", Identifier: "x", Version: "1.0.0"}, "npm is not installed"},
		{"pypi", empty, vocab.Package{RegistryType: "pypi", Identifier: "x", Version: "1.0.0"}, "neither uv nor python3"},
		{"nuget", empty, vocab.Package{RegistryType: "nuget", Identifier: "X.Y", Version: "1.0.0"}, "dotnet"},
		{"oci missing", empty, vocab.Package{RegistryType: "oci", Identifier: "docker.io/x/y:1"}, "neither docker nor podman"},
		{"oci no engine", failingDocker, vocab.Package{RegistryType: "oci", Identifier: "docker.io/x/y:1"}, "no container engine answers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &tc.pkg}
			s, err := Launch(context.Background(), plan, testOptions(BackendNone))
			if s != nil {
				s.Close()
			}
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != vocab.StatusRuntimeUnavailable || !strings.Contains(le.Error(), tc.want) {
				t.Fatalf("Launch error = %v, want runtime_unavailable naming %q", err, tc.want)
			}
		})
	}
}

func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// fakeToolDir returns a folder for fake tools, first on PATH.
func fakeToolDir(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

func TestPyPIWithFakeUV(t *testing.T) {
	exe, _ := os.Executable()
	tools := fakeToolDir(t)
	// The fake uv creates a venv whose console script runs the "mcp" fake.
	writeScript(t, filepath.Join(tools, "uv"), `
set -e
case "$1" in
venv) mkdir -p "$3/bin" "$3/lib/python3.11/site-packages"; exit 0 ;;
pip)
	shift 2; py=""; while [ "$1" != "--" ]; do [ "$1" = "--python" ] && py="$2"; shift; done; req="$2"
	venv=$(dirname $(dirname "$py"))
	case "$req" in
	missing-pkg*) echo "  × No solution found when resolving dependencies:
  ╰─▶ Because missing-pkg was not found in the package registry and you require missing-pkg==1.0, we can conclude that your requirements are unsatisfiable." >&2; exit 1 ;;
	*==9.9.9) echo "  ╰─▶ Because there is no version of my-server==9.9.9 and you require my-server==9.9.9, we can conclude that your requirements are unsatisfiable." >&2; exit 1 ;;
	esac
	info="$venv/lib/python3.11/site-packages/my_server-1.0.dist-info"
	mkdir -p "$info"
	printf '[console_scripts]\nmy-server = my_server:main\nhelper = my_server:helper\n' > "$info/entry_points.txt"
	cp "`+exe+`" "$venv/bin/my-server"
	echo "$@" > "$venv/../args" ;;
esac
`)
	// The index answers for itself: 404 for a missing project, the
	// version list (PEP 700) for a known one.
	index := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/my-server/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
		w.Write([]byte(`{"meta":{"api-version":"1.1"},"name":"my-server","files":[],"versions":["1.0"]}`))
	}))
	defer index.Close()
	t.Setenv("PIP_INDEX_URL", index.URL)
	cache := t.TempDir()
	for _, backend := range testBackends(t) {
		t.Run(backend, func(t *testing.T) {
			// The console script is a copy of the test binary: run its fake.
			plan := &vocab.Plan{Transport: vocab.TransportStdio, Args: []string{fakeArg, "mcp"}, Package: &vocab.Package{RegistryType: "pypi", Identifier: "My_Server", Version: "1.0"}}
			opts := testOptions(backend)
			opts.CacheDir = cache
			s := launch(t, plan, opts, "")
			cs := clientSession(t, s)
			if got := callEcho(t, cs, "py"); got != "py" {
				t.Errorf("echo = %q", got)
			}
			cs.Close()
		})
	}
	for _, tc := range []struct {
		id, version string
		want        vocab.Status
	}{
		{"missing-pkg", "1.0", vocab.StatusPackageNotFound},
		{"my-server", "9.9.9", vocab.StatusVersionNotFound},
		{"x; rm -rf /", "1.0", vocab.StatusInvalidPlan},
		{"--index-url=http://evil", "1.0", vocab.StatusInvalidPlan},
		{"ok", "1.0; rm", vocab.StatusInvalidPlan},
	} {
		t.Run(string(tc.want)+"/"+tc.id, func(t *testing.T) {
			opts := testOptions(BackendNone)
			opts.CacheDir = t.TempDir()
			_, err := Launch(context.Background(), &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "pypi", Identifier: tc.id, Version: tc.version}}, opts)
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != tc.want {
				t.Errorf("Launch error = %v, want %s", err, tc.want)
			}
		})
	}
}

func TestOCIWithFakeDocker(t *testing.T) {
	exe, _ := os.Executable()
	tools := fakeToolDir(t)
	log := filepath.Join(t.TempDir(), "docker.log")
	writeScript(t, filepath.Join(tools, "docker"), `
echo "$@" >> `+log+`
case "$1" in
info) echo 27.0.0 ;;
pull) case "$3" in *:missing) echo "Error response from daemon: manifest for $3 not found: manifest unknown: manifest unknown" >&2; exit 1 ;;
	*nosuchimage*) echo "Error response from daemon: pull access denied for x, repository does not exist or may require 'docker login'" >&2; exit 1 ;; esac ;;
run) exec `+exe+` mcpvet-fake mcp ;;
rm) ;;
esac
`)
	plan := &vocab.Plan{Transport: vocab.TransportStdio, Env: map[string]string{"API_TOKEN": "t0k3n"},
		Package: &vocab.Package{RegistryType: "oci", Identifier: "ghcr.io/acme/server", Version: "1.2.3"}}
	s := launch(t, plan, testOptions(BackendAuto), "")
	cs := clientSession(t, s)
	if got := callEcho(t, cs, "oci"); got != "oci" {
		t.Errorf("echo = %q", got)
	}
	cs.Close()
	info := s.Info(5 * time.Second)
	if info.Backend != "docker" || info.Network {
		t.Errorf("Backend=%q Network=%v, want docker false", info.Backend, info.Network)
	}
	s.Close()
	data, _ := os.ReadFile(log)
	calls := strings.Split(strings.TrimSpace(string(data)), "\n")
	name := "mcpvet-" + s.runID
	for _, want := range []string{
		"pull --quiet ghcr.io/acme/server:1.2.3",
		"run -i --rm --name " + name + " --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges --init --network none --memory 1073741824 --pids-limit 256",
		"--env API_TOKEN",
		"rm --force " + name,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("docker calls %q lack %q", calls, want)
		}
	}
	if strings.Contains(string(data), "t0k3n") {
		t.Errorf("a secret value appears in docker's argv: %q", calls)
	}
	for _, tc := range []struct {
		id   string
		want vocab.Status
	}{
		{"ghcr.io/acme/server:missing", vocab.StatusVersionNotFound},
		{"docker.io/acme/nosuchimage:1", vocab.StatusPackageNotFound},
		{"--privileged", vocab.StatusInvalidPlan},
		{"acme/server:1; rm -rf /", vocab.StatusInvalidPlan},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			_, err := Launch(context.Background(), &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "oci", Identifier: tc.id}}, testOptions(BackendAuto))
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != tc.want {
				t.Errorf("Launch error = %v, want %s", err, tc.want)
			}
		})
	}
}

func TestNuGetWithFakeDotnet(t *testing.T) {
	exe, _ := os.Executable()
	tools := fakeToolDir(t)
	writeScript(t, filepath.Join(tools, "dotnet"), `
# dotnet tool install --tool-path DIR [--version V] ID
dir="$4"; id=$(eval echo \${$#})
case "$id" in
Missing.Pkg) echo "error NU1101: Unable to find package Missing.Pkg. No packages exist with this id in source(s): nuget.org" >&2; exit 1 ;;
esac
case "$*" in *"--version 9.9.9"*) echo "error NU1102: Unable to find package Acme.Server with version (= 9.9.9)" >&2; exit 1 ;; esac
mkdir -p "$dir/.store"
printf '#!/bin/sh\nexec %s mcpvet-fake mcp\n' "`+exe+`" > "$dir/acme-server"
chmod +x "$dir/acme-server"
`)
	opts := testOptions(BackendNone)
	opts.CacheDir = t.TempDir()
	s := launch(t, &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "nuget", Identifier: "Acme.Server", Version: "0.1.18-beta"}}, opts, "")
	cs := clientSession(t, s)
	if got := callEcho(t, cs, "dotnet"); got != "dotnet" {
		t.Errorf("echo = %q", got)
	}
	cs.Close()
	for _, tc := range []struct {
		id, version string
		want        vocab.Status
	}{
		{"Missing.Pkg", "1.0.0", vocab.StatusPackageNotFound},
		{"Acme.Server", "9.9.9", vocab.StatusVersionNotFound},
		{"-Acme", "1.0.0", vocab.StatusInvalidPlan},
		{"Acme Server", "1.0.0", vocab.StatusInvalidPlan},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			opts := testOptions(BackendNone)
			opts.CacheDir = t.TempDir()
			_, err := Launch(context.Background(), &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "nuget", Identifier: tc.id, Version: tc.version}}, opts)
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != tc.want {
				t.Errorf("Launch error = %v, want %s", err, tc.want)
			}
		})
	}
}

// makeBundle returns a zip with the given entries; a name ending in "@"
// becomes a symlink to its content.
func makeBundle(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(0o755)
		if before, ok := strings.CutSuffix(name, "@"); ok {
			h.Name = before
			h.SetMode(os.ModeSymlink | 0o777)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	zw.Close()
	return buf.Bytes()
}

func TestMCPB(t *testing.T) {
	server := readTestdata(t, "echo-server.js")
	good := makeBundle(t, map[string]string{
		"manifest.json":   `{"manifest_version":"0.3","name":"echo","version":"1.0.0","server":{"type":"node","entry_point":"server/index.js","mcp_config":{"command":"node","args":["${__dirname}/server/index.js","--greeting=${user_config.greeting}"],"env":{"FROM_MANIFEST":"yes"}}},"user_config":{"greeting":{"type":"string","default":"hi"}}}`,
		"server/index.js": server,
	})
	sum := sha256.Sum256(good)
	goodSHA := hex.EncodeToString(sum[:])
	dir := t.TempDir()
	goodPath := filepath.Join(dir, "good.mcpb")
	os.WriteFile(goodPath, good, 0o644)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/good.mcpb" {
			w.Write(good)
			return
		}
		http.NotFound(w, r)
	}))
	defer hs.Close()

	if _, err := exec.LookPath("node"); err == nil {
		for _, backend := range testBackends(t) {
			t.Run("run/"+backend, func(t *testing.T) {
				opts := testOptions(backend)
				opts.CacheDir = t.TempDir()
				plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "mcpb", Identifier: hs.URL + "/good.mcpb", FileSHA256: goodSHA}}
				s := launch(t, plan, opts, "")
				cs := clientSession(t, s)
				if got := callEcho(t, cs, "bundle"); got != "bundle" {
					t.Errorf("echo = %q", got)
				}
				cs.Close()
				if !strings.HasSuffix(s.argv[1], "/bundle/server/index.js") || s.argv[2] != "--greeting=hi" || lookEnv(s.env, "FROM_MANIFEST") != "yes" {
					t.Errorf("argv %q env %q", s.argv, s.env)
				}
			})
		}
	}

	for _, tc := range []struct {
		name  string
		pkg   vocab.Package
		plan  vocab.Plan
		want  vocab.Status
		files map[string]string
	}{
		{name: "digest mismatch", pkg: vocab.Package{Identifier: hs.URL + "/good.mcpb", FileSHA256: strings.Repeat("0", 64)}, want: vocab.StatusInstallFailed},
		{name: "not found", pkg: vocab.Package{Identifier: hs.URL + "/nope.mcpb"}, want: vocab.StatusPackageNotFound},
		{name: "local from registry", pkg: vocab.Package{Identifier: goodPath}, plan: vocab.Plan{Source: "registry"}, want: vocab.StatusInvalidPlan},
		{name: "relative path", pkg: vocab.Package{Identifier: "good.mcpb"}, want: vocab.StatusInvalidPlan},
		{name: "zip slip", files: map[string]string{"manifest.json": "{}", "../../evil": "x"}, want: vocab.StatusInstallFailed},
		{name: "absolute entry", files: map[string]string{"/etc/evil": "x"}, want: vocab.StatusInstallFailed},
		{name: "symlink", files: map[string]string{"link@": "/etc/passwd"}, want: vocab.StatusInstallFailed},
		{name: "needs config", files: map[string]string{"manifest.json": `{"server":{"type":"binary","entry_point":"bin/s","mcp_config":{"command":"${__dirname}/bin/s","args":["--key=${user_config.api_key}"]}},"user_config":{"api_key":{"type":"string","required":true}}}`, "bin/s": "#!/bin/sh\n"}, want: vocab.StatusNeedsConfiguration},
		{name: "command outside", files: map[string]string{"manifest.json": `{"server":{"type":"binary","mcp_config":{"command":"${__dirname}/../../../bin/sh"}}}`}, want: vocab.StatusInstallFailed},
		{name: "no manifest", files: map[string]string{"x": "y"}, want: vocab.StatusInstallFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkg := tc.pkg
			if tc.files != nil {
				p := filepath.Join(t.TempDir(), "b.mcpb")
				os.WriteFile(p, makeBundle(t, tc.files), 0o644)
				pkg.Identifier = p
			}
			pkg.RegistryType = "mcpb"
			plan := tc.plan
			plan.Transport, plan.Package = vocab.TransportStdio, &pkg
			opts := testOptions(BackendNone)
			opts.CacheDir = t.TempDir()
			_, err := Launch(context.Background(), &plan, opts)
			var le *LaunchError
			if !errors.As(err, &le) || le.Status != tc.want {
				t.Errorf("Launch error = %v, want %s", err, tc.want)
			}
		})
	}
}

// launchPackage launches pkg without isolation, closes whatever started,
// and returns the launch's *LaunchError (nil when it started or failed
// otherwise) and its error.
func launchPackage(t *testing.T, pkg *vocab.Package) (*LaunchError, error) {
	t.Helper()
	plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: pkg}
	opts := testOptions(BackendNone)
	opts.CacheDir = t.TempDir()
	s, err := Launch(context.Background(), plan, opts)
	if s != nil {
		s.Close()
	}
	var le *LaunchError
	errors.As(err, &le)
	return le, err
}

// npmPackage is the npm package id@version of the registry at base.
func npmPackage(base, id, version string) *vocab.Package {
	return &vocab.Package{RegistryType: "npm", RegistryBaseURL: base, Identifier: id, Version: version}
}
