package source

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testenv"
)

// sharedRegistryPath returns the path of a file in the shared registry dump,
// which lives in ../shared/registry relative to the module root (on CI too),
// or skips the test when it is missing.
func sharedRegistryPath(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			testenv.Need(t, "no go.mod above the test directory; cannot find ../shared/registry/"+name)
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "registry", name)
	if _, err := os.Stat(p); err != nil {
		testenv.Need(t, fmt.Sprintf("registry dump not present (%v); it is expected at ../shared/registry relative to the module root", err))
	}
	return p
}

var (
	serversOnce  sync.Once
	serversBytes []byte
	serversList  []Entry
	serversErr   error
)

// loadServers reads servers.json once per test binary.
func loadServers(t testing.TB) ([]byte, []Entry) {
	t.Helper()
	p := sharedRegistryPath(t, "servers.json")
	serversOnce.Do(func() {
		serversBytes, serversErr = os.ReadFile(p)
		if serversErr == nil {
			serversList, serversErr = ReadSnapshot(bytes.NewReader(serversBytes))
		}
	})
	if serversErr != nil {
		t.Fatalf("reading servers.json: %v", serversErr)
	}
	return serversBytes, serversList
}

// findEntry returns the entry of servers.json with the given name and version.
func findEntry(t testing.TB, entries []Entry, name, version string) Entry {
	t.Helper()
	for _, e := range entries {
		if e.Server.Name == name && e.Server.Version == version {
			return e
		}
	}
	t.Fatalf("servers.json has no %s@%s", name, version)
	return Entry{}
}
