// Package lazyre holds regular expressions compiled on first use rather
// than at package initialisation. Every mcpvet process pays every
// package's init before main, and so do the sandbox's init helper and
// exec stage (this binary re-executed before each server starts), which
// never match anything: compiling the probe's expressions there was part
// of each launch (issue 25: probe cost). The probe and the grader
// (scoring) both use it.
package lazyre

import (
	"regexp"
	"sync"
)

// RE is a regular expression compiled by its first use. An invalid
// expression panics there, as regexp.MustCompile would have at init:
// [All] lists every RE so a test can compile them all.
type RE struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*RE
)

// New returns expr, to be compiled on first use.
func New(expr string) *RE {
	l := &RE{expr: expr}
	mu.Lock()
	all = append(all, l)
	mu.Unlock()
	return l
}

// All returns every RE made so far.
func All() []*RE {
	mu.Lock()
	defer mu.Unlock()
	return append([]*RE(nil), all...)
}

// Regexp returns the compiled expression.
func (l *RE) Regexp() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func (l *RE) String() string                 { return l.expr }
func (l *RE) MatchString(s string) bool      { return l.Regexp().MatchString(s) }
func (l *RE) Match(b []byte) bool            { return l.Regexp().Match(b) }
func (l *RE) FindString(s string) string     { return l.Regexp().FindString(s) }
func (l *RE) FindStringIndex(s string) []int { return l.Regexp().FindStringIndex(s) }
func (l *RE) FindStringSubmatch(s string) []string {
	return l.Regexp().FindStringSubmatch(s)
}
func (l *RE) FindAllString(s string, n int) []string { return l.Regexp().FindAllString(s, n) }
func (l *RE) FindAllStringIndex(s string, n int) [][]int {
	return l.Regexp().FindAllStringIndex(s, n)
}
func (l *RE) FindAllStringSubmatch(s string, n int) [][]string {
	return l.Regexp().FindAllStringSubmatch(s, n)
}
func (l *RE) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.Regexp().FindAllStringSubmatchIndex(s, n)
}
func (l *RE) ReplaceAllString(src, repl string) string {
	return l.Regexp().ReplaceAllString(src, repl)
}
func (l *RE) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return l.Regexp().ReplaceAllStringFunc(src, repl)
}
func (l *RE) Split(s string, n int) []string { return l.Regexp().Split(s, n) }
