package scoring

import "github.com/mcpvet/mcpvet/internal/lazyre"

// A lazyRE compiles its expression on first use rather than at package
// initialisation (internal/lazyre): every mcpvet process pays every
// package's init before main, and so does the sandbox's init helper (this
// binary re-executed before each server starts), which never grades
// anything (issue 25: probe cost).
type lazyRE = lazyre.RE

func lazy(expr string) *lazyRE { return lazyre.New(expr) }
