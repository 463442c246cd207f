package sandbox

// isolatingBackends lists the isolating backends, strongest first: bwrap is
// a widely reviewed setuid-free tool; builtin is the same design in-process.
func isolatingBackends(o Options) []isolatingBackend {
	return []isolatingBackend{
		bwrapBackend{allowNetwork: o.AllowNetwork},
		builtinBackend{allowNetwork: o.AllowNetwork},
	}
}
