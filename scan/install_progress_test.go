package scan

import (
	"context"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestInstallingIsTold: ProbeOptions.Installing hears of a package install
// before it starts and when it ends, with its outcome, so the CLI can show
// a first install on a terminal.
func TestInstallingIsTold(t *testing.T) {
	var began string
	var ended bool
	var endErr error
	o := &ProbeOptions{
		Sandbox: &sandbox.Options{CacheDir: t.TempDir(), InstallTimeout: 5 * time.Second},
		Installing: func(pkg string) func(error, time.Duration) {
			began = pkg
			return func(err error, _ time.Duration) { ended, endErr = true, err }
		},
	}
	// A package type no installer knows fails at once, without network.
	plan := &vocab.Plan{Key: "k", Name: "x", Transport: vocab.TransportStdio,
		Package: &vocab.Package{RegistryType: "nuget-unknown", Identifier: "Some.Pkg", Version: "1.0.0"}}
	res, done, err := installStep(context.Background(), plan, o)
	if err != nil {
		t.Fatal(err)
	}
	if began != "nuget-unknown package Some.Pkg@1.0.0" || !ended {
		t.Errorf("began %q, ended %v", began, ended)
	}
	if done && (res == nil || endErr == nil) {
		t.Errorf("a failed install: result %v, reported error %v", res, endErr)
	}
}
