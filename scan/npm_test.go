package scan

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	goldenfile "github.com/mcpvet/mcpvet/internal/golden"
	"github.com/mcpvet/mcpvet/internal/testenv"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// npmCache is where the integration tests install the pinned npm servers,
// through mcpvet's own installer: .cache/mcpvet in the repository, reused
// across runs.
func npmCache(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		testenv.Need(t, "npm is not installed; the real-server tests need Node.js and npm")
	}
	dir, err := filepath.Abs(filepath.Join("..", ".cache", "mcpvet"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func npmPlan(name, version string, args ...string) vocab.Plan {
	return vocab.Plan{
		Key: "npm:" + name + "@" + version, Name: name, Version: version, Source: "test", Transport: vocab.TransportStdio,
		Package: &vocab.Package{RegistryType: "npm", Identifier: name, Version: version}, Args: args,
	}
}

// TestRealNPMServers probes pinned real servers from npm, installed and run
// in the default sandbox, and checks facts about them.
func TestRealNPMServers(t *testing.T) {
	if testing.Short() {
		t.Skip("installs npm packages")
	}
	cache := npmCache(t)
	tests := []struct {
		plan         vocab.Plan
		server       string
		version      string
		tools        []string
		readOnly     []string // tools that set readOnlyHint: true
		prompts      int
		resources    int
		noFatalCheck bool
	}{
		{
			plan:   npmPlan("@modelcontextprotocol/server-everything", "2026.1.26"),
			server: "mcp-servers/everything", version: "2025-11-25",
			// get-roots-list, trigger-elicitation-request and
			// trigger-sampling-request are offered only to clients that
			// declare roots, elicitation and sampling, as mcpvet does.
			tools: []string{"echo", "get-annotated-message", "get-env", "get-resource-links", "get-resource-reference", "get-roots-list", "get-structured-content",
				"get-sum", "get-tiny-image", "gzip-file-as-resource", "simulate-research-query", "toggle-simulated-logging", "toggle-subscriber-updates",
				"trigger-elicitation-request", "trigger-long-running-operation", "trigger-sampling-request"},
			prompts: 4, resources: 7,
		},
		{
			plan:   npmPlan("@modelcontextprotocol/server-memory", "2026.1.26"),
			server: "memory-server", version: "2025-11-25",
			tools: []string{"add_observations", "create_entities", "create_relations", "delete_entities", "delete_observations", "delete_relations",
				"open_nodes", "read_graph", "search_nodes"},
		},
		{
			plan:   npmPlan("@modelcontextprotocol/server-filesystem", "2026.1.14", "/tmp"),
			server: "secure-filesystem-server", version: "2025-11-25",
			tools: []string{"create_directory", "directory_tree", "edit_file", "get_file_info", "list_allowed_directories", "list_directory",
				"list_directory_with_sizes", "move_file", "read_file", "read_media_file", "read_multiple_files", "read_text_file", "search_files", "write_file"},
			readOnly: []string{"directory_tree", "get_file_info", "list_allowed_directories", "list_directory", "list_directory_with_sizes",
				"read_file", "read_media_file", "read_multiple_files", "read_text_file", "search_files"},
		},
		{
			plan:   npmPlan("@modelcontextprotocol/server-sequential-thinking", "2025.12.18"),
			server: "sequential-thinking-server", version: "2025-11-25",
			tools: []string{"sequentialthinking"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.plan.Source+"/"+tt.plan.Name, func(t *testing.T) {
			opts := &ProbeOptions{
				Sandbox: &sandbox.Options{CacheDir: cache},
				Run:     probe.Options{HandshakeTimeout: 60 * time.Second},
				Timeout: 5 * time.Minute,
			}
			res, err := Probe(context.Background(), &tt.plan, opts)
			if err != nil {
				t.Fatal(err)
			}
			l := res.Liveness
			if l.Status != vocab.StatusOK {
				t.Fatalf("status %s: %s\n%s", l.Status, l.Detail, l.StderrTail)
			}
			if l.ServerInfo == nil || l.ServerInfo.Name != tt.server || l.ProtocolVersion != tt.version {
				t.Errorf("serverInfo %+v, protocol %q; want %s, %s", l.ServerInfo, l.ProtocolVersion, tt.server, tt.version)
			}
			var names, readOnly []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				if hasReadOnly(tool) {
					readOnly = append(readOnly, tool.Name)
				}
			}
			sort.Strings(names)
			sort.Strings(readOnly)
			if diff := cmp.Diff(tt.tools, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.readOnly, readOnly); diff != "" {
				t.Errorf("tools with readOnlyHint (-want +got):\n%s", diff)
			}
			if len(res.Prompts) != tt.prompts || len(res.Resources) != tt.resources {
				t.Errorf("%d prompts, %d resources; want %d, %d", len(res.Prompts), len(res.Resources), tt.prompts, tt.resources)
			}
			// Every pinned server is built on the official TypeScript SDK,
			// which the sandbox finds among the installed dependencies.
			if res.Target.SDK != "typescript: official SDK" {
				t.Errorf("Target.SDK = %q (%s), want typescript: official SDK", res.Target.SDK, res.Target.SDKEvidence)
			}
			if res.Target.Sandbox == "" || res.Target.Sandbox == "none" {
				t.Errorf("ran with sandbox %q, want isolation", res.Target.Sandbox)
			}
			if len(res.Probes) == 0 || res.Score == nil || res.Verdict == nil {
				t.Fatalf("no failure injection or grading: %d probes, score %v, verdict %v", len(res.Probes), res.Score, res.Verdict)
			}
			for _, p := range res.Probes {
				if p.Class == probe.ClassCrash || p.Class == probe.ClassHang {
					t.Errorf("probe %s on %s: %s", p.Kind, p.Tool, p.Class)
				}
			}
			for _, f := range res.Findings {
				if f.Severity == probe.SeverityFatal {
					t.Errorf("fatal finding %s on %s: %s", f.Code, f.Subject, f.Message)
				}
			}
			t.Logf("%s: %d tools, %d probes, score %.1f, verdict %s, %.0f ms", tt.plan.Name, len(res.Tools), len(res.Probes), *res.Score, res.Verdict.Decision, l.Timings.TotalMs)
			checkGolden(t, filepath.Join("testdata", "real", strings.TrimPrefix(tt.plan.Name, "@modelcontextprotocol/")+".golden.json"), goldenOf(res))
		})
	}
}

// golden is the stable part of a real server's result: what it offers, how
// each probe was answered and graded, and the verdict with its trace.
type golden struct {
	Server          string         `json:"server"`
	ProtocolVersion string         `json:"protocolVersion"`
	Tools           []string       `json:"tools"`
	Probes          []goldenProbe  `json:"probes"`
	Score           float64        `json:"score"`
	Verdict         string         `json:"verdict"`
	Rules           []string       `json:"firedRules"`
	Findings        map[string]int `json:"findings"`
}

type goldenProbe struct {
	Kind   string   `json:"kind"`
	Tool   string   `json:"tool,omitempty"`
	Param  string   `json:"param,omitempty"`
	Class  string   `json:"class"`
	Score  float64  `json:"score"`
	Failed []string `json:"failedElements,omitempty"`
}

func goldenOf(res *probe.Result) golden {
	g := golden{Server: res.Liveness.ServerInfo.Name + " " + res.Liveness.ServerInfo.Version, ProtocolVersion: res.Liveness.ProtocolVersion,
		Findings: map[string]int{}, Verdict: res.Verdict.Decision}
	for _, t := range res.Tools {
		g.Tools = append(g.Tools, t.Name)
	}
	for _, p := range res.Probes {
		gp := goldenProbe{Kind: p.Kind, Tool: p.Tool, Param: p.Param, Class: p.Class}
		if p.Score != nil {
			gp.Score = *p.Score
		}
		for _, e := range p.Elements {
			if !e.Pass {
				gp.Failed = append(gp.Failed, e.Name)
			}
		}
		g.Probes = append(g.Probes, gp)
	}
	if res.Score != nil {
		g.Score = *res.Score
	}
	for _, r := range res.Verdict.Rules {
		if r.Fired {
			g.Rules = append(g.Rules, r.Name)
		}
	}
	for _, f := range res.Findings {
		g.Findings[f.Code]++
	}
	return g
}

func checkGolden(t *testing.T, path string, got golden) {
	t.Helper()
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, path, append(data, '\n'))
}

func hasReadOnly(t probe.Tool) bool {
	var a struct {
		ReadOnly *bool `json:"readOnlyHint"`
	}
	_ = jsonUnmarshal(t.Annotations, &a)
	return a.ReadOnly != nil && *a.ReadOnly
}

// TestNPMNotInstallable: the npm mirror answers 404 for some names and
// versions; each gets its own status, never a crash.
func TestNPMNotInstallable(t *testing.T) {
	if testing.Short() {
		t.Skip("asks the npm registry")
	}
	cache := npmCache(t)
	fromRegistry := func(p vocab.Plan) vocab.Plan { p.Source = "registry"; p.Key = "registry:" + p.Key; return p }
	tests := []struct {
		plan     vocab.Plan
		want     vocab.Status
		decision string
	}{
		{npmPlan("@mcpvet-test/no-such-package-4f1c2a", "1.0.0"), vocab.StatusPackageNotFound, "drop"},
		{npmPlan("@modelcontextprotocol/server-memory", "0.0.0-no-such-version"), vocab.StatusVersionNotFound, "drop"},
		{npmPlan("x; rm -rf /", "1.0.0"), vocab.StatusInvalidPlan, "drop"},
		{npmPlan("--registry=http://evil.example", "1.0.0"), vocab.StatusInvalidPlan, "drop"},
		// A registry entry's package was on the public index when the
		// MCP Registry verified it: a 404 here is not the server's.
		{fromRegistry(npmPlan("@mcpvet-test/no-such-package-4f1c2a", "1.0.0")), vocab.StatusPackageNotFound, "not_assessed"},
		{fromRegistry(npmPlan("@modelcontextprotocol/server-memory", "0.0.0-no-such-version")), vocab.StatusVersionNotFound, "not_assessed"},
	}
	for _, tt := range tests {
		t.Run(tt.plan.Name, func(t *testing.T) {
			res, err := Probe(context.Background(), &tt.plan, &ProbeOptions{Sandbox: &sandbox.Options{CacheDir: cache}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Liveness.Status != tt.want {
				t.Errorf("status %s (%s), want %s", res.Liveness.Status, res.Liveness.Detail, tt.want)
			}
			if res.Verdict == nil || res.Verdict.Decision != tt.decision {
				t.Errorf("verdict %+v, want %s", res.Verdict, tt.decision)
			}
		})
	}
}

func jsonUnmarshal(data []byte, v any) error {
	if len(data) == 0 {
		return nil
	}
	return json.Unmarshal(data, v)
}
