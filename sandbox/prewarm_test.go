package sandbox

import (
	"testing"
)

// TestPrewarmSharesTheCheck: Prewarm runs the availability check in the
// background once, Launch's choice then reuses it (no second sandboxed
// "true"), and backend none starts nothing.
func TestPrewarmSharesTheCheck(t *testing.T) {
	before := prewarmed.Load()
	Prewarm(&Options{Backend: BackendNone})
	Prewarm(nil)
	if prewarmed.Load() != before {
		t.Fatal("Prewarm started a check for backend none")
	}
	o := Options{Backend: BackendAuto}
	Prewarm(&o)
	if prewarmed.Load() != before+1 {
		t.Fatal("Prewarm(auto) started nothing")
	}
	b, _, err := chooseBackend(o)
	if err != nil {
		t.Skipf("no isolating backend here: %v", err)
	}
	n := backendProbes.Load()
	if n < 1 || n > 2 {
		t.Errorf("%d availability runs, want one per backend tried", n)
	}
	// Asked again (the launch after a Prewarm): no new run.
	if b2, _, _ := chooseBackend(o); b2.name() != b.name() || backendProbes.Load() != n {
		t.Errorf("second choice: %s, %d runs (was %s, %d)", b2.name(), backendProbes.Load(), b.name(), n)
	}
}
