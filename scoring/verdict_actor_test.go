package scoring

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestDecideActors pins who must act for each kind of outcome: a server
// that waits for its user's setup is needs_setup with what to supply, one
// this machine could not run is not_assessed with the cause, one that
// failed for a reason of its own is drop, and a working one is keep or
// fix with the author's items counted. On the verdict of issue 28's
// predecessor each of the first seven was drop.
func TestDecideActors(t *testing.T) {
	notAlive := probe.Finding{Code: probe.CodeNotAlive, Severity: probe.SeverityFatal, Subject: "server"}
	remote := probe.Target{Name: "io.example/remote", Source: "registry", Transport: vocab.TransportStreamable, URL: "https://mcp.example.com/mcp"}
	stdio := probe.Target{Name: "io.example/stdio", Source: "registry", Transport: vocab.TransportStdio, Command: []string{"npm:@example/server@1.0.0"}}
	failed := func(t probe.Target, s vocab.Status, detail, evidence string) probe.Result {
		return probe.Result{Target: t, Liveness: probe.Liveness{Status: s, Detail: detail, Evidence: evidence},
			Findings: []probe.Finding{notAlive}}
	}
	tests := []struct {
		name      string
		res       probe.Result
		want      string
		wantActor vocab.Actor
		wantWords string
		wantRule  string
		supply    []string
	}{
		{
			name: "needs_configuration names the inputs to supply",
			res: failed(stdio, vocab.StatusNeedsConfiguration,
				"required inputs without a value: env GITHUB_PERSONAL_ACCESS_TOKEN, header X-API-Key", ""),
			want: vocab.DecisionNeedsSetup, wantActor: vocab.ActorUser, wantRule: vocab.RuleNeedsSetup,
			supply:    []string{"env GITHUB_PERSONAL_ACCESS_TOKEN", "header X-API-Key"},
			wantWords: "needs setup: supply env GITHUB_PERSONAL_ACCESS_TOKEN, header X-API-Key",
		},
		{
			name: "a client config's unresolved references and the hint",
			res: failed(probe.Target{Name: "github", Source: "config:mcp.json", Command: []string{"npx", "-y", "x"}}, vocab.StatusNeedsConfiguration,
				"unresolved references: ${input:token} in env.GITHUB_TOKEN; give --input token=VALUE", ""),
			want: vocab.DecisionNeedsSetup, wantActor: vocab.ActorUser, wantRule: vocab.RuleNeedsSetup,
			supply: []string{"${input:token} in env.GITHUB_TOKEN", "give --input token=VALUE"},
		},
		{
			name: "a stdio server that names its missing key",
			res: failed(stdio, vocab.StatusMissingCredentials, "the server stopped with a message naming a credential",
				"Error: BRAVE_API_KEY environment variable is required"),
			want: vocab.DecisionNeedsSetup, wantActor: vocab.ActorUser, wantRule: vocab.RuleNeedsSetup,
			supply: []string{"environment variable BRAVE_API_KEY"},
		},
		{
			name: "a remote that answers 401 wants a header",
			res: failed(remote, vocab.StatusMissingCredentials,
				"the server answered HTTP 401 Unauthorized; pass the credentials it needs with --header", "Unauthorized"),
			want: vocab.DecisionNeedsSetup, wantActor: vocab.ActorUser, wantRule: vocab.RuleNeedsSetup,
			supply: []string{`a credential header: --header "NAME: VALUE" (usually Authorization)`},
		},
		{
			name: "a remote that points to OAuth metadata wants authorization",
			res: failed(remote, vocab.StatusMissingCredentials,
				"the server answered HTTP 401 Unauthorized; requires OAuth authorization (WWW-Authenticate names resource_metadata)", "Unauthorized"),
			want: vocab.DecisionNeedsSetup, wantActor: vocab.ActorUser, wantRule: vocab.RuleNeedsSetup,
		},
		{
			name: "no container engine is this machine's",
			res:  failed(probe.Target{Name: "oci", Source: "registry", Command: []string{"oci:ghcr.io/x/y:1"}}, vocab.StatusRuntimeUnavailable, "no container engine: neither docker nor podman is installed", ""),
			want: vocab.DecisionNotAssessed, wantActor: vocab.ActorEnvironment, wantRule: vocab.RuleNotAssessed,
			wantWords: "not assessed: no container engine runs here (no container engine: neither docker nor podman is installed)",
		},
		{
			name: "an unreachable PyPI index is this machine's",
			res: failed(probe.Target{Name: "py", Source: "registry", Command: []string{"pypi:x==1"}}, vocab.StatusInstallFailed,
				"installing PyPI package x==1: the package index could not be reached (no such host)", ""),
			want: vocab.DecisionNotAssessed, wantActor: vocab.ActorEnvironment, wantRule: vocab.RuleNotAssessed,
			wantWords: "not assessed: the PyPI index could not be reached from here",
		},
		{
			name: "an mcpb download that could not connect is this machine's",
			res: failed(probe.Target{Name: "b", Source: "registry", Command: []string{"mcpb:https://github.com/x/y.mcpb"}}, vocab.StatusInstallFailed,
				"downloading mcpb bundle", `Get "https://github.com/x/y.mcpb": dial tcp: lookup github.com on 10.0.0.1:53: no such host`),
			want: vocab.DecisionNotAssessed, wantActor: vocab.ActorEnvironment, wantRule: vocab.RuleNotAssessed,
		},
		{
			name: "a remote whose name does not resolve where DNS works is the server's",
			res: failed(remote, vocab.StatusUnreachable, "the server could not be reached: dial tcp: lookup mcp.example.com: no such host",
				"dial tcp: lookup mcp.example.com: no such host"),
			want: vocab.DecisionDrop, wantActor: vocab.ActorAuthor, wantRule: vocab.RuleNoHandshake,
		},
		{
			name: "a remote whose name does not resolve where DNS resolves no public name",
			res: func() probe.Result {
				r := failed(remote, vocab.StatusUnreachable, "the server could not be reached: dial tcp: lookup mcp.example.com: no such host", "")
				r.Liveness.Environment = "DNS resolves no public name here"
				return r
			}(),
			want: vocab.DecisionNotAssessed, wantActor: vocab.ActorEnvironment, wantRule: vocab.RuleNotAssessed,
			wantWords: "not assessed: DNS resolves no public name here",
		},
		{
			name: "a package a client config names that the registry answered 404 for is the user's entry to fix",
			res: failed(probe.Target{Name: "x", Source: "config:mcp.json", Command: []string{"npm:@example/typo@latest"}, Launcher: "npx"},
				vocab.StatusPackageNotFound, "npm package @example/typo not found: the registry answered 404 for it", ""),
			want: vocab.DecisionDrop, wantActor: vocab.ActorUser, wantRule: vocab.RuleNoHandshake,
		},
		{
			name: "a command-line plan refused before launch is the user's",
			res: failed(probe.Target{Name: "x", Source: "cli", Command: []string{"npm:--registry=http://evil@1"}},
				vocab.StatusInvalidPlan, "invalid npm package name", ""),
			want: vocab.DecisionDrop, wantActor: vocab.ActorUser, wantRule: vocab.RuleNoHandshake,
		},
		{
			name: "a registry entry refused before launch is its author's",
			res: failed(probe.Target{Name: "x", Source: "registry", Command: []string{"npm:--registry=http://evil@1"}},
				vocab.StatusInvalidPlan, "invalid npm package name", ""),
			want: vocab.DecisionDrop, wantActor: vocab.ActorAuthor, wantRule: vocab.RuleNoHandshake,
		},
		{
			name: "a registry entry's npm package the index here answered 404 for was verified at publish",
			res:  failed(stdio, vocab.StatusPackageNotFound, "npm package @example/server not found: the registry answered 404 for it", ""),
			want: vocab.DecisionNotAssessed, wantActor: vocab.ActorEnvironment, wantRule: vocab.RuleNotAssessed,
			wantWords: "not assessed: the npm index reached from here lacks a package the MCP Registry verified at publish (@example/server@1.0.0: a gap in this index or a later removal, not told apart; npm package @example/server not found: the registry answered 404 for it)",
		},
		{
			name: "a snapshot entry's PyPI version missing here was verified at publish",
			res: failed(probe.Target{Name: "py", Source: "snapshot:servers.json", Command: []string{"pypi:x==1"}}, vocab.StatusVersionNotFound,
				"PyPI package x has no version 1", ""),
			want: vocab.DecisionNotAssessed, wantActor: vocab.ActorEnvironment, wantRule: vocab.RuleNotAssessed,
		},
		{
			name: "a registry entry's mcpb URL that answered 404 is the author's",
			res: failed(probe.Target{Name: "b", Source: "registry", Command: []string{"mcpb:https://github.com/x/y.mcpb"}}, vocab.StatusPackageNotFound,
				"mcpb bundle https://github.com/x/y.mcpb: HTTP 404", ""),
			want: vocab.DecisionDrop, wantActor: vocab.ActorAuthor, wantRule: vocab.RuleNoHandshake,
		},
		{
			name: "a dependency the npm registry here lacks is this machine's",
			res: failed(stdio, vocab.StatusInstallFailed,
				"npm install @example/server@1.0.0: dependency left-pad not found in the registry", "npm error code E404"),
			want: vocab.DecisionNotAssessed, wantActor: vocab.ActorEnvironment, wantRule: vocab.RuleNotAssessed,
		},
		{
			name: "a dependency range with no version is the author's",
			res: failed(stdio, vocab.StatusInstallFailed,
				"npm install @example/server@1.0.0: no version of dependency zod@^9", "npm error code ETARGET"),
			want: vocab.DecisionDrop, wantActor: vocab.ActorAuthor, wantRule: vocab.RuleNoHandshake,
		},
		{
			name: "a server that exits before the handshake is the server's",
			res:  failed(stdio, vocab.StatusExitedEarly, "the process exited before the handshake completed (exit 1)", "error: too many arguments"),
			want: vocab.DecisionDrop, wantActor: vocab.ActorAuthor, wantRule: vocab.RuleNoHandshake,
			wantWords: "do not use: never completed the handshake (exited_early): the process exited before the handshake completed (exit 1)",
		},
		{
			name: "author items are counted with the worst severity",
			res: probe.Result{Target: stdio, Liveness: alive(), Score: new(float64(90)), Findings: []probe.Finding{
				{Code: "annotations/missing_read_only_hint", Severity: probe.SeverityWarn, Subject: "tool:a"},
				{Code: "annotations/missing_read_only_hint", Severity: probe.SeverityWarn, Subject: "tool:b"},
				{Code: "annotations/missing_read_only_hint", Severity: probe.SeverityWarn, Subject: "tool:b"},
				{Code: "errors/accepted_invalid_input", Severity: probe.SeverityError, Subject: "tool:a"},
				{Code: "sandbox/weak_isolation", Severity: probe.SeverityInfo, Subject: "server"},
			}},
			want: vocab.DecisionFix, wantActor: vocab.ActorAuthor, wantRule: vocab.RuleFixFindings,
			wantWords: "usable, author has 3 items (worst: error)",
		},
		{
			name: "a working server without items is usable",
			res:  probe.Result{Target: stdio, Liveness: alive(), Score: new(float64(90))},
			want: vocab.DecisionKeep, wantActor: vocab.ActorNone, wantRule: vocab.RuleKeepOtherwise, wantWords: "usable",
		},
		{
			name: "a low score alone is an advisory",
			res:  probe.Result{Target: stdio, Liveness: alive(), Score: new(63.2)},
			want: vocab.DecisionKeep, wantActor: vocab.ActorNone, wantRule: vocab.RuleLowScore,
			wantWords: "usable (advisory: error score 63.2 is below 70)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Decide(&tt.res, nil)
			if v.Decision != tt.want || v.Actor != tt.wantActor {
				t.Errorf("decision, actor = %q, %q; want %q, %q (%+v)", v.Decision, v.Actor, tt.want, tt.wantActor, v.Rules)
			}
			var first string
			for _, r := range v.Rules {
				if r.Fired {
					first = r.Name
					break
				}
			}
			if first != tt.wantRule {
				t.Errorf("deciding rule = %q, want %q", first, tt.wantRule)
			}
			if tt.supply != nil {
				if diff := cmp.Diff(tt.supply, v.Supply); diff != "" {
					t.Errorf("supply (-want +got):\n%s", diff)
				}
			}
			if tt.want == vocab.DecisionNeedsSetup && len(v.Supply) == 0 {
				t.Errorf("needs_setup without anything to supply")
			}
			if tt.want == vocab.DecisionNotAssessed && v.Cause == "" {
				t.Errorf("not_assessed without a cause")
			}
			if tt.wantWords != "" && v.Words() != tt.wantWords {
				t.Errorf("words = %q, want %q", v.Words(), tt.wantWords)
			}
			if v.Who() != tt.wantActor {
				t.Errorf("Who() = %q, want %q", v.Who(), tt.wantActor)
			}
		})
	}
}

// TestSupplyOAuth pins that an OAuth remote's setup says how to authorize.
func TestSupplyOAuth(t *testing.T) {
	res := &probe.Result{Target: probe.Target{URL: "https://mcp.example.com/mcp", Transport: vocab.TransportStreamable},
		Liveness: probe.Liveness{Status: vocab.StatusMissingCredentials,
			Detail: "the server answered HTTP 401 Unauthorized; requires OAuth authorization (WWW-Authenticate names resource_metadata)"}}
	got := Supply(res)
	if len(got) != 1 || !strings.HasPrefix(got[0], "OAuth authorization") || !strings.Contains(got[0], "resource_metadata") {
		t.Errorf("Supply = %q, want the OAuth authorization with its metadata", got)
	}
}

// TestWhoOfStoredVerdicts pins the actor of verdicts stored before it was
// recorded.
func TestWhoOfStoredVerdicts(t *testing.T) {
	for d, want := range map[string]vocab.Actor{vocab.DecisionKeep: vocab.ActorNone, vocab.DecisionFix: vocab.ActorAuthor,
		vocab.DecisionDrop: vocab.ActorAuthor, vocab.DecisionNeedsSetup: vocab.ActorUser, vocab.DecisionNotAssessed: vocab.ActorEnvironment} {
		if got := (&probe.Verdict{Decision: d}).Who(); got != want {
			t.Errorf("Who() of a stored %s = %q, want %q", d, got, want)
		}
	}
}

// TestDropCountsFatalItems: a drop counts its fatal findings (a crash
// included) with the findings to fix, worst severity fatal.
func TestDropCountsFatalItems(t *testing.T) {
	res := &probe.Result{Liveness: alive(), Score: new(float64(80)), Findings: []probe.Finding{
		{Code: CodeCrashOnInvalidInput, Severity: probe.SeverityFatal, Subject: "server"},
		{Code: "annotations/missing_read_only_hint", Severity: probe.SeverityWarn, Subject: "tool:a"},
	}}
	v := Decide(res, nil)
	if v.Decision != vocab.DecisionDrop || v.AuthorItems != 2 || v.WorstSeverity != probe.SeverityFatal || v.Cause != "crashed or hung on invalid input" {
		t.Errorf("verdict %s, %d items, worst %s, cause %q; want drop, 2, fatal, crashed", v.Decision, v.AuthorItems, v.WorstSeverity, v.Cause)
	}
}

// TestSupplyEdges: at most maxSupply items; every credential variable
// named, not only the first; the server's own words only when there are
// some. (Mutants verdict_actor.go:176 `<` -> `<=`, :204 the -1 of
// FindAllString, :209 `l.Evidence != ""` negated lived through the whole
// suite.)
func TestSupplyEdges(t *testing.T) {
	local := probe.Target{Command: []string{"npx", "srv"}}
	items := make([]string, maxSupply+2)
	for i := range items {
		items[i] = fmt.Sprintf("INPUT_%d", i)
	}
	many := &probe.Result{Target: local, Liveness: probe.Liveness{Status: vocab.StatusNeedsConfiguration,
		Detail: "required inputs without a value: " + strings.Join(items, ", ")}}
	if got := Supply(many); len(got) != maxSupply {
		t.Errorf("Supply of %d inputs = %d items, want %d", len(items), len(got), maxSupply)
	}
	two := &probe.Result{Target: local, Liveness: probe.Liveness{Status: vocab.StatusMissingCredentials,
		Evidence: "GITHUB_TOKEN is not set", Detail: "set GITHUB_TOKEN and GITHUB_ORG"}}
	if got := Supply(two); !slices.Equal(got, []string{"environment variable GITHUB_TOKEN", "environment variable GITHUB_ORG"}) {
		t.Errorf("Supply = %q, want both variables", got)
	}
	none := &probe.Result{Target: local, Liveness: probe.Liveness{Status: vocab.StatusMissingCredentials, Detail: "exited: unauthorized"}}
	if got := Supply(none); len(got) != 0 {
		t.Errorf("Supply with no evidence = %q, want nothing", got)
	}
	said := &probe.Result{Target: local, Liveness: probe.Liveness{Status: vocab.StatusMissingCredentials, Evidence: "login required"}}
	if got := Supply(said); !slices.Equal(got, []string{"the credential the server names: login required"}) {
		t.Errorf("Supply = %q, want the server's words", got)
	}
}
