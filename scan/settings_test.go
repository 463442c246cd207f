package scan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/scoring"
)

// TestSettingsProbeOptions: each setting lands in its one place of the
// probe options, in the units of the sandbox and the probe.
func TestSettingsProbeOptions(t *testing.T) {
	policy := scoring.DefaultPolicy()
	s := Settings{
		Backend: "none", AllowNetwork: true, AllowPrivateNetwork: true,
		ServerTimeout: 45 * time.Second, InstallTimeout: time.Minute, HandshakeTimeout: 5 * time.Second,
		ProtocolVersion: "2025-06-18", NoInject: true, Exercise: true, CacheDir: "/cache",
		MemoryMiB: 512, Processes: 64, CPUTime: 30 * time.Second, StdoutMiB: 2, MessageMiB: 1,
		Env: map[string]string{"K": "v"}, WorkDir: WorkDirNone, Expose: []string{"/a"}, ExposeRW: []string{"/b"},
		Hidden: []string{"/db"}, Policy: policy,
	}
	want := &ProbeOptions{
		Policy: policy,
		Sandbox: &sandbox.Options{
			Backend: "none", AllowNetwork: true, AllowPrivateNetwork: true, CacheDir: "/cache",
			InstallTimeout: time.Minute, Env: map[string]string{"K": "v"}, WorkDir: sandbox.WorkDirNone,
			Expose: []string{"/a"}, ExposeRW: []string{"/b"}, Hidden: []string{"/db"},
			Limits: sandbox.Limits{MemoryBytes: 512 << 20, Processes: 64, CPUTime: 30 * time.Second, StdoutBytes: 2 << 20, MessageBytes: 1 << 20},
		},
		Run: probe.Options{HandshakeTimeout: 5 * time.Second, ProtocolVersion: "2025-06-18",
			Inject: &probe.InjectOptions{Disabled: true}, SkipBasics: true, Exercise: true},
		Timeout: 45 * time.Second,
	}
	if diff := cmp.Diff(want, s.ProbeOptions(), cmpopts.IgnoreUnexported(scoring.Policy{}, probe.Options{}, sandbox.Options{})); diff != "" {
		t.Errorf("ProbeOptions (-want +got):\n%s", diff)
	}
	wd, _ := os.Getwd()
	if got := (&Settings{}).ProbeOptions().Sandbox.WorkDir; got != wd {
		t.Errorf("no WorkDir: servers start in %q, want the current folder %q", got, wd)
	}
}

// TestDefaultSettings: the defaults are those of the packages that own
// them, so that a flag and a library caller get the same.
func TestDefaultSettings(t *testing.T) {
	d := DefaultSettings()
	o := d.ProbeOptions()
	if o.Timeout != DefaultServerTimeout || o.Run.HandshakeTimeout != probe.DefaultHandshakeTimeout ||
		o.Sandbox.InstallTimeout != sandbox.DefaultInstallTimeout || o.Sandbox.Backend != sandbox.BackendAuto {
		t.Errorf("default timeouts and backend: %+v, %+v", o, o.Sandbox)
	}
	want := sandbox.Limits{MemoryBytes: sandbox.DefaultMemoryBytes, Processes: sandbox.DefaultProcesses, CPUTime: sandbox.DefaultCPUTime,
		StdoutBytes: sandbox.DefaultStdoutBytes, MessageBytes: sandbox.DefaultMessageBytes}
	if diff := cmp.Diff(want, o.Sandbox.Limits); diff != "" {
		t.Errorf("default limits (-want +got):\n%s", diff)
	}
}

func TestLoadPolicy(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(good, []byte(`{"minScore": 55}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"minScore": "high"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := LoadPolicy(""); err != nil || !cmp.Equal(p, scoring.DefaultPolicy(), cmpopts.IgnoreUnexported(scoring.Policy{})) {
		t.Errorf(`LoadPolicy("") = %+v, %v; want the default policy`, p, err)
	}
	if p, err := LoadPolicy(good); err != nil || p.MinScore != 55 {
		t.Errorf("LoadPolicy(good) = %+v, %v; want minScore 55", p, err)
	}
	var pe *fs.PathError
	if _, err := LoadPolicy(filepath.Join(dir, "none.json")); !errors.As(err, &pe) {
		t.Errorf("LoadPolicy(missing) = %v, want a *fs.PathError", err)
	}
	if _, err := LoadPolicy(bad); err == nil || errors.As(err, &pe) {
		t.Errorf("LoadPolicy(bad) = %v, want a parse error", err)
	}
}
