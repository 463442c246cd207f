package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mcpvet/mcpvet/internal/jsonscan"
)

// Backend names accepted by [Options.Backend] and reported in [Info.Backend].
const (
	// BackendAuto picks the strongest backend that works on this machine:
	// bwrap, then builtin. It never silently falls back to none.
	BackendAuto = "auto"
	// BackendBuiltin isolates with Linux namespaces set up by a re-executed
	// init helper (C, see init_helper.c).
	BackendBuiltin = "builtin"
	// BackendBwrap isolates with bubblewrap.
	BackendBwrap = "bwrap"
	// BackendNone runs the server as a plain child process, without
	// isolation. Limits are still applied where possible.
	BackendNone = "none"
)

// Values of [Info.LimitExceeded].
const (
	LimitMemory      = "memory"
	LimitProcesses   = "processes"
	LimitCPUTime     = "cpu_time"
	LimitWallTime    = "wall_time"
	LimitStdoutBytes = "stdout_bytes"
	LimitMessageSize = "message_size"
	// LimitMessageDepth: a message nested deeper than JSON decoders take
	// (10,000 levels).
	LimitMessageDepth = "message_depth"
)

// Default limits; see [Limits].
const (
	DefaultMemoryBytes  = 1 << 30
	DefaultProcesses    = 256
	DefaultCPUTime      = 60 * time.Second
	DefaultWall         = 5 * time.Minute
	DefaultStdoutBytes  = 64 << 20
	DefaultStderrBytes  = 1 << 20
	DefaultMessageBytes = 16 << 20
	// DefaultStdinGrace is how long shutdown waits after closing stdin
	// before SIGTERM. Servers that exit on end of input do so well within
	// it; the rest get SIGTERM, which they handle as gracefully, so a scan
	// does not spend seconds per server waiting.
	DefaultStdinGrace = 100 * time.Millisecond
	// DefaultTerminateGrace is how long shutdown waits after SIGTERM
	// before SIGKILL.
	DefaultTerminateGrace = 2 * time.Second
)

// Options configures [Launch]. A nil *Options is valid and means defaults.
type Options struct {
	// Backend is one of the Backend constants; empty means [BackendAuto].
	Backend string
	// AllowNetwork gives the server network access at run time. Install
	// steps always have network.
	AllowNetwork bool
	// AllowPrivateNetwork lets remote targets from a registry or snapshot
	// (see [Untrusted]) connect to loopback, private, link-local and cloud
	// metadata addresses, which they are refused otherwise.
	AllowPrivateNetwork bool
	// Resolver resolves the host names of remote targets; nil uses
	// net.DefaultResolver.
	Resolver *net.Resolver
	// NoCgroups limits the server with rlimits and /proc only, as where no
	// cgroup is writable (a user without a delegated cgroup): memory by
	// RLIMIT_DATA. Tests use it to run that path as root.
	NoCgroups bool
	// CacheDir holds installed packages; default $XDG_CACHE_HOME/mcpvet or
	// $HOME/.cache/mcpvet.
	CacheDir string
	// Env holds user overrides (--env KEY=VALUE). They win over the plan's
	// values and over canaries.
	Env map[string]string
	// Limits bounds the server; zero fields take the defaults.
	Limits Limits
	// WorkDir is the host folder a local server starts in when its plan
	// has no Dir; default the directory mcpvet runs in. The isolating
	// backends expose it read-only (see [Exposure]). [WorkDirNone] starts
	// servers in their private HOME (registry scans).
	WorkDir string
	// Expose and ExposeRW are host paths shown to local servers, read-only
	// and writable; see [CheckExpose] for the paths that never are.
	Expose   []string
	ExposeRW []string
	// Hidden are host files no server may see (the results database):
	// refused when named, masked inside exposed folders.
	Hidden []string
	// StdinGrace and TerminateGrace are the waits of the shutdown steps:
	// close stdin, wait StdinGrace, SIGTERM, wait TerminateGrace, SIGKILL.
	// Defaults [DefaultStdinGrace] and [DefaultTerminateGrace].
	StdinGrace     time.Duration
	TerminateGrace time.Duration
	// InstallTimeout bounds installing one package, apart from the
	// server's own deadline; [DefaultInstallTimeout] when 0.
	InstallTimeout time.Duration
}

// Limits bounds one server run. A zero field selects its default; a
// negative field disables that limit.
type Limits struct {
	// MemoryBytes caps the memory of the whole process tree (default 1 GiB).
	MemoryBytes int64
	// Processes caps the number of processes and threads (default 256).
	Processes int
	// CPUTime caps the CPU time of the process tree (default 60s).
	CPUTime time.Duration
	// Wall caps the run time from start to kill (default 5m).
	Wall time.Duration
	// StdoutBytes caps the total bytes read from stdout (default 64 MiB).
	StdoutBytes int64
	// StderrBytes caps the stderr bytes kept in memory (default 1 MiB);
	// the rest is counted and discarded. Only the last 4 KiB are reported.
	StderrBytes int64
	// MessageBytes caps one JSON-RPC message (default 16 MiB).
	MessageBytes int
}

// withDefaults returns l with zero fields set to their defaults.
func (l Limits) withDefaults() Limits {
	if l.MemoryBytes == 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.Processes == 0 {
		l.Processes = DefaultProcesses
	}
	if l.CPUTime == 0 {
		l.CPUTime = DefaultCPUTime
	}
	if l.Wall == 0 {
		l.Wall = DefaultWall
	}
	if l.StdoutBytes == 0 {
		l.StdoutBytes = DefaultStdoutBytes
	}
	if l.StderrBytes == 0 {
		l.StderrBytes = DefaultStderrBytes
	}
	if l.MessageBytes == 0 {
		l.MessageBytes = DefaultMessageBytes
	}
	return l
}

// resolve returns a copy of opts (which may be nil) with defaults filled in.
func (o *Options) resolver() *net.Resolver {
	if o.Resolver != nil {
		return o.Resolver
	}
	return net.DefaultResolver
}

func (opts *Options) resolve() Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Backend == "" {
		o.Backend = BackendAuto
	}
	if o.CacheDir == "" {
		o.CacheDir = defaultCacheDir()
	}
	// Installers run in other working directories (npm in the package's
	// folder, the sandbox in its own root): a relative --cache-dir would name
	// a different folder there.
	if abs, err := filepath.Abs(o.CacheDir); err == nil {
		o.CacheDir = abs
	}
	if o.TerminateGrace <= 0 {
		o.TerminateGrace = DefaultTerminateGrace
	}
	if o.StdinGrace <= 0 {
		o.StdinGrace = min(DefaultStdinGrace, o.TerminateGrace)
	}
	if o.InstallTimeout <= 0 {
		o.InstallTimeout = DefaultInstallTimeout
	}
	o.Limits = o.Limits.withDefaults()
	return o
}

func defaultCacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "mcpvet")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".cache", "mcpvet")
	}
	return filepath.Join(os.TempDir(), "mcpvet-cache")
}

// LimitValue returns the value of the limit named by [Info.LimitExceeded]
// in words ("1073741824 bytes", "256 processes"), or "" when no limit was
// exceeded.
func (i Info) LimitValue() string {
	l := i.Limits
	switch i.LimitExceeded {
	case LimitMemory:
		return strconv.FormatInt(l.MemoryBytes, 10) + " bytes"
	case LimitProcesses:
		return strconv.Itoa(l.Processes) + " processes"
	case LimitCPUTime:
		return l.CPUTime.String() + " of CPU time"
	case LimitWallTime:
		return l.Wall.String() + " of wall time"
	case LimitStdoutBytes:
		return strconv.FormatInt(l.StdoutBytes, 10) + " bytes of stdout"
	case LimitMessageSize:
		return strconv.Itoa(l.MessageBytes) + " bytes per message"
	case LimitMessageDepth:
		return strconv.Itoa(jsonscan.MaxDepth) + " levels of nesting per message"
	}
	return ""
}
