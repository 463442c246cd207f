package lazyre

import "testing"

func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`a(b+)`)
	if r.re != nil {
		t.Fatal("compiled before use")
	}
	if got := r.FindStringSubmatch("xabbb"); len(got) != 2 || got[1] != "bbb" {
		t.Fatalf("FindStringSubmatch = %q", got)
	}
	if r.re == nil || r.String() != `a(b+)` {
		t.Fatal("not compiled after use")
	}
	found := false
	for _, l := range All() {
		found = found || l == r
	}
	if !found {
		t.Fatal("All does not list it")
	}
}

func TestInvalidPanicsOnUse(t *testing.T) {
	r := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	r.MatchString("x")
}
