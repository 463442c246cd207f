package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpvet/mcpvet/vocab"
)

// nugetID matches a NuGet package id.
var nugetID = lazyRegexp(`^[A-Za-z0-9_]+([.-][A-Za-z0-9_]+)*$`)

// installNuGet installs a .NET tool package with `dotnet tool install
// --tool-path` (what dnx does, kept in the cache) and returns its command.
func installNuGet(ctx context.Context, pkg *vocab.Package, o *Options) (*entryPoint, error) {
	id, version := pkg.Identifier, pkg.Version
	if len(id) > 100 || !nugetID().MatchString(id) {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid NuGet package id %q", id)
	}
	if version != "" && !validVersion(version) {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid NuGet version %q", version)
	}
	var sourceArgs []string
	if base := pkg.RegistryBaseURL; base != "" && !strings.HasPrefix(base, "https://api.nuget.org") {
		if !validHTTPURL(base) {
			return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid NuGet source URL %q", base)
		}
		sourceArgs = []string{"--add-source", base}
	}
	dotnet, err := requireTool(".NET SDK (dotnet)", "dotnet")
	if err != nil {
		return nil, err
	}
	key := cacheKeyPart(strings.ToLower(id)) + "@" + cacheKeyPart(strings.ToLower(version))
	if len(sourceArgs) > 0 {
		key += "@" + shortHash(sourceArgs[1])
	}
	dir, err := cached(ctx, o, "nuget", key, func(ctx context.Context, dir string) error {
		argv := []string{dotnet, "tool", "install", "--tool-path", filepath.Join(dir, "tools")}
		if version != "" {
			argv = append(argv, "--version", version)
		}
		argv = append(append(argv, sourceArgs...), id)
		out, err := runTool(ctx, dir, []string{"DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1"}, argv...)
		if err != nil {
			return nugetError(ctx, id, version, out, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	tools := filepath.Join(dir, "tools")
	entries, err := os.ReadDir(tools)
	if err != nil {
		return nil, launchErrorf(vocab.StatusInstallFailed, "reading installed NuGet tool: %v", err)
	}
	var cmds []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			cmds = append(cmds, e.Name())
		}
	}
	if len(cmds) != 1 {
		return nil, launchErrorf(vocab.StatusInstallFailed, "NuGet tool %s installed %d commands (%s), want 1", id, len(cmds), strings.Join(cmds, ", "))
	}
	ep := &entryPoint{argv: []string{filepath.Join(tools, cmds[0])}, dir: dir}
	if real, err := filepath.EvalSymlinks(dotnet); err == nil && !underSystemDir(real) {
		ep.readOnly = append(ep.readOnly, filepath.Dir(real))
	}
	return ep, nil
}

func nugetError(ctx context.Context, id, version, out string, err error) error {
	evidence := lastLines(out, 20)
	switch {
	case ctx.Err() != nil:
		return &LaunchError{Status: vocab.StatusInstallFailed, Detail: "dotnet tool install timed out", Evidence: evidence}
	case strings.Contains(out, "NU1102") || strings.Contains(out, "Unable to find package") && strings.Contains(out, "with version"):
		return &LaunchError{Status: vocab.StatusVersionNotFound, Detail: fmt.Sprintf("NuGet package %s has no version %s", id, version), Evidence: evidence}
	case strings.Contains(out, "NU1101") || strings.Contains(out, "could not be found") || strings.Contains(out, "Unable to find package"):
		return &LaunchError{Status: vocab.StatusPackageNotFound, Detail: fmt.Sprintf("NuGet package %s not found", id), Evidence: evidence}
	}
	return &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("dotnet tool install %s: %v", id, err), Evidence: evidence}
}
