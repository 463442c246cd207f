package sandbox

import (
	"os"
	"path/filepath"
)

// sdkMarkers name the MCP SDKs an installed package can depend on, most
// specific first (FastMCP and mcp-framework are built on the official
// SDKs, so finding them says more). The value is the report's SDK label.
var npmSDKMarkers = []struct{ dir, sdk string }{
	{"fastmcp", "typescript: FastMCP"},
	{"mcp-framework", "typescript: mcp-framework"},
	{"@modelcontextprotocol/sdk", "typescript: official SDK"},
}

var pySDKMarkers = []struct{ dir, sdk string }{
	{"fastmcp", "python: FastMCP"},
	{"mcp", "python: official SDK"},
}

// npmSDK returns the SDK label of an npm install (its node_modules) and
// the evidence, or "".
func npmSDK(installDir string) (sdk, evidence string) {
	for _, m := range npmSDKMarkers {
		p := filepath.Join(installDir, "node_modules", filepath.FromSlash(m.dir), "package.json")
		if _, err := os.Stat(p); err == nil {
			return m.sdk, "the package depends on " + m.dir + " (npm)"
		}
	}
	return "", ""
}

// pySDK returns the SDK label of a PyPI install (its venv), or "".
func pySDK(venv string) (sdk, evidence string) {
	sites, _ := filepath.Glob(filepath.Join(venv, "lib", "python*", "site-packages"))
	for _, m := range pySDKMarkers {
		for _, site := range sites {
			if fi, err := os.Stat(filepath.Join(site, m.dir)); err == nil && fi.IsDir() {
				return m.sdk, "the package depends on " + m.dir + " (PyPI)"
			}
		}
	}
	return "", ""
}
