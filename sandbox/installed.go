package sandbox

import "github.com/mcpvet/mcpvet/vocab"

// installedVersion returns the version of an installed package as the
// installer read it (an npm package's package.json), so that an unpinned
// plan ("latest") records what ran. It returns pkg.Version when that
// cannot be told.
func installedVersion(pkg *vocab.Package, entry *entryPoint) string {
	if entry != nil && entry.version != "" {
		return entry.version
	}
	if pkg == nil {
		return ""
	}
	return pkg.Version
}
