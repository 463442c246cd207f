package version

import (
	"runtime/debug"
	"strings"
)

// String returns the version to show: [Version] when the build set it,
// else what the Go toolchain recorded in the binary: the module version
// (`go install github.com/mcpvet/mcpvet/cmd/mcpvet@v1.2.3` gives v1.2.3)
// or, for a build from a checkout, "devel" with the commit and whether the
// tree was modified.
func String() string {
	if Version != "dev" && Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "dev"
	}
	out := "devel+" + rev[:min(12, len(rev))]
	if modified == "true" {
		out += "-dirty"
	}
	return strings.TrimSpace(out)
}
