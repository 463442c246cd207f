package sandbox

// isolatingBackends lists the isolating backends, strongest first.
func isolatingBackends(o Options) []isolatingBackend {
	return []isolatingBackend{builtinBackend{allowNetwork: o.AllowNetwork}}
}
