//go:build cgo

package sandbox

// The builtin backend's init helper is C (init_helper.c), run by a
// constructor when the dynamic loader starts the re-executed binary, before
// the Go runtime and every package's init. A Go helper paid that start
// twice per launch (the helper, then an exec stage to set rlimits between
// fork and exec, which Go cannot do), about 35 ms each for this 25 MB
// binary, all of it before the server could start; the constructor exits
// about 3 ms after exec. C also sets the rlimits in the server's own
// process between fork and exec, so the exec stage is gone.

import "C"

// helperLinked says whether init_helper.c is in this binary.
const helperLinked = true
