package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
)

// Mutants in no coverage block.
//
// The cover tool counts only statements inside function bodies, so code
// outside them is in no block: a constant's expression (probe/inject.go
// `DefaultInjectServerBudget = 60 * time.Second`), a package-level
// variable's initialiser, an array length in a type. Inside a body it
// leaves gaps as well: a block ends where a function literal starts, so
// the rest of that statement (`if err := f(func() {...}); err != nil {`)
// is in none; case expressions are the other gap (they stand for their
// switch: [at]). No test's profile holds such a mutant, so until session
// 10 only the spawning tests' children could cover it and it was reported
// NOT COVERED (gremlins' verdict too: its rule is the same) or LIVED,
// although a test observes it: probe/inject.go:85:33, :86:34 and :87:33
// are killed by TestS9iDefaults.
//
// Such a mutant (at no position of the cover tool's blocks for its file,
// executed or not: [fileBlocks]) is now judged by:
//
//   - outside every function body: every test of the package. The tests
//     that name the constant, or reach it through the reference graph
//     (children.go), are not a sound narrowing: an exported constant,
//     variable or type is compiled into the other packages of the module
//     that an external test package runs, whose code is in no profile of
//     this package; an initialiser may hand the value to a function that
//     stores it where code that names none of them reads it. These
//     mutants are few (constants and initialisers with an operator).
//   - in a gap of a function body: the tests that executed a block of the
//     innermost function body holding it. The statement runs only in a
//     call of that function, and every call executes the block the body
//     starts with, so these tests are a superset of those that run it.
//
// Both keep the spawning tests' rule ([childCover.covers]) besides.
// Mutants outside function bodies are left out of the schema binary
// (mutateFile): most do not compile there (a constant; a string
// concatenation, which is NOT VIABLE anyway), and each would cost the
// schema a round of compiling. With
// no test left (the package has none that passes without a mutant, or no
// test called the function) the mutant is NOT COVERED, as before.

// posTriple is one entry of the cover tool's counter table: start line,
// end line, end column << 16 | start column.
var posTriple = regexp.MustCompile(`^\s*(\d+), (\d+), 0x([0-9a-f]+), // \[\d+\]$`)

// fileBlocks returns every coverage block of the Go file path, executed or
// not, as `go tool cover -mode=set` instruments it (the Pos table of its
// counter variable); -cover builds use the same blocks.
func fileBlocks(dir, path string) ([]Block, error) {
	const v = "mutantrunCoverBlocks"
	cmd := exec.Command("go", "tool", "cover", "-mode=set", "-var="+v, path)
	cmd.Dir = dir
	cmd.Env = cleanGoflags(os.Environ())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go tool cover %s: %v: %s", path, err, tail(stderr.String(), 500))
	}
	var blocks []Block
	table := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if !table {
			table = bytes.HasPrefix([]byte(l), []byte("var "+v+" = struct"))
			continue
		}
		m := posTriple.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		start, _ := strconv.Atoi(m[1])
		end, _ := strconv.Atoi(m[2])
		cols, _ := strconv.ParseUint(m[3], 16, 32)
		blocks = append(blocks, Block{StartLine: start, StartCol: int(cols & 0xFFFF), EndLine: end, EndCol: int(cols >> 16)})
	}
	if !table {
		return nil, fmt.Errorf("go tool cover %s: no counter table", path)
	}
	return blocks, sc.Err()
}

// bodySpan is a function body (a declaration's or a literal's), from its
// opening brace to its closing one.
type bodySpan struct{ from, to token.Position }

// holds reports whether (line, col) is within b.
func (b bodySpan) holds(line, col int) bool {
	after := line > b.from.Line || line == b.from.Line && col >= b.from.Column
	before := line < b.to.Line || line == b.to.Line && col <= b.to.Column
	return after && before
}

// funcBodies lists the function bodies of a file.
func funcBodies(name string, src []byte) []bodySpan {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil
	}
	var out []bodySpan
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body != nil {
			out = append(out, bodySpan{fset.Position(body.Lbrace), fset.Position(body.Rbrace)})
		}
		return true
	})
	return out
}

// fileCode is what [coveringTests] knows of a mutated file beyond the
// coverage map.
type fileCode struct {
	base   string     // the file's base name, as the coverage map keys it
	cases  []caseSpan // [caseExprs]
	blocks []Block    // every block of the file ([fileBlocks]); nil: unknown
	bodies []bodySpan // [funcBodies]
}

// newFileCode reads the file at abs (src is its content). When the cover
// tool cannot list the blocks, a mutant outside every function body still
// counts as in no block (it is in none), one in a body as in a block.
func newFileCode(root, abs string, src []byte) (*fileCode, error) {
	blocks, err := fileBlocks(root, abs)
	fc := &fileCode{base: filepath.Base(abs), cases: caseExprs(abs, src), blocks: blocks, bodies: funcBodies(abs, src)}
	return fc, err
}

// gap reports whether (line, col) is in no coverage block of the file, and
// if so the innermost function body holding it (nil: none, a declaration
// outside functions).
func (fc *fileCode) gap(line, col int) (bool, *bodySpan) {
	var body *bodySpan
	for i, b := range fc.bodies {
		if b.holds(line, col) && (body == nil || b.from.Offset > body.from.Offset) {
			body = &fc.bodies[i]
		}
	}
	if body == nil {
		return true, nil
	}
	if fc.blocks == nil {
		return false, nil
	}
	for _, b := range fc.blocks {
		if b.Covers(line, col) {
			return false, nil
		}
	}
	return true, body
}

// outsideFuncs reports whether m is outside every function body.
func (fc *fileCode) outsideFuncs(m Mutant) bool {
	gap, body := fc.gap(at(fc.cases, m.Line, m.Column))
	return gap && body == nil
}

// note is what the log says of how m's tests were chosen when it is in no
// coverage block ("" when it is in one).
func (fc *fileCode) note(m Mutant) string {
	line, col := at(fc.cases, m.Line, m.Column)
	switch gap, body := fc.gap(line, col); {
	case !gap:
		return ""
	case body == nil:
		return "; in no coverage block, outside functions: every test of the package"
	default:
		return fmt.Sprintf("; in no coverage block: the tests that ran the function body at line %d", body.from.Line)
	}
}

// ranIn reports whether blocks (a test's executed blocks of the file) hold
// one that starts within body.
func ranIn(blocks []Block, body *bodySpan) bool {
	for _, b := range blocks {
		if body.holds(b.StartLine, b.StartCol) {
			return true
		}
	}
	return false
}
