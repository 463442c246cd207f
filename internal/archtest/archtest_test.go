package archtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcpvet/mcpvet"

// pkg is the part of `go list -json` the rules need.
type pkg struct {
	ImportPath string
	Imports    []string // direct, without test files
	Deps       []string // transitive, without test files
}

// rule is one row of the rules table in docs/ARCHITECTURE.md.
type rule struct {
	line     int
	subject  string   // a package pattern, or "*"
	only     bool     // "imports only" (direct) rather than "imports none of" (transitive)
	patterns []string // module-relative package patterns
	todo     bool     // "to do (issue 18)": reported, not enforced
}

var (
	tableRow = regexp.MustCompile("^\\| `([^`]+)` \\| imports (none of|only) (.+?) \\| (holds|to do \\(issue 18\\)) \\|$")
	backtick = regexp.MustCompile("`([^`]+)`")
)

// readRules parses the rows between the rules markers.
func readRules(r io.Reader) ([]rule, error) {
	var rules []rule
	in := false
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "<!-- rules: begin -->":
			in = true
		case line == "<!-- rules: end -->":
			return rules, nil
		case !in || strings.HasPrefix(line, "| package") || strings.HasPrefix(line, "| ---"):
		default:
			m := tableRow.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("line %d: %q is not a rule row (| `PKG` | imports none of|only `A`, `B` | holds|to do (issue 18) |)", n, line)
			}
			ru := rule{line: n, subject: m[1], only: m[2] == "only", todo: m[4] != "holds"}
			for _, b := range backtick.FindAllStringSubmatch(m[3], -1) {
				ru.patterns = append(ru.patterns, b[1])
			}
			rules = append(rules, ru)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, errors.New("no <!-- rules: begin --> ... <!-- rules: end --> table")
}

// match reports whether the module-relative path rel matches pattern p.
func match(p, rel string) bool {
	if base, ok := strings.CutSuffix(p, "/..."); ok {
		return rel == base || strings.HasPrefix(rel, base+"/")
	}
	return rel == p
}

// violations returns the module packages sp imports against ru.
func (ru rule) violations(sp pkg) []string {
	list := sp.Deps
	if ru.only {
		list = sp.Imports
	}
	var bad []string
	for _, imp := range list {
		rel, ok := strings.CutPrefix(imp, module+"/")
		if !ok {
			continue // the standard library and other modules
		}
		hit := slices.ContainsFunc(ru.patterns, func(p string) bool { return match(p, rel) })
		if hit != ru.only {
			bad = append(bad, rel)
		}
	}
	return bad
}

// listPackages runs `go list -json` over the module at root.
func listPackages(t *testing.T, root string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestImportRules checks every rule of docs/ARCHITECTURE.md marked
// "holds" and reports the state of those marked "to do (issue 18)".
func TestImportRules(t *testing.T) {
	root := filepath.Join("..", "..")
	f, err := os.Open(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules, err := readRules(f)
	if err != nil {
		t.Fatalf("docs/ARCHITECTURE.md: %v", err)
	}
	pkgs := listPackages(t, root)
	for _, ru := range rules {
		var subjects []pkg
		for _, p := range pkgs {
			rel, _ := strings.CutPrefix(p.ImportPath, module+"/")
			if ru.subject == "*" && !match("cmd/...", rel) || match(ru.subject, rel) {
				subjects = append(subjects, p)
			}
		}
		if len(subjects) == 0 {
			t.Errorf("ARCHITECTURE.md:%d: no package matches %q", ru.line, ru.subject)
			continue
		}
		var found []string
		for _, sp := range subjects {
			rel, _ := strings.CutPrefix(sp.ImportPath, module+"/")
			for _, b := range ru.violations(sp) {
				found = append(found, rel+" -> "+b)
			}
		}
		switch {
		case !ru.todo && len(found) > 0:
			t.Errorf("ARCHITECTURE.md:%d: %s imports against the rule:\n\t%s", ru.line, ru.subject, strings.Join(found, "\n\t"))
		case ru.todo && len(found) == 0:
			t.Logf("ARCHITECTURE.md:%d: the to-do rule for %s holds now; mark it \"holds\"", ru.line, ru.subject)
		case ru.todo:
			t.Logf("ARCHITECTURE.md:%d: to do (issue 18): %s", ru.line, strings.Join(found, ", "))
		}
	}
}

// unruled returns the module packages (module-relative) that no rule
// names as its subject, the catch-all `*` aside.
func unruled(rules []rule, pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		rel, _ := strings.CutPrefix(p.ImportPath, module+"/")
		if !slices.ContainsFunc(rules, func(ru rule) bool { return ru.subject != "*" && match(ru.subject, rel) }) {
			out = append(out, rel)
		}
	}
	return out
}

// architectureRules reads the rules of docs/ARCHITECTURE.md.
func architectureRules(t *testing.T) []rule {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules, err := readRules(f)
	if err != nil {
		t.Fatalf("docs/ARCHITECTURE.md: %v", err)
	}
	return rules
}

// TestEveryPackageHasARow: no package of the module escapes the rules
// table; each is the subject of a row of its own (or of its folder's
// pattern), not only of `*`.
func TestEveryPackageHasARow(t *testing.T) {
	rules := architectureRules(t)
	if got := unruled(rules, listPackages(t, filepath.Join("..", ".."))); len(got) > 0 {
		t.Errorf("packages without a row in docs/ARCHITECTURE.md's rules table: %v", got)
	}
	// The check itself: a package no row names is reported.
	if got := unruled(rules, []pkg{{ImportPath: module + "/newtop/thing"}}); !slices.Equal(got, []string{"newtop/thing"}) {
		t.Errorf("unruled = %v, want [newtop/thing]", got)
	}
}

// TestRulesForbid checks the rules of docs/ARCHITECTURE.md against
// imports the layering forbids, one at a time: each must break a rule.
func TestRulesForbid(t *testing.T) {
	rules := architectureRules(t)
	for _, edge := range [][2]string{
		{"scan/source", "scoring"},
		{"scan/source", "sandbox"},
		{"results/report", "scoring"},
		{"results", "scoring"},
		{"results", "sandbox"},
		{"probe", "sandbox"},
		{"sandbox", "probe"},
		{"scoring", "results"},
		{"vocab", "probe"},
		{"internal/safe", "probe"},
		{"internal/authchallenge", "vocab"},
		{"cmd/mcpvet", "probe"},
		{"bench/sandboxbench", "scan"},
		{"results/internal/fixture", "scoring"},
		{"deploy/kubernetes", "probe"},
	} {
		sp := pkg{ImportPath: module + "/" + edge[0], Imports: []string{module + "/" + edge[1]}, Deps: []string{module + "/" + edge[1]}}
		broken := false
		for _, ru := range rules {
			if (ru.subject == "*" && !match("cmd/...", edge[0]) || match(ru.subject, edge[0])) && len(ru.violations(sp)) > 0 {
				broken = true
			}
		}
		if !broken {
			t.Errorf("%s -> %s breaks no rule of docs/ARCHITECTURE.md", edge[0], edge[1])
		}
	}
}

// TestRuleViolations checks the checker on a graph that breaks each kind
// of rule, so that a rule which silently matches nothing cannot pass.
func TestRuleViolations(t *testing.T) {
	doc := "<!-- rules: begin -->\n" +
		"| package | rule | status |\n| --- | --- | --- |\n" +
		"| `sandbox` | imports none of `probe`, `scan/...` | holds |\n" +
		"| `cmd/mcpvet` | imports only `scan/...`, `internal/...` | holds |\n" +
		"<!-- rules: end -->\n"
	rules, err := readRules(strings.NewReader(doc))
	if err != nil || len(rules) != 2 {
		t.Fatalf("readRules = %v, %v; want 2 rules", rules, err)
	}
	m := module + "/"
	sandbox := pkg{ImportPath: m + "sandbox", Deps: []string{"context", m + "internal/canary", m + "scan/source"}}
	cmd := pkg{ImportPath: m + "cmd/mcpvet", Imports: []string{"fmt", m + "scan", m + "scan/source", m + "internal/safe", m + "probe"}}
	if got := rules[0].violations(sandbox); !slices.Equal(got, []string{"scan/source"}) {
		t.Errorf("none-of violations = %q, want [scan/source]", got)
	}
	if got := rules[1].violations(cmd); !slices.Equal(got, []string{"probe"}) {
		t.Errorf("only violations = %q, want [probe]", got)
	}
	if _, err := readRules(strings.NewReader("<!-- rules: begin -->\n| `x` | may import `y` | holds |\n")); err == nil {
		t.Error("a malformed row was accepted")
	}
}
