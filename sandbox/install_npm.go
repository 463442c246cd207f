package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mcpvet/mcpvet/vocab"
)

// validNPMName follows the npm package name rules
// (validate-npm-package-name): at most 214 characters, URL-safe, an
// optional @scope/, no leading '.', '_' or '-'. Upper case is accepted for
// the old packages that have it.
func validNPMName(name string) bool {
	if len(name) > 214 {
		return false
	}
	part := func(s string) bool {
		return validToken(s, 214, func(c byte) bool { return isAlnum(c) || strings.IndexByte("-._~", c) >= 0 }) &&
			s[0] != '.' && s[0] != '_'
	}
	if scope, rest, ok := strings.Cut(name, "/"); ok {
		return strings.HasPrefix(scope, "@") && part(scope[1:]) && part(rest)
	}
	return part(name)
}

// installNPM installs an npm package into CACHE/npm/<name>@<version> and
// returns `node <bin>`: what npx does, without resolving at run time.
//
// Install scripts are not run (--ignore-scripts): they would execute the
// package's code on the host, outside the sandbox, with network. Packages
// that need a postinstall step (native addons) fail to start instead, and
// the scan reports that.
func installNPM(ctx context.Context, pkg *vocab.Package, o *Options) (*entryPoint, error) {
	name, version := pkg.Identifier, pkg.Version
	if !validNPMName(name) {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid npm package name %q", name)
	}
	if version == "" {
		version = "latest"
	}
	if !validVersion(version) {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid npm version %q", version)
	}
	var registryArgs []string
	if base := pkg.RegistryBaseURL; base != "" {
		if !validHTTPURL(base) {
			return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid npm registry URL %q", base)
		}
		registryArgs = []string{"--registry=" + base}
	}
	npm, err := requireTool("npm", "npm")
	if err != nil {
		return nil, err
	}
	node, err := requireTool("node (the npm runtime)", "node", "nodejs")
	if err != nil {
		return nil, err
	}
	npmKey := func(version string) string {
		key := cacheKeyPart(name) + "@" + cacheKeyPart(version)
		if len(registryArgs) > 0 {
			key += "@" + shortHash(registryArgs[0])
		}
		return key
	}
	// A pinned version already installed needs nothing from the registry:
	// npm never republishes a version, and the install is complete. Any
	// other request asks once (cached for the scan) whether the package and
	// version exist before anything is installed, and resolves a dist-tag
	// such as latest to the version that will be installed.
	var note string
	if !pinnedVersion(version) || !isCached(o, "npm", npmKey(version)) {
		exact, why, err := checkNPM(ctx, o.CacheDir, pkg.RegistryBaseURL, name, version)
		if err != nil {
			return nil, err
		}
		if exact != "" {
			version = exact
		}
		note = why
	}
	spec := name + "@" + version
	key := npmKey(version)
	dir, err := cached(ctx, o, "npm", key, func(ctx context.Context, dir string) error {
		// A package.json of our own keeps npm from walking up to a
		// project folder.
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"mcpvet-install","private":true}`+"\n"), 0o644); err != nil {
			return err
		}
		argv := append([]string{npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts",
			"--no-save", "--loglevel=http"}, registryArgs...)
		argv = append(argv, "--", spec)
		out, err := runTool(ctx, dir, nil, argv...)
		if err != nil {
			return npmError(ctx, name, version, out, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
	bin, err := npmBin(pkgDir, name)
	if err != nil {
		return nil, err
	}
	ep := &entryPoint{argv: []string{node, bin}, dir: dir, version: installedNPMVersion(pkgDir)}
	if note != "" {
		ep.warnings = append(ep.warnings, note)
	}
	ep.sdk, ep.sdkWhy = npmSDK(dir)
	for _, a := range pkg.RuntimeArgs {
		if a != "-y" && a != "--yes" {
			ep.warnings = append(ep.warnings, fmt.Sprintf("npx runtime argument %q ignored: the package is run with node directly", a))
		}
	}
	return ep, nil
}

// npmError maps a failed npm install to a LaunchError. A 404 is about the
// package itself only when it names the package: npm also says E404 when
// a dependency is missing from the registry, which is an install failure
// of a package that exists. Without network, nothing is known about the
// package: install_failed with npm's output.
func npmError(ctx context.Context, name, version, out string, err error) error {
	evidence := lastLines(out, 20)
	if ctx.Err() != nil {
		return &LaunchError{Status: vocab.StatusInstallFailed, Detail: installStopped(ctx, "npm install "+name+"@"+version), Evidence: evidence}
	}
	switch {
	case strings.Contains(out, "E404"):
		missing := npm404Names(out)
		if slices.Contains(missing, name) {
			return &LaunchError{Status: vocab.StatusPackageNotFound, Detail: fmt.Sprintf("npm package %s not found: the registry answered 404 for it", name), Evidence: evidence}
		}
		if len(missing) > 0 {
			return &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("npm install %s@%s: dependency %s not found in the registry", name, version, strings.Join(missing, ", ")), Evidence: evidence}
		}
	case strings.Contains(out, "ETARGET") || strings.Contains(out, "notarget") || strings.Contains(out, "No matching version"):
		if m := npmNoMatch().FindStringSubmatch(out); m != nil && !strings.HasPrefix(m[1], name+"@") {
			return &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("npm install %s@%s: no version of dependency %s", name, version, m[1]), Evidence: evidence}
		}
		return &LaunchError{Status: vocab.StatusVersionNotFound, Detail: fmt.Sprintf("npm package %s has no version %s", name, version), Evidence: evidence}
	case isNetworkFailure(out):
		return &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("npm install %s@%s: the registry could not be reached", name, version), Evidence: evidence}
	}
	return &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("npm install %s@%s: %v", name, version, err), Evidence: evidence}
}

// npmNoMatch finds the spec of an ETARGET: "No matching version found for
// <spec>.".
var npmNoMatch = lazyRegexp(`No matching version found for (\S+?)\.?(?:\s|$)`)

// npmBin returns the absolute path of the package's executable: the
// package.json "bin" that npx would pick (the only one, or the one named
// like the package without its scope).
func npmBin(pkgDir, name string) (string, error) {
	data, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return "", &LaunchError{Status: vocab.StatusInstallFailed, Detail: "installed package has no package.json: " + err.Error()}
	}
	var meta struct {
		Bin json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return "", &LaunchError{Status: vocab.StatusInstallFailed, Detail: "reading package.json: " + err.Error()}
	}
	bins := map[string]string{}
	unscoped := path.Base(name)
	var single string
	if json.Unmarshal(meta.Bin, &single) == nil && single != "" {
		bins[unscoped] = single
	} else if err := json.Unmarshal(meta.Bin, &bins); err != nil || len(bins) == 0 {
		return "", &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("npm package %s declares no executable (package.json has no \"bin\")", name)}
	}
	rel, ok := bins[unscoped]
	if !ok && len(bins) == 1 {
		for _, v := range bins {
			rel = v
		}
		ok = true
	}
	if !ok {
		var names []string
		for k := range bins {
			names = append(names, k)
		}
		sort.Strings(names)
		return "", &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("npm package %s has several executables (%s) and none is named %s", name, strings.Join(names, ", "), unscoped)}
	}
	bin := filepath.Join(pkgDir, filepath.FromSlash(rel))
	if !strings.HasPrefix(bin, pkgDir+string(filepath.Separator)) {
		return "", &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("npm package %s: bin %q points outside the package", name, rel)}
	}
	if _, err := os.Stat(bin); err != nil {
		return "", &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("npm package %s: bin %q is missing", name, rel)}
	}
	return bin, nil
}

// installedNPMVersion reads the version from an installed package.json.
func installedNPMVersion(pkgDir string) string {
	data, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return ""
	}
	var meta struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &meta) != nil || !validVersion(meta.Version) {
		return ""
	}
	return meta.Version
}
