package archtest

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/mcpvet/mcpvet/probe"
)

// testOnly are the module packages that exist for tests alone (stored
// scans, fixture servers): they build findings to be read, not raised.
var testOnly = []string{"results/internal/fixture", "internal/testfixture"}

// site is one place a finding code is raised.
type site struct {
	pkg string // module-relative package path
	pos string // file:line
}

// producerIndex is what [findProducers] found: the sites of each code, and
// the sites whose code it could not resolve to a constant.
type producerIndex struct {
	sites      map[string][]site
	unresolved []string
}

// findProducers lists, for every finding code, the places of the module's
// non-test code that raise it: a call of probe.NewFinding, a probe.Finding
// or probe.PairFinding literal with a Code, or a call of a function that
// passes one of its parameters on as the code of either (a wrapper, such
// as failure injection's add; wrappers of wrappers too). A code is known
// when the argument is a constant expression (probe.CodeNotAlive, an alias
// of it in scoring) or a local variable assigned only constants in the
// function.
func findProducers(pkgs []*packages.Package) producerIndex {
	newFinding := module + "/probe.NewFinding"
	findingTypes := map[string]bool{module + "/probe.Finding": true, module + "/probe.PairFinding": true}
	// wrappers maps a function's full name to the index of its parameter
	// that becomes a finding's code.
	wrappers := map[string]int{newFinding: 0}
	idx := producerIndex{sites: map[string][]site{}}

	// codeArg reports the code expression of a production site: a call of
	// NewFinding or of a wrapper, or a Finding literal.
	codeArg := func(info *types.Info, n ast.Node) (ast.Expr, bool) {
		switch n := n.(type) {
		case *ast.CallExpr:
			var id *ast.Ident
			switch f := ast.Unparen(n.Fun).(type) {
			case *ast.Ident:
				id = f
			case *ast.SelectorExpr:
				id = f.Sel
			default:
				return nil, false
			}
			fn, ok := info.Uses[id].(*types.Func)
			if !ok {
				return nil, false
			}
			i, ok := wrappers[fn.Origin().FullName()]
			if !ok || i >= len(n.Args) {
				return nil, false
			}
			return n.Args[i], true
		case *ast.CompositeLit:
			t := info.TypeOf(n)
			if t == nil {
				return nil, false
			}
			named, ok := types.Unalias(t).(*types.Named)
			if !ok || named.Obj().Pkg() == nil || !findingTypes[named.Obj().Pkg().Path()+"."+named.Obj().Name()] {
				return nil, false
			}
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Code" {
						return kv.Value, true
					}
				}
			}
		}
		return nil, false
	}

	// Wrappers first, to a fixed point: a function one of whose parameters
	// reaches a production site's code unchanged.
	for changed := true; changed; {
		changed = false
		for _, p := range pkgs {
			for _, f := range p.Syntax {
				for _, d := range f.Decls {
					fd, ok := d.(*ast.FuncDecl)
					if !ok || fd.Body == nil {
						continue
					}
					fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func)
					if !ok {
						continue
					}
					params := fn.Signature().Params()
					ast.Inspect(fd.Body, func(n ast.Node) bool {
						arg, ok := codeArg(p.TypesInfo, n)
						if !ok {
							return true
						}
						id, ok := ast.Unparen(arg).(*ast.Ident)
						if !ok {
							return true
						}
						for i := range params.Len() {
							if p.TypesInfo.Uses[id] == params.At(i) {
								if _, seen := wrappers[fn.FullName()]; !seen {
									wrappers[fn.FullName()] = i
									changed = true
								}
							}
						}
						return true
					})
				}
			}
		}
	}

	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.PkgPath, module+"/")
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, isFunc := d.(*ast.FuncDecl)
				var params *types.Tuple
				if isFunc {
					if fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
						params = fn.Signature().Params()
					}
				}
				ast.Inspect(d, func(n ast.Node) bool {
					arg, ok := codeArg(p.TypesInfo, n)
					if !ok {
						return true
					}
					pos := p.Fset.Position(arg.Pos())
					at := site{pkg: rel, pos: fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)}
					if codes, ok := constantCodes(p, d, arg, params); ok {
						for _, c := range codes {
							idx.sites[c] = append(idx.sites[c], at)
						}
					} else {
						idx.unresolved = append(idx.unresolved, fmt.Sprintf("%s/%s %s", rel, at.pos, types.ExprString(arg)))
					}
					return true
				})
			}
		}
	}
	return idx
}

// constantCodes returns the codes arg can hold, or false when it cannot
// tell; a parameter of a wrapper holds none (its callers are the sites).
func constantCodes(p *packages.Package, decl ast.Decl, arg ast.Expr, params *types.Tuple) ([]string, bool) {
	r := resolver{p: p, decl: decl, params: params, seen: map[types.Object]bool{}}
	codes, ok := r.values(arg)
	return codes, ok
}

// resolver finds the constant strings an expression of one function can
// hold: a constant; a local variable assigned only such expressions; an
// element of a package-level map or slice literal of constants; a struct
// field that the package's composite literals set only to constants.
type resolver struct {
	p      *packages.Package
	decl   ast.Decl
	params *types.Tuple
	seen   map[types.Object]bool
}

func (r *resolver) values(e ast.Expr) ([]string, bool) {
	info := r.p.TypesInfo
	e = ast.Unparen(e)
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		if tv.Value.Kind() != constant.String {
			return nil, false
		}
		if constant.StringVal(tv.Value) == "" {
			return nil, true // "no code yet", never raised
		}
		return []string{constant.StringVal(tv.Value)}, true
	}
	switch e := e.(type) {
	case *ast.Ident:
		v, ok := info.Uses[e].(*types.Var)
		if !ok || r.seen[v] {
			return nil, ok
		}
		r.seen[v] = true
		if r.params != nil {
			for i := range r.params.Len() {
				if r.params.At(i) == v {
					return nil, true
				}
			}
		}
		return r.assigned(v)
	case *ast.IndexExpr:
		id, ok := ast.Unparen(e.X).(*ast.Ident)
		if !ok {
			return nil, false
		}
		v, ok := info.Uses[id].(*types.Var)
		if !ok || v.Parent() != v.Pkg().Scope() {
			return nil, false
		}
		lit := r.packageLiteral(v)
		if lit == nil {
			return nil, false
		}
		var out []string
		for _, el := range lit.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			vs, ok := r.values(el)
			if !ok {
				return nil, false
			}
			out = append(out, vs...)
		}
		return out, len(out) > 0
	case *ast.SelectorExpr:
		f, ok := info.Uses[e.Sel].(*types.Var)
		if !ok || !f.IsField() || r.seen[f] {
			return nil, false
		}
		r.seen[f] = true
		return r.fieldValues(f)
	}
	return nil, false
}

// assigned returns what the function assigns to the local variable v.
func (r *resolver) assigned(v *types.Var) ([]string, bool) {
	info := r.p.TypesInfo
	var out []string
	all := true
	ast.Inspect(r.decl, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, l := range as.Lhs {
			lid, ok := l.(*ast.Ident)
			if !ok || (info.Defs[lid] != v && info.Uses[lid] != v) {
				continue
			}
			if len(as.Rhs) != len(as.Lhs) {
				all = false
				continue
			}
			vs, ok := r.values(as.Rhs[i])
			all = all && ok
			out = append(out, vs...)
		}
		return true
	})
	return out, all && len(out) > 0
}

// packageLiteral returns the composite literal a package-level variable
// is declared with, or nil.
func (r *resolver) packageLiteral(v *types.Var) *ast.CompositeLit {
	for _, f := range r.p.Syntax {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if r.p.TypesInfo.Defs[n] == v && i < len(vs.Values) {
						lit, _ := ast.Unparen(vs.Values[i]).(*ast.CompositeLit)
						return lit
					}
				}
			}
		}
	}
	return nil
}

// fieldValues returns the values the package's struct literals give the
// field f, keyed or by position. The catalog's own entries are not
// producers: a field of probe.CatalogEntry is left unresolved.
func (r *resolver) fieldValues(f *types.Var) ([]string, bool) {
	info := r.p.TypesInfo
	var out []string
	all := true
	for _, file := range r.p.Syntax {
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			t := info.TypeOf(lit)
			if t == nil {
				return true
			}
			if named, ok := types.Unalias(t).(*types.Named); ok && named.Obj().Pkg() != nil &&
				named.Obj().Pkg().Path()+"."+named.Obj().Name() == module+"/probe.CatalogEntry" {
				return true
			}
			st, ok := t.Underlying().(*types.Struct)
			if !ok {
				return true
			}
			for i, el := range lit.Elts {
				var field *types.Var
				val := el
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok {
						field, _ = info.Uses[k].(*types.Var)
					}
					val = kv.Value
				} else if i < st.NumFields() {
					field = st.Field(i)
				}
				if field != f {
					continue
				}
				vs, ok := r.values(val)
				all = all && ok
				out = append(out, vs...)
			}
			return true
		})
	}
	return out, all && len(out) > 0
}

// loadModule type-checks the non-test code of every package of the module
// except the test-only ones.
func loadModule(t *testing.T, root string, patterns ...string) []*packages.Package {
	t.Helper()
	cfg := &packages.Config{Dir: root, Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	var out []*packages.Package
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
		if !slices.Contains(testOnly, strings.TrimPrefix(p.PkgPath, module+"/")) {
			out = append(out, p)
		}
	}
	return out
}

var (
	moduleMu   sync.Mutex
	modulePkgs []*packages.Package
)

// moduleOnce loads the module once for the tests of this file (half a
// minute on a loaded machine).
func moduleOnce(t *testing.T) []*packages.Package {
	t.Helper()
	moduleMu.Lock()
	defer moduleMu.Unlock()
	if modulePkgs == nil {
		modulePkgs = loadModule(t, filepath.Join("..", ".."), "./...")
	}
	return modulePkgs
}

// TestWordsDeclaredOnce: a word of vocab (a liveness status, a decision,
// a rubric element, a response class, ...) is declared there and nowhere
// else. A constant of another package that spells the same value as a
// string literal is a second declaration (scan/source's
// needs_configuration and invalid_plan were); one defined from vocab's
// constant is a name for it and passes.
func TestWordsDeclaredOnce(t *testing.T) {
	pkgs := moduleOnce(t)
	words := map[string]string{} // value -> vocab constant
	for _, p := range pkgs {
		if p.PkgPath != module+"/vocab" {
			continue
		}
		sc := p.Types.Scope()
		for _, name := range sc.Names() {
			c, ok := sc.Lookup(name).(*types.Const)
			if ok && c.Exported() && c.Val().Kind() == constant.String && len(constant.StringVal(c.Val())) > 2 {
				words[constant.StringVal(c.Val())] = "vocab." + name
			}
		}
	}
	// Constants that spell a vocab word for another meaning.
	sameSpelling := map[string]bool{
		"sandbox.BackendNone": true, // the sandbox backend "none", not the actor
	}
	if len(words) < 20 {
		t.Fatalf("found %d words in vocab; the analysis is broken", len(words))
	}
	for _, p := range pkgs {
		if p.PkgPath == module+"/vocab" {
			continue
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, sp := range gd.Specs {
					vs := sp.(*ast.ValueSpec)
					for i, v := range vs.Values {
						lit, ok := ast.Unparen(v).(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING || i >= len(vs.Names) {
							continue
						}
						val, err := strconv.Unquote(lit.Value)
						if err != nil {
							continue
						}
						if w, ok := words[val]; ok && !sameSpelling[p.Name+"."+vs.Names[i].Name] {
							pos := p.Fset.Position(lit.Pos())
							t.Errorf("%s:%d: %s declares %q again; use %s", strings.TrimPrefix(p.PkgPath, module+"/"),
								pos.Line, vs.Names[i].Name, val, w)
						}
					}
				}
			}
		}
	}
}

// TestOneProducerPerCode lists each finding code's producers from the
// code and fails when a code is raised by two packages: probe raises what
// a server's answers decide, scoring what the rubric decides, scan what
// the orchestration adds (plan notes, sandbox warnings). A second
// producer would let a code mean two things and be counted twice. (The
// dynamic counterpart, scoring's TestOneProducerPerCode, runs both
// producers against servers that get everything wrong.)
func TestOneProducerPerCode(t *testing.T) {
	idx := findProducers(moduleOnce(t))
	codes := slices.Sorted(maps.Keys(idx.sites))
	for _, code := range codes {
		byPkg := map[string][]string{}
		for _, s := range idx.sites[code] {
			byPkg[s.pkg] = append(byPkg[s.pkg], s.pos)
		}
		if len(byPkg) > 1 {
			var lines []string
			for _, p := range slices.Sorted(maps.Keys(byPkg)) {
				lines = append(lines, p+": "+strings.Join(byPkg[p], ", "))
			}
			t.Errorf("%s has %d producers:\n\t%s", code, len(byPkg), strings.Join(lines, "\n\t"))
		}
		if _, ok := probe.Lookup(code); !ok {
			t.Errorf("%s is raised at %v but is not in probe's catalog", code, idx.sites[code])
		}
	}
	// The analysis must see each producer, so that the test cannot pass by
	// finding nothing.
	for code, want := range map[string]string{
		probe.CodeNotAlive: "probe", probe.CodeLeaksSecret: "scoring", probe.CodeSandboxWarning: "scan",
		probe.CodeAcceptedInvalidInput: "probe", probe.CodeWrongChannel: "scoring",
	} {
		var got []string
		for _, s := range idx.sites[code] {
			got = append(got, s.pkg)
		}
		if len(got) == 0 || slices.ContainsFunc(got, func(p string) bool { return p != want }) {
			t.Errorf("producers of %s = %v, want only %s", code, got, want)
		}
	}
	sort.Strings(idx.unresolved)
	var unseen []string
	for _, e := range probe.Catalog() {
		if _, ok := idx.sites[e.Code]; !ok {
			unseen = append(unseen, e.Code)
		}
	}
	t.Logf("%d codes of %d in the catalog found at their sites; not found: %v (raised where the code is computed at run time: %s)",
		len(codes), len(probe.Catalog()), unseen, strings.Join(idx.unresolved, ", "))
}

// TestProducerAnalysis checks that the analysis reports a second producer:
// scan raising liveness/handshake_failed itself again (as its remote
// precheck did before issue 26), once through a local variable and a
// wrapper of its own, on top of probe's.
func TestProducerAnalysis(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(root, "scan", "zz_second_producer.go")
	src := `package scan

import "github.com/mcpvet/mcpvet/probe"

func secondProducer(res *probe.Result) {
	code := probe.CodeNotAlive
	addFinding(res, code)
}

func addFinding(res *probe.Result, c string) {
	res.Findings = append(res.Findings, probe.NewFinding(c, "server", "", "", "%s", "again"))
}
`
	cfg := &packages.Config{Dir: root, Overlay: map[string][]byte{extra: []byte(src)},
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports}
	pkgs, err := packages.Load(cfg, "./probe", "./scan")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
	}
	idx := findProducers(pkgs)
	var got []string
	for _, s := range idx.sites[probe.CodeNotAlive] {
		got = append(got, s.pkg+" "+s.pos)
	}
	want := []string{"probe classify.go", "scan zz_second_producer.go"}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
			t.Errorf("sites of %s = %v; want one in %s", probe.CodeNotAlive, got, w)
		}
	}
}
