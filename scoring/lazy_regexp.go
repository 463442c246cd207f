package scoring

import (
	"regexp"
	"sync"
)

// A lazyRE compiles its expression on first use rather than at package
// initialisation. Every mcpvet process pays every package's init before
// main, and so does the sandbox's init helper (this binary re-executed
// before each server starts), which never grades anything: compiling the
// grader's expressions there was part of each launch (issue 25: probe
// cost). lazyREs records every expression for TestLazyRegexpsCompile.
type lazyRE struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

var lazyREs []*lazyRE

func lazy(expr string) *lazyRE {
	l := &lazyRE{expr: expr}
	lazyREs = append(lazyREs, l)
	return l
}

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func (l *lazyRE) String() string { return l.expr }

func (l *lazyRE) FindStringIndex(s string) []int { return l.get().FindStringIndex(s) }

func (l *lazyRE) FindAllStringIndex(s string, n int) [][]int {
	return l.get().FindAllStringIndex(s, n)
}

func (l *lazyRE) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.get().FindAllStringSubmatchIndex(s, n)
}
