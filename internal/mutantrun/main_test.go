package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEnumerate pins gremlins v0.6.0's default mutants: which tokens, in
// which order, and the two identical mutants of a minus.
func TestEnumerate(t *testing.T) {
	src := []byte(`package p

func f(a, b int, s string) (int, string) {
	for i := 0; i < a; i++ {
		b -= a
	}
	if a == b || a >= -b {
		return a * b % 3, s + "x"
	}
	return a / b, s
}
`)
	ms, err := Enumerate("p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Type+" "+m.From.String()+">"+m.To.String())
	}
	want := []string{
		"CONDITIONALS_BOUNDARY <><=", "CONDITIONALS_NEGATION <>>=",
		"INCREMENT_DECREMENT ++>--",
		// b -= a: INVERT_ASSIGNMENTS is not a default mutator
		"CONDITIONALS_NEGATION ==>!=",
		"CONDITIONALS_BOUNDARY >=>>", "CONDITIONALS_NEGATION >=><",
		"INVERT_NEGATIVES ->+", "ARITHMETIC_BASE ->+",
		"ARITHMETIC_BASE %>*", "ARITHMETIC_BASE *>/",
		"ARITHMETIC_BASE +>-",
		"ARITHMETIC_BASE />*",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mutants\n got %q\nwant %q", got, want)
	}
	out, err := ms[4].Apply(src)
	if err != nil {
		t.Fatal(err)
	}
	if want := "if a == b || a > -b {"; !strings.Contains(string(out), want) {
		t.Fatalf("applied >= -> >: no %q in\n%s", want, out)
	}
	if ms[4].Line != 7 || ms[4].Column != 17 {
		t.Fatalf(">= at %d:%d, want 7:17", ms[4].Line, ms[4].Column)
	}
}

// TestBlockCovers is gremlins' coverage rule, boundaries included.
func TestBlockCovers(t *testing.T) {
	one := Block{StartLine: 5, StartCol: 10, EndLine: 5, EndCol: 20}
	multi := Block{StartLine: 5, StartCol: 10, EndLine: 8, EndCol: 3}
	cases := []struct {
		b         Block
		line, col int
		want      bool
	}{
		{one, 5, 10, true}, {one, 5, 20, true}, {one, 5, 9, false}, {one, 5, 21, false}, {one, 4, 15, false},
		{multi, 5, 9, false}, {multi, 5, 10, true}, {multi, 5, 99, true}, {multi, 6, 1, true},
		{multi, 8, 3, true}, {multi, 8, 4, false}, {multi, 9, 1, false},
	}
	for _, c := range cases {
		if got := c.b.Covers(c.line, c.col); got != c.want {
			t.Errorf("%+v covers %d:%d = %v, want %v", c.b, c.line, c.col, got, c.want)
		}
	}
}

// TestSpawningTests: a test reaching a helper that runs the test binary
// again covers everything; one that does not, only what it executes.
func TestSpawningTests(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import ("os"; "os/exec"; "testing")

func helper() { exec.Command(os.Args[0], "-test.run=^TestChild$").Run() }
func indirect() { helper() }
func TestSpawns(t *testing.T) { indirect() }
func TestBuilds(t *testing.T) { exec.Command("go", "build", "./testdata/x").Run() }
func TestPlain(t *testing.T) {}
`
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := spawningTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["TestSpawns"]; !ok {
		t.Errorf("TestSpawns not found spawning: %v", got)
	}
	if _, ok := got["TestBuilds"]; !ok {
		t.Errorf("TestBuilds not found spawning: %v", got)
	}
	if _, ok := got["TestPlain"]; ok {
		t.Errorf("TestPlain found spawning: %v", got)
	}
}

// TestSchema: each comparison becomes a choice between its mutants and
// itself by mutantrunID; comparisons in a const declaration and nested
// comparisons are left out (compiled one mutant at a time).
func TestSchema(t *testing.T) {
	src := []byte(`package p

const big = 1 < 2

type yes bool

func f(a, b int, c bool) yes {
	if a < b && (a == b) == c {
		return a >= b
	}
	return false
}
`)
	ms, err := Enumerate("p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	out, pkg, held, err := Schema("p.go", src, ms)
	if err != nil {
		t.Fatal(err)
	}
	if pkg != "p" {
		t.Errorf("package %q, want p", pkg)
	}
	// ms: const 1<2 (0, 1), a < b (2, 3), (a == b) == c (4), a == b (5), a >= b (6, 7)
	want := map[int]bool{2: true, 3: true, 6: true, 7: true}
	if !reflect.DeepEqual(held, want) {
		t.Errorf("held %v, want %v", held, want)
	}
	for _, s := range []string{
		"const big = 1 < 2",
		"((mutantrunID == 2) && ((a) <= (b)) || (mutantrunID == 3) && ((a) >= (b)) || (mutantrunID != 2 && mutantrunID != 3) && ((a) < (b))) && (a == b) == c",
		"return ((mutantrunID == 6) && ((a) > (b)) || (mutantrunID == 7) && ((a) < (b)) || (mutantrunID != 6 && mutantrunID != 7) && ((a) >= (b)))",
	} {
		if !strings.Contains(string(out), s) {
			t.Errorf("no %q in\n%s", s, out)
		}
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
		t.Errorf("schema does not parse: %v", err)
	}
}

// TestCaseExprsStandForTheSwitch: a mutant inside a case clause's
// expressions is covered by the tests that executed its switch (Go's cover
// tool puts case expressions in no block); other positions, the clause's
// body included, stand for themselves.
func TestCaseExprsStandForTheSwitch(t *testing.T) {
	src := []byte(`package p

func f(a, b error, n int) int {
	switch {
	case a != nil:
	case b != nil, n > 2:
		return 1
	}
	switch v := any(n).(type) {
	case int:
		return v
	}
	return 0
}
`)
	cases := caseExprs("p.go", src)
	for _, tc := range []struct{ line, col, wantLine, wantCol int }{
		{5, 9, 4, 2},   // a != nil
		{6, 9, 4, 2},   // b != nil
		{6, 20, 4, 2},  // n > 2, the clause's last expression
		{7, 10, 7, 10}, // return 1: the clause's body is a block of its own
		{10, 7, 9, 2},  // the type switch's case
		{3, 20, 3, 20}, // outside any switch
	} {
		l, c := at(cases, tc.line, tc.col)
		if l != tc.wantLine || c != tc.wantCol {
			t.Errorf("at(%d:%d) = %d:%d, want %d:%d", tc.line, tc.col, l, c, tc.wantLine, tc.wantCol)
		}
	}
}

// TestSkipReason reads a top-level skip and its reason from -test.v
// output, and nothing from a run, a subtest's skip or another test's.
func TestSkipReason(t *testing.T) {
	out := "=== RUN   TestCrawlFaults\n" +
		"    registry_test.go:240: before\n" +
		"    helpers_test.go:35: registry dump not present (stat x: no such file or directory)\n" +
		"--- SKIP: TestCrawlFaults (0.00s)\n" +
		"PASS\n"
	if got, want := skipReason(out, "TestCrawlFaults"), "registry dump not present (stat x: no such file or directory)"; got != want {
		t.Errorf("skipReason = %q, want %q", got, want)
	}
	for _, tc := range []struct{ out, name string }{
		{out, "TestCrawl"},
		{"=== RUN   TestA\n--- PASS: TestA (0.01s)\nPASS\n", "TestA"},
		{"=== RUN   TestA\n=== RUN   TestA/sub\n    --- SKIP: TestA/sub (0.00s)\n--- PASS: TestA (0.01s)\n", "TestA"},
	} {
		if got := skipReason(tc.out, tc.name); got != "" {
			t.Errorf("skipReason(%q, %s) = %q, want none", tc.out, tc.name, got)
		}
	}
	if got := skipReason("--- SKIP: TestB (0.00s)\nPASS\n", "TestB"); got != "skipped" {
		t.Errorf("skipReason without a message = %q, want skipped", got)
	}
}

// TestFrozenOverlap adds up the freeze windows of a quiet log that
// overlap a run: whole, partial, touching, outside, and one still open.
func TestFrozenOverlap(t *testing.T) {
	log := "FROZEN 100\nTHAWED 130\nFROZEN 200\nTHAWED 260\nFROZEN 300\n"
	for _, tc := range []struct {
		s, e     int64
		want     int64
		wantOpen bool
	}{
		{90, 150, 30, false},  // the first window inside the run
		{110, 120, 10, false}, // the run inside a window
		{120, 210, 20, false}, // the end of one, the start of the next
		{140, 190, 0, false},  // between windows
		{130, 140, 1, false},  // touching a thaw
		{250, 320, 30, true},  // 10 of the second, 20 of the open one
		{280, 290, 0, false},  // before the open window began
	} {
		got, open := frozenOverlap(strings.NewReader(log), tc.s, tc.e)
		if got != time.Duration(tc.want)*time.Second || open != tc.wantOpen {
			t.Errorf("frozenOverlap [%d, %d] = %v, %v; want %ds, %v", tc.s, tc.e, got, open, tc.want, tc.wantOpen)
		}
	}
}

// TestRunFor: a run that ends is not timed out; one that outlives its
// timeout (no freeze window in the log) is killed and timed out.
func TestRunFor(t *testing.T) {
	r := &runner{quietLog: filepath.Join(t.TempDir(), "none")}
	if timedOut, err := r.runFor(exec.Command("true"), time.Now(), time.Minute, nil); timedOut || err != nil {
		t.Errorf("true: timed out %v, %v", timedOut, err)
	}
	if timedOut, err := r.runFor(exec.Command("false"), time.Now(), time.Minute, nil); timedOut || err == nil {
		t.Errorf("false: timed out %v, %v; want an error", timedOut, err)
	}
	cmd := exec.Command("sleep", "60")
	if timedOut, _ := r.runFor(cmd, time.Now(), 50*time.Millisecond, nil); !timedOut {
		t.Errorf("sleep 60 with 50ms: not timed out")
	}
	if cmd.ProcessState == nil {
		t.Errorf("sleep 60 left running")
	}
}

// TestTestWatch: -test.v lines tell which top-level tests run since when;
// one past its own limit is overdue, a subtest or a paused or finished
// test is not, and a freeze window's seconds do not count. (A hang in a
// 0.5 s test waited 20 x the time of every covering test before: 31
// minutes for results/store.go.)
func TestTestWatch(t *testing.T) {
	t0 := time.Unix(1000, 0)
	now := t0
	w := newTestWatch()
	w.now = func() time.Time { return now }
	noFreeze := func(s, e time.Time) (time.Duration, bool) { return 0, false }
	limits := map[string]time.Duration{"TestQuick": time.Minute, "TestSlow": 20 * time.Minute, "TestPar": time.Minute}
	io.WriteString(w, "=== RUN   TestQuick\n=== RUN   TestQuick/sub\n    log line\n--- PASS: TestQuick/sub (0.00s)\n")
	now = t0.Add(59 * time.Second)
	if w.overdue(now, limits, noFreeze) {
		t.Errorf("TestQuick overdue after 59 s of its minute")
	}
	now = t0.Add(61 * time.Second)
	if !w.overdue(now, limits, noFreeze) {
		t.Errorf("TestQuick not overdue after 61 s")
	}
	froze := func(s, e time.Time) (time.Duration, bool) { return 30 * time.Second, false }
	if w.overdue(now, limits, froze) {
		t.Errorf("TestQuick overdue though 30 s of its 61 were frozen")
	}
	io.WriteString(w, "--- PASS: TestQuick (61.00s)\n=== RUN   TestSlow\n")
	now = t0.Add(10 * time.Minute)
	if w.overdue(now, limits, noFreeze) {
		t.Errorf("TestSlow overdue within its own 20 minutes")
	}
	io.WriteString(w, "--- FAIL: TestSlow (539.00s)\n=== RUN   TestPar\n=== PAUSE TestPar\n")
	now = t0.Add(30 * time.Minute)
	if w.overdue(now, limits, noFreeze) {
		t.Errorf("a paused test overdue")
	}
	io.WriteString(w, "=== CONT  TestPar\n=== RUN   TestUnknown\n")
	now = now.Add(30 * time.Second)
	if w.overdue(now, limits, noFreeze) {
		t.Errorf("TestPar overdue 30 s after CONT, or a test without a limit overdue")
	}
	now = now.Add(31 * time.Second)
	if !w.overdue(now, limits, noFreeze) {
		t.Errorf("TestPar not overdue 61 s after CONT")
	}
}

// TestRunForOverdue: a run whose overdue check fires is killed as timed
// out long before its own timeout.
func TestRunForOverdue(t *testing.T) {
	r := &runner{quietLog: filepath.Join(t.TempDir(), "none")}
	cmd := exec.Command("sleep", "60")
	start := time.Now()
	timedOut, _ := r.runFor(cmd, start, time.Minute, func(time.Time) bool { return true })
	if !timedOut || time.Since(start) > 10*time.Second {
		t.Errorf("timed out %v after %v, want true within seconds", timedOut, time.Since(start))
	}
}

// TestSchemaArithmetic: arithmetic, unary minus and ++/-- mutants are
// held by the schema too (helpers chosen at run time), nested in a
// comparison included; a for statement's post, a string concatenation
// (dropped after the compile error it causes) and a constant declaration
// are not. Built once and run under every mutant id, the program prints
// what the one mutated file would print.
func TestSchemaArithmetic(t *testing.T) {
	src := []byte(`package main

import "fmt"

const k = 2 - 1

func main() {
	a, b, s := 7, 2, "x"
	n := 0
	n++
	for i := 0; i < 1; i++ {
	}
	fmt.Println(
		a+b,
		a-b,
		a*b,
		a/b,
		a%b,
		-a,
		n,
		a+b > 3,
		s+"!",
		k,
	)
}
`)
	orig := []string{"9", "5", "14", "3", "1", "-7", "1", "true", "x!", "1"}
	// line -> the field it changes and to what (line 21 by type).
	change := map[int][2]string{10: {"6", "-1"}, 14: {"0", "5"}, 15: {"1", "9"}, 16: {"2", "3"}, 17: {"3", "14"}, 18: {"4", "14"}, 19: {"5", "7"}}
	ms, err := Enumerate("main.go", src)
	if err != nil {
		t.Fatal(err)
	}
	dir, held := buildSchema(t, src, ms)
	for i, m := range ms {
		want := !(m.Line == 5 || m.Line == 11 && m.Type == incrementDecrement || m.Line == 22)
		if held[i] != want {
			t.Errorf("mutant %d (%d:%d %s) held %v, want %v", i, m.Line, m.Column, m.Type, held[i], want)
		}
		if !held[i] {
			continue
		}
		fields := slices.Clone(orig)
		if c, ok := change[m.Line]; ok {
			f, _ := strconv.Atoi(c[0])
			fields[f] = c[1]
		}
		if m.Line == 21 && m.Type == conditionalsNegation {
			fields[7] = "false"
		}
		// The mutant's own copy of the binary, run with an empty
		// environment: the number is in the binary, not in a variable a
		// child's cleaned environment would lose.
		bin, err := idBinary(filepath.Join(dir, "p"), i)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin)
		cmd.Env = []string{}
		got, _ := cmd.CombinedOutput()
		os.Remove(bin)
		if want := strings.Join(fields, " ") + "\n"; string(got) != want {
			t.Errorf("mutant %d (%d:%d %s): schema prints %q, want %q", i, m.Line, m.Column, m.Type, got, want)
		}
	}
	got, _ := exec.Command(filepath.Join(dir, "p")).CombinedOutput()
	if want := strings.Join(orig, " ") + "\n"; string(got) != want {
		t.Errorf("no mutant: %q, want %q", got, want)
	}
}

// TestSchemaErrorAtStatementStart: a compile error the compiler places
// at the start of a statement, outside every site (`c += 'a' - 'A'`: the
// helper's rune no longer matches the byte), drops the sites of that line
// instead of giving the schema up (scoring/match.go compiled each of its
// 202 mutants alone in session 8 for that one line).
func TestSchemaErrorAtStatementStart(t *testing.T) {
	src := []byte(`package main

import "fmt"

func main() {
	c := byte('x')
	c += 'a' - 'A'
	n := 3
	fmt.Println(c, n-1)
}
`)
	ms, err := Enumerate("main.go", src)
	if err != nil {
		t.Fatal(err)
	}
	_, held := buildSchema(t, src, ms)
	for i, m := range ms {
		if want := m.Line != 7; held[i] != want {
			t.Errorf("mutant %d (%d:%d %s) held %v, want %v", i, m.Line, m.Column, m.Type, held[i], want)
		}
	}
}

// TestSchemaErrorWithoutColumn: past column 1023 of a line the compiler
// gives an error's line without its column ("schema.x.go:681: string does
// not satisfy mutantrunNumber"); the sites of that line are dropped and
// the rest stays in the schema. Until session 9 such an error gave the
// schema up, so probe/check_schema.go and probe/inject.go compiled each of
// their 364 mutants alone, 30-50 s each on this machine.
func TestSchemaErrorWithoutColumn(t *testing.T) {
	var terms []string
	for i := range 24 {
		terms = append(terms, fmt.Sprintf(`m["key%02d"] == "#"+anchor`, i))
	}
	src := []byte(`package main

import "fmt"

func find(m map[string]any, anchor string) bool {
	return ` + strings.Join(terms, " || ") + `
}

func main() {
	n := 3
	fmt.Println(find(map[string]any{"key07": "#a"}, "a"), n-1)
}
`)
	ms, err := Enumerate("main.go", src)
	if err != nil {
		t.Fatal(err)
	}
	out, _, _, sites, err := schema("main.go", src, ms, map[int]bool{})
	if err != nil {
		t.Fatal(err)
	}
	msg := "../mutantrun-1/schema.main.go:6: string does not satisfy mutantrunNumber (string missing in ~int | ~float64)"
	if bad, ok := schemaErrors(msg, "main.go", out, sites); !ok || len(bad) == 0 {
		t.Fatalf("an error without a column: %v, %v; want the sites of line 6", bad, ok)
	}
	_, held := buildSchema(t, src, ms)
	for i, m := range ms {
		if want := m.Line != 6; held[i] != want {
			t.Errorf("mutant %d (%d:%d %s) held %v, want %v", i, m.Line, m.Column, m.Type, held[i], want)
		}
	}
}

// buildSchema builds the schema of the program src (package main) in a
// new module as the runner does, dropping in rounds the sites the
// compiler's errors name, and returns its folder (the binary is p) and
// the mutants the schema holds.
func buildSchema(t *testing.T, src []byte, ms []Mutant) (string, map[int]bool) {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte("module m\n\ngo 1.22\n"))
	write("zz_mutantrun_schema.go", schemaSupport("main"))
	drop := map[int]bool{}
	for round := 0; ; round++ {
		out, _, held, sites, err := schema("main.go", src, ms, drop)
		if err != nil {
			t.Fatal(err)
		}
		write("main.go", out)
		b, err := exec.Command("go", "build", "-C", dir, "-o", "p").CombinedOutput()
		if err == nil {
			return dir, held
		}
		// The runner's overlay names the file schema.main.go.
		msg := strings.ReplaceAll(string(b), "main.go:", "../mutantrun-1/schema.main.go:")
		bad, ok := schemaErrors(msg, "main.go", out, sites)
		if !ok || round > 3 {
			t.Fatalf("schema does not compile (round %d): %s\n%s", round, b, out)
		}
		for i := range bad {
			drop[i] = true
		}
	}
}

// TestIDBinaryRefusesAmbiguousMarker: a binary where the marker of the
// mutant's number is missing, or there twice, is refused, not patched at
// a guess.
func TestIDBinaryRefusesAmbiguousMarker(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"none":  "no marker here",
		"twice": idMarker + idUnset + " and " + idMarker + idUnset,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		if b, err := idBinary(p, 3); err == nil {
			t.Errorf("%s: patched %s", name, b)
		}
	}
	p := filepath.Join(dir, "once")
	if err := os.WriteFile(p, []byte("x"+idMarker+idUnset+"y"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := idBinary(p, 12)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(b)
	if want := "x" + idMarker + "+000000012y"; string(got) != want {
		t.Errorf("patched %q, want %q", got, want)
	}
}

// TestPhases: the covering tests run quickest first, in phases by their
// own time.
func TestPhases(t *testing.T) {
	all := []Test{{Name: "TestA", Seconds: 0.1}, {Name: "TestCorpus", Seconds: 9}, {Name: "TestB", Seconds: 0.3}, {Name: "TestOne", Seconds: 1}, {Name: "TestC", Seconds: 0.15}}
	got := phases(all, []string{"TestCorpus", "TestA", "TestOne", "TestB", "TestC"})
	want := []phase{{tests: []string{"TestA", "TestC"}, secs: 0.25}, {tests: []string{"TestB"}, secs: 0.3}, {tests: []string{"TestCorpus", "TestOne"}, secs: 10, last: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("phases = %+v, want %+v", got, want)
	}
	if got := phases(all, nil); got != nil {
		t.Errorf("no tests: %+v", got)
	}
}

// TestChildrenCover: a test that re-executes the test binary covers, beyond
// its own profile, only what its children can run: the prelude (init,
// TestMain, the stage Main dispatches to, and what they reach, methods of
// the types they name included) and the dispatch-table roles it spells,
// less the roles declared seen (their code is in the profile) but with the
// roles those start. A test whose code runs the go command still covers
// everything, and -children=all is the rule before session 8. Before the
// rule, TestStage covered unrelated's mutant too.
func TestChildrenCover(t *testing.T) {
	dir := t.TempDir()
	pkg := `package p

import "os"

const stageArgv0 = "p-stage"

const k = 2 * 3 // K

func Main() {
	if len(os.Args) > 0 && os.Args[0] == stageArgv0 {
		os.Exit(runStage())
	}
}

func runStage() int {
	_ = stageErr()
	return helper(1) + 1 // STAGE
}

func helper(n int) int { return n * 2 } // HELPER

type thing struct{ n int }

func (t *thing) Error() string {
	if t.n > 0 { // METHOD
		return "x"
	}
	return "y"
}

func stageErr() error { return &thing{n: 1} }

func Launch(n int) int { return n - 1 } // LAUNCH

func server(n int) int { return n + k } // SERVER

func unrelated(n int) int { return n % 7 } // UNRELATED

var table = []int{len(os.Args) - 1} // VAR
`
	tests := `package p

import (
	"os"
	"os/exec"
	"testing"
)

func TestMain(m *testing.M) {
	Main()
	if len(os.Args) > 2 && os.Args[1] == "fake" {
		os.Exit(fakes[os.Args[2]]())
	}
	os.Exit(m.Run())
}

//mutantrun:seen host
var fakes = map[string]func() int{
	"srv":   func() int { return server(1) },
	"host":  func() int { return Launch(2) + run("srv") },
	"other": func() int { return unrelated(3) },
}

func run(role string) int { exec.Command(os.Args[0], "fake", role).Run(); return 0 }

func TestStage(t *testing.T) { exec.Command("/proc/self/exe").Run() }
func TestSrv(t *testing.T)   { run("srv") }
func TestHost(t *testing.T)  { run("host") }
func TestGo(t *testing.T)    { run("srv"); exec.Command("go", "build").Run() }
func TestPlain(t *testing.T) { unrelated(1) }
`
	for name, src := range map[string]string{"p.go": pkg, "p_test.go": tests} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	line := func(mark string) int {
		for i, l := range strings.Split(pkg, "\n") {
			if strings.HasSuffix(l, "// "+mark) {
				return i + 1
			}
		}
		t.Fatalf("no line %s", mark)
		return 0
	}
	lineBlock := func(mark string) Block { l := line(mark); return Block{l, 1, l, 200} }
	cm := &CoverMap{Tests: []Test{
		{Name: "TestStage", Spawns: true, Blocks: map[string][]Block{}},
		{Name: "TestSrv", Spawns: true, Blocks: map[string][]Block{}},
		// The seen role's code is in its profile (flushed or written at exit).
		{Name: "TestHost", Spawns: true, Blocks: map[string][]Block{"p.go": {lineBlock("LAUNCH")}}},
		{Name: "TestGo", Spawns: true, Blocks: map[string][]Block{}},
		{Name: "TestPlain", Blocks: map[string][]Block{"p.go": {lineBlock("UNRELATED")}}},
	}}
	ms, err := Enumerate("p.go", []byte(pkg))
	if err != nil {
		t.Fatal(err)
	}
	at := func(mark string) Mutant {
		for _, m := range ms {
			if m.Line == line(mark) {
				return m
			}
		}
		t.Fatalf("no mutant on line %s", mark)
		return Mutant{}
	}
	stage := []string{"TestStage", "TestSrv", "TestHost", "TestGo"}
	want := map[string][]string{
		"STAGE":     stage,
		"HELPER":    stage,
		"METHOD":    stage, // thing is named by stageErr: its methods come with it
		"SERVER":    {"TestSrv", "TestHost", "TestGo"},
		"K":         {"TestStage", "TestSrv", "TestHost", "TestGo", "TestPlain"}, // in no block, outside functions: every test
		"LAUNCH":    {"TestHost", "TestGo"},
		"UNRELATED": {"TestGo", "TestPlain"},
		"VAR":       {"TestStage", "TestSrv", "TestHost", "TestGo", "TestPlain"}, // the same
	}
	cc, err := newChildCover(cm, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := newFileCode(dir, filepath.Join(dir, "p.go"), []byte(pkg))
	if err != nil {
		t.Fatal(err)
	}
	for mark, w := range want {
		got, _ := coveringTests(cm, cc, fc, at(mark))
		if !slices.Equal(got, w) {
			t.Errorf("%s: covering tests %v, want %v", mark, got, w)
		}
	}
	if why := cc.all["TestGo"]; !strings.Contains(why, `"go"`) {
		t.Errorf("TestGo covers everything because %q, want the go command named", why)
	}
	old, err := newChildCover(cm, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	for mark := range want {
		got, _ := coveringTests(cm, old, fc, at(mark))
		if w := []string{"TestStage", "TestSrv", "TestHost", "TestGo"}; !slices.Contains(got, "TestStage") || len(got) < len(w) {
			t.Errorf("-children=all, %s: covering tests %v, want every spawning test", mark, got)
		}
	}
}

// TestChildrenTableUsedOtherwise: a dispatch table a test ranges over (or
// passes on) starts roles by names no literal spells, so all its values
// count for every spawning test; a child given -test.run runs test
// functions, which the graph does not follow: its test covers everything.
func TestChildrenTableUsedOtherwise(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"p.go": "package p\n\nfunc unrelated(n int) int { return n % 7 }\n",
		"p_test.go": `package p

import (
	"os"
	"os/exec"
	"testing"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "fake" {
		os.Exit(fakes[os.Args[2]]())
	}
	os.Exit(m.Run())
}

var fakes = map[string]func() int{
	"other": func() int { return unrelated(3) },
}

func TestAll(t *testing.T) {
	for name := range fakes {
		exec.Command(os.Args[0], "fake", name).Run()
	}
}

func TestHelperRun(t *testing.T) { exec.Command(os.Executable, "-test.run=^TestX$").Run() }
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cm := &CoverMap{Tests: []Test{{Name: "TestAll", Spawns: true}, {Name: "TestHelperRun", Spawns: true}}}
	cc, err := newChildCover(cm, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Enumerate("p.go", []byte(files["p.go"]))
	if err != nil || len(ms) != 1 {
		t.Fatalf("mutants %v, %v", ms, err)
	}
	fc := &fileCode{base: "p.go", bodies: funcBodies("p.go", []byte(files["p.go"]))}
	got, _ := coveringTests(cm, cc, fc, ms[0])
	if want := []string{"TestAll", "TestHelperRun"}; !slices.Equal(got, want) {
		t.Errorf("covering tests %v, want %v", got, want)
	}
	if why := cc.all["TestHelperRun"]; !strings.Contains(why, "test.run") {
		t.Errorf("TestHelperRun covers everything because %q, want -test.run named", why)
	}
}

// TestCacheKeySharedByClones: two clones of one module at one content
// have one coverage-cache key (the key hashes paths below the module root,
// not absolute ones), so clones share the cover map; a changed test file
// changes it.
func TestCacheKeySharedByClones(t *testing.T) {
	mod := func() string {
		root := t.TempDir()
		for name, src := range map[string]string{
			"go.mod":          "module example.com/m\n\ngo 1.22\n",
			"p/p.go":          "package p\n\nfunc F() int { return 1 }\n",
			"p/p_test.go":     "package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F() }\n",
			"p/testdata/x.in": "data\n",
		} {
			f := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	key := func(root string) string {
		k, err := (&runner{root: root, modPath: "example.com/m"}).cacheKey("p")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	a, b := mod(), mod()
	ka, kb := key(a), key(b)
	if ka != kb {
		t.Errorf("clones at %s and %s have keys %s and %s, want one", a, b, ka, kb)
	}
	if err := os.WriteFile(filepath.Join(b, "p/p_test.go"), []byte("package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if kc := key(b); kc == ka {
		t.Errorf("a changed test file kept the key %s", kc)
	}
	if err := os.WriteFile(filepath.Join(a, "p/testdata/x.in"), []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if kd := key(a); kd == ka {
		t.Errorf("changed testdata kept the key %s", kd)
	}
}
