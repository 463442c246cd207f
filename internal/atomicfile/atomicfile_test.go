package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: the folder is made, the file holds the bytes with mode 0600,
// a second write replaces it, and a failed rename (the target is a
// folder) leaves neither the target changed nor a temporary file behind.
func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	p := filepath.Join(dir, "rec.json")
	for _, want := range []string{"one", "two"} {
		if err := Write(p, []byte(want), 0o700); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	target := filepath.Join(dir, "folder")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []byte("three"), 0o700); err == nil {
		t.Error("Write over a non-empty folder succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only rec.json and folder", names)
	}
}
