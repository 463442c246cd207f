package sandbox

import "os"

// isolatingBackends lists the isolating backends, strongest first: bwrap is
// a widely reviewed setuid-free tool; builtin is the same design in-process.
// When mcpvet runs as root, builtin comes first: it builds the sandbox as
// root (any folder the user names can be bound) and runs the server as the
// run's own uid, while bwrap must run as that uid from the start (so that
// its user namespace maps nobody to no host root) and then cannot reach a
// folder under a 0700 one such as /root.
func isolatingBackends(o Options) []isolatingBackend {
	if os.Geteuid() == 0 {
		return []isolatingBackend{builtinBackend{allowNetwork: o.AllowNetwork}, bwrapBackend{allowNetwork: o.AllowNetwork}}
	}
	return []isolatingBackend{
		bwrapBackend{allowNetwork: o.AllowNetwork},
		builtinBackend{allowNetwork: o.AllowNetwork},
	}
}
