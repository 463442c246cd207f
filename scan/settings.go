package scan

import (
	"os"
	"time"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/scoring"
)

// Settings are the options of each server's run as a person gives them
// (the flags of `mcpvet probe`, `scan` and `triage`): flat, in the units
// of the command line. [DefaultSettings] holds their defaults, each taken
// from the package that owns it, and [Settings.ProbeOptions] builds the
// [ProbeOptions] of [Probe] and [Run]. The caller checks the values, so
// that it can name each as its user wrote it.
type Settings struct {
	// Backend is the sandbox backend: auto, builtin, bwrap or none.
	Backend string
	// AllowNetwork and AllowPrivateNetwork are [sandbox.Options]'.
	AllowNetwork        bool
	AllowPrivateNetwork bool
	// ServerTimeout is [ProbeOptions.Timeout].
	ServerTimeout time.Duration
	// InstallTimeout bounds installing one package, before ServerTimeout
	// starts.
	InstallTimeout time.Duration
	// HandshakeTimeout bounds launch plus handshake.
	HandshakeTimeout time.Duration
	// ProtocolVersion is the version to ask for; "" is the newest, with
	// fallback.
	ProtocolVersion string
	// NoInject skips failure injection and the capability-gated calls.
	NoInject bool
	// NoRetry skips the first retry: the one corrected call derived from
	// an error response (probe.InjectOptions.NoRetry).
	NoRetry bool
	// RetryUnsafe retries calls of destructive, open-world and
	// unannotated tools too (probe.InjectOptions.RetryUnsafe).
	RetryUnsafe bool
	// Exercise calls each read-only, closed-world tool once.
	Exercise bool
	// ExerciseCalls is the budget of Exercise's tools/call requests
	// (1 to MaxExerciseCalls); 0 is DefaultExerciseCalls.
	ExerciseCalls int
	// CacheDir is the install cache; "" is the default.
	CacheDir string
	// The limits of one server, in MiB where the name says so.
	MemoryMiB  int64
	Processes  int
	CPUTime    time.Duration
	StdoutMiB  int64
	MessageMiB int
	// Env are the user's KEY=VALUE overrides, given to every server.
	Env map[string]string
	// WorkDir is the folder local servers start in; "" is the current
	// folder, [WorkDirNone] their private HOME (registry servers are no
	// one's local servers).
	WorkDir string
	// Expose and ExposeRW are host paths shown to local servers,
	// read-only and writable; check each with [CheckExpose].
	Expose, ExposeRW []string
	// Hidden are host files no server may see (the results database).
	Hidden []string
	// Policy decides verdicts; nil is [scoring.DefaultPolicy]. See
	// [LoadPolicy].
	Policy *scoring.Policy
}

// WorkDirNone is [Settings.WorkDir] for servers that start in their
// private HOME.
const WorkDirNone = sandbox.WorkDirNone

// DefaultSettings returns the default of every setting.
func DefaultSettings() Settings {
	return Settings{
		Backend:          sandbox.BackendAuto,
		ServerTimeout:    DefaultServerTimeout,
		InstallTimeout:   sandbox.DefaultInstallTimeout,
		HandshakeTimeout: probe.DefaultHandshakeTimeout,
		MemoryMiB:        sandbox.DefaultMemoryBytes >> 20,
		Processes:        sandbox.DefaultProcesses,
		CPUTime:          sandbox.DefaultCPUTime,
		StdoutMiB:        sandbox.DefaultStdoutBytes >> 20,
		MessageMiB:       sandbox.DefaultMessageBytes >> 20,
	}
}

// ProbeOptions builds the options of each server's run.
func (s *Settings) ProbeOptions() *ProbeOptions {
	wd := s.WorkDir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	return &ProbeOptions{
		Policy: s.Policy,
		Sandbox: &sandbox.Options{
			Backend:             s.Backend,
			AllowNetwork:        s.AllowNetwork,
			AllowPrivateNetwork: s.AllowPrivateNetwork,
			CacheDir:            s.CacheDir,
			InstallTimeout:      s.InstallTimeout,
			Env:                 s.Env,
			WorkDir:             wd,
			Expose:              s.Expose,
			ExposeRW:            s.ExposeRW,
			Hidden:              s.Hidden,
			Limits: sandbox.Limits{
				MemoryBytes:  s.MemoryMiB << 20,
				Processes:    s.Processes,
				CPUTime:      s.CPUTime,
				StdoutBytes:  s.StdoutMiB << 20,
				MessageBytes: s.MessageMiB << 20,
			},
		},
		Run: probe.Options{
			HandshakeTimeout: s.HandshakeTimeout,
			ProtocolVersion:  s.ProtocolVersion,
			Inject:           &probe.InjectOptions{Disabled: s.NoInject, NoRetry: s.NoRetry, RetryUnsafe: s.RetryUnsafe},
			SkipBasics:       s.NoInject,
			Exercise:         s.Exercise,
			ExerciseCalls:    s.ExerciseCalls,
		},
		Timeout: s.ServerTimeout,
	}
}

// LoadPolicy reads a verdict policy file (see [scoring.LoadPolicy]); ""
// gives [scoring.DefaultPolicy]. A file that cannot be read gives its
// *fs.PathError, one that is not a policy the reason.
func LoadPolicy(path string) (*scoring.Policy, error) {
	if path == "" {
		return scoring.DefaultPolicy(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return scoring.LoadPolicy(data)
}

// CheckExpose reports why path may not be shown to a server (see
// [sandbox.CheckExpose]); hidden are files none may see.
func CheckExpose(path string, hidden []string) error {
	return sandbox.CheckExpose(path, hidden)
}

// MaybeRunInit runs the sandbox's init process when this binary was
// re-executed as one, and never returns then; otherwise it returns at
// once. Call it first in main (see [sandbox.Main]).
func MaybeRunInit() { sandbox.MaybeRunInit() }

// The budget of --exercise's tools/call requests: its default and bound.
const (
	DefaultExerciseCalls = probe.DefaultExerciseCalls
	MaxExerciseCalls     = probe.MaxExerciseCalls
)
