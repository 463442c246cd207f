// Package version holds the mcpvet version, set at build time with
// -ldflags "-X github.com/mcpvet/mcpvet/internal/version.Version=v1.2.3".
package version

// Version is the mcpvet release; "dev" for untagged builds.
var Version = "dev"
