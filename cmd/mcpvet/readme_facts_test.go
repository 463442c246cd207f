package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/scoring"
)

// readme returns the README, for the tests that keep its figures true.
func readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestReadmeRealServers keeps the README's table of the four pinned real
// servers equal to what TestRealNPMServers recorded of them
// (scan/testdata/real/*.golden.json): tool count, probes per class, score
// and verdict. The rows are found by the package name, so the table may
// move or gain columns around them.
func TestReadmeRealServers(t *testing.T) {
	s := readme(t)
	row := regexp.MustCompile("(?m)^\\| `@modelcontextprotocol/server-([a-z-]+)@[0-9.]+` \\| (\\d+) \\| (\\d+) / (\\d+) / (\\d+) \\| ([0-9.]+) \\| ([a-z_]+) \\|")
	rows := row.FindAllStringSubmatch(s, -1)
	if len(rows) != 4 {
		t.Fatalf("README: %d rows of the real-server table, want 4", len(rows))
	}
	for _, r := range rows {
		data, err := os.ReadFile(filepath.Join("..", "..", "scan", "testdata", "real", "server-"+r[1]+".golden.json"))
		if err != nil {
			t.Fatal(err)
		}
		var g struct {
			Tools  []string `json:"tools"`
			Probes []struct {
				Class string `json:"class"`
			} `json:"probes"`
			Score   float64 `json:"score"`
			Verdict string  `json:"verdict"`
		}
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, p := range g.Probes {
			n[p.Class]++
		}
		want := fmt.Sprintf("%d | %d / %d / %d | %.1f | %s", len(g.Tools), n["tool_error"], n["protocol_error"], n["accepted"], g.Score, g.Verdict)
		got := fmt.Sprintf("%s | %s / %s / %s | %s | %s", r[2], r[3], r[4], r[5], r[6], r[7])
		if got != want {
			t.Errorf("README row of server-%s says %q; the recording says %q", r[1], got, want)
		}
	}
}

// TestReadmeQuotedFigures checks the other figures the README quotes: the
// rubric version of its JSON example, the tool count of the recorded
// server-everything listing the conformance benchmark runs on.
func TestReadmeQuotedFigures(t *testing.T) {
	s := readme(t)
	for _, m := range regexp.MustCompile(`"rubricVersion": "([^"]+)"`).FindAllStringSubmatch(s, -1) {
		if m[1] != scoring.RubricVersion {
			t.Errorf("README shows \"rubricVersion\": %q; the rubric is %q", m[1], scoring.RubricVersion)
		}
	}
	m := regexp.MustCompile(`conformance checks of the (\d+) tools of server-everything's recorded listing`).FindStringSubmatch(s)
	if m == nil {
		t.Fatal("README: no Speed row for the conformance checks of server-everything's recorded listing")
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "probe", "testdata", "check", "everything.pages.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Pages []struct {
			Method string `json:"method"`
			Result struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	tools := 0
	for _, p := range rec.Pages {
		if p.Method == "tools/list" {
			tools += len(p.Result.Tools)
		}
	}
	if n, _ := strconv.Atoi(m[1]); n != tools {
		t.Errorf("README quotes %d tools of the recorded listing; it has %d", n, tools)
	}
}

// TestReadmeVersionOutput checks what the README says `mcpvet version`
// prints: a build of the checkout without a stamped version gives Go's
// pseudo-version v0.0.0-DATE-COMMIT (12 hex digits of HEAD), `go run`
// gives dev, and
// scripts/build.sh's stamp wins (TestBuildScript).
func TestReadmeVersionOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	s := strings.Join(strings.Fields(readme(t)), " ")
	for _, claim := range []string{"a build of the checkout (`go build`, `go install ./cmd/mcpvet`) gives Go's pseudo-version `v0.0.0-DATE-COMMIT`", "`go run` gives `dev`"} {
		if !strings.Contains(s, claim) {
			t.Errorf("README no longer says %q", claim)
		}
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	// Go's defaults, whatever this machine's GOFLAGS say (-buildvcs=false
	// is common in CI images).
	env := append(os.Environ(), "GOFLAGS=-buildvcs=auto")
	// A fresh clone of HEAD, as a newcomer has (a git worktree's .git
	// file gives Go no commit to record).
	clone := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command("git", "clone", "-q", "../..", clone).CombinedOutput(); err != nil {
		t.Skipf("git clone: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", clone, "checkout", "-q", strings.TrimSpace(string(head))).CombinedOutput(); err != nil {
		t.Fatalf("git checkout: %v\n%s", err, out)
	}
	bin := filepath.Join(t.TempDir(), "mcpvet")
	build := exec.Command("go", "build", "-o", bin, "./cmd/mcpvet")
	build.Dir = clone
	build.Env = env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(string(head))[:12]
	if got := strings.TrimPrefix(strings.TrimSpace(string(out)), "mcpvet version "); !regexp.MustCompile(`^v0\.0\.0-\d{14}-` + commit + `(\+dirty)?$`).MatchString(got) {
		t.Errorf("mcpvet version = %q, want v0.0.0-DATE-%s (+dirty with changes)", got, commit)
	}
	run := exec.Command("go", "run", "./cmd/mcpvet", "version")
	run.Dir = clone
	run.Env = env
	out, err = run.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimPrefix(strings.TrimSpace(string(out)), "mcpvet version "); got != "dev" {
		t.Errorf("go run . version = %q, want dev", got)
	}
}
