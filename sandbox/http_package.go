package sandbox

import "fmt"

// httpPackageError refuses a package plan whose transport is HTTP
// (streamable-http or sse). Such a package must be installed, started in
// the sandbox and reached inside the sandbox's own network namespace; its
// URL (often http://localhost:PORT) names a port of that namespace, not of
// the host. Connecting to it on the host would probe, and credit to the
// package, whatever else listens there, so nothing is contacted: the plan
// gets a clear runtime_unavailable instead, until the sandbox can route a
// connection into its namespace.
func httpPackageError(plan *Plan) *LaunchError {
	return &LaunchError{
		Status: StatusRuntimeUnavailable,
		Detail: fmt.Sprintf("%s package %s serves MCP over %s at %s inside its sandbox; mcpvet cannot yet connect into the sandbox's network namespace, "+
			"and never connects to that address on the host (something else may listen there), so the server was not launched",
			plan.Package.RegistryType, plan.Package.Identifier, plan.Transport, plan.URL),
	}
}
