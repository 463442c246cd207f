package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
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
// type). mutantrunID is read from MUTANTRUN_ID when the package
// initialises (-1 when unset: the original code), and children that run
// the same binary, or a binary built with the same overlay, inherit it.
// Comparisons inside constant declarations, and comparisons nested in
// another comparison, are left to the one-compile-per-mutant path.

const schemaVar = "mutantrunID"

// schemaSupport is the file added to the package for the schema.
func schemaSupport(pkg string) []byte {
	return []byte(fmt.Sprintf(`package %s

import (
	"os"
	"strconv"
)

var %s = func() int {
	n, err := strconv.Atoi(os.Getenv("MUTANTRUN_ID"))
	if err != nil {
		return -1
	}
	return n
}()
`, pkg, schemaVar))
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
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, "", nil, err
	}
	// Comparisons in const declarations cannot call or read a variable.
	var inConst [][2]int
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			inConst = append(inConst, [2]int{fset.Position(gd.Pos()).Offset, fset.Position(gd.End()).Offset})
		}
	}
	var cmps []*ast.BinaryExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && isComparison(b.Op) {
			cmps = append(cmps, b)
		}
		return true
	})
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	byOp := map[int][]int{} // operator offset -> mutant indexes
	for i, m := range ms {
		if m.Type == conditionalsBoundary || m.Type == conditionalsNegation {
			byOp[m.Offset] = append(byOp[m.Offset], i)
		}
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	held := map[int]bool{}
	for _, b := range cmps {
		s, e := off(b.Pos()), off(b.End())
		nested := false
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
		for _, c := range inConst {
			if c[0] <= s && e <= c[1] {
				nested = true
			}
		}
		idx := byOp[off(b.OpPos)]
		if nested || len(idx) == 0 {
			continue
		}
		x := string(src[off(b.X.Pos()):off(b.X.End())])
		y := string(src[off(b.Y.Pos()):off(b.Y.End())])
		var buf bytes.Buffer
		buf.WriteString("(")
		var not []string
		for _, i := range idx {
			fmt.Fprintf(&buf, "(%s == %d) && ((%s) %s (%s)) || ", schemaVar, i, x, ms[i].To, y)
			not = append(not, fmt.Sprintf("%s != %d", schemaVar, i))
			held[i] = true
		}
		fmt.Fprintf(&buf, "(%s) && ((%s) %s (%s)))", joinAnd(not), x, b.Op, y)
		edits = append(edits, edit{s, e, buf.String()})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), src...)
	for _, ed := range edits {
		out = append(out[:ed.start:ed.start], append([]byte(ed.text), out[ed.end:]...)...)
	}
	return out, f.Name.Name, held, nil
}

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
