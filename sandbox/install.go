package sandbox

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// DefaultInstallTimeout bounds one package install (see
// [Options.InstallTimeout]).
const DefaultInstallTimeout = 10 * time.Minute

// entryPoint is how to run an installed package.
type entryPoint struct {
	argv []string
	// dir is the installed folder, exposed read-only to the server.
	dir string
	// readOnly lists more host folders the entry point needs (a runtime
	// outside the system folders).
	readOnly []string
	warnings []string
	// env holds variables the package itself declares (mcpb manifests);
	// the plan's values and the user's overrides win over them.
	env map[string]string
	// runner, when set, replaces the sandbox backend: the package runs in
	// its own isolation (an OCI container).
	runner backend
	// version is the package version installed, when known.
	version string
	// sdk names the MCP SDK the package depends on, and sdkWhy says how
	// that is known.
	sdk, sdkWhy string
}

// install installs pkg (install steps always have network) and returns its
// entry point. Failures that belong to the package are *LaunchError.
func install(ctx context.Context, pkg *vocab.Package, o *Options, source string) (*entryPoint, error) {
	key := installMemoKey(pkg, o, source)
	if ep, ok := installMemoGet(key); ok {
		return ep, nil
	}
	ep, err := installOnce(ctx, pkg, o, source)
	if err == nil {
		installMemo.Store(key, ep)
	}
	return ep, err
}

func installOnce(ctx context.Context, pkg *vocab.Package, o *Options, source string) (*entryPoint, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, o.InstallTimeout, errInstallTimeout)
	defer cancel()
	// Every URL an untrusted entry names is checked before anything is
	// contacted, and mcpvet's own requests for it refuse private
	// addresses at connect time (private_url.go).
	if err := checkEntryURLs(ctx, pkg, source, o); err != nil {
		return nil, err
	}
	if (&vocab.Plan{Source: source}).Untrusted() && !o.AllowPrivateNetwork {
		ctx = withPrivateGuard(ctx)
	}
	switch pkg.RegistryType {
	case "npm":
		return installNPM(ctx, pkg, o)
	case "pypi":
		return installPyPI(ctx, pkg, o)
	case "oci":
		return installOCI(ctx, pkg, o)
	case "nuget":
		return installNuGet(ctx, pkg, o)
	case "mcpb":
		return installMCPB(ctx, pkg, o, source)
	default:
		return nil, launchErrorf(vocab.StatusInvalidPlan, "unknown package registry type %q (valid: npm, pypi, oci, nuget, mcpb)", pkg.RegistryType)
	}
}

// cacheKeyPart turns a package name or version into one path element.
func cacheKeyPart(s string) string {
	return strings.NewReplacer("/", "+", "\\", "+", "..", "_").Replace(s)
}

// cached returns the cache folder for key (below CACHE/kind), filling it
// with fill when absent. Concurrent calls for the same key, in this process
// or others, are serialized with an flock on a lock file; fill writes into
// a fresh temporary folder that is renamed into place only when complete,
// so a crash never leaves a half-installed folder behind.
func cached(ctx context.Context, o *Options, kind, key string, fill func(ctx context.Context, dir string) error) (string, error) {
	base := filepath.Join(o.CacheDir, kind)
	if err := os.MkdirAll(filepath.Join(base, ".locks"), 0o755); err != nil {
		return "", fmt.Errorf("creating install cache: %w", err)
	}
	final := filepath.Join(base, key)
	if isCached(o, kind, key) {
		return final, nil
	}
	unlock, err := lockFile(ctx, filepath.Join(base, ".locks", key+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(final, ".mcpvet-complete")); err == nil {
		return final, nil // another installer finished while we waited
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	tmp := filepath.Join(base, ".tmp-"+key+"-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return "", fmt.Errorf("creating install folder: %w", err)
	}
	if err := fill(ctx, tmp); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, ".mcpvet-complete"), nil, 0o644); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("marking install complete: %w", err)
	}
	os.RemoveAll(final) // an incomplete leftover from an older layout
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("moving install into the cache: %w", err)
	}
	return final, nil
}

// isCached reports whether the cache already holds a complete install
// under key (below CACHE/kind).
func isCached(o *Options, kind, key string) bool {
	_, err := os.Stat(filepath.Join(o.CacheDir, kind, key, ".mcpvet-complete"))
	return err == nil
}

// lockFile takes an exclusive flock on path, waiting until ctx is done.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening install lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking install cache: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for install lock: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// runTool runs an installer (argv, never a shell) with mcpvet's own
// environment plus extra, and returns its combined output, bounded.
func runTool(ctx context.Context, dir string, extra []string, argv ...string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), extra...)
	out := newTailBuffer(64<<10, -1)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	return out.String(), err
}

// lastLines returns the last n lines of s, for LaunchError.Evidence.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// requireTool returns the path of the first of names on PATH, or a
// runtime_unavailable error naming what is missing.
func requireTool(what string, names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", launchErrorf(vocab.StatusRuntimeUnavailable, "%s is not installed (looked for %s on PATH)", what, strings.Join(names, ", "))
}

// validToken reports whether s is non-empty, does not start with '-' (it
// could pass for an option) and only holds bytes allowed by ok.
func validToken(s string, max int, ok func(c byte) bool) bool {
	if s == "" || len(s) > max || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// pinnedVersion reports whether v names one exact version (1.2.3,
// 1.2.3-beta.1, 1.0.0+build) rather than a tag such as latest.
func pinnedVersion(v string) bool {
	return validVersion(v) && pinnedSemver().MatchString(v)
}

var pinnedSemver = lazyRegexp(`^[0-9]+\.[0-9]+\.[0-9]+(?:[-+][0-9A-Za-z.+-]*)?$`)

// validVersion accepts semver-ish versions and tags: 1.2.3, 1.2.3-beta.1,
// 1.0.0+build, latest. No ranges, no leading '-'.
func validVersion(v string) bool {
	return validToken(v, 128, func(c byte) bool { return isAlnum(c) || strings.IndexByte(".-+_", c) >= 0 }) && isAlnum(v[0])
}

// shortHash returns 12 hex digits of the SHA-256 of s, for cache keys.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// validHTTPURL reports whether s is an http(s) URL with a host and no
// credentials.
func validHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil
}

// lazyRegexp compiles expr on first use: the binary is also the sandbox's
// bwrap and none stages, whose start-up time counts, so package initialization
// stays light.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var (
	sha256Hex    = lazyRegexp(`^[0-9a-f]{64}$`)
	pySeparators = lazyRegexp(`[-_.]+`)
)
