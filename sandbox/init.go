package sandbox

import "sync/atomic"

// hooked is set by [Main]: only then may the sandbox re-execute the
// current binary as its init helper.
var hooked atomic.Bool

// Main runs the sandbox's init helper when the current process was
// re-executed as one, and returns otherwise. Programs that launch servers
// with the builtin backend (cmd/mcpvet, and tests through TestMain) must
// call it first thing in main:
//
//	func main() {
//		sandbox.Main()
//		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
//	}
//
// When the process is an init helper, Main never returns.
func Main() {
	hooked.Store(true)
	maybeRunInit()
}

// MaybeRunInit is another name for [Main].
func MaybeRunInit() { Main() }

// maybeRunInit runs the init helper if this process is one.
func maybeRunInit() {}
