package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpvet/mcpvet/internal/atomicfile"
	"github.com/mcpvet/mcpvet/vocab"
)

// npmMeta is what the registry's metadata says about one npm package: its
// versions and dist-tags. Only the names are kept, so a scan's cache stays
// small even for packages with thousands of versions.
type npmMeta struct {
	// found is false when the registry answered 404 for the package.
	found    bool
	versions map[string]bool
	tags     map[string]string
}

// metaCache holds one answer per registry and package for the life of the
// process (one scan): plans sharing a package ask the registry once.
// Failed requests are not cached.
var metaCache sync.Map // key string -> *metaEntry

type metaEntry struct {
	once sync.Once
	meta *npmMeta
	err  error
}

// metaClient bounds one metadata request; the abbreviated document of
// even the largest packages arrives well within it.
var metaClient = &http.Client{Timeout: 30 * time.Second, Transport: guardedTransport}

// metaMaxBytes caps a metadata document (untrusted input).
const metaMaxBytes = 64 << 20

// defaultNPMRegistry is the registry npm itself would use, read once from
// npm's configuration (environment, .npmrc).
var defaultNPMRegistry = sync.OnceValue(npmConfigRegistry)

// npmConfigRegistry reads the registry npm would use: $npm_config_registry,
// else what `npm config get registry` prints (a valid http(s) URL, within
// 10 s), else the public registry.
func npmConfigRegistry() string {
	if v := os.Getenv("npm_config_registry"); v != "" {
		return v
	}
	if npm, err := exec.LookPath("npm"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, npm, "config", "get", "registry").Output()
		if s := strings.TrimSpace(string(out)); err == nil && validHTTPURL(s) {
			return s
		}
	}
	return "https://registry.npmjs.org/"
}

// npmMetadata fetches (once per registry and package) the abbreviated
// metadata of name. A nil error means the registry answered definitely:
// found or not. An error means it could not be asked (network, server
// error) and nothing is known.
func npmMetadata(ctx context.Context, base, name string) (*npmMeta, error) {
	if base == "" {
		base = defaultNPMRegistry()
	}
	key := base + "\x00" + name
	v, _ := metaCache.LoadOrStore(key, &metaEntry{})
	e := v.(*metaEntry)
	e.once.Do(func() { e.meta, e.err = fetchNPMMeta(ctx, base, name) })
	if e.err != nil {
		metaCache.CompareAndDelete(key, e) // retry on the next plan
	}
	return e.meta, e.err
}

func fetchNPMMeta(ctx context.Context, base, name string) (*npmMeta, error) {
	u := strings.TrimRight(base, "/") + "/" + strings.Replace(url.PathEscape(name), "%40", "@", 1)
	// The abbreviated ("corgi") document is what npm install reads.
	resp, err := getMeta(ctx, u, "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8")
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return &npmMeta{}, nil
	}
	defer resp.Body.Close()
	var doc struct {
		DistTags map[string]string          `json:"dist-tags"`
		Versions map[string]json.RawMessage `json:"versions"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, metaMaxBytes)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("GET %s: reading metadata: %w", u, err)
	}
	m := &npmMeta{found: true, versions: make(map[string]bool, len(doc.Versions)), tags: doc.DistTags}
	for v := range doc.Versions {
		m.versions[v] = true
	}
	return m, nil
}

// metaTagTimeout bounds the metadata request that resolves a dist-tag when
// metadata saved by an earlier run can answer instead: a slow or absent
// network then costs at most this long.
var metaTagTimeout = 3 * time.Second

// checkNPM asks the registry whether name@version exists before any
// install. It returns the exact version to install (a dist-tag resolved),
// or "" when the registry could not be asked and no saved metadata could
// answer; a *LaunchError when the registry definitely has no such package
// or version. Every answer is saved below cacheDir (see [saveNPMMeta]);
// when the registry cannot be asked, the saved answer resolves the
// version, and note says so.
func checkNPM(ctx context.Context, cacheDir, base, name, version string) (exact, note string, err error) {
	saved, savedAt := loadNPMMeta(cacheDir, base, name)
	askCtx := ctx
	if saved != nil {
		var cancel context.CancelFunc
		askCtx, cancel = context.WithTimeout(ctx, metaTagTimeout)
		defer cancel()
	}
	m, err := npmMetadata(askCtx, base, name)
	if err != nil {
		if saved == nil || !saved.found {
			return "", "", nil // unknown: the install decides, and its output is the evidence
		}
		if v := saved.resolve(version); v != "" {
			return v, fmt.Sprintf("the npm registry could not be asked (%v); %s@%s resolved to %s from the metadata saved on %s",
				err, name, version, v, savedAt.UTC().Format(time.RFC3339)), nil
		}
		return "", "", nil
	}
	saveNPMMeta(cacheDir, base, name, m)
	reg := base
	if reg == "" {
		reg = defaultNPMRegistry()
	}
	evidence := fmt.Sprintf("registry %s: ", reg)
	if !m.found {
		return "", "", &LaunchError{Status: vocab.StatusPackageNotFound, Detail: fmt.Sprintf("npm package %s not found: the registry answered 404 for it", name),
			Evidence: evidence + "404 for " + name}
	}
	if v := m.resolve(version); v != "" {
		return v, "", nil
	}
	return "", "", &LaunchError{Status: vocab.StatusVersionNotFound, Detail: fmt.Sprintf("npm package %s has no version or tag %s", name, version),
		Evidence: evidence + fmt.Sprintf("%s has %d versions; dist-tags %s", name, len(m.versions), formatTags(m.tags))}
}

// resolve returns the exact version a version or dist-tag names, or "".
func (m *npmMeta) resolve(version string) string {
	if m.versions[version] {
		return version
	}
	if v, ok := m.tags[version]; ok && m.versions[v] {
		return v
	}
	return ""
}

// savedNPMMeta is the on-disk form of [npmMeta], kept with the installs
// (CACHE/npm/.meta/<name>[@<registry hash>].json).
type savedNPMMeta struct {
	Registry string            `json:"registry"`
	Name     string            `json:"name"`
	Saved    time.Time         `json:"saved"`
	Found    bool              `json:"found"`
	Tags     map[string]string `json:"distTags"`
	Versions []string          `json:"versions"`
}

func npmMetaPath(cacheDir, base, name string) string {
	key := cacheKeyPart(name)
	if base != "" {
		key += "@" + shortHash("--registry="+base)
	}
	return filepath.Join(cacheDir, "npm", ".meta", key+".json")
}

// saveNPMMeta writes m beside the installs, atomically; a failure only
// loses the fallback.
func saveNPMMeta(cacheDir, base, name string, m *npmMeta) {
	if cacheDir == "" {
		return
	}
	doc := savedNPMMeta{Registry: base, Name: name, Saved: time.Now(), Found: m.found, Tags: m.tags}
	for v := range m.versions {
		doc.Versions = append(doc.Versions, v)
	}
	sort.Strings(doc.Versions)
	data, err := json.Marshal(doc)
	if err != nil {
		return
	}
	_ = atomicfile.Write(npmMetaPath(cacheDir, base, name), data, 0o755)
}

// loadNPMMeta reads the metadata an earlier run saved, or nil.
func loadNPMMeta(cacheDir, base, name string) (*npmMeta, time.Time) {
	if cacheDir == "" {
		return nil, time.Time{}
	}
	data, err := os.ReadFile(npmMetaPath(cacheDir, base, name))
	if err != nil || len(data) > metaMaxBytes {
		return nil, time.Time{}
	}
	var doc savedNPMMeta
	if json.Unmarshal(data, &doc) != nil || doc.Name != name || doc.Registry != base {
		return nil, time.Time{}
	}
	m := &npmMeta{found: doc.Found, tags: doc.Tags, versions: make(map[string]bool, len(doc.Versions))}
	for _, v := range doc.Versions {
		m.versions[v] = true
	}
	return m, doc.Saved
}

func formatTags(tags map[string]string) string {
	var parts []string
	for k, v := range tags {
		parts = append(parts, k+"="+v)
		if len(parts) == 8 {
			break
		}
	}
	return strings.Join(parts, ", ")
}

// npm404Names returns the package names an npm install output says were
// not found: "404 Not Found - GET <registry>/<name>" and "'<name>@<range>'
// is not in this registry".
func npm404Names(out string) []string {
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if n, err := url.PathUnescape(n); err == nil && n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, m := range npm404GET().FindAllStringSubmatch(out, -1) {
		u, err := url.Parse(m[1])
		if err != nil {
			continue
		}
		p := strings.TrimPrefix(u.EscapedPath(), "/")
		// A tarball URL is <name>/-/<file>.tgz; a packument is <name>.
		p, _, _ = strings.Cut(p, "/-/")
		if i := strings.LastIndex(p, "/@"); i >= 0 { // registry under a path prefix
			p = p[i+1:]
		}
		if !strings.HasPrefix(p, "@") && strings.Contains(p, "/") {
			p = p[strings.LastIndex(p, "/")+1:]
		}
		add(p)
	}
	for _, m := range npmNotInRegistry().FindAllStringSubmatch(out, -1) {
		spec := m[1]
		at := strings.LastIndex(spec, "@")
		if at > 0 {
			spec = spec[:at]
		}
		add(spec)
	}
	return names
}

var (
	npm404GET        = lazyRegexp(`404 Not Found - GET (\S+)`)
	npmNotInRegistry = lazyRegexp(`'([^'\s]+)' is not in this registry`)
)

// isNetworkFailure reports whether installer output shows that the
// registry or index was never reached: name resolution, refused or reset
// connections, timeouts, proxies. Such a failure says nothing about the
// package.
func isNetworkFailure(out string) bool {
	return networkFailure().MatchString(out)
}

var networkFailure = lazyRegexp(`(?i)name or service not known|no such host|i/o timeout|temporary failure in name resolution|nodename nor servname|no address associated|failed to establish a new connection|connection refused|connection reset|network is unreachable|no route to host|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|read timed out|connect timeout|connecttimeouterror|proxyerror|max retries exceeded|could not fetch url|ssl: certificate|certificate verify failed|dns error|failed to fetch`)

// pypiMeta is what a PyPI index says about one project.
type pypiMeta struct {
	found bool
	// versions is nil when the index answered in the HTML form (PEP 503),
	// which lists files rather than versions.
	versions map[string]bool
}

var pypiCache sync.Map // key string -> *pypiEntry

type pypiEntry struct {
	once sync.Once
	meta *pypiMeta
	err  error
}

// defaultPyPIIndex is the simple index pip and uv use unless told
// otherwise.
func defaultPyPIIndex() string {
	for _, k := range []string{"PIP_INDEX_URL", "UV_INDEX_URL"} {
		if v := os.Getenv(k); validHTTPURL(v) {
			return v
		}
	}
	return "https://pypi.org/simple"
}

// pypiMetadata asks the simple index (PEP 503/691/700) about a project,
// once per index and project. A nil error means a definite answer.
func pypiMetadata(ctx context.Context, index, name string) (*pypiMeta, error) {
	if index == "" {
		index = defaultPyPIIndex()
	}
	key := index + "\x00" + normalizePyName(name)
	v, _ := pypiCache.LoadOrStore(key, &pypiEntry{})
	e := v.(*pypiEntry)
	e.once.Do(func() { e.meta, e.err = fetchPyPIMeta(ctx, index, name) })
	if e.err != nil {
		pypiCache.CompareAndDelete(key, e)
	}
	return e.meta, e.err
}

func fetchPyPIMeta(ctx context.Context, index, name string) (*pypiMeta, error) {
	u := strings.TrimRight(index, "/") + "/" + url.PathEscape(normalizePyName(name)) + "/"
	resp, err := getMeta(ctx, u, "application/vnd.pypi.simple.v1+json, text/html; q=0.1")
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return &pypiMeta{}, nil
	}
	defer resp.Body.Close()
	m := &pypiMeta{found: true}
	if strings.Contains(resp.Header.Get("Content-Type"), "json") {
		var doc struct {
			Versions []string `json:"versions"`
		}
		if err := json.NewDecoder(io.LimitReader(resp.Body, metaMaxBytes)).Decode(&doc); err == nil && doc.Versions != nil {
			m.versions = make(map[string]bool, len(doc.Versions))
			for _, v := range doc.Versions {
				m.versions[v] = true
			}
		}
	}
	return m, nil
}

// checkPyPI asks the index whether the project (and version) exists. It
// returns known=false when the index could not be asked, with the reason;
// a *LaunchError when the index definitely has no such project or version.
func checkPyPI(ctx context.Context, index, name, version string) (known bool, reason string, err error) {
	m, ferr := pypiMetadata(ctx, index, name)
	if ferr != nil {
		return false, ferr.Error(), nil
	}
	if index == "" {
		index = defaultPyPIIndex()
	}
	if !m.found {
		return true, "", &LaunchError{Status: vocab.StatusPackageNotFound, Detail: fmt.Sprintf("PyPI package %s not found: the index answered 404 for it", name),
			Evidence: fmt.Sprintf("index %s: 404 for %s", index, normalizePyName(name))}
	}
	if version != "" && m.versions != nil && !m.versions[version] {
		return true, "", &LaunchError{Status: vocab.StatusVersionNotFound, Detail: fmt.Sprintf("PyPI package %s has no version %s", name, version),
			Evidence: fmt.Sprintf("index %s: %s has %d versions, not %s", index, normalizePyName(name), len(m.versions), version)}
	}
	return true, "", nil
}

// getMeta asks a registry for a package's metadata document at u. It
// returns the open response of a 200, nil for a 404 (the registry's
// definite "no such package"), and an error for anything else.
func getMeta(ctx context.Context, u, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	resp, err := metaClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		resp.Body.Close()
		return nil, nil
	case resp.StatusCode != http.StatusOK:
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return resp, nil
}
