package sandbox

import "context"

// entryPoint is how to run an installed package.
type entryPoint struct {
	argv     []string
	dir      string // installed folder, exposed read-only
	warnings []string
}

// install installs pkg (with network) and returns its entry point.
func install(ctx context.Context, pkg *Package, o *Options) (*entryPoint, error) {
	return nil, launchErrorf(StatusRuntimeUnavailable, "installing %s packages is not supported yet", pkg.RegistryType)
}
