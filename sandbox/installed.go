package sandbox

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
)

// installedVersion returns the version of an installed npm package as its
// package.json says, so that an unpinned plan ("latest") records what ran.
// It returns pkg.Version when that cannot be told.
func installedVersion(pkg *Package, entry *entryPoint) string {
	if pkg == nil || entry == nil || pkg.RegistryType != "npm" || entry.dir == "" {
		return pkg.Version
	}
	f, err := os.Open(filepath.Join(entry.dir, "node_modules", filepath.FromSlash(pkg.Identifier), "package.json"))
	if err != nil {
		return pkg.Version
	}
	defer f.Close()
	var meta struct {
		Version string `json:"version"`
	}
	if json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&meta) != nil || !validVersion(meta.Version) {
		return pkg.Version
	}
	return meta.Version
}
