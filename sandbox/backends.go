package sandbox

import "os"

// isolatingBackends lists the isolating backends, strongest first: bwrap is
// a widely reviewed setuid-free tool; builtin is the same design in-process.
// When mcpvet runs as root, builtin comes first: it builds the sandbox as
// root (any folder the user names can be bound) and runs the server as the
// run's own uid, while bwrap must run as that uid from the start (so that
// its user namespace maps nobody to no host root) and then cannot reach a
// folder under a 0700 one such as /root.
//
// Each backend's availability check may be skipped on a pass saved in
// o.CacheDir (see availability.go); o is resolved, or the record is not
// used.
func isolatingBackends(o Options) []isolatingBackend {
	builtin := builtinBackend{allowNetwork: o.AllowNetwork, record: availabilityRecord(o.CacheDir, BackendBuiltin, o.AllowNetwork, thisBinary())}
	bwrap := bwrapBackend{allowNetwork: o.AllowNetwork, record: availabilityRecord(o.CacheDir, BackendBwrap, o.AllowNetwork, thisBinary())}
	if os.Geteuid() == 0 {
		return []isolatingBackend{builtin, bwrap}
	}
	return []isolatingBackend{bwrap, builtin}
}
