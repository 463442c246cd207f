package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/internal/version"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// TriageSARIFSchema is the $schema of the SARIF 2.1.0 reports.
const TriageSARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// The subset of SARIF 2.1.0 (OASIS, sarif-schema-2.1.0.json) the triage
// report uses.
type triageSARIFLog struct {
	Schema  string           `json:"$schema"`
	Version string           `json:"version"`
	Runs    []triageSARIFRun `json:"runs"`
}

type triageSARIFRun struct {
	Tool              triageSARIFTool        `json:"tool"`
	AutomationDetails *triageSARIFAutomation `json:"automationDetails,omitempty"`
	Results           []triageSARIFResult    `json:"results"`
	Properties        map[string]any         `json:"properties,omitempty"`
	Artifacts         []triageSARIFArtifact  `json:"artifacts,omitempty"`
}

type triageSARIFAutomation struct {
	ID string `json:"id"`
}

type triageSARIFTool struct {
	Driver triageSARIFDriver `json:"driver"`
}

type triageSARIFDriver struct {
	Name           string            `json:"name"`
	Version        string            `json:"version"`
	InformationURI string            `json:"informationUri"`
	Rules          []triageSARIFRule `json:"rules"`
}

type triageSARIFRule struct {
	ID               string             `json:"id"`
	ShortDescription triageSARIFMessage `json:"shortDescription"`
	// FullDescription says why the code exists, for codes that say.
	FullDescription *triageSARIFMessage `json:"fullDescription,omitempty"`
	Help            triageSARIFMessage  `json:"help"`
	// HelpURI is the code's section of docs/findings.md.
	HelpURI              string `json:"helpUri,omitempty"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
	Properties struct {
		Severity string   `json:"severity"`
		Tags     []string `json:"tags"`
		// SecuritySeverity is GitHub code scanning's 0.0-10.0 score of a
		// security rule ("security-severity"), by which it ranks alerts.
		SecuritySeverity string `json:"security-severity,omitempty"`
	} `json:"properties"`
}

type triageSARIFMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

// FindingsDocURL is the page every SARIF rule's helpUri points into: the
// finding codes of docs/findings.md, one section per area.
const FindingsDocURL = "https://github.com/mcpvet/mcpvet/blob/main/docs/findings.md"

// securityAreas are the areas whose findings are security findings: text
// aimed at the model, servers shadowing each other, authorization (codes
// about leaks and secrets elsewhere count too).
var securityAreas = []string{"poison", "portfolio", "oauth"}

// securityRule reports whether a code is a security finding: its area is
// one of securityAreas, or it is about leaks or secrets.
func securityRule(code string) bool {
	area, name, _ := strings.Cut(code, "/")
	return slices.Contains(securityAreas, area) || strings.Contains(name, "leak") || strings.Contains(name, "secret")
}

// securitySeverity is GitHub's score for a severity: critical is 9.0 and
// up, high 7.0 to 8.9, medium 4.0 to 6.9, low below.
func securitySeverity(s probe.Severity) string {
	switch s {
	case probe.SeverityFatal:
		return "9.0"
	case probe.SeverityError:
		return "7.5"
	case probe.SeverityWarn:
		return "5.0"
	}
	return "2.0"
}

type triageSARIFResult struct {
	RuleID              string                `json:"ruleId"`
	RuleIndex           int                   `json:"ruleIndex"`
	Level               string                `json:"level"`
	Message             triageSARIFMessage    `json:"message"`
	Locations           []triageSARIFLocation `json:"locations"`
	PartialFingerprints map[string]string     `json:"partialFingerprints"`
	Properties          map[string]any        `json:"properties"`
	// Suppressions mark findings a baseline accepted (probe --baseline).
	Suppressions []SARIFSuppression `json:"suppressions,omitempty"`
}

// SARIFSuppression is a SARIF 2.1.0 suppression: a finding accepted
// outside the scan ("external"), with the reason it was accepted.
type SARIFSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

type triageSARIFLocation struct {
	PhysicalLocation triageSARIFPhysical  `json:"physicalLocation"`
	LogicalLocations []triageSARIFLogical `json:"logicalLocations,omitempty"`
}

type triageSARIFPhysical struct {
	ArtifactLocation triageSARIFArtLoc  `json:"artifactLocation"`
	Region           *triageSARIFRegion `json:"region,omitempty"`
}

type triageSARIFArtLoc struct {
	URI string `json:"uri"`
}

type triageSARIFRegion struct {
	StartLine int `json:"startLine"`
}

type triageSARIFLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type triageSARIFArtifact struct {
	Location triageSARIFArtLoc `json:"location"`
}

// TriageSARIFLevel maps a finding severity to a SARIF level: fatal and
// error are "error", warn is "warning", info is "note".
func TriageSARIFLevel(s probe.Severity) string {
	switch s {
	case probe.SeverityFatal, probe.SeverityError:
		return "error"
	case probe.SeverityWarn:
		return "warning"
	}
	return "note"
}

// triageSARIFURI turns the config path into a SARIF artifact URI: a
// relative reference for a relative path (resolved against the repository
// by code-scanning services), a file URI for an absolute one.
func triageSARIFURI(path string) string {
	p := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a Windows drive path
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// writeTriageSARIF writes one SARIF run: the catalog entry of every code
// the findings use as a rule, with its fix as help text, and one result per
// finding located at the server's entry in the config file.
func writeTriageSARIF(w io.Writer, t *results.Triage, accepted func(probe.Finding) string) error {
	rules := []triageSARIFRule{}
	index := map[string]int{}
	addRule := func(e probe.CatalogEntry) {
		r := triageSARIFRule{ID: e.Code}
		r.ShortDescription.Text = e.Title
		area, _, _ := strings.Cut(e.Code, "/")
		r.HelpURI = FindingsDocURL + "#" + area
		r.Help.Text = e.Fix
		r.Help.Markdown = "**Fix:** " + e.Fix + "\n\nSee [`" + e.Code + "`](" + r.HelpURI + ") in mcpvet's finding codes."
		// GitHub code scanning requires a full description of every rule
		// (GH2012): why the code exists where the catalog says, else what
		// it detects.
		full := e.Title
		if why := probe.Why(e.Code); why != "" {
			full = why
		}
		r.FullDescription = &triageSARIFMessage{Text: full}
		r.DefaultConfiguration.Level = TriageSARIFLevel(e.Severity)
		r.Properties.Severity = string(e.Severity)
		r.Properties.Tags = []string{"mcp", area}
		if securityRule(e.Code) {
			r.Properties.Tags = append(r.Properties.Tags, "security")
			r.Properties.SecuritySeverity = securitySeverity(e.Severity)
		}
		index[e.Code] = len(rules)
		rules = append(rules, r)
	}
	// Only the codes the findings use: a report stays small and its rule
	// list changes only when its findings do. A code the catalog does not
	// know still gets a rule, so every result resolves.
	var codes []string
	for _, s := range t.Servers {
		for _, f := range s.Findings {
			if !slices.Contains(codes, f.Code) {
				codes = append(codes, f.Code)
			}
		}
	}
	for _, f := range t.Portfolio {
		if !slices.Contains(codes, f.Code) {
			codes = append(codes, f.Code)
		}
	}
	slices.Sort(codes)
	for _, c := range codes {
		e, ok := probe.Lookup(c)
		if !ok {
			e = probe.CatalogEntry{Code: c, Severity: triageSeverityOf(t, c), Title: safe.Line(c),
				Fix: "this code has no catalog entry; each result's message says what is wrong"}
		}
		addRule(e)
	}

	uri := triageSARIFURI(t.Config)
	results := []triageSARIFResult{}
	for _, s := range t.Servers {
		for _, f := range s.Findings {
			msg := safe.Line(s.Name) + ": " + safe.Line(f.Message)
			if f.Subject != "" && f.Subject != "server" {
				msg += " (" + safe.Line(f.Subject) + ")"
			}
			at := uri
			if s.Config != "" {
				at = triageSARIFURI(s.Config) // a triage of several configs
			}
			loc := triageSARIFLocation{
				PhysicalLocation: triageSARIFPhysical{ArtifactLocation: triageSARIFArtLoc{URI: at}},
				LogicalLocations: []triageSARIFLogical{{
					Name:               safe.Line(f.Subject),
					FullyQualifiedName: safe.Line(s.Name) + "/" + safe.Line(f.Subject),
					Kind:               "member",
				}},
			}
			props := map[string]any{
				"server":   safe.Line(s.Name),
				"subject":  safe.Line(f.Subject),
				"severity": string(f.Severity),
			}
			if s.Line > 0 {
				loc.PhysicalLocation.Region = &triageSARIFRegion{StartLine: s.Line}
			} else {
				// The server's own files (server.json, its source) are not
				// in the repository a config triage runs in.
				props["noRegion"] = "the entry's line in the config was not found"
			}
			if s.Decision != "" {
				props["decision"] = s.Decision
			}
			if f.Pointer != "" {
				props["pointer"] = safe.Line(f.Pointer)
			}
			if f.Value != "" {
				props["value"] = safe.Line(f.Value)
			}
			results = append(results, triageSARIFResult{
				RuleID:    f.Code,
				RuleIndex: index[f.Code],
				Level:     TriageSARIFLevel(f.Severity),
				Message:   triageSARIFMessage{Text: msg},
				Locations: []triageSARIFLocation{loc},
				PartialFingerprints: map[string]string{
					"mcpvetFinding/v1": triageFingerprint(s.Name, f.Code, f.Subject, f.Pointer),
				},
				Properties:   props,
				Suppressions: suppress(accepted, f),
			})
		}
	}
	results = append(results, triagePortfolioSARIF(t, uri, index)...)
	log := triageSARIFLog{
		Schema:  TriageSARIFSchema,
		Version: "2.1.0",
		Runs: []triageSARIFRun{{
			Tool: triageSARIFTool{Driver: triageSARIFDriver{
				Name:           "mcpvet",
				Version:        version.Version,
				InformationURI: "https://github.com/mcpvet/mcpvet",
				Rules:          rules,
			}},
			AutomationDetails: &triageSARIFAutomation{ID: "mcpvet/triage/"},
			Results:           results,
			Artifacts:         []triageSARIFArtifact{{Location: triageSARIFArtLoc{URI: uri}}},
			Properties: map[string]any{
				"scanId": t.ScanID,
				"source": t.Source,
				"counts": t.Counts,
			},
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// triageFingerprint identifies a finding across scans so code-scanning
// services track it instead of opening a new alert each run.
func triageFingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// triageSeverityOf is the worst severity a finding with code has in t.
func triageSeverityOf(t *results.Triage, code string) probe.Severity {
	var worst probe.Severity
	for _, s := range t.Servers {
		for _, f := range s.Findings {
			if f.Code == code && f.Severity.Rank() > worst.Rank() {
				worst = f.Severity
			}
		}
	}
	return worst
}
