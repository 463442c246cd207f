package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpvet/mcpvet/vocab"
)

// pep508Name is a PyPI distribution name (PEP 508).
var pep508Name = lazyRegexp(`^[A-Za-z0-9]([A-Za-z0-9._-]{0,198}[A-Za-z0-9])?$`)

// pep440Version accepts PEP 440 public versions (and a little more).
var pep440Version = lazyRegexp(`^[0-9A-Za-z][0-9A-Za-z.+!_-]{0,127}$`)

// normalizePyName applies the PEP 503 normalization.
func normalizePyName(s string) string {
	return strings.ToLower(pySeparators().ReplaceAllString(s, "-"))
}

// installPyPI installs a PyPI distribution into its own virtual
// environment, CACHE/pypi/<name>@<version>/venv, with uv (what uvx uses)
// or, without uv, python3 -m venv and pip. It returns the distribution's
// console script. Only wheels' and sdists' build steps run at install
// time; nothing of the package runs.
func installPyPI(ctx context.Context, pkg *vocab.Package, o *Options) (*entryPoint, error) {
	name, version := pkg.Identifier, pkg.Version
	if !pep508Name().MatchString(name) {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid PyPI package name %q", name)
	}
	if version != "" && !pep440Version().MatchString(version) {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid PyPI version %q", version)
	}
	var indexArgs []string
	if base := pkg.RegistryBaseURL; base != "" && base != "https://pypi.org" {
		if !validHTTPURL(base) {
			return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid PyPI index URL %q", base)
		}
		indexArgs = []string{"--index-url", base}
	}
	uv, uvErr := requireTool("uv", "uv")
	python, pyErr := requireTool("python3", "python3")
	if uvErr != nil && pyErr != nil {
		return nil, launchErrorf(vocab.StatusRuntimeUnavailable, "neither uv nor python3 is installed (needed for PyPI packages)")
	}
	// One request to the index (cached for the scan) says whether the
	// project and version exist before anything is installed.
	index := ""
	if len(indexArgs) > 0 {
		index = indexArgs[1]
	}
	known, unknownWhy, err := checkPyPI(ctx, index, name, version)
	if err != nil {
		return nil, err
	}
	if !known && unknownWhy != "" && isNetworkFailure(unknownWhy) {
		// The index cannot be reached from here (no such host, refused):
		// an installer would retry into the same wall for seconds.
		return nil, &LaunchError{Status: vocab.StatusInstallFailed,
			Detail:   fmt.Sprintf("installing PyPI package %s==%s: the package index could not be reached; nothing is known about the package", name, version),
			Evidence: unknownWhy}
	}
	req := name
	if version != "" {
		req += "==" + version
	} else {
		version = "latest"
	}
	key := cacheKeyPart(normalizePyName(name)) + "@" + cacheKeyPart(version)
	if len(indexArgs) > 0 {
		key += "@" + shortHash(indexArgs[1])
	}
	dir, err := cached(ctx, o, "pypi", key, func(ctx context.Context, dir string) error {
		venv := filepath.Join(dir, "venv")
		var steps [][]string
		if uvErr == nil {
			steps = [][]string{
				{uv, "venv", "--quiet", venv},
				append(append([]string{uv, "pip", "install", "--quiet", "--python", filepath.Join(venv, "bin", "python")}, indexArgs...), "--", req),
			}
		} else {
			steps = [][]string{
				{python, "-m", "venv", venv},
				append(append([]string{filepath.Join(venv, "bin", "python"), "-m", "pip", "install", "--quiet", "--no-input", "--disable-pip-version-check"}, indexArgs...), "--", req),
			}
		}
		for _, argv := range steps {
			if out, err := runTool(ctx, dir, nil, argv...); err != nil {
				return pypiError(ctx, name, version, out, err, known, unknownWhy)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	venv := filepath.Join(dir, "venv")
	script, err := pyConsoleScript(venv, name)
	if err != nil {
		return nil, err
	}
	ep := &entryPoint{argv: []string{script}, dir: dir}
	ep.sdk, ep.sdkWhy = pySDK(venv)
	// A venv's python links to the interpreter it was made from; expose
	// that interpreter's prefix when it lives outside the system folders
	// (pyenv, uv-managed Pythons).
	if real, err := filepath.EvalSymlinks(filepath.Join(venv, "bin", "python")); err == nil && !underSystemDir(real) {
		ep.readOnly = append(ep.readOnly, filepath.Dir(filepath.Dir(real)))
	}
	return ep, nil
}

// pypiError maps a failed install to a LaunchError. pip and uv end an
// install whose index they never reached with the same words as one for a
// project that does not exist ("No matching distribution found"), so the
// not-found statuses need the index's own answer (known): without it, the
// failure is install_failed with the reason the index could not be asked.
func pypiError(ctx context.Context, name, version, out string, err error, known bool, unknownWhy string) error {
	evidence := lastLines(out, 20)
	low := strings.ToLower(out)
	notFound := strings.Contains(low, "not found in the package registry") || strings.Contains(low, "no matching distribution found")
	switch {
	case ctx.Err() != nil:
		return &LaunchError{Status: vocab.StatusInstallFailed, Detail: installStopped(ctx, "installing PyPI package "+name+"=="+version), Evidence: evidence}
	case !known || isNetworkFailure(out):
		why := unknownWhy
		if why == "" {
			why = "see the installer output"
		}
		return &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("installing PyPI package %s==%s: the package index could not be reached (%s)", name, version, why),
			Evidence: strings.TrimSpace(unknownWhy + "\n" + networkEvidence(out, evidence))}
	case strings.Contains(low, "there is no version of"), strings.Contains(low, "from versions: ") && !strings.Contains(low, "from versions: none"):
		return &LaunchError{Status: vocab.StatusVersionNotFound, Detail: fmt.Sprintf("PyPI package %s has no version %s", name, version), Evidence: evidence}
	case notFound:
		// The index lists the project, yet no distribution fits: none for
		// this Python or platform.
		return &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("PyPI package %s==%s: no distribution installable here", name, version), Evidence: evidence}
	}
	return &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("installing PyPI package %s: %v", name, err), Evidence: evidence}
}

// pyConsoleScript finds the distribution's console script in the venv: the
// [console_scripts] entry of its own entry_points.txt named like the
// distribution, or its only entry.
func pyConsoleScript(venv, name string) (string, error) {
	want := normalizePyName(name)
	infos, _ := filepath.Glob(filepath.Join(venv, "lib", "python*", "site-packages", "*.dist-info"))
	for _, info := range infos {
		base := filepath.Base(info)
		dist, _, _ := strings.Cut(strings.TrimSuffix(base, ".dist-info"), "-")
		if normalizePyName(dist) != want {
			continue
		}
		scripts := readConsoleScripts(filepath.Join(info, "entry_points.txt"))
		pick := ""
		for _, s := range scripts {
			if normalizePyName(s) == want {
				pick = s
			}
		}
		if pick == "" && len(scripts) == 1 {
			pick = scripts[0]
		}
		if pick == "" {
			if len(scripts) == 0 {
				return "", launchErrorf(vocab.StatusInstallFailed, "PyPI package %s declares no console script", name)
			}
			return "", launchErrorf(vocab.StatusInstallFailed, "PyPI package %s has several console scripts (%s) and none is named like it", name, strings.Join(scripts, ", "))
		}
		if strings.ContainsAny(pick, "/\\") || pick == "." || pick == ".." {
			return "", launchErrorf(vocab.StatusInstallFailed, "PyPI package %s: invalid console script name %q", name, pick)
		}
		return filepath.Join(venv, "bin", pick), nil
	}
	return "", launchErrorf(vocab.StatusInstallFailed, "PyPI package %s: installed, but its metadata (dist-info) is missing", name)
}

func readConsoleScripts(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line
			continue
		}
		if section != "[console_scripts]" || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, _, ok := strings.Cut(line, "="); ok {
			out = append(out, strings.TrimSpace(k))
		}
	}
	return out
}

// networkEvidence puts the first line that shows the network failure
// before the installer's last lines, which often only repeat its verdict.
func networkEvidence(out, tail string) string {
	for line := range strings.SplitSeq(out, "\n") {
		if isNetworkFailure(line) {
			line = strings.TrimSpace(line)
			if strings.Contains(tail, line) {
				return tail
			}
			return line + "\n...\n" + tail
		}
	}
	return tail
}
