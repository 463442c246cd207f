package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// BenchmarkStart measures launching /bin/true until it has exited and the
// sandbox is torn down, per backend. The difference to "none" is the
// sandbox's start overhead (namespaces, new root, cgroups, helper).
func BenchmarkStart(b *testing.B) {
	backends := []string{BackendNone}
	for _, ib := range isolatingBackends(Options{}) {
		if ib.available() == nil {
			backends = append(backends, ib.name())
		}
	}
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			plan := &vocab.Plan{Transport: vocab.TransportStdio, Command: "true"}
			opts := &Options{Backend: backend, CacheDir: b.TempDir(), TerminateGrace: time.Second}
			for b.Loop() {
				s, err := Launch(context.Background(), plan, opts)
				if err != nil {
					b.Fatal(err)
				}
				conn, err := s.Transport().Connect(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if info := s.Info(10 * time.Second); info.ExitCode == nil || *info.ExitCode != 0 {
					b.Fatalf("true: %+v", info)
				}
				conn.Close()
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNPMLaunch measures Launch of an npm package from a loopback
// registry: "cold" installs into an empty cache every time, "warm" reuses
// the cache filled once.
func BenchmarkNPMLaunch(b *testing.B) {
	if _, err := lookPath("npm", os.Getenv("PATH")); err != nil {
		b.Skip("npm is not installed")
	}
	dir := b.TempDir()
	b.Setenv("npm_config_cache", filepath.Join(dir, "npm-cache"))
	b.Setenv("npm_config_userconfig", filepath.Join(dir, "npmrc"))
	b.Setenv("npm_config_update_notifier", "false")
	reg := newNPMRegistry(b)
	reg.add(b, "mcpvet-echo", "1.0.0", "server.js", map[string]string{"server.js": readTestdata(b, "echo-server.js")})
	plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: reg.URL, Identifier: "mcpvet-echo", Version: "1.0.0"}}
	launchOnce := func(cache string) {
		s, err := Launch(context.Background(), plan, &Options{Backend: BackendNone, CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			launchOnce(b.TempDir())
		}
	})
	b.Run("warm", func(b *testing.B) {
		cache := b.TempDir()
		launchOnce(cache)
		for b.Loop() {
			launchOnce(cache)
		}
	})
}
