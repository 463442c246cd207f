package probe

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// buildFixture builds testdata/servers/NAME into a temporary directory.
func buildFixture(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a fixture server")
	}
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, "../testdata/servers/"+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, out)
	}
	return bin
}

// TestDefectsFixture runs every check on the defects fixture server and
// compares the findings with testdata/check/defects.golden: the protocol,
// schema, name, annotation, prompt, resource and template checks on its
// listing, the structured output check on a tools/call result, and the
// declared-versus-observed check against defects.server.json, once with
// the server alive and once with it dying for lack of variables.
func TestDefectsFixture(t *testing.T) {
	bin := buildFixture(t, "defects")
	serverJSON, err := os.ReadFile(filepath.Join("testdata", "check", "defects.server.json"))
	if err != nil {
		t.Fatal(err)
	}
	target := Target{Name: "@mcpvet/defects", Source: "registry", Transport: "stdio", Command: []string{"defects"}}
	c := NewChecker()
	var b strings.Builder

	s := startRaw(t, nil, bin)
	pages := recordSession(t, s, "2025-11-25")
	res := resultFromPages(t, pages)
	res.Target = target
	section(&b, "check", c.Check(res, pages))

	var structured Tool
	for _, tl := range res.Tools {
		if tl.Name == "structured" {
			structured = tl
		}
	}
	callRes, rpcErr := s.call(t, 100, "tools/call", map[string]any{"name": "structured", "arguments": map[string]any{"q": "x"}})
	if rpcErr != nil {
		t.Fatalf("tools/call: %s", rpcErr)
	}
	var cr struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(callRes, &cr); err != nil {
		t.Fatal(err)
	}
	section(&b, "structured", c.CheckStructuredOutput(structured, cr.StructuredContent))
	section(&b, "declared-alive", CheckDeclared(res, serverJSON))

	dead := startRaw(t, nil, bin, "die")
	select {
	case <-dead.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the fixture did not exit in die mode")
	}
	died := &Result{Target: target, Liveness: Liveness{Status: vocab.StatusMissingCredentials, StderrTail: dead.stderrText(),
		Evidence: "Error: DEFECTS_API_KEY environment variable is required"}}
	section(&b, "declared-died", CheckDeclared(died, serverJSON))

	compareGolden(t, filepath.Join("testdata", "check", "defects.golden"), b.String())
}

func section(b *strings.Builder, name string, fs []Finding) {
	for _, l := range strings.SplitAfter(findingLines(fs), "\n") {
		if l != "" {
			b.WriteString(name + "\t" + l)
		}
	}
}

// TestWellbehavedFixtureIsClean runs every check on the exemplary fixture
// server (testdata/servers/wellbehaved, built on the go-sdk): the passing
// counterpart of the defects fixture, it must produce no finding at all.
func TestWellbehavedFixtureIsClean(t *testing.T) {
	bin := buildFixture(t, "wellbehaved")
	s := startRaw(t, nil, bin)
	pages := recordSession(t, s, "2025-11-25")
	res := resultFromPages(t, pages)
	if len(res.Tools) == 0 || len(res.Prompts) == 0 || len(res.Resources) == 0 || len(res.ResourceTemplates) == 0 {
		t.Fatalf("the fixture listed %d tools, %d prompts, %d resources, %d templates; want some of each",
			len(res.Tools), len(res.Prompts), len(res.Resources), len(res.ResourceTemplates))
	}
	if got := NewChecker().Check(res, pages); len(got) != 0 {
		t.Errorf("findings on the well-behaved server:\n%s", findingLines(got))
	}
}
