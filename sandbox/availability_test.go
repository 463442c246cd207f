package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestAvailabilitySaved: a passed check is saved in the cache folder and
// a later process (a fresh verdict state) skips the check when the record
// matches its own state; another boot, a failed check, a forgotten
// verdict (Recheck after a failed start) or a foreign record each run the
// check again (issue 25: the check is a whole sandboxed launch before the
// first server of every process).
func TestAvailabilitySaved(t *testing.T) {
	dir := t.TempDir()
	boot := filepath.Join(dir, "boot_id")
	if err := os.WriteFile(boot, []byte("boot-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := bootIDFile
	bootIDFile = boot
	t.Cleanup(func() { bootIDFile = old })
	file := availabilityRecord(filepath.Join(dir, "cache"), BackendBuiltin, false, thisBinary())
	runs := 0
	pass := func() error { runs++; return nil }
	fail := func() error { runs++; return errors.New("no namespaces") }

	var a availability
	if err := a.get(file, pass); err != nil || runs != 1 {
		t.Fatalf("first process: err %v, %d checks, want nil, 1", err, runs)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record: %v %v, want an owner-only file", fi, err)
	}
	if err := a.get(file, pass); err != nil || runs != 1 {
		t.Fatalf("same process again: err %v, %d checks", err, runs)
	}
	if a.forget() {
		t.Error("forget dropped a verdict this process checked itself")
	}

	var b availability // the next process
	if err := b.get(file, fail); err != nil || runs != 1 {
		t.Fatalf("next process: err %v, %d checks, want the saved pass", err, runs)
	}
	if !b.forget() {
		t.Fatal("forget of a saved pass reported none")
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("forget left the record: %v", err)
	}
	if err := b.get(file, fail); err == nil || runs != 2 {
		t.Fatalf("after forget: err %v, %d checks, want the check's failure", err, runs)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a failed check was saved: %v", err)
	}

	var c availability
	if err := c.get(file, pass); err != nil || runs != 3 {
		t.Fatalf("%d checks, want 3", runs)
	}
	if err := os.WriteFile(boot, []byte("boot-2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var d availability // after a reboot
	if err := d.get(file, fail); err == nil || runs != 4 {
		t.Fatalf("after a reboot: err %v, %d checks, want a new check", err, runs)
	}
	if err := os.WriteFile(file, []byte(`{"boot":"boot-2"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var e availability // a record that is not this state's
	if err := e.get(file, fail); err == nil || runs != 5 {
		t.Fatalf("foreign record: err %v, %d checks, want a new check", err, runs)
	}
	var f availability // no cache folder: always checked
	if err := f.get("", pass); err != nil || runs != 6 {
		t.Fatalf("no record file: err %v, %d checks", err, runs)
	}
}

// TestRecheckOnlySavedPasses: Recheck drops the process's verdict of a
// server's backend only when it was read from a record.
func TestRecheckOnlySavedPasses(t *testing.T) {
	a := &builtinAvailability
	a.mu.Lock()
	done, err, record := a.done, a.err, a.record
	file := filepath.Join(t.TempDir(), "available-builtin.json")
	if werr := os.WriteFile(file, []byte("{}"), 0o600); werr != nil {
		a.mu.Unlock()
		t.Fatal(werr)
	}
	a.done, a.err, a.record = true, nil, file
	a.mu.Unlock()
	t.Cleanup(func() {
		a.mu.Lock()
		a.done, a.err, a.record = done, err, record
		a.mu.Unlock()
	})
	if Recheck(&Server{backend: noneBackend{}}) || Recheck(nil) {
		t.Error("Recheck of backend none or no server reported a saved pass")
	}
	if !Recheck(&Server{backend: builtinBackend{}}) {
		t.Fatal("Recheck did not drop the saved pass")
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("record left: %v", err)
	}
	if Recheck(&Server{backend: builtinBackend{}}) {
		t.Error("Recheck reported a pass twice")
	}
}

// TestAvailabilityRecordPerBinary: two mcpvet binaries that share a cache
// folder keep a record each, so neither overwrites the other's pass (with
// one record, each found the other binary's and ran the check, a whole
// sandboxed launch, in every process: the benchmark of issue 25 found it
// with two builds side by side); the same binary, backend and network
// setting always name the same record.
func TestAvailabilityRecordPerBinary(t *testing.T) {
	cache := t.TempDir()
	a := availabilityRecord(cache, BackendBuiltin, false, "/usr/local/bin/mcpvet")
	b := availabilityRecord(cache, BackendBuiltin, false, "/home/ci/go/bin/mcpvet")
	if a == b {
		t.Fatalf("two binaries share the record %s", a)
	}
	if again := availabilityRecord(cache, BackendBuiltin, false, "/usr/local/bin/mcpvet"); again != a {
		t.Errorf("the same binary named %s, then %s", a, again)
	}
	others := []string{
		availabilityRecord(cache, BackendBwrap, false, "/usr/local/bin/mcpvet"),
		availabilityRecord(cache, BackendBuiltin, true, "/usr/local/bin/mcpvet"),
	}
	for _, o := range others {
		if o == a || o == b {
			t.Errorf("another backend or network setting shares the record %s", o)
		}
	}
	for _, f := range append(others, a, b) {
		if filepath.Dir(f) != filepath.Join(cache, "sandbox") {
			t.Errorf("record %s is not in the cache's sandbox folder", f)
		}
	}
	if f := availabilityRecord(cache, BackendBuiltin, false, ""); f != "" {
		t.Errorf("a binary that cannot be named got the record %s", f)
	}
	if f := availabilityRecord("", BackendBuiltin, false, "/usr/local/bin/mcpvet"); f != "" {
		t.Errorf("no cache folder got the record %s", f)
	}
}
