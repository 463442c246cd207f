package main

import (
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

// What a spawning test's children can execute, from the code.
//
// A test that starts the test binary again (os.Args[0], os.Executable,
// /proc/self/exe, or a line of the package that does) has children whose
// coverage may not reach its profile: a child in a sandbox gets a cleaned
// environment and a mount namespace of its own, a child that execs or is
// killed writes no counters. Until session 8 such a test covered every
// mutant of the package; sandbox, where nearly every test launches a fake
// server that way, was unmeasurable (every mutant ran the whole suite).
//
// A re-executed test binary runs: the package's init functions and
// package-level variable initialisers (every file, test files included),
// TestMain, and whatever TestMain reaches (in sandbox: Main and the stage
// functions it dispatches to, runBwrapStage and runLimitExec); a fake role
// is chosen by a string through a dispatch table (sandbox's fakes map),
// and a child runs only the roles whose names its test's code (or the
// roles it runs) spells. So a spawning test covers a mutant when:
//
//   - its own profile (children that wrote counters included) holds it, or
//   - the mutant's declaration is in the reference closure of those entry
//     points (the "unseen" code: prelude and the roles the test names), or
//   - the mutant is in no block any test executed (a gap of the cover tool,
//     or a declaration outside functions) and its declaration is in the
//     closure of the test's own code and of its children's.
//
// The closure is a go/ast reference graph over the package's top-level
// declarations (all files of the directory, both test packages), by name:
// an identifier names every declaration of that name, a selector every
// method of that name, a type every method of the type. It over-includes
// (shadowed names, methods of another type with the same name), which is
// what soundness needs; dynamic dispatch within the package is covered by
// the method-name rule. Functions stored in a variable's initialiser run
// only when the variable is used; function literals called during
// initialisation run then.
//
// A test keeps covering every mutant when its children may run code the
// graph cannot follow: it runs the go command (a build that compiles the
// mutant into another program), or it passes -test.run to a child (the
// child runs test functions by name through m.Run).

// allChildWords mark a spawning test whose children the graph cannot
// bound: a go build (probe's testdata servers) or a child running tests
// selected by -test.run (results' TestKillDuringSaves).
var allChildWords = regexp.MustCompile(`exec\.Command(Context)?\((ctx, )?"go"|-test\.run|test\.run=`)

type declNode struct {
	file       string // base name
	test       bool   // in a _test.go file
	kind       byte   // 'f' function, 'm' method, 't' type, 'v' var or const, 'e' a dispatch table's value
	name       string
	start, end int // byte offsets in file
	refs       []int
	// initRefs are what runs at package initialisation: an init
	// function's references, a variable's initialiser outside the
	// function literals it stores.
	initRefs []int
	isInit   bool
	isVar    bool     // a variable (its initialiser runs in every process)
	lits     []string // string literals
	text     string
	parent   int // the variable whose dispatch table holds this value; -1
	table    map[string][]int
}

type declGraph struct {
	pkgName string // of the package's non-test files
	nodes   []*declNode
	byName  map[string][]int
	methods map[string][]int
	ofType  map[string][]int
	entries []int // TestMain and the package's initialisation
	// seen are the roles the package's tests declare seen
	// (seenDirective): a child running one writes its counters.
	seen map[string]bool
}

// seenDirective, in a test file of the package, names dispatch-table roles
// whose children always write their coverage counters: started with the
// test's environment (GOCOVERDIR) outside any sandbox, and ending by a
// normal exit (sandbox's holders, which their tests kill, exit first
// when GOCOVERDIR is set: exitOnRequest in sandbox/fake_test.go). Their
// code is in their test's profile and is not added as unseen; the roles
// they start still are. Whether a child's counters arrive depends on how
// it is started and how it ends (its environment, its namespaces, an
// exec, a SIGKILL), which the reference graph cannot see, hence a
// declaration; every other role counts as unseen.
const seenDirective = "//mutantrun:seen "

// buildGraph parses every .go file of dir.
func buildGraph(dir string) (*declGraph, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	sort.Strings(paths)
	g := &declGraph{byName: map[string][]int{}, methods: map[string][]int{}, ofType: map[string][]int{}, seen: map[string]bool{}}
	fset := token.NewFileSet()
	type pending struct {
		node  int
		n     ast.Node
		skip  map[ast.Node]bool // stored function literals (not run at init)
		init  bool              // var initialiser: initRefs from outside skip
		table bool
	}
	var todo []pending
	srcs := map[string][]byte{}
	files := map[string]*fileInfo{}
	add := func(kind byte, file string, test bool, name string, n ast.Node, src []byte) int {
		p, e := fset.Position(n.Pos()).Offset, fset.Position(n.End()).Offset
		g.nodes = append(g.nodes, &declNode{kind: kind, file: file, test: test, name: name, start: p, end: e, text: string(src[p:e]), parent: -1})
		return len(g.nodes) - 1
	}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(path)
		srcs[base] = src
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if rest, ok := strings.CutPrefix(c.Text, seenDirective); ok {
					for _, r := range strings.Fields(rest) {
						g.seen[r] = true
					}
				}
			}
		}
		test := strings.HasSuffix(base, "_test.go")
		fi := &fileInfo{imports: map[string]string{}, topLevel: map[any]bool{}}
		files[base] = fi
		if !test && g.pkgName == "" {
			g.pkgName = f.Name.Name
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := importName(path)
			if im.Name != nil {
				name = im.Name.Name
			}
			fi.imports[name] = importName(path)
		}
		for _, d := range f.Decls {
			fi.topLevel[d] = true
			if gd, ok := d.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					fi.topLevel[sp] = true
				}
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				k := byte('f')
				if d.Recv != nil {
					k = 'm'
				}
				i := add(k, base, test, d.Name.Name, d, src)
				if d.Recv != nil {
					g.methods[d.Name.Name] = append(g.methods[d.Name.Name], i)
					if tn := recvType(d.Recv); tn != "" {
						g.ofType[tn] = append(g.ofType[tn], i)
					}
					// The receiver is not a reference: a method runs on a
					// value someone made, through its type or its name.
					todo = append(todo, pending{node: i, n: d.Type})
					if d.Body != nil {
						todo = append(todo, pending{node: i, n: d.Body})
					}
					continue
				}
				if d.Name.Name == "init" {
					g.nodes[i].isInit = true
				} else {
					g.byName[d.Name.Name] = append(g.byName[d.Name.Name], i)
				}
				if d.Name.Name == "TestMain" || d.Name.Name == "init" {
					g.entries = append(g.entries, i)
				}
				todo = append(todo, pending{node: i, n: d})
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						i := add('t', base, test, s.Name.Name, s, src)
						g.byName[s.Name.Name] = append(g.byName[s.Name.Name], i)
						todo = append(todo, pending{node: i, n: s.Type})
					case *ast.ValueSpec:
						i := add('v', base, test, "", s, src)
						for _, n := range s.Names {
							g.byName[n.Name] = append(g.byName[n.Name], i)
						}
						g.nodes[i].name = s.Names[0].Name
						if d.Tok == token.VAR {
							g.entries = append(g.entries, i)
							g.nodes[i].isVar = true
						}
						skip := storedFuncs(s)
						if tbl := dispatchTable(s); tbl != nil && test {
							// Each value of a dispatch table is a node of its
							// own, reached only by a test that spells its key.
							g.nodes[i].table = map[string][]int{}
							for key, vals := range tbl {
								for _, v := range vals {
									j := add('e', base, test, s.Names[0].Name+"["+strconv.Quote(key)+"]", v, src)
									g.nodes[j].parent = i
									g.nodes[i].table[key] = append(g.nodes[i].table[key], j)
									todo = append(todo, pending{node: j, n: v})
									skip[v] = true
								}
							}
						}
						todo = append(todo, pending{node: i, n: s, skip: skip, init: d.Tok == token.VAR})
					}
				}
			}
		}
	}
	for _, p := range todo {
		nd := g.nodes[p.node]
		fi := files[nd.file]
		ref := func(j int, atInit bool) {
			if j == p.node {
				return
			}
			nd.refs = append(nd.refs, j)
			if atInit {
				nd.initRefs = append(nd.initRefs, j)
			}
		}
		var walk func(n ast.Node, atInit bool)
		walk = func(n ast.Node, atInit bool) {
			ast.Inspect(n, func(x ast.Node) bool {
				if x == nil {
					return false
				}
				if x != n && p.skip[x] {
					if nd.table != nil {
						return false // a table's values are nodes of their own
					}
					walk(x, false)
					return false
				}
				switch x := x.(type) {
				case *ast.SelectorExpr:
					walk(x.X, atInit)
					// pkg.Name: another package's name, or this one's
					// (an external test package); x.Name: a method or a
					// field, by name.
					id, isID := x.X.(*ast.Ident)
					qual := isID && id.Obj == nil && fi.imports[id.Name] != ""
					if qual && fi.imports[id.Name] == g.pkgName {
						for _, j := range g.byName[x.Sel.Name] {
							ref(j, atInit)
						}
					}
					if !qual || len(g.byName[id.Name]) > 0 {
						for _, j := range g.methods[x.Sel.Name] {
							ref(j, atInit)
						}
					}
					return false
				case *ast.InterfaceType:
					for _, f := range x.Methods.List {
						for _, n := range f.Names {
							for _, j := range g.methods[n.Name] {
								ref(j, atInit)
							}
						}
					}
				case *ast.Ident:
					// A name declared in a function (a parameter, a local
					// variable) is not the package-level one.
					if x.Obj != nil && !fi.topLevel[x.Obj.Decl] {
						return true
					}
					for _, j := range g.byName[x.Name] {
						ref(j, atInit)
					}
				case *ast.BasicLit:
					if x.Kind == token.STRING {
						if v, err := strconv.Unquote(x.Value); err == nil {
							nd.lits = append(nd.lits, v)
						}
					}
				}
				return true
			})
		}
		walk(p.n, p.init || nd.isInit)
		if nd.table != nil {
			// A table's keys name its roles; they start none.
			var lits []string
			for _, l := range nd.lits {
				if _, ok := nd.table[l]; !ok {
					lits = append(lits, l)
				}
			}
			nd.lits = lits
		}
	}
	// A type's methods come with it (an interface call, fmt's Error or
	// String, a sort.Interface: callers outside the package).
	for _, nd := range g.nodes {
		if nd.kind == 't' {
			nd.refs = append(nd.refs, g.ofType[nd.name]...)
		}
	}
	// A dispatch table used other than by indexing (ranged over, passed
	// on) is no dispatch table: every value is reachable.
	for _, path := range paths {
		base := filepath.Base(path)
		f, _ := parser.ParseFile(fset, path+"#", srcs[base], 0)
		if f == nil {
			continue
		}
		indexed := map[*ast.Ident]bool{}
		ast.Inspect(f, func(x ast.Node) bool {
			if ix, ok := x.(*ast.IndexExpr); ok {
				if id, ok := ix.X.(*ast.Ident); ok {
					indexed[id] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(x ast.Node) bool {
			id, ok := x.(*ast.Ident)
			if !ok || indexed[id] {
				return true
			}
			for _, j := range g.byName[id.Name] {
				if g.nodes[j].table != nil && !(g.nodes[j].file == base && fset.Position(id.Pos()).Offset == g.nodes[j].start) {
					g.untable(j)
				}
			}
			return true
		})
	}
	return g, nil
}

// untable makes every value of a table reachable through the variable.
func (g *declGraph) untable(i int) {
	nd := g.nodes[i]
	for _, vals := range nd.table {
		nd.refs = append(nd.refs, vals...)
	}
	nd.table = nil
}

// fileInfo is what the reference walk needs to know of one file.
type fileInfo struct {
	imports  map[string]string // local name -> the imported package's likely name
	topLevel map[any]bool      // the file's declarations and specs
}

// importName guesses an import path's package name: its last element,
// without a version suffix (gopkg.in/yaml.v3, .../v2). A wrong guess only
// over-includes (the selector is then read as a method's name).
func importName(path string) string {
	parts := strings.Split(path, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	return strings.TrimPrefix(last, "go-")
}

func recvType(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	t := fl.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// storedFuncs are the function literals a variable's initialiser stores
// (its value, or an element or value of a composite literal) rather than
// calls: their bodies run when the variable is used, not at init.
func storedFuncs(s *ast.ValueSpec) map[ast.Node]bool {
	out := map[ast.Node]bool{}
	var visit func(e ast.Expr)
	visit = func(e ast.Expr) {
		switch e := e.(type) {
		case *ast.FuncLit:
			out[e] = true
		case *ast.CompositeLit:
			for _, el := range e.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					visit(kv.Value)
				} else {
					visit(el)
				}
			}
		case *ast.UnaryExpr:
			visit(e.X)
		case *ast.ParenExpr:
			visit(e.X)
		}
	}
	for _, v := range s.Values {
		visit(v)
	}
	return out
}

// dispatchTable returns, for a variable initialised by a map literal with
// string-literal keys and function values (literals or names), each key's
// values.
func dispatchTable(s *ast.ValueSpec) map[string][]ast.Node {
	if len(s.Values) != 1 || len(s.Names) != 1 {
		return nil
	}
	cl, ok := s.Values[0].(*ast.CompositeLit)
	if !ok {
		return nil
	}
	mt, ok := cl.Type.(*ast.MapType)
	if !ok {
		return nil
	}
	if _, ok := mt.Value.(*ast.FuncType); !ok {
		return nil
	}
	out := map[string][]ast.Node{}
	for _, el := range cl.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			return nil
		}
		bl, ok := kv.Key.(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			return nil
		}
		key, err := strconv.Unquote(bl.Value)
		if err != nil {
			return nil
		}
		switch kv.Value.(type) {
		case *ast.FuncLit, *ast.Ident:
		default:
			return nil
		}
		out[key] = append(out[key], kv.Value)
	}
	return out
}

// closure returns the nodes reachable from from, with the dispatch-table
// values of the keys in roles, and the roles spelled by what it reached
// (string literals equal to a table key), to a fixed point.
//
// With unseen set, the roles declared seen are left out (their children
// write counters); the roles they start are still followed.
func (g *declGraph) closure(from []int, unseen bool) (seen map[int]bool, roles map[string]bool) {
	roles = map[string]bool{}
	for {
		seen = map[int]bool{}
		stack := append([]int(nil), from...)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[i] {
				continue
			}
			seen[i] = true
			nd := g.nodes[i]
			stack = append(stack, nd.refs...)
			for key, vals := range nd.table {
				if roles[key] && !(unseen && g.seen[key]) {
					stack = append(stack, vals...)
				}
			}
		}
		grew := false
		keys := g.tableKeys()
		for i := range seen {
			for _, l := range g.nodes[i].lits {
				if keys[l] && !roles[l] {
					roles[l], grew = true, true
				}
			}
		}
		if !grew {
			return seen, roles
		}
	}
}

func (g *declGraph) tableKeys() map[string]bool {
	out := map[string]bool{}
	for _, nd := range g.nodes {
		for k := range nd.table {
			out[k] = true
		}
	}
	return out
}

// prelude is what every re-executed test binary runs before its role:
// init functions, variable initialisers (outside the functions they
// store), TestMain.
func (g *declGraph) prelude() []int {
	var out []int
	for _, i := range g.entries {
		nd := g.nodes[i]
		if nd.name == "TestMain" || nd.isInit {
			out = append(out, i)
			continue
		}
		out = append(out, nd.initRefs...)
	}
	return out
}

// testNode returns the function declaration of a top-level test.
func (g *declGraph) testNode(name string) (int, bool) {
	for _, i := range g.byName[name] {
		if g.nodes[i].test && g.nodes[i].kind == 'f' {
			return i, true
		}
	}
	return 0, false
}

// childCover is, for one package, which spawning tests cover which
// declarations beyond their own profile.
type childCover struct {
	g *declGraph
	// all: spawning tests that cover every mutant (old rule, or children
	// the graph cannot follow), with the reason.
	all map[string]string
	// unseen: per spawning test, the nodes its children may run unseen.
	unseen map[string]map[int]bool
	// own: per spawning test, the nodes its own code and its children's
	// reach (for positions in no block).
	own   map[string]map[int]bool
	roles map[string][]string
	decls map[string]int // file:offset -> node
}

// newChildCover computes the rule for the spawning tests of cm (dir: the
// package directory). everything forces the old rule.
func newChildCover(cm *CoverMap, dir string, everything bool) (*childCover, error) {
	cc := &childCover{all: map[string]string{}, unseen: map[string]map[int]bool{}, own: map[string]map[int]bool{}, roles: map[string][]string{}}
	if everything {
		for _, t := range cm.Tests {
			if t.Spawns {
				cc.all[t.Name] = "every mutant (-children=all)"
			}
		}
		return cc, nil
	}
	g, err := buildGraph(dir)
	if err != nil {
		return nil, err
	}
	cc.g = g
	pre := g.prelude()
	for _, t := range cm.Tests {
		if !t.Spawns {
			continue
		}
		ti, ok := g.testNode(t.Name)
		if !ok {
			cc.all[t.Name] = "no declaration found"
			continue
		}
		own, roles := g.closure(append([]int{ti}, pre...), false)
		for i := range own {
			if w := allChildWords.FindString(g.nodes[i].text); w != "" {
				cc.all[t.Name] = fmt.Sprintf("its code reaches %s (%s)", w, g.nodes[i].name)
				break
			}
		}
		if _, ok := cc.all[t.Name]; ok {
			continue
		}
		// The children: the prelude and the roles the test (or the roles
		// it runs) spells.
		from := append([]int(nil), pre...)
		var names []string
		for r := range roles {
			if g.seen[r] {
				names = append(names, r+" (seen)")
				continue
			}
			names = append(names, r)
			for _, nd := range g.nodes {
				from = append(from, nd.table[r]...)
			}
		}
		sort.Strings(names)
		unseen, _ := g.closure(from, true)
		cc.unseen[t.Name] = unseen
		cc.own[t.Name] = own
		cc.roles[t.Name] = names
	}
	return cc, nil
}

// decl returns the innermost node of file holding offset, -1 if none.
func (cc *childCover) decl(file string, offset int) int {
	key := file + ":" + strconv.Itoa(offset)
	if d, ok := cc.decls[key]; ok {
		return d
	}
	if cc.decls == nil {
		cc.decls = map[string]int{}
	}
	best := -1
	for i, nd := range cc.g.nodes {
		if nd.file == file && offset >= nd.start && offset < nd.end {
			if best < 0 || nd.end-nd.start < cc.g.nodes[best].end-cc.g.nodes[best].start {
				best = i
			}
		}
	}
	cc.decls[key] = best
	return best
}

// covers reports whether spawning test t covers mutant m of file beyond
// its own profile; inBlock says whether any test's profile holds m.
func (cc *childCover) covers(t, file string, m Mutant, inBlock bool) bool {
	if _, ok := cc.all[t]; ok {
		return true
	}
	if cc.g == nil {
		return false
	}
	d := cc.decl(file, m.Offset)
	if d < 0 {
		return !inBlock // outside every declaration: cannot say
	}
	if nd := cc.g.nodes[d]; nd.isVar && !nd.test {
		// A variable's initialiser runs at initialisation, in every
		// child (and in no coverage block).
		return true
	}
	if cc.unseen[t][d] {
		return true
	}
	return !inBlock && cc.own[t][d]
}

// describe is one line per spawning test for the log.
func (cc *childCover) describe(file string) []string {
	var out []string
	var names []string
	for n := range cc.all {
		names = append(names, n)
	}
	for n := range cc.unseen {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if why, ok := cc.all[n]; ok {
			out = append(out, fmt.Sprintf("%s: covers every mutant: %s", n, why))
			continue
		}
		k := 0
		for i := range cc.unseen[n] {
			if cc.g.nodes[i].file == file {
				k++
			}
		}
		out = append(out, fmt.Sprintf("%s: children run the prelude and roles %v: %d declarations of %s", n, cc.roles[n], k, file))
	}
	return out
}
