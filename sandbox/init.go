package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// hooked is set by [Main]: only then may the bwrap and none backends
// re-execute the current binary as one of their stages.
var hooked atomic.Bool

// initEnv marks a process as the builtin backend's init helper. It is the
// only variable in the helper's environment; the server gets the
// environment from the helper's configuration instead.
const initEnv = "MCPVET_SANDBOX_INIT"

// initArgv0 is the helper's argv[0], visible in ps.
const initArgv0 = "mcpvet-sandbox-init"

// Main runs one of the bwrap and none backends' stages when the current
// process was re-executed as one, and returns otherwise. Programs that
// launch servers with those backends (cmd/mcpvet, and tests through
// TestMain) must call it first thing in main:
//
//	func main() {
//		sandbox.Main()
//		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
//	}
//
// When the process is a stage, Main never returns. Without the call, the
// bwrap backend reports itself unavailable and the none backend cannot set
// rlimits. The builtin backend's init helper needs no call: it is C, run by
// a constructor before the Go runtime starts (init_helper.c).
func Main() {
	hooked.Store(true)
	if len(os.Args) == 0 {
		return
	}
	switch {
	case os.Args[0] == bwrapStageArgv0 && os.Geteuid() == 0:
		os.Exit(runBwrapStage())
	case os.Args[0] == limitExecArgv0:
		os.Exit(runLimitExec())
	}
}

// MaybeRunInit is another name for [Main].
func MaybeRunInit() { Main() }

// initConfig tells the helper how to build the sandbox and what to run.
type initConfig struct {
	// Root is an empty host directory the new root is built on (any
	// other place might hide a bind source).
	Root string
	Argv []string
	Env  []string
	Dir  string
	// Binds are host paths mounted read-only at the same path.
	Binds    []initBind
	Symlinks []initSymlink
	// Devices are bound from the host's /dev by name.
	Devices []string
	// Writable tmpfs directories (the run's /tmp and HOME) and their size.
	Tmpfs     []string
	TmpfsSize int64
	// LoopbackUp brings lo up (the helper is in a new network namespace).
	LoopbackUp bool
	// UID and GID, when non-zero, are what the server runs as (the helper
	// runs as real root, without a user namespace).
	UID int
	GID int
	// Rlimits maps RLIMIT_* to soft limits (hard = soft, or soft+1 for CPU).
	Rlimits map[int]uint64
}

type initBind struct {
	Path string
	Dir  bool
	// Writable keeps the bind writable; Source, when set, is bound at
	// Path instead of Path itself (/dev/null masking a file).
	Writable bool
	Source   string
}

type initSymlink struct {
	Target string
	Path   string
}

// initEvent is one line on the status descriptor.
type initEvent struct {
	Event string `json:"event"` // "started", "spawn_error", "setup_error", "exit"
	Error string `json:"error,omitempty"`
	Code  *int   `json:"code,omitempty"`
	Sig   string `json:"signal,omitempty"`
}

// encode writes the configuration in the records init_helper.c reads: a
// tag byte, a field count byte, then each field as a little-endian uint32
// length and its bytes. Paths inside the sandbox are cleaned and made
// absolute here, so that the helper's root+path is filepath.Join's
// result. seccomp is the filter as struct sock_filter records (empty: no
// filter); lastCap is the highest capability the kernel knows.
func (c *initConfig) encode(seccomp []byte, lastCap int) ([]byte, error) {
	var buf []byte
	rec := func(tag byte, fields ...string) {
		buf = append(buf, tag, byte(len(fields)))
		for _, f := range fields {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(f)))
			buf = append(buf, f...)
		}
	}
	inside := func(p string) string { return filepath.Join("/", p) }
	for _, s := range append(append([]string{c.Root, c.Dir}, c.Argv...), c.Env...) {
		if strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("sandbox configuration: %q holds a NUL byte", s)
		}
	}
	if len(c.Argv) == 0 {
		return nil, errors.New("sandbox configuration: no command")
	}
	rec('r', c.Root)
	if c.Dir != "" {
		rec('d', c.Dir)
	}
	for _, a := range c.Argv {
		rec('a', a)
	}
	for _, e := range c.Env {
		rec('e', e)
	}
	for _, d := range c.Tmpfs {
		opts := fmt.Sprintf("mode=1777,size=%d", c.TmpfsSize)
		if d != "/tmp" {
			opts = fmt.Sprintf("mode=0700,uid=%d,gid=%d,size=%d", c.UID, c.GID, c.TmpfsSize)
		}
		rec('t', inside(d), opts)
	}
	for _, b := range c.Binds {
		src := b.Path
		if b.Source != "" {
			src = b.Source
		}
		kind, mode := "f", "ro"
		if b.Dir {
			kind = "d"
		}
		if b.Writable {
			mode = "rw"
		}
		rec('b', src, inside(b.Path), kind, mode)
	}
	for _, l := range c.Symlinks {
		rec('l', l.Target, inside(l.Path))
	}
	for _, d := range c.Devices {
		if strings.ContainsRune(d, '/') {
			continue
		}
		rec('v', "/dev/"+d, filepath.Join(c.Root, "/dev", d))
	}
	if c.LoopbackUp {
		rec('L')
	}
	if c.UID != 0 {
		rec('u', strconv.Itoa(c.UID), strconv.Itoa(c.GID))
	}
	for _, res := range slices.Sorted(maps.Keys(c.Rlimits)) {
		rec('R', strconv.Itoa(res), strconv.FormatUint(c.Rlimits[res], 10))
	}
	if len(seccomp) > 0 {
		rec('s', string(seccomp))
	}
	rec('c', strconv.Itoa(lastCap))
	return buf, nil
}
