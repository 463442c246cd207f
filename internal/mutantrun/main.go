// Command mutantrun is the fast runner of make mutate (docs/testing.md):
// gremlins' mutants, each judged by its package's whole test suite, but
// running only the tests that can observe it.
//
//	go run ./internal/mutantrun -json out.json scoring/grade.go
//	go run ./internal/mutantrun -list scoring/grade.go   # the mutants, nothing run
//
// Once per package (cached in -cache, keyed by the content of every
// module file the package's tests are built from), it builds the test
// binary with coverage (go test -c -cover -covermode=set), lists its
// top-level tests (-test.list), and runs each alone with
// -test.coverprofile (and -test.short), with GOCOVERDIR set so that
// children built with coverage (the test binary run again as a helper)
// add what they execute. That gives, per test, the blocks it executes; an
// init function runs before any test, so its blocks are in every test's
// profile. A test that spawns processes whose coverage may not be seen
// (its test code, or code it reaches in a test file, names os.Args[0],
// os.Executable, /proc/self/exe or runs the go command; or it executes a
// line of the package that does) also covers what those children can run,
// from the code (children.go): the package's initialisation, TestMain and
// what it reaches (the stages sandbox.Main dispatches to), and the fake
// roles of a dispatch table the test spells; a test whose children run
// the go command or tests by -test.run, and every spawning test under
// -children=all, covers every mutant of the package. A test that fails
// without a mutant kills nothing and is left out (it is reported).
//
// The mutants are gremlins v0.6.0's, enumerated the same way (its
// default mutators, on the same AST nodes, in the same order): a mutant
// no test covers (by gremlins' block rule) is NOT COVERED without running.
// A mutant in no coverage block of its file (gaps.go: a constant, a
// package-level initialiser, the rest of a statement after a function
// literal), which gremlins calls NOT COVERED, is covered by every test of
// the package when it is outside every function body, and by the tests
// that executed a block of its function body when it is in one.
// Each other mutant is applied through go test -overlay (the tree is never
// edited), compiled once into a test binary (NOT VIABLE if that fails),
// and that binary runs only the covering tests, -test.run
// '^(TestA|TestB)$' -test.short -test.failfast, in the package directory,
// with GOFLAGS=-overlay=... in its environment so that a go build the
// tests run sees the mutant too. KILLED if it fails, LIVED if it passes,
// TIMED OUT past max(floor, coefficient x the covering tests' own time),
// or once one test has run past max(floor, coefficient x its own time)
// (-test.v output names the test running), not counting the seconds a freeze window of the speed benchmarks
// (FROZEN/THAWED lines in /tmp/mcpvet-quiet.log) held it. A mutant killed
// during a freeze window is run again.
//
// The output is gremlins' JSON shape (files[].mutations[] with type,
// status, line, column), which scripts/mutate.sh records in the ledger,
// plus one TSV line per mutant (-tsv): status, seconds, position, type,
// the covering tests.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mutator types, named as gremlins names them.
const (
	arithmeticBase       = "ARITHMETIC_BASE"
	conditionalsBoundary = "CONDITIONALS_BOUNDARY"
	conditionalsNegation = "CONDITIONALS_NEGATION"
	incrementDecrement   = "INCREMENT_DECREMENT"
	invertNegatives      = "INVERT_NEGATIVES"
)

// tokenTypes is gremlins v0.6.0's TokenMutantType (internal/engine/
// mappings.go) restricted to the mutators it enables by default
// (internal/configuration/mutantenabled.go), in its order.
var tokenTypes = map[token.Token][]string{
	token.ADD: {arithmeticBase},
	token.DEC: {incrementDecrement},
	token.EQL: {conditionalsNegation},
	token.GEQ: {conditionalsBoundary, conditionalsNegation},
	token.GTR: {conditionalsBoundary, conditionalsNegation},
	token.INC: {incrementDecrement},
	token.LEQ: {conditionalsBoundary, conditionalsNegation},
	token.LSS: {conditionalsBoundary, conditionalsNegation},
	token.MUL: {arithmeticBase},
	token.NEQ: {conditionalsNegation},
	token.QUO: {arithmeticBase},
	token.REM: {arithmeticBase},
	token.SUB: {invertNegatives, arithmeticBase},
}

// mutations is gremlins' tokenMutations for those mutators.
var mutations = map[string]map[token.Token]token.Token{
	arithmeticBase:       {token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD},
	conditionalsBoundary: {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
	conditionalsNegation: {token.EQL: token.NEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR, token.LSS: token.GEQ, token.NEQ: token.EQL},
	incrementDecrement:   {token.DEC: token.INC, token.INC: token.DEC},
	invertNegatives:      {token.SUB: token.ADD},
}

// Mutant is one token replaced at one position of a file.
type Mutant struct {
	Type   string
	Line   int
	Column int
	Offset int         // byte offset of the token
	From   token.Token // the token there
	To     token.Token // its replacement
}

// Enumerate lists the mutants of one source file as gremlins does: every
// AssignStmt, BinaryExpr, BranchStmt, IncDecStmt and UnaryExpr whose token
// has a default-enabled mutator, in ast.Inspect order.
func Enumerate(name string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []Mutant
	ast.Inspect(f, func(n ast.Node) bool {
		var tok token.Token
		var pos token.Pos
		switch n := n.(type) {
		case *ast.AssignStmt:
			tok, pos = n.Tok, n.TokPos
		case *ast.BinaryExpr:
			tok, pos = n.Op, n.OpPos
		case *ast.BranchStmt:
			tok, pos = n.Tok, n.TokPos
		case *ast.IncDecStmt:
			tok, pos = n.Tok, n.TokPos
		case *ast.UnaryExpr:
			tok, pos = n.Op, n.OpPos
		default:
			return true
		}
		p := fset.Position(pos)
		for _, t := range tokenTypes[tok] {
			out = append(out, Mutant{Type: t, Line: p.Line, Column: p.Column, Offset: p.Offset, From: tok, To: mutations[t][tok]})
		}
		return true
	})
	return out, nil
}

// Apply returns src with m's token replaced.
func (m Mutant) Apply(src []byte) ([]byte, error) {
	from := m.From.String()
	if !bytes.HasPrefix(src[m.Offset:], []byte(from)) {
		return nil, fmt.Errorf("%d:%d: %q not found", m.Line, m.Column, from)
	}
	out := make([]byte, 0, len(src)+2)
	out = append(out, src[:m.Offset]...)
	out = append(out, m.To.String()...)
	return append(out, src[m.Offset+len(from):]...), nil
}

// Block is a coverage block that ran (count > 0).
type Block struct{ StartLine, StartCol, EndLine, EndCol int }

// Covers is gremlins' coverage.Profile.IsCovered rule for one block.
func (b Block) Covers(line, col int) bool {
	switch {
	case line > b.StartLine && line < b.EndLine:
		return true
	case b.StartLine == b.EndLine:
		return line == b.StartLine && col >= b.StartCol && col <= b.EndCol
	case line == b.StartLine:
		return col >= b.StartCol
	case line == b.EndLine:
		return col <= b.EndCol
	}
	return false
}

// Test is one top-level test of the package and what it executes.
type Test struct {
	Name    string
	Seconds float64
	Failed  bool               // fails without any mutant: kills nothing
	Spawns  bool               // covers every mutant (children we cannot see)
	Blocks  map[string][]Block // file base name -> blocks executed
	Reason  string             `json:",omitempty"` // why Spawns
	// Skipped is the reason the test skipped itself without a mutant
	// (-test.short, or a missing tool or data set: testenv.Need), "" when
	// it ran. A skipped test covers only what ran before its t.Skip, so
	// the mutants it would kill look LIVED or NOT COVERED: the log and
	// mutate.sh name every one.
	Skipped string `json:",omitempty"`
}

// CoverMap is the per-test coverage of one package.
type CoverMap struct {
	Package string // import path
	Dir     string // relative to the module root
	Key     string
	Tests   []Test
}

type runner struct {
	verifyRun     string // -verify: run these tests (a -test.run pattern), not the covering ones
	root, modPath string
	work          string
	coef          float64
	floor         time.Duration
	quietLog      string
	cacheDir      string
	tsv           io.Writer
	log           io.Writer
	schema        bool
	childrenAll   bool            // -children=all: a spawning test covers every mutant (the rule before session 8)
	only          map[string]bool // -only: run just these mutants (line:col or line:col:TYPE)
	isolate       []string        // the command prefix each test binary runs in (isolate.go), or none
}

func main() {
	var (
		jsonOut  = flag.String("json", "", "write gremlins-shaped JSON of the results here (one file argument)")
		tsvOut   = flag.String("tsv", "", "append one line per mutant here")
		list     = flag.Bool("list", false, "print the mutants (line, column, type) and run nothing")
		coverage = flag.Bool("coverage", false, "print the per-test coverage summary of the files' package and run nothing")
		coef     = flag.Float64("coefficient", 20, "timeout: this many times the covering tests' own time")
		floor    = flag.Duration("floor", 60*time.Second, "timeout floor")
		cache    = flag.String("cache", "bench/out/mutate/cover", "directory of the per-package coverage maps")
		quiet    = flag.String("quiet-log", "/tmp/mcpvet-quiet.log", "freeze windows (FROZEN/THAWED unix seconds)")
		schema   = flag.Bool("schema", true, "compile a file's comparison mutants into one binary (schema.go); false: one compile per mutant")
		verify   = flag.String("verify", "", "check kills: run only the mutants at -at with these tests (a -test.run pattern), no coverage map")
		at       = flag.String("at", "", "with -verify: the mutants, line:col[:TYPE] separated by commas")
		children = flag.String("children", "closure", "what a test that re-executes the test binary covers: closure (its children's code, from the package's code: children.go) or all (every mutant)")
		only     = flag.String("only", "", "run only these mutants, line:col[:TYPE] separated by commas (the others are not reported)")
		isolate  = flag.String("isolate", "auto", "run each test binary in a PID namespace of its own (isolate.go): auto (when root and unshare works), on, off")
	)
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: mutantrun [-json out.json] [-tsv out.tsv] [-list] FILE.go ...")
		os.Exit(2)
	}
	mode := *isolate
	if *list {
		mode = "off" // -list runs no test: no need to try unshare
	}
	prefix, err := isolation(mode, func(format string, args ...any) { fmt.Fprintf(os.Stderr, format, args...) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutantrun:", err)
		os.Exit(2)
	}
	if *verify != "" {
		if err := verifyKills(os.Stdout, *verify, *at, *floor, *quiet, prefix, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "mutantrun:", err)
			os.Exit(1)
		}
		return
	}
	if *children != "closure" && *children != "all" {
		fmt.Fprintf(os.Stderr, "mutantrun: -children %q: want closure or all\n", *children)
		os.Exit(2)
	}
	opt := runOpts{childrenAll: *children == "all", only: positions(*only), isolate: prefix}
	if err := run(*jsonOut, *tsvOut, *list, *coverage, *schema, *coef, *floor, *cache, *quiet, opt, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "mutantrun:", err)
		os.Exit(1)
	}
}

// runOpts are run's options beyond the first ones.
type runOpts struct {
	childrenAll bool
	only        map[string]bool
	isolate     []string
}

// positions reads line:col[:TYPE],... into a set ("" gives nil).
func positions(s string) map[string]bool {
	if s == "" {
		return nil
	}
	out := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		out[strings.TrimSpace(p)] = true
	}
	return out
}

// picked reports whether positions (from [positions]) names m, by
// line:col or line:col:TYPE.
func picked(positions map[string]bool, m Mutant) bool {
	pos := fmt.Sprintf("%d:%d", m.Line, m.Column)
	return positions[pos] || positions[pos+":"+m.Type]
}

func run(jsonOut, tsvOut string, list, coverage, schema bool, coef float64, floor time.Duration, cache, quiet string, opt runOpts, files []string) error {
	if list {
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			ms, err := Enumerate(f, src)
			if err != nil {
				return err
			}
			for _, m := range ms {
				fmt.Printf("%s:%d:%d\t%s\t%s -> %s\n", f, m.Line, m.Column, m.Type, m.From, m.To)
			}
		}
		return nil
	}
	if jsonOut != "" && len(files) != 1 {
		return errors.New("-json takes one file")
	}
	root, err := goEnv("", "list", "-m", "-f", "{{.Dir}}")
	if err != nil {
		return err
	}
	modPath, err := goEnv("", "list", "-m")
	if err != nil {
		return err
	}
	work, err := workDir()
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	r := &runner{root: root, modPath: modPath, work: work, coef: coef, floor: floor, quietLog: quiet, cacheDir: cache, log: os.Stderr, schema: schema,
		childrenAll: opt.childrenAll, only: opt.only, isolate: opt.isolate}
	if tsvOut != "" {
		f, err := os.OpenFile(tsvOut, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		r.tsv = f
	}
	maps := map[string]*CoverMap{}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		dir, err := filepath.Rel(root, filepath.Dir(abs))
		if err != nil {
			return err
		}
		cm := maps[dir]
		if cm == nil {
			if cm, err = r.coverMap(dir); err != nil {
				return err
			}
			maps[dir] = cm
			var skipped []string
			for _, t := range cm.Tests {
				if t.Skipped != "" {
					skipped = append(skipped, t.Name+" ("+t.Skipped+")")
				}
			}
			if len(skipped) > 0 {
				fmt.Fprintf(r.log, "coverage of %s: %d of %d tests skipped without a mutant (what they would kill is not killed): %s\n",
					dir, len(skipped), len(cm.Tests), strings.Join(skipped, "; "))
			}
		}
		if coverage {
			for _, t := range cm.Tests {
				fmt.Printf("%s\t%.2fs\tfailed=%v\tspawns=%v %s\tblocks=%d\tskipped=%s\n", t.Name, t.Seconds, t.Failed, t.Spawns, t.Reason, countBlocks(t.Blocks), t.Skipped)
			}
			cc, err := newChildCover(cm, filepath.Join(root, dir), opt.childrenAll)
			if err != nil {
				return err
			}
			for _, l := range cc.describe(filepath.Base(abs)) {
				fmt.Println("children:", l)
			}
			// Per mutant: the covering tests and their own time, by this
			// rule and by every spawning test (-children=all).
			all, _ := newChildCover(cm, filepath.Join(root, dir), true)
			src, err := os.ReadFile(abs)
			if err != nil {
				return err
			}
			ms, err := Enumerate(abs, src)
			if err != nil {
				return err
			}
			fc, err := newFileCode(root, abs, src)
			if err != nil {
				fmt.Fprintln(r.log, "blocks:", err)
			}
			for _, m := range ms {
				t1, s1 := coveringTests(cm, cc, fc, m)
				t2, s2 := coveringTests(cm, all, fc, m)
				fmt.Printf("mutant %s:%d:%d\t%s\ttests %d (%.1fs)\tall %d (%.1fs)%s\n", filepath.Join(dir, filepath.Base(abs)), m.Line, m.Column, m.Type, len(t1), s1, len(t2), s2, fc.note(m))
			}
			continue
		}
		res, err := r.mutateFile(cm, abs)
		if err != nil {
			return err
		}
		if jsonOut != "" {
			b, err := json.Marshal(res)
			if err != nil {
				return err
			}
			if err := os.WriteFile(jsonOut, b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func countBlocks(m map[string][]Block) int {
	n := 0
	for _, b := range m {
		n += len(b)
	}
	return n
}

func goEnv(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// coverMapVersion changes the cache key when the map's content changes
// meaning (2: Test.Skipped; 3: the work folder is 0755, see workDir;
// 4: GOCOVERDIR is writable by every uid).
const coverMapVersion = 4

// workDir makes the folder of the test binaries, readable and searchable
// by every uid: sandbox's builtin backend runs the server, and its bwrap
// stage bwrap, as a uid of the run's own, and that server is the test
// binary again (a fake). In os.MkdirTemp's 0700 folder they could not
// exec it ("fork/exec /tmp/mutantrun-.../cover.test: permission
// denied"), so until session 8 eleven sandbox tests failed in the
// coverage run as root (TestLeftoversSwept, TestSpinLeavesNothing,
// TestShutdownEscalation, TestResourceLimits, ...) and killed nothing.
func workDir() (string, error) {
	work, err := os.MkdirTemp("", "mutantrun-")
	if err != nil {
		return "", err
	}
	return work, os.Chmod(work, 0o755)
}

// cacheKey hashes the content of every module file the package's tests
// are built from (the package, its test files, its module dependencies)
// and of its testdata directory, so a change anywhere that could change
// what a test executes rebuilds the map.
func (r *runner) cacheKey(dir string) (string, error) {
	out, err := goEnv(r.root, "list", "-deps", "-test", "-f", "{{if .Module}}{{if eq .Module.Path \""+r.modPath+"\"}}{{.Dir}}{{end}}{{end}}", "./"+dir)
	if err != nil {
		return "", err
	}
	dirs := map[string]bool{}
	for _, d := range strings.Fields(out) {
		dirs[d] = true
	}
	dirs[filepath.Join(r.root, dir, "testdata")] = true
	var sorted []string
	for d := range dirs {
		sorted = append(sorted, d)
	}
	sort.Strings(sorted)
	h := sha256.New()
	fmt.Fprintf(h, "cover map v%d\n", coverMapVersion)
	for _, d := range sorted {
		_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() {
				if p != d && !strings.HasPrefix(p, filepath.Join(r.root, dir, "testdata")) {
					return filepath.SkipDir // another package
				}
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			// The path below the module root, not the absolute one, so
			// clones of one commit share a cache.
			rel, _ := filepath.Rel(r.root, p)
			fmt.Fprintf(h, "%s %d\n", rel, len(b))
			h.Write(b)
			return nil
		})
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func (r *runner) coverMap(dir string) (*CoverMap, error) {
	key, err := r.cacheKey(dir)
	if err != nil {
		return nil, err
	}
	cacheDir := r.cacheDir
	if !filepath.IsAbs(cacheDir) {
		cacheDir = filepath.Join(r.root, cacheDir)
	}
	cacheFile := filepath.Join(cacheDir, strings.ReplaceAll(dir, "/", "_")+"."+key+".json")
	if b, err := os.ReadFile(cacheFile); err == nil {
		var cm CoverMap
		if json.Unmarshal(b, &cm) == nil {
			fmt.Fprintf(r.log, "coverage of %s: cached (%s)\n", dir, cacheFile)
			return &cm, nil
		}
	}
	start := time.Now()
	cm := &CoverMap{Package: r.modPath + "/" + dir, Dir: dir, Key: key}
	bin := filepath.Join(r.work, "cover.test")
	build := exec.Command("go", "test", "-c", "-cover", "-covermode=set", "-vet=off", "-o", bin, "./"+dir)
	build.Dir = r.root
	build.Env = cleanGoflags(os.Environ())
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building %s with coverage: %v\n%s", dir, err, out)
	}
	list := exec.Command(bin, "-test.list", ".")
	list.Dir = filepath.Join(r.root, dir)
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the tests of %s: %v", dir, err)
	}
	spawnTests, err := spawningTests(filepath.Join(r.root, dir))
	if err != nil {
		return nil, err
	}
	spawnLines, err := spawningLines(filepath.Join(r.root, dir))
	if err != nil {
		return nil, err
	}
	for _, name := range strings.Fields(string(out)) {
		if strings.HasPrefix(name, "Benchmark") {
			continue
		}
		t, err := r.coverTest(bin, dir, name)
		if err != nil {
			return nil, err
		}
		if why, ok := spawnTests[name]; ok {
			t.Spawns, t.Reason = true, why
		}
		for file, lines := range spawnLines {
			for _, b := range t.Blocks[file] {
				for _, l := range lines {
					if b.Covers(l, 1) || (l == b.StartLine || l == b.EndLine) {
						t.Spawns, t.Reason = true, fmt.Sprintf("executes %s:%d", file, l)
					}
				}
			}
		}
		fmt.Fprintf(r.log, "coverage of %s: %s %.2fs failed=%v spawns=%v %s\n", dir, name, t.Seconds, t.Failed, t.Spawns, t.Reason)
		cm.Tests = append(cm.Tests, t)
	}
	fmt.Fprintf(r.log, "coverage of %s: %d tests in %.0fs\n", dir, len(cm.Tests), time.Since(start).Seconds())
	if err := os.MkdirAll(filepath.Dir(cacheFile), 0o755); err == nil {
		if b, err := json.Marshal(cm); err == nil {
			_ = os.WriteFile(cacheFile, b, 0o644)
		}
	}
	return cm, nil
}

// cleanGoflags drops GOFLAGS (mutate.sh's -count=1 -short -vet=off are
// given as the binary's own flags here).
func cleanGoflags(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "GOFLAGS=") {
			out = append(out, e)
		}
	}
	return out
}

func (r *runner) coverTest(bin, dir, name string) (Test, error) {
	t := Test{Name: name, Blocks: map[string][]Block{}}
	prof := filepath.Join(r.work, "cover.out")
	covdir := filepath.Join(r.work, "covdata")
	_ = os.RemoveAll(covdir)
	if err := os.MkdirAll(covdir, 0o755); err != nil {
		return t, err
	}
	// Writable by every uid, like /tmp: a child that runs as another uid
	// (sandbox's bwrap stage drops to the run's uid before it execs the
	// "pdeathsig" fake) writes its counters here; denied, it printed an
	// error into the output TestBwrapStageKeepsParentDeathSignal reads,
	// which then failed without a mutant.
	if err := os.Chmod(covdir, 0o1777); err != nil {
		return t, err
	}
	_ = os.Remove(prof)
	for attempt := 0; ; attempt++ {
		cmd := r.testCommand(bin, "-test.run", "^"+regexp.QuoteMeta(name)+"$", "-test.count=1", "-test.short",
			"-test.timeout=20m", "-test.coverprofile="+prof, "-test.v")
		cmd.Dir = filepath.Join(r.root, dir)
		cmd.Env = append(cleanGoflags(os.Environ()), "GOCOVERDIR="+covdir)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		start := time.Now()
		err := cmd.Run()
		end := time.Now()
		t.Seconds = end.Sub(start).Seconds()
		t.Failed = err != nil
		if t.Failed && attempt == 0 && r.frozeDuring(start, end) {
			continue
		}
		if t.Failed {
			fmt.Fprintf(r.log, "coverage of %s: %s FAILS without a mutant (kills nothing):\n%s\n", dir, name, tail(buf.String(), 1500))
		}
		t.Skipped = skipReason(buf.String(), name)
		break
	}
	if err := r.readProfile(prof, dir, t.Blocks); err != nil && !t.Failed {
		return t, err
	}
	if ents, _ := os.ReadDir(covdir); len(ents) > 0 {
		txt := filepath.Join(r.work, "child.out")
		cmd := exec.Command("go", "tool", "covdata", "textfmt", "-i="+covdir, "-o="+txt)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(r.log, "covdata of %s: %v %s\n", name, err, out)
		} else {
			_ = r.readProfile(txt, dir, t.Blocks)
		}
	}
	return t, nil
}

// skipReason returns why the top-level test name skipped itself in the
// -test.v output out: the last message it logged before its "--- SKIP:
// name (" line (t.Skip's message is logged there), or "skipped" without
// one; "" when it did not skip.
func skipReason(out, name string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "--- SKIP: "+name+" (") {
			continue
		}
		for k := i - 1; k >= 0 && !strings.HasPrefix(lines[k], "=== RUN   "+name); k-- {
			m, ok := strings.CutPrefix(lines[k], "    ")
			if !ok || strings.HasPrefix(m, " ") {
				continue // not a message of the top-level test
			}
			if pos, msg, ok := strings.Cut(m, ": "); ok && strings.Contains(pos, ".go:") {
				return msg
			}
		}
		return "skipped"
	}
	return ""
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// readProfile adds the executed blocks of dir's files in a text coverage
// profile.
func (r *runner) readProfile(path, dir string, into map[string][]Block) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	prefix := r.modPath + "/" + dir + "/"
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") {
			continue
		}
		// name.go:l.c,l.c stmts count
		colon := strings.LastIndex(line, ":")
		if colon < 0 || !strings.HasPrefix(line, prefix) {
			continue
		}
		file := line[len(prefix):colon]
		if strings.Contains(file, "/") {
			continue
		}
		var b Block
		var stmts, count int
		if _, err := fmt.Sscanf(line[colon+1:], "%d.%d,%d.%d %d %d", &b.StartLine, &b.StartCol, &b.EndLine, &b.EndCol, &stmts, &count); err != nil {
			continue
		}
		if count > 0 {
			into[file] = append(into[file], b)
		}
	}
	return sc.Err()
}

var spawnWords = regexp.MustCompile(`os\.Args\[0\]|os\.Executable\(|/proc/self/exe|exec\.Command(Context)?\((ctx, )?"go"`)

// spawningTests finds the top-level tests whose code, or the functions of
// the package's test files it names (transitively), mentions a way of
// starting the test binary again or the go command: their children's
// coverage may not reach us, so they cover everything.
func spawningTests(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	matches, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	bodies := map[string]ast.Node{}
	srcs := map[string][]byte{}
	for _, p := range matches {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			return nil, err
		}
		srcs[p] = src
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				bodies[fd.Name.Name] = fd
			} else if gd, ok := d.(*ast.GenDecl); ok {
				// package-level var/const with function literals or values
				for _, s := range gd.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok {
						for _, n := range vs.Names {
							bodies[n.Name] = vs
						}
					}
				}
			}
		}
	}
	text := func(n ast.Node) string {
		p := fset.Position(n.Pos())
		e := fset.Position(n.End())
		return string(srcs[p.Filename][p.Offset:e.Offset])
	}
	direct := map[string]bool{}
	refs := map[string][]string{}
	for name, n := range bodies {
		direct[name] = spawnWords.MatchString(text(n))
		ast.Inspect(n, func(x ast.Node) bool {
			if id, ok := x.(*ast.Ident); ok && id.Name != name {
				if _, ok := bodies[id.Name]; ok {
					refs[name] = append(refs[name], id.Name)
				}
			}
			return true
		})
	}
	out := map[string]string{}
	for name := range bodies {
		if !isTestName(name) {
			continue
		}
		seen := map[string]bool{}
		var walk func(string) string
		walk = func(n string) string {
			if seen[n] {
				return ""
			}
			seen[n] = true
			if direct[n] {
				return n
			}
			for _, m := range refs[n] {
				if w := walk(m); w != "" {
					return w
				}
			}
			return ""
		}
		if w := walk(name); w != "" {
			out[name] = "test code starts a process (" + w + ")"
		}
	}
	// TestMain runs for every test: if it spawns, every test does.
	if direct["TestMain"] {
		for name := range bodies {
			if isTestName(name) {
				out[name] = "TestMain starts a process"
			}
		}
	}
	return out, nil
}

func isTestName(n string) bool {
	for _, p := range []string{"Test", "Fuzz", "Example"} {
		if strings.HasPrefix(n, p) && n != "TestMain" {
			return true
		}
	}
	return false
}

// spawningLines finds the lines of the package's own files that start the
// test binary again (/proc/self/exe, os.Executable, os.Args[0]).
func spawningLines(dir string) (map[string][]int, error) {
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	out := map[string][]int{}
	for _, p := range matches {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for i, l := range strings.Split(string(b), "\n") {
			if spawnWords.MatchString(l) && !strings.HasPrefix(strings.TrimSpace(l), "//") {
				out[filepath.Base(p)] = append(out[filepath.Base(p)], i+1)
			}
		}
	}
	return out, nil
}

// Report is gremlins' JSON shape, as scripts/mutate.sh reads it.
type Report struct {
	GoModule string       `json:"go_module"`
	Runner   string       `json:"runner"`
	Files    []FileReport `json:"files"`
}

type FileReport struct {
	FileName  string     `json:"file_name"`
	Mutations []Mutation `json:"mutations"`
}

type Mutation struct {
	Type    string   `json:"type"`
	Status  string   `json:"status"`
	Line    int      `json:"line"`
	Column  int      `json:"column"`
	Seconds float64  `json:"seconds"`
	Schema  bool     `json:"schema,omitempty"` // run in the file's schema binary
	Tests   []string `json:"tests,omitempty"`
}

func (r *runner) mutateFile(cm *CoverMap, abs string) (*Report, error) {
	src, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(abs)
	rel := filepath.Join(cm.Dir, base)
	ms, err := Enumerate(abs, src)
	if err != nil {
		return nil, err
	}
	rep := &Report{GoModule: r.modPath, Runner: "mutantrun", Files: []FileReport{{FileName: base}}}
	if len(ms) == 0 {
		rep.Files = nil
	}
	fc, err := newFileCode(r.root, abs, src)
	if err != nil {
		fmt.Fprintln(r.log, "blocks:", err)
	}
	cc, err := newChildCover(cm, filepath.Dir(abs), r.childrenAll)
	if err != nil {
		return nil, err
	}
	for _, l := range cc.describe(base) {
		fmt.Fprintln(r.log, "children:", l)
	}
	covering := func(m Mutant) ([]string, float64) {
		return coveringTests(cm, cc, fc, m)
	}
	// One binary for the comparison mutants that some test covers, in
	// function bodies: outside them (a constant, a string concatenation in
	// an initialiser) most do not compile there, and each would cost the
	// schema a round (gaps.go).
	var schemaBin, schemaOv string
	var held map[int]bool
	if r.schema {
		var run []Mutant
		for _, m := range ms {
			if t, _ := covering(m); len(t) > 0 && r.selected(m) && !fc.outsideFuncs(m) {
				run = append(run, m)
			} else {
				run = append(run, Mutant{Offset: -1})
			}
		}
		// A mutant whose helper does not compile there is dropped and
		// the schema built again (each round drops what the compiler
		// names; at most 8 rounds).
		drop := map[int]bool{}
		start := time.Now()
		for round := 0; round < 8; round++ {
			ssrc, pkg, h, sites, err := schema(abs, src, run, drop)
			if err != nil || len(h) == 0 {
				if err != nil {
					fmt.Fprintf(r.log, "schema: not used: %v\n", err)
				}
				break
			}
			schemaBin, schemaOv, err = r.build(cm, "schema", map[string][]byte{abs: ssrc, filepath.Join(filepath.Dir(abs), "zz_mutantrun_schema.go"): schemaSupport(pkg)})
			if err == nil {
				held = h
				fmt.Fprintf(r.log, "schema: %d mutants in one binary (%d left to compile alone; %d rounds, %.1fs)\n", len(h), len(drop), round+1, time.Since(start).Seconds())
				break
			}
			bad, ok := schemaErrors(err.Error(), filepath.Base(abs), ssrc, sites)
			if !ok {
				fmt.Fprintf(r.log, "schema: not used: %v\n", err)
				break
			}
			for i := range bad {
				drop[i] = true
			}
		}
	}
	counts := map[string]int{}
	for i, m := range ms {
		if !r.selected(m) {
			continue
		}
		tests, secs := covering(m)
		mu := Mutation{Type: m.Type, Line: m.Line, Column: m.Column, Tests: tests}
		start := time.Now()
		switch {
		case len(tests) == 0:
			mu.Status = "NOT COVERED"
		case held[i]:
			mu.Status = r.runTests(cm, schemaBin, schemaOv, i, m, tests, secs)
			mu.Schema = true
		default:
			mu.Status = r.runMutant(cm, abs, src, m, tests, secs)
		}
		mu.Seconds = time.Since(start).Seconds()
		counts[mu.Status]++
		rep.Files[0].Mutations = append(rep.Files[0].Mutations, mu)
		fmt.Fprintf(r.log, "%3d/%d %-11s %5.1fs %s:%d:%d %s (%d tests%s)\n", i+1, len(ms), mu.Status, mu.Seconds, rel, m.Line, m.Column, m.Type, len(tests), fc.note(m))
		if r.tsv != nil {
			fmt.Fprintf(r.tsv, "%s\t%.1f\t%s:%d:%d\t%s\t%s\n", mu.Status, mu.Seconds, rel, m.Line, m.Column, m.Type, strings.Join(tests, ","))
		}
	}
	fmt.Fprintf(r.log, "%s: killed %d, lived %d, not covered %d, timed out %d, not viable %d\n", rel,
		counts["KILLED"], counts["LIVED"], counts["NOT COVERED"], counts["TIMED OUT"], counts["NOT VIABLE"])
	return rep, nil
}

// selected says whether -only lets m run.
func (r *runner) selected(m Mutant) bool {
	return r.only == nil || picked(r.only, m)
}

// coveringTests returns the tests that cover mutant m of file fc (and
// their own time): those whose profile holds its position (a case
// expression's switch: at), and the spawning tests whose children's code
// may hold it (childCover.covers). A mutant in no coverage block (gaps.go)
// is covered by every test of the package when it is outside every
// function body, and by the tests that executed a block of its function
// body when it is in a gap of one.
func coveringTests(cm *CoverMap, cc *childCover, fc *fileCode, m Mutant) ([]string, float64) {
	var tests []string
	var secs float64
	line, col := at(fc.cases, m.Line, m.Column)
	inBlock := false
	for _, t := range cm.Tests {
		for _, b := range t.Blocks[fc.base] {
			if b.Covers(line, col) {
				inBlock = true
				break
			}
		}
	}
	gap, body := fc.gap(line, col)
	for _, t := range cm.Tests {
		if t.Failed {
			continue
		}
		covered := false
		for _, b := range t.Blocks[fc.base] {
			if b.Covers(line, col) {
				covered = true
				break
			}
		}
		if !covered && gap {
			covered = body == nil || ranIn(t.Blocks[fc.base], body)
		}
		if !covered && t.Spawns {
			covered = cc.covers(t.Name, fc.base, m, inBlock)
		}
		if covered {
			tests = append(tests, t.Name)
			secs += t.Seconds
		}
	}
	return tests, secs
}

// caseExprs lists, for each case clause of a switch or type switch in
// src, the span of its expressions and the position of the switch
// statement. Go's cover tool leaves case expressions out of every block
// (the header's block ends at "{", a clause's block starts after its
// colon), so a mutant there is seen as covered by the tests that executed
// the switch statement, whose header block holds that position. Without
// it, such a mutant counted as covered only by the tests that re-execute
// the binary: results/report_read.go:65 "case firstErr != nil" was
// reported lived, and TestLeanRunsInOrder kills it.
func caseExprs(name string, src []byte) []caseSpan {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil
	}
	var out []caseSpan
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.SwitchStmt:
			body = n.Body
		case *ast.TypeSwitchStmt:
			body = n.Body
		default:
			return true
		}
		sw := fset.Position(n.Pos())
		for _, st := range body.List {
			cc, ok := st.(*ast.CaseClause)
			if !ok || len(cc.List) == 0 {
				continue
			}
			out = append(out, caseSpan{
				from: fset.Position(cc.List[0].Pos()), to: fset.Position(cc.List[len(cc.List)-1].End()),
				line: sw.Line, col: sw.Column,
			})
		}
		return true
	})
	return out
}

type caseSpan struct {
	from, to  token.Position
	line, col int // the switch statement
}

// at returns the position whose coverage stands for (line, col): the
// switch statement's for a position inside case expressions, else itself.
func at(cases []caseSpan, line, col int) (int, int) {
	for _, c := range cases {
		after := line > c.from.Line || line == c.from.Line && col >= c.from.Column
		before := line < c.to.Line || line == c.to.Line && col < c.to.Column
		if after && before {
			return c.line, c.col
		}
	}
	return line, col
}

func (r *runner) runMutant(cm *CoverMap, abs string, src []byte, m Mutant, tests []string, secs float64) string {
	mutated, err := m.Apply(src)
	if err != nil {
		fmt.Fprintln(r.log, err)
		return "NOT VIABLE"
	}
	bin, ovFile, err := r.build(cm, "mutant", map[string][]byte{abs: mutated})
	if err != nil {
		return "NOT VIABLE"
	}
	return r.runTests(cm, bin, ovFile, -1, m, tests, secs)
}

// build compiles the package's test binary with the given files replaced
// or added (through an overlay; the tree is never touched).
func (r *runner) build(cm *CoverMap, name string, files map[string][]byte) (bin, ovFile string, err error) {
	replace := map[string]string{}
	for path, content := range files {
		// Named after the file it replaces: the compiler's messages name
		// this file (schemaErrors reads them).
		f := filepath.Join(r.work, name+"."+filepath.Base(path))
		if err := os.WriteFile(f, content, 0o644); err != nil {
			return "", "", err
		}
		replace[path] = f
	}
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
	ovFile = filepath.Join(r.work, name+".overlay.json")
	if err := os.WriteFile(ovFile, ov, 0o644); err != nil {
		return "", "", err
	}
	bin = filepath.Join(r.work, name+".test")
	_ = os.Remove(bin)
	// -s -w: no symbol table or DWARF, a quarter off each link.
	build := exec.Command("go", "test", "-c", "-vet=off", "-ldflags=-s -w", "-overlay", ovFile, "-o", bin, "./"+cm.Dir)
	build.Dir = r.root
	build.Env = cleanGoflags(os.Environ())
	if out, err := build.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("%v: %s", err, tail(string(out), 2000))
	}
	return bin, ovFile, nil
}

// runTests runs the covering tests of a mutant in bin (id >= 0: the
// schema binary, with that mutant chosen).
func (r *runner) runTests(cm *CoverMap, bin, ovFile string, id int, m Mutant, tests []string, secs float64) string {
	// The quick tests first: most mutants are killed by a unit test, and
	// -test.failfast cannot stop before a slow corpus test that comes
	// first in the binary. The covering tests run in phases by their own
	// time in the coverage runs (under 0.2 s, under 0.5 s, under 1 s, the
	// rest), the next phase only if the last passed. The verdict is the
	// same: KILLED if any covering test fails.
	for _, ph := range phases(cm.Tests, tests) {
		if st := r.runSome(cm, bin, ovFile, id, m, ph.tests, ph.secs); st != "LIVED" || ph.last {
			return st
		}
	}
	return r.runSome(cm, bin, ovFile, id, m, tests, secs)
}

type phase struct {
	tests []string
	secs  float64
	last  bool
}

// phaseLimits are the upper bounds (seconds) of the phases' tests.
var phaseLimits = []float64{0.2, 0.5, 1}

// phases splits tests by their time in the coverage runs (all: the
// coverage map's tests) into the non-empty phases of phaseLimits and the
// rest, in that order.
func phases(all []Test, tests []string) []phase {
	took := map[string]float64{}
	for _, t := range all {
		took[t.Name] = t.Seconds
	}
	out := make([]phase, len(phaseLimits)+1)
	for _, t := range tests {
		k := len(phaseLimits)
		for i, l := range phaseLimits {
			if took[t] < l {
				k = i
				break
			}
		}
		out[k].tests = append(out[k].tests, t)
		out[k].secs += took[t]
	}
	var ne []phase
	for _, p := range out {
		if len(p.tests) > 0 {
			ne = append(ne, p)
		}
	}
	if len(ne) > 0 {
		ne[len(ne)-1].last = true
	}
	return ne
}

// runSome runs tests of a mutant's covering tests (secs: their own time).
func (r *runner) runSome(cm *CoverMap, bin, ovFile string, id int, m Mutant, tests []string, secs float64) string {
	timeout := time.Duration(r.coef * secs * float64(time.Second))
	if timeout < r.floor {
		timeout = r.floor
	}
	// Each test also has its own limit, max(floor, coefficient x its own
	// time): a mutant that hangs a 0.5 s test is cut after the floor, not
	// after coefficient x the time of every covering test (in results a
	// hang waited 20 x 93 s, 64 s of them one slow test's).
	own := map[string]time.Duration{}
	for _, t := range cm.Tests {
		own[t.Name] = max(r.floor, time.Duration(r.coef*t.Seconds*float64(time.Second)))
	}
	pattern := "^(" + strings.Join(quoteAll(tests), "|") + ")$"
	if r.verifyRun != "" {
		pattern = r.verifyRun
	}
	if id >= 0 {
		// The schema binary's copy that runs mutant id (idBinary).
		b, err := idBinary(bin, id)
		if err != nil {
			fmt.Fprintf(r.log, "%s:%d:%d: %v\n", cm.Dir, m.Line, m.Column, err)
			return "NOT VIABLE"
		}
		defer os.Remove(b)
		bin = b
	}
	for attempt := 0; ; attempt++ {
		// The test binary's own -test.timeout is a backstop well past
		// ours: its clock runs on while a quiet window freezes it.
		// -test.v names each test as it starts and ends (testWatch).
		cmd := r.testCommand(bin, "-test.run", pattern, "-test.count=1", "-test.short", "-test.failfast", "-test.v",
			"-test.timeout="+(timeout+maxFrozen).String())
		cmd.Dir = filepath.Join(r.root, cm.Dir)
		cmd.Env = append(cleanGoflags(os.Environ()), "GOFLAGS=-overlay="+ovFile)
		w := newTestWatch()
		cmd.Stdout = w
		// A child that outlives the test binary and holds its stdout
		// must not hold Wait.
		cmd.WaitDelay = 10 * time.Second
		start := time.Now()
		timedOut, err := r.runFor(cmd, start, timeout, func(now time.Time) bool {
			return w.overdue(now, own, r.frozenFor)
		})
		end := time.Now()
		status := "LIVED"
		switch {
		case timedOut:
			status = "TIMED OUT"
		case err != nil:
			status = "KILLED"
		}
		// A kill during a freeze window may be a test that failed for its
		// timing: run it again. A time-out is not run again: its deadline
		// already moved by the seconds it was frozen.
		if status == "KILLED" && attempt < 3 && r.frozeDuring(start, end) {
			fmt.Fprintf(r.log, "%s:%d:%d %s during a freeze window: again\n", cm.Dir, m.Line, m.Column, status)
			continue
		}
		return status
	}
}

// maxFrozen bounds how long freeze windows may stretch one run.
const maxFrozen = 15 * time.Minute

// runFor runs cmd and kills it once it has run for timeout, not counting
// the seconds a freeze window of the quiet log held it (each window is at
// most 3 minutes; all of them together at most maxFrozen): a mutant that
// loops forever times out after its own timeout however often it was
// frozen, and one that was merely frozen is not cut off.
//
// overdue (when not nil) is asked every second as well: true kills the run
// as timed out (one test over its own limit).
func (r *runner) runFor(cmd *exec.Cmd, start time.Time, timeout time.Duration, overdue func(now time.Time) bool) (timedOut bool, err error) {
	if err := cmd.Start(); err != nil {
		return false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := start.Add(timeout)
	for {
		wait := time.Until(deadline)
		if overdue != nil {
			wait = min(wait, time.Second)
		}
		t := time.NewTimer(wait)
		select {
		case err := <-done:
			t.Stop()
			return false, err
		case <-t.C:
		}
		if overdue != nil && overdue(time.Now()) {
			return true, r.kill(cmd, done)
		}
		if time.Now().Before(deadline) {
			continue
		}
		frozen, open := r.frozenFor(start, time.Now())
		frozen = min(frozen, maxFrozen)
		switch {
		case open && frozen < maxFrozen:
			deadline = time.Now().Add(5 * time.Second)
			continue
		case start.Add(timeout + frozen).After(time.Now()):
			deadline = start.Add(timeout + frozen)
			continue
		}
		return true, r.kill(cmd, done)
	}
}

// kill ends a timed-out run and waits up to 5 s for it.
func (r *runner) kill(cmd *exec.Cmd, done chan error) error {
	_ = cmd.Process.Kill()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	return nil
}

// testWatch follows a test binary's -test.v output: which top-level
// tests are running, and since when (a parallel test from its CONT).
type testWatch struct {
	mu      sync.Mutex
	running map[string]time.Time
	partial []byte
	now     func() time.Time
}

func newTestWatch() *testWatch {
	return &testWatch{running: map[string]time.Time{}, now: time.Now}
}

func (w *testWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.line(string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) > 1<<16 {
		w.partial = w.partial[:0] // a test's own endless line: not a test event
	}
	return len(p), nil
}

func (w *testWatch) line(s string) {
	for _, p := range []string{"=== RUN ", "=== CONT ", "=== PAUSE ", "--- PASS: ", "--- FAIL: ", "--- SKIP: "} {
		rest, ok := strings.CutPrefix(s, p)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 || strings.Contains(f[0], "/") {
			return // a subtest runs inside its top-level test's time
		}
		if p == "=== RUN " || p == "=== CONT " {
			w.running[f[0]] = w.now()
		} else {
			delete(w.running, f[0])
		}
		return
	}
}

// overdue reports whether a running test has run past its limit (by
// name; a test not in limits has none here), not counting the seconds a
// freeze window held it.
func (w *testWatch) overdue(now time.Time, limits map[string]time.Duration, frozenFor func(s, e time.Time) (time.Duration, bool)) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, since := range w.running {
		limit, ok := limits[name]
		if !ok || now.Sub(since) <= limit {
			continue
		}
		if frozen, open := frozenFor(since, now); open || now.Sub(since)-frozen <= limit {
			continue
		}
		return true
	}
	return false
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = regexp.QuoteMeta(s)
	}
	return out
}

// frozeDuring reports whether a freeze window of the quiet log overlaps
// [start, end] (a second of slack each side).
func (r *runner) frozeDuring(start, end time.Time) bool {
	frozen, open := r.frozenFor(start, end)
	return frozen > 0 || open
}

// frozenFor returns how long the freeze windows of the quiet log overlap
// [start, end], with a second of slack each side, and whether a window
// was still open at end.
func (r *runner) frozenFor(start, end time.Time) (time.Duration, bool) {
	f, err := os.Open(r.quietLog)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	return frozenOverlap(f, start.Unix()-1, end.Unix()+1)
}

// frozenOverlap reads FROZEN/THAWED lines (unix seconds) and returns how
// long the windows overlap [s, e] and whether the last one is still open
// and began before e.
func frozenOverlap(r io.Reader, s, e int64) (time.Duration, bool) {
	var frozenAt int64 = -1
	var total int64
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 2 {
			continue
		}
		t, err := strconv.ParseInt(fs[1], 10, 64)
		if err != nil {
			continue
		}
		switch fs[0] {
		case "FROZEN":
			frozenAt = t
		case "THAWED":
			if frozenAt >= 0 {
				if lo, hi := max(frozenAt, s), min(t, e); hi > lo {
					total += hi - lo
				} else if hi == lo && frozenAt <= e && t >= s {
					total++ // a window touching the run counts
				}
			}
			frozenAt = -1
		}
	}
	open := frozenAt >= 0 && frozenAt <= e
	if open {
		total += e - max(frozenAt, s)
	}
	return time.Duration(total) * time.Second, open
}

// verifyKills runs the mutants of one file at the positions in at
// (line:col or line:col:TYPE, comma separated) against the tests that
// pattern selects, the comparison and arithmetic ones through one schema
// binary, and prints each one's status: the check that new tests kill the
// mutants they were written for (KILLED), and that an argued equivalent
// LIVES.
func verifyKills(out io.Writer, pattern, at string, floor time.Duration, quiet string, isolate []string, files []string) error {
	if len(files) != 1 || at == "" {
		return errors.New("-verify takes one file and -at")
	}
	f := files[0]
	src, err := os.ReadFile(f)
	if err != nil {
		return err
	}
	ms, err := Enumerate(f, src)
	if err != nil {
		return err
	}
	want := positions(at)
	var run []Mutant
	var sel []int
	for i, m := range ms {
		if picked(want, m) {
			run = append(run, m)
			sel = append(sel, i)
		} else {
			run = append(run, Mutant{Offset: -1})
		}
	}
	if len(sel) == 0 {
		return fmt.Errorf("no mutant of %s at %s", f, at)
	}
	root, err := goEnv("", "list", "-m", "-f", "{{.Dir}}")
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(f)
	if err != nil {
		return err
	}
	dir, err := filepath.Rel(root, filepath.Dir(abs))
	if err != nil {
		return err
	}
	work, err := workDir()
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	r := &runner{verifyRun: pattern, root: root, work: work, coef: 20, floor: floor, quietLog: quiet, log: os.Stderr, schema: true, isolate: isolate}
	cm := &CoverMap{Dir: dir}
	var bin, ov string
	held := map[int]bool{}
	drop := map[int]bool{}
	for round := 0; round < 8; round++ {
		ssrc, pkg, h, sites, err := schema(abs, src, run, drop)
		if err != nil || len(h) == 0 {
			break
		}
		bin, ov, err = r.build(cm, "schema", map[string][]byte{abs: ssrc, filepath.Join(filepath.Dir(abs), "zz_mutantrun_schema.go"): schemaSupport(pkg)})
		if err == nil {
			held = h
			break
		}
		bad, ok := schemaErrors(err.Error(), filepath.Base(abs), ssrc, sites)
		if !ok {
			// As the full run does: no shared binary, each mutant
			// compiled alone (a `budget--` in an if's init, mask.go
			// :49:13, made the schema a syntax error no site owns).
			fmt.Fprintf(os.Stderr, "schema: not used: %v\n", err)
			break
		}
		for i := range bad {
			drop[i] = true
		}
	}
	for _, i := range sel {
		m := ms[i]
		var st string
		if held[i] {
			st = r.runSome(cm, bin, ov, i, m, nil, 0)
		} else {
			st = r.runMutant(cm, abs, src, m, nil, 0)
		}
		fmt.Fprintf(out, "%s:%d:%d\t%s\t%s -> %s\t%s\n", f, m.Line, m.Column, m.Type, m.From, m.To, st)
	}
	return nil
}
