package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Mutant schemata: the comparison mutants of a file (CONDITIONALS_BOUNDARY
// and CONDITIONALS_NEGATION, most of gremlins' mutants) are compiled into
// one test binary and chosen at run time, so a file costs one compile for
// them instead of one each. Each comparison `X op Y` becomes
//
//	((mutantrunID == 3) && (X op3 Y) || (mutantrunID == 4) && (X op4 Y) || (mutantrunID != 3 && mutantrunID != 4) && (X op Y))
//
// which evaluates X and Y once, in the one branch taken, and is an untyped
// boolean like the comparison it replaces (so it still fits a named bool
// type). mutantrunID is read when the package initialises from bytes in
// the binary itself (idMarker, patched in a copy of the binary for each
// mutant: see idBinary), so that every child that runs the same binary
// runs the same mutant, whatever environment it was given: a test that
// re-runs itself as another user with a cleaned environment
// (results' runAsNobody) ran the original code in its child while
// MUTANTRUN_ID in the environment chose the mutant. The unpatched binary
// holds -1: the original code.
// Comparisons inside constant declarations, and comparisons nested in
// another comparison, are left to the one-compile-per-mutant path.

const schemaVar = "mutantrunID"

// idMarker precedes the mutant's number (idWidth bytes, idUnset in the
// binary as built) in a schema binary.
const (
	idMarker = "mutantrun-schema-id:"
	idUnset  = "-000000001"
	idWidth  = len(idUnset)
)

// idBinary writes a copy of the schema binary bin whose mutantrunID is id,
// at a new path next to it, and returns that path (the caller removes
// it). The marker must occur exactly once in bin.
func idBinary(bin string, id int) (string, error) {
	b, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	at := bytes.Index(b, []byte(idMarker+idUnset))
	if at < 0 || bytes.Index(b[at+1:], []byte(idMarker+idUnset)) >= 0 {
		return "", fmt.Errorf("%s: the mutant number's marker is not there exactly once", bin)
	}
	num := fmt.Sprintf("%+0*d", idWidth, id)
	if len(num) != idWidth {
		return "", fmt.Errorf("mutant number %d does not fit in %d bytes", id, idWidth)
	}
	copy(b[at+len(idMarker):], num)
	f, err := os.CreateTemp(filepath.Dir(bin), filepath.Base(bin)+".id*")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Chmod(0o755); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// schemaSupport is the file added to the package for the schema.
func schemaSupport(pkg string) []byte {
	return []byte(fmt.Sprintf(`package %s

import (
	"strconv"
)

// mutantrunIDText is patched in each mutant's copy of the binary.
var mutantrunIDText = "%s"

var %s = func() int {
	n, err := strconv.Atoi(mutantrunIDText[len(%q):])
	if err != nil {
		return -1
	}
	return n
}()

type mutantrunNumber interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64
}

type mutantrunInteger interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

func mutantrunAdd[T mutantrunNumber](m bool, x, y T) T {
	if m {
		return x - y
	}
	return x + y
}

func mutantrunSub[T mutantrunNumber](m bool, x, y T) T {
	if m {
		return x + y
	}
	return x - y
}

func mutantrunMul[T mutantrunNumber](m bool, x, y T) T {
	if m {
		return x / y
	}
	return x * y
}

func mutantrunQuo[T mutantrunNumber](m bool, x, y T) T {
	if m {
		return x * y
	}
	return x / y
}

func mutantrunRem[T mutantrunInteger](m bool, x, y T) T {
	if m {
		return x * y
	}
	return x %% y
}

func mutantrunNeg[T mutantrunNumber](m bool, x T) T {
	if m {
		return +x
	}
	return -x
}
`, pkg, idMarker+idUnset, schemaVar, idMarker))
}

func isComparison(t token.Token) bool {
	switch t {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		return true
	}
	return false
}

// Schema rewrites src so that the mutants of ms it can hold are chosen by
// their index in ms at run time. It returns the rewritten file, the
// package name, and which indexes of ms it holds.
func Schema(name string, src []byte, ms []Mutant) ([]byte, string, map[int]bool, error) {
	out, pkg, held, _, err := schema(name, src, ms, nil)
	return out, pkg, held, err
}

// Site kinds: a comparison, a binary arithmetic expression, a unary minus,
// an increment or decrement statement.
const (
	siteCmp = iota
	siteArith
	siteNeg
	siteIncDec
)

// site is one expression or statement of src whose mutants (idx) the
// schema chooses at run time.
type site struct {
	kind           int
	start, end     int // in src
	xs, xe, ys, ye int // operands in src (siteNeg, siteIncDec: X only)
	op             token.Token
	idx            []int
	outs           [][2]int // where it was written in the output
}

// arithHelper names the schema helper that computes x op y, or the mutant
// operator when its bool is true.
var arithHelper = map[token.Token]string{token.ADD: "mutantrunAdd", token.SUB: "mutantrunSub", token.MUL: "mutantrunMul", token.QUO: "mutantrunQuo", token.REM: "mutantrunRem"}

// schema is Schema leaving out the mutants in drop; it also returns the
// sites written (for mapping compile errors back to mutants).
//
// Arithmetic mutants (ARITHMETIC_BASE, INVERT_NEGATIVES) become calls of
// generic helpers, `x + y` -> `mutantrunAdd(mutantrunID == 5, x, y)`, which
// evaluate x and y once, in the same order, and return x - y when the
// mutant is chosen; `-x` -> `mutantrunNeg(...)`. An increment statement
// becomes `if mutantrunID == 7 { i-- } else { i++ }` (not as a for
// statement's init or post). A helper fits a numeric expression only;
// where it does not compile (a string concatenation, an untyped constant
// in a float context, a constant needed at compile time) the caller drops
// that mutant from the schema (compile errors name the position) and it
// is compiled alone as before.
func schema(name string, src []byte, ms []Mutant, drop map[int]bool) ([]byte, string, map[int]bool, []*site, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, "", nil, nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	// Comparisons in const declarations cannot call or read a variable.
	var inConst [][2]int
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			inConst = append(inConst, [2]int{off(gd.Pos()), off(gd.End())})
		}
	}
	constant := func(s, e int) bool {
		for _, c := range inConst {
			if c[0] <= s && e <= c[1] {
				return true
			}
		}
		return false
	}
	byOp := map[int][]int{} // operator offset -> mutant indexes
	for i, m := range ms {
		if drop[i] || m.Offset < 0 {
			continue
		}
		byOp[m.Offset] = append(byOp[m.Offset], i)
	}
	ofType := func(idx []int, types ...string) []int {
		var out []int
		for _, i := range idx {
			for _, t := range types {
				if ms[i].Type == t {
					out = append(out, i)
				}
			}
		}
		return out
	}
	// Statements a for loop needs simple: no if there.
	simpleOnly := map[ast.Stmt]bool{}
	var cmps []*ast.BinaryExpr
	var sites []*site
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt:
			simpleOnly[n.Init], simpleOnly[n.Post] = true, true
		case *ast.BinaryExpr:
			s, e := off(n.Pos()), off(n.End())
			if isComparison(n.Op) {
				cmps = append(cmps, n)
				return true
			}
			idx := ofType(byOp[off(n.OpPos)], arithmeticBase, invertNegatives)
			if arithHelper[n.Op] == "" || len(idx) == 0 || constant(s, e) {
				return true
			}
			sites = append(sites, &site{kind: siteArith, start: s, end: e, xs: off(n.X.Pos()), xe: off(n.X.End()),
				ys: off(n.Y.Pos()), ye: off(n.Y.End()), op: n.Op, idx: idx})
		case *ast.UnaryExpr:
			s, e := off(n.Pos()), off(n.End())
			idx := ofType(byOp[off(n.OpPos)], invertNegatives, arithmeticBase)
			if n.Op != token.SUB || len(idx) == 0 || constant(s, e) {
				return true
			}
			sites = append(sites, &site{kind: siteNeg, start: s, end: e, xs: off(n.X.Pos()), xe: off(n.X.End()), op: n.Op, idx: idx})
		case *ast.IncDecStmt:
			idx := ofType(byOp[off(n.TokPos)], incrementDecrement)
			if len(idx) == 0 || simpleOnly[n] {
				return true
			}
			sites = append(sites, &site{kind: siteIncDec, start: off(n.Pos()), end: off(n.End()), xs: off(n.X.Pos()), xe: off(n.X.End()), op: n.Tok, idx: idx})
		}
		return true
	})
	for _, b := range cmps {
		s, e := off(b.Pos()), off(b.End())
		nested := constant(s, e)
		for _, o := range cmps {
			if o == b {
				continue
			}
			os, oe := off(o.Pos()), off(o.End())
			if (os <= s && e <= oe) || (s <= os && oe <= e) {
				nested = true
				break
			}
		}
		idx := ofType(byOp[off(b.OpPos)], conditionalsBoundary, conditionalsNegation)
		if nested || len(idx) == 0 {
			continue
		}
		sites = append(sites, &site{kind: siteCmp, start: s, end: e, xs: off(b.X.Pos()), xe: off(b.X.End()),
			ys: off(b.Y.Pos()), ye: off(b.Y.End()), op: b.Op, idx: idx})
	}
	sort.Slice(sites, func(i, j int) bool {
		if sites[i].start != sites[j].start {
			return sites[i].start < sites[j].start
		}
		return sites[i].end > sites[j].end
	})
	var buf bytes.Buffer
	var span func(s, e int)
	var write func(st *site)
	// span writes src[s:e] with the outermost sites inside it rewritten.
	span = func(s, e int) {
		at := s
		for _, st := range sites {
			if st.start < at || st.end > e {
				continue
			}
			buf.Write(src[at:st.start])
			write(st)
			at = st.end
		}
		buf.Write(src[at:e])
	}
	write = func(st *site) {
		from := buf.Len()
		var not []string
		for _, i := range st.idx {
			not = append(not, fmt.Sprintf("%s != %d", schemaVar, i))
		}
		chosen := fmt.Sprintf("!(%s)", joinAnd(not))
		switch st.kind {
		case siteCmp:
			buf.WriteString("(")
			for _, i := range st.idx {
				fmt.Fprintf(&buf, "(%s == %d) && ((", schemaVar, i)
				span(st.xs, st.xe)
				fmt.Fprintf(&buf, ") %s (", ms[i].To)
				span(st.ys, st.ye)
				buf.WriteString(")) || ")
			}
			fmt.Fprintf(&buf, "(%s) && ((", joinAnd(not))
			span(st.xs, st.xe)
			fmt.Fprintf(&buf, ") %s (", st.op)
			span(st.ys, st.ye)
			buf.WriteString(")))")
		case siteArith:
			fmt.Fprintf(&buf, "%s(%s, ", arithHelper[st.op], chosen)
			span(st.xs, st.xe)
			buf.WriteString(", ")
			span(st.ys, st.ye)
			buf.WriteString(")")
		case siteNeg:
			fmt.Fprintf(&buf, "mutantrunNeg(%s, ", chosen)
			span(st.xs, st.xe)
			buf.WriteString(")")
		case siteIncDec:
			other := token.INC
			if st.op == token.INC {
				other = token.DEC
			}
			fmt.Fprintf(&buf, "if %s { ", chosen)
			span(st.xs, st.xe)
			fmt.Fprintf(&buf, "%s } else { ", other)
			span(st.xs, st.xe)
			fmt.Fprintf(&buf, "%s }", st.op)
		}
		st.outs = append(st.outs, [2]int{from, buf.Len()})
	}
	span(0, len(src))
	held := map[int]bool{}
	for _, st := range sites {
		for _, i := range st.idx {
			held[i] = true
		}
	}
	return buf.Bytes(), f.Name.Name, held, sites, nil
}

// schemaErrors maps the compile errors of a schema file (out, named base,
// or an overlay file named NAME.base, in the compiler's messages) to the mutants of the innermost site at each
// error's position; none if an error lies in no site.
func schemaErrors(msg, base string, out []byte, sites []*site) (map[int]bool, bool) {
	lineStart := []int{0}
	for i, c := range out {
		if c == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	bad := map[int]bool{}
	found := false
	for _, l := range strings.Split(msg, "\n") {
		m := reCompileErr.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if b := filepath.Base(m[1]); b != base && !strings.HasSuffix(b, "."+base) {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		if line < 1 || line > len(lineStart) {
			continue
		}
		var in *site
		if m[3] != "" {
			col, _ := strconv.Atoi(m[3])
			o := lineStart[line-1] + col - 1
			size := -1
			for _, st := range sites {
				for _, r := range st.outs {
					if r[0] <= o && o < r[1] && (size < 0 || r[1]-r[0] < size) {
						in, size = st, r[1]-r[0]
					}
				}
			}
		}
		if in == nil {
			// The error names a position outside every site, such as
			// the start of the statement `c += <site>` whose operand
			// types no longer match, or no column: every site on that
			// line goes.
			end := len(out)
			if line < len(lineStart) {
				end = lineStart[line]
			}
			for _, st := range sites {
				for _, r := range st.outs {
					if r[0] < end && r[1] > lineStart[line-1] {
						for _, i := range st.idx {
							bad[i] = true
						}
						in = st
					}
				}
			}
			if in == nil {
				return nil, false
			}
			found = true
			continue
		}
		for _, i := range in.idx {
			bad[i] = true
		}
		found = true
	}
	return bad, found
}

// reCompileErr reads an error's file, line and column. The column is
// optional: the compiler leaves it out past column 1023 of a line (its
// positions keep 10 bits for it), and a schema line holding many sites is
// often longer than that.
var reCompileErr = regexp.MustCompile(`^(?:\./)?(\S+\.go):(\d+)(?::(\d+))?: `)

func joinAnd(ss []string) string {
	var b bytes.Buffer
	for i, s := range ss {
		if i > 0 {
			b.WriteString(" && ")
		}
		b.WriteString(s)
	}
	return b.String()
}
