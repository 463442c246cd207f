package sandbox

import (
	"context"
	"os/exec"

	"github.com/mcpvet/mcpvet/vocab"
)

// Index names of [Indexes], as run conditions and not-assessed causes
// name them.
const (
	IndexNPM     = "npm registry"
	IndexPyPI    = "PyPI index"
	IndexNuGet   = "NuGet feed"
	IndexOCI     = "container image registry (Docker Hub)"
	IndexMCPB    = "mcpb download host (GitHub)"
	IndexMCPRepo = "MCP registry"
)

// Indexes returns the registries and package indexes installs use here,
// with the URL each is asked at: npm's configured registry, the PyPI
// index of PIP_INDEX_URL/UV_INDEX_URL or pypi.org, the NuGet feed, Docker
// Hub and GitHub (where registry mcpb bundles are downloaded from).
// Answered is left false; the caller checks them.
func Indexes() []vocab.IndexCondition {
	return []vocab.IndexCondition{
		{Name: IndexNPM, URL: defaultNPMRegistry()},
		{Name: IndexPyPI, URL: defaultPyPIIndex()},
		{Name: IndexNuGet, URL: "https://api.nuget.org/v3/index.json"},
		{Name: IndexOCI, URL: "https://registry-1.docker.io/v2/"},
		{Name: IndexMCPB, URL: "https://github.com/"},
	}
}

// ContainerEngine returns the container engine that answers here (its
// path), or "" and why none does.
func ContainerEngine(ctx context.Context) (string, string) {
	p, err := containerEngine(ctx)
	if err != nil {
		if le, ok := err.(*LaunchError); ok {
			return "", le.Detail
		}
		return "", err.Error()
	}
	return p, ""
}

// Runtimes are the programs package installs and launches need, looked
// for on PATH.
var Runtimes = []string{"node", "npm", "npx", "uv", "uvx", "python3", "docker", "podman", "dotnet", "bwrap"}

// FindRuntimes reports which of [Runtimes] are on PATH.
func FindRuntimes() []vocab.RuntimeCondition {
	out := make([]vocab.RuntimeCondition, 0, len(Runtimes))
	for _, n := range Runtimes {
		_, err := exec.LookPath(n)
		out = append(out, vocab.RuntimeCondition{Name: n, Found: err == nil})
	}
	return out
}
