package testenv

import "testing"

func TestInCI(t *testing.T) {
	for _, tc := range []struct {
		val  string
		want bool
	}{{"", false}, {"0", false}, {"false", false}, {"true", true}, {"1", true}, {"yes", true}} {
		t.Setenv("CI", tc.val)
		if got := InCI(); got != tc.want {
			t.Errorf("CI=%q: InCI() = %v, want %v", tc.val, got, tc.want)
		}
	}
}

// recorder captures what Need does to a test without ending the real one.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Skip(args ...any)      { r.skipped = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestNeed(t *testing.T) {
	t.Setenv("CI", "")
	r := &recorder{TB: t}
	Need(r, "no tool")
	if !r.skipped || r.failed {
		t.Errorf("outside CI: skipped=%v failed=%v, want a skip", r.skipped, r.failed)
	}
	t.Setenv("CI", "true")
	r = &recorder{TB: t}
	Need(r, "no tool")
	if r.skipped || !r.failed {
		t.Errorf("under CI: skipped=%v failed=%v, want a failure", r.skipped, r.failed)
	}
}
