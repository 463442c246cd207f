package sandbox

import (
	"slices"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// execLimited sets the rlimits rl (RLIMIT_* to soft and hard limit) and
// execs path with argv and env, as the last thing the calling thread does;
// it returns only on failure: an *rlimitError, or the exec's errno. The limits come last and nothing is
// allocated between them and the exec: once RLIMIT_DATA is below what
// this Go program already maps (16 MiB for a server is less than mcpvet's
// own runtime holds), any memory the runtime asks for, a heap span, a
// thread's stack, fails and it dies ("fatal error: runtime: cannot
// allocate memory") before the server even starts. Both helpers that set
// rlimits (the bwrap stage and builtin's former exec stage) did so with Go code
// after the limit and sometimes died that way: a spawn failure, not the
// server's start under the limit. The caller has locked its OS thread.
func execLimited(path string, argv, env []string, rl map[int]unix.Rlimit) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	a, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return err
	}
	e, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	type limit struct {
		res int
		r   unix.Rlimit
	}
	lims := make([]limit, 0, len(rl))
	for res, r := range rl {
		lims = append(lims, limit{res, r})
	}
	// RLIMIT_DATA last, the one that can starve this program.
	slices.SortFunc(lims, func(x, y limit) int {
		return boolInt(x.res == unix.RLIMIT_DATA) - boolInt(y.res == unix.RLIMIT_DATA)
	})
	for i := range lims {
		if _, _, errno := unix.RawSyscall6(unix.SYS_PRLIMIT64, 0, uintptr(lims[i].res),
			uintptr(unsafe.Pointer(&lims[i].r)), 0, 0, 0); errno != 0 {
			// Not set (RLIMIT_DATA comes last): allocating is still fine.
			return &rlimitError{res: lims[i].res, err: errno}
		}
	}
	_, _, errno := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&e[0])))
	return errno
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rlimitError is a limit execLimited could not set.
type rlimitError struct {
	res int
	err error
}

func (e *rlimitError) Error() string {
	return "setting rlimit " + rlimitNames[e.res] + ": " + e.err.Error()
}
func (e *rlimitError) Unwrap() error { return e.err }
