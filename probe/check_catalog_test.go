package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// findingsDocPath is the generated catalog document.
var findingsDocPath = filepath.Join("..", "docs", "findings.md")

// findingsDoc renders the catalog as Markdown: a severity legend, then one
// table per area.
func findingsDoc(entries []CatalogEntry) string {
	var b strings.Builder
	b.WriteString("# Finding codes\n\n")
	b.WriteString("<!-- Generated from probe.Catalog(); do not edit. Regenerate with: go test ./probe -run TestFindingsDoc -update -->\n\n")
	b.WriteString("Every finding mcpvet reports carries a stable code `area/name`, a severity, the subject it is about ")
	b.WriteString("(`server`, `tool:NAME`, `prompt:NAME`, `resource:URI`, `template:URI`; an item without its name is `tool:#INDEX`), ")
	b.WriteString("a JSON pointer or field where it applies, the value seen (at most 512 bytes) and a message saying what would be correct. ")
	b.WriteString("A code never changes meaning once shipped; new defects get new codes.\n\n")
	b.WriteString("| Severity | Meaning |\n|---|---|\n")
	b.WriteString("| fatal | a client cannot use the server or the item (for a tool: no valid call can be built) |\n")
	b.WriteString("| error | violates a MUST of the MCP specification (or of JSON Schema, JSON-RPC, RFC 6570) |\n")
	b.WriteString("| warn | violates a SHOULD or a widely followed convention |\n")
	b.WriteString("| info | worth knowing; fixing is optional (some are counted per item, such as the share of tools omitting each annotation hint) |\n")
	b.WriteString("\nThe `poison` and `portfolio` codes are graded by how directly the text can harm rather than by the specification: ")
	b.WriteString("error for an order that moves data or control away from the user or for text no person can see, warn for a vehicle that hides or dresses up text but says nothing harmful by itself. ")
	b.WriteString("Their findings carry the deciding span in the value and its byte offsets in the message; each code says below why it exists.\n")
	area := ""
	count := map[string]int{}
	for _, e := range entries {
		count[strings.SplitN(e.Code, "/", 2)[0]]++
	}
	for i, e := range entries {
		a := strings.SplitN(e.Code, "/", 2)[0]
		if a != area {
			area = a
			// The heading is the area alone, a stable anchor (#area) for
			// the helpUri of SARIF rules.
			fmt.Fprintf(&b, "\n## %s\n\n%d codes.\n\n| Code | Severity | Defect | Fix |\n|---|---|---|---|\n", a, count[a])
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", e.Code, e.Severity, mdCell(e.Title), mdCell(e.Fix))
		if last := i == len(entries)-1 || strings.SplitN(entries[i+1].Code, "/", 2)[0] != a; last {
			writeWhy(&b, entries, a)
		}
	}
	fmt.Fprintf(&b, "\n%d codes.\n", len(entries))
	return b.String()
}

// writeWhy lists why the codes of an area exist, for those that say.
func writeWhy(b *strings.Builder, entries []CatalogEntry, area string) {
	first := true
	for _, e := range entries {
		if strings.SplitN(e.Code, "/", 2)[0] != area || Why(e.Code) == "" {
			continue
		}
		if first {
			b.WriteString("\nWhy these codes exist:\n\n")
			first = false
		}
		fmt.Fprintf(b, "- `%s`: %s\n", e.Code, strings.ReplaceAll(Why(e.Code), "\n", " "))
	}
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// TestFindingsDoc fails when docs/findings.md no longer matches the
// catalog, which every file of the package may add to.
func TestFindingsDoc(t *testing.T) {
	want := findingsDoc(Catalog())
	if updateGolden() {
		if err := os.WriteFile(findingsDocPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(findingsDocPath)
	if err != nil {
		t.Fatalf("reading %s: %v; generate it with: go test ./probe -run TestFindingsDoc -update", findingsDocPath, err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("docs/findings.md is out of date with the finding catalog (-catalog +file):\n%s\nregenerate it with: go test ./probe -run TestFindingsDoc -update", diff)
	}
}

var codeShape = regexp.MustCompile(`^[a-z][a-z0-9_]*/[a-z][a-z0-9_]*$`)

// TestCatalogWellFormed checks every registered entry: code shape, a known
// severity, a title and a fix.
func TestCatalogWellFormed(t *testing.T) {
	for _, e := range Catalog() {
		if !codeShape.MatchString(e.Code) {
			t.Errorf("%q: codes are area/name in lower snake case", e.Code)
		}
		if e.Severity.Rank() == 0 {
			t.Errorf("%s: unknown severity %q", e.Code, e.Severity)
		}
		if strings.TrimSpace(e.Title) == "" || strings.TrimSpace(e.Fix) == "" {
			t.Errorf("%s: needs a title and a fix", e.Code)
		}
	}
}
