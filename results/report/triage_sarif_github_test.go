package report

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/results/internal/fixture"
)

// githubSARIF is the part of a SARIF log GitHub code scanning reads.
type githubSARIF struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID              string `json:"id"`
					FullDescription *struct{ Text string }
					Help            struct{ Text, Markdown string }
					HelpURI         string `json:"helpUri"`
					Properties      struct {
						Tags             []string
						SecuritySeverity string `json:"security-severity"`
					}
				}
			}
		}
		Results []struct {
			RuleID    string `json:"ruleId"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI string }
					Region           *struct{ StartLine int }
				}
			}
			PartialFingerprints map[string]string
			Properties          map[string]any
		}
	}
}

// TestTriageSARIFGitHubRules checks the triage SARIF against the rules of
// GitHub code scanning's ingestion (the SARIF multitool's GitHub rule set,
// written out): every rule has a fullDescription (GH2012), help text and a
// helpUri to its section of docs/findings.md; security rules carry a
// security-severity between 0 and 10; every result has a relative
// location with a region where the entry's line is known (else a
// noRegion property saying why), and partialFingerprints that do not
// change from one scan to the next.
func TestTriageSARIFGitHubRules(t *testing.T) {
	tr, _ := fixture.LoadTriage(t)
	for i := range tr.Servers {
		tr.Servers[i].Line = 3 + 4*i
	}
	tr.Servers[1].Line = 0 // one entry whose line is unknown
	out := triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, "sarif", nil) })
	var log githubSARIF
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "findings.md"))
	if err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	security := 0
	for _, r := range run.Tool.Driver.Rules {
		if r.FullDescription == nil || r.FullDescription.Text == "" {
			t.Errorf("rule %s: no fullDescription (GH2012)", r.ID)
		}
		if r.Help.Text == "" || !strings.Contains(r.Help.Markdown, r.HelpURI) {
			t.Errorf("rule %s: help %+v", r.ID, r.Help)
		}
		area, _, _ := strings.Cut(r.ID, "/")
		if r.HelpURI != FindingsDocURL+"#"+area || !bytes.Contains(doc, []byte("\n## "+area+"\n")) {
			t.Errorf("rule %s: helpUri %q has no section in docs/findings.md", r.ID, r.HelpURI)
		}
		if r.Properties.SecuritySeverity != "" {
			security++
			v, err := strconv.ParseFloat(r.Properties.SecuritySeverity, 64)
			if err != nil || v < 0 || v > 10 || !strings.Contains(strings.Join(r.Properties.Tags, ","), "security") {
				t.Errorf("rule %s: security-severity %q, tags %v", r.ID, r.Properties.SecuritySeverity, r.Properties.Tags)
			}
		}
	}
	if security != 0 {
		t.Errorf("%d rules with a security-severity; the fixture has no security finding", security)
	}
	// The portfolio codes are security findings.
	_, _, pt := fixture.StoreTriage(t, t.TempDir(), fixture.PortfolioServers())
	var plog githubSARIF
	if err := json.Unmarshal(triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, pt, "sarif", nil) }), &plog); err != nil {
		t.Fatal(err)
	}
	for _, r := range plog.Runs[0].Tool.Driver.Rules {
		if strings.HasPrefix(r.ID, "portfolio/") && r.Properties.SecuritySeverity != "5.0" {
			t.Errorf("rule %s: security-severity %q, want 5.0 (warn)", r.ID, r.Properties.SecuritySeverity)
		}
	}
	regions := 0
	for _, res := range run.Results {
		loc := res.Locations[0].PhysicalLocation
		if strings.Contains(loc.ArtifactLocation.URI, "://") || strings.HasPrefix(loc.ArtifactLocation.URI, "/") {
			t.Errorf("result %s: location %q is not relative to the repository", res.RuleID, loc.ArtifactLocation.URI)
		}
		switch {
		case loc.Region != nil && loc.Region.StartLine >= 1:
			regions++
		case res.Properties["noRegion"] == nil:
			t.Errorf("result %s: no region and no reason why", res.RuleID)
		}
		if len(res.PartialFingerprints) == 0 {
			t.Errorf("result %s: no partialFingerprints", res.RuleID)
		}
	}
	if regions == 0 {
		t.Error("no result has a region")
	}
	// Stable across scans: another scan of the same servers gives the same
	// fingerprints.
	tr.ScanID += 7
	again := triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, "sarif", nil) })
	fp := regexp.MustCompile(`"mcpvetFinding/v1": "[0-9a-f]+"`)
	if a, b := fp.FindAll(out, -1), fp.FindAll(again, -1); len(a) == 0 || !bytes.Equal(bytes.Join(a, nil), bytes.Join(b, nil)) {
		t.Error("partialFingerprints change from one scan to the next")
	}
}

// TestTriageSARIFMultitool validates the triage SARIF with Microsoft's SARIF
// multitool and its GitHub rule set (`validate --rule-kind Gh`), installed
// from npm into .cache/ at a pinned version; skipped without npm.
func TestTriageSARIFMultitool(t *testing.T) {
	if testing.Short() {
		t.Skip("installs @microsoft/sarif-multitool from npm")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", ".cache", "sarif-multitool"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "sarif-multitool")
	if _, err := os.Stat(bin); err != nil {
		if out, err := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "@microsoft/sarif-multitool@5.7.0").CombinedOutput(); err != nil {
			t.Skipf("npm install @microsoft/sarif-multitool: %v\n%s", err, out)
		}
	}
	tr, _ := fixture.LoadTriage(t)
	for i := range tr.Servers {
		tr.Servers[i].Line = 3 + 4*i
	}
	tmp := t.TempDir()
	in := filepath.Join(tmp, "triage.sarif")
	if err := os.WriteFile(in, triageWrite(t, func(b *bytes.Buffer) error { return WriteTriage(b, tr, "sarif", nil) }), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "validate", "--rule-kind", "Gh", "--output", filepath.Join(tmp, "out.sarif"), in)
	out, err := cmd.CombinedOutput()
	if err != nil && !bytes.Contains(out, []byte("Analysis completed")) {
		t.Skipf("sarif-multitool does not run here: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, ": error ") || strings.Contains(line, ": warning ") {
			t.Errorf("multitool: %s", line)
		}
	}
	if !bytes.Contains(out, []byte("Analysis completed successfully")) {
		t.Errorf("multitool did not complete:\n%s", out)
	}
}
