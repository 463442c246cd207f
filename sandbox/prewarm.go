package sandbox

import "sync/atomic"

// prewarmed counts the checks Prewarm started, backendProbes the
// sandboxed "true" runs of the availability checks (for tests).
var prewarmed, backendProbes atomic.Int32

// Prewarm starts, in the background, the once-per-process availability
// check of the backend o selects (for auto, the backends in the order
// Launch tries them, until one works), so that the check (a sandboxed
// "true", about 0.1–0.4 s) overlaps with what runs before the first launch
// (the package's cache check, the run conditions) instead of delaying it.
// Launch then reads the same result; nothing changes which backend runs.
// A nil o, backend none or an unknown backend does nothing.
func Prewarm(o *Options) {
	if o == nil {
		return
	}
	todo := prewarmBackends(o.resolve())
	if len(todo) == 0 {
		return
	}
	prewarmed.Add(1)
	go func() {
		for _, b := range todo {
			if b.available() == nil {
				return
			}
		}
	}()
}

// prewarmBackends returns the backends whose check Prewarm runs for the
// resolved ro: every isolating backend for auto, in the order auto tries
// them, the named one otherwise, none for backend none or an unknown name.
func prewarmBackends(ro Options) []isolatingBackend {
	name := ro.Backend
	if name == BackendNone {
		return nil
	}
	var todo []isolatingBackend
	for _, b := range isolatingBackends(ro) {
		if name == BackendAuto || b.name() == name {
			todo = append(todo, b)
		}
	}
	return todo
}
