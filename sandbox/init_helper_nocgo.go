//go:build !cgo

package sandbox

// helperLinked says whether init_helper.c is in this binary: not in a build
// without cgo, where the builtin backend reports itself unavailable.
const helperLinked = false
