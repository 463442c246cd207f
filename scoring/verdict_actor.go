package scoring

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// maxSupply bounds the number of items a needs_setup verdict lists.
const maxSupply = 8

// EnvironmentCause returns why the run's outcome says something about the
// machine that ran it rather than about the server, or "" when it says
// something about the server. It reads what the launcher and the scan
// recorded: [probe.Liveness.Environment] when the scan set it (a DNS
// failure on a machine whose DNS resolves no public name), else the
// status and the detail strings the sandbox writes for an unreachable
// package registry or index, a download host that could not be
// connected to, a missing runtime or container engine. It is pure, so a
// stored result decides the same way when graded again.
func EnvironmentCause(res *probe.Result) string {
	l := &res.Liveness
	if l.HandshakeCompleted {
		return ""
	}
	if l.Environment != "" {
		return l.Environment
	}
	detail, ev := l.Detail, l.Evidence
	switch l.Status {
	case vocab.StatusRuntimeUnavailable:
		if strings.Contains(detail, "container engine") {
			return "no container engine runs here (" + clip(detail) + ")"
		}
		return "a runtime is missing here (" + clip(detail) + ")"
	case vocab.StatusSpawnFailed:
		// A command a client config or the command line names, not a
		// package mcpvet installed: the program is missing on this machine.
		if !vocab.FromRegistry(res.Target.Source) && !isPackageCommand(res.Target.Command) && notFound(detail+" "+ev) {
			return "the program the command names is not installed here (" + clip(detail) + ")"
		}
	case vocab.StatusPackageNotFound, vocab.StatusVersionNotFound:
		// The MCP Registry reads a package's ownership marker from the
		// public index when an entry is published (npm's mcpName, PyPI's
		// and NuGet's mcp-name, an image's label), so the entry's
		// package and version were there then. Not finding them here is a
		// gap in the index this machine reaches (a partial mirror) or a
		// later removal, and one answer does not tell which: the run
		// assesses nothing about the server.
		if typ := packageType(res.Target.Command); vocab.FromRegistry(res.Target.Source) && validatedAtPublish[typ] {
			return fmt.Sprintf("the %s index reached from here lacks a package the MCP Registry verified at publish (%s: a gap in this index or a later removal, not told apart; %s)",
				typ, packageSpec(res.Target.Command), clip(detail))
		}
	case vocab.StatusInstallFailed:
		switch {
		case strings.Contains(detail, "not found in the registry") && strings.Contains(detail, "dependency"):
			// npm refuses to unpublish a package others depend on, so a
			// dependency the public registry served to the author is
			// missing only from the registry reached here.
			return "the npm registry reached from here lacks a dependency the package names (" + clip(detail) + ")"
		case strings.Contains(detail, "the registry could not be reached"):
			return "the npm registry could not be reached from here"
		case strings.Contains(detail, "the package index could not be reached"):
			return "the PyPI index could not be reached from here"
		case strings.HasPrefix(detail, "downloading mcpb bundle") && networkError(ev):
			return "the mcpb download host could not be reached from here"
		case strings.HasPrefix(detail, "pulling image") && networkError(detail+" "+ev):
			return "the container image registry could not be reached from here"
		case strings.HasPrefix(detail, "dotnet tool install") && (strings.Contains(ev, "NU1301") || networkError(ev)):
			return "the NuGet feed could not be reached from here"
		}
	case vocab.StatusUnreachable:
		if localNetworkError(ev + " " + detail) {
			return "the network could not be used from here (" + clip(ev) + ")"
		}
	}
	return ""
}

func clip(s string) string { return safe.Truncate(s, 160, safe.Ellipsis) }

// isPackageCommand reports whether a target's command is a package mcpvet
// installed ("npm:NAME@VERSION" and the like).
func isPackageCommand(cmd []string) bool {
	if len(cmd) == 0 {
		return false
	}
	typ, _, ok := strings.Cut(cmd[0], ":")
	return ok && slices.Contains([]string{"npm", "pypi", "oci", "nuget", "mcpb"}, typ)
}

// validatedAtPublish lists the package types whose presence on the public
// index the MCP Registry checks when an entry is published
// (modelcontextprotocol.io/registry/package-types). An mcpb bundle is a
// URL the author hosts: its 404 is the author's.
var validatedAtPublish = map[string]bool{"npm": true, "pypi": true, "nuget": true, "oci": true}

// packageType returns the type prefix of a package command ("npm" of
// "npm:NAME@VERSION"), or "".
func packageType(cmd []string) string {
	if !isPackageCommand(cmd) {
		return ""
	}
	typ, _, _ := strings.Cut(cmd[0], ":")
	return typ
}

// packageSpec returns the NAME@VERSION of a package command.
func packageSpec(cmd []string) string {
	_, spec, _ := strings.Cut(cmd[0], ":")
	return safe.Truncate(spec, 120, safe.Ellipsis)
}

func notFound(s string) bool {
	return strings.Contains(s, "executable file not found") || strings.Contains(s, "no such file or directory")
}

// networkError reports whether an error text is a failure to reach a host
// at all (no answer), as opposed to an answer that refused.
func networkError(s string) bool {
	for _, w := range []string{"no such host", "dial tcp", "network is unreachable", "connection refused",
		"i/o timeout", "TLS handshake timeout", "server misbehaving", "Temporary failure in name resolution",
		"Could not resolve host", "Name or service not known", "EAI_AGAIN", "ENOTFOUND", "ECONNREFUSED"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// localNetworkError reports whether an error text says this machine could
// not use the network at all (no route, no resolver answer), which no
// remote server causes. A name that does not exist (NXDOMAIN) is the
// remote's unless the scan found that DNS resolves no public name here;
// the scan then sets [probe.Liveness.Environment].
func localNetworkError(s string) bool {
	for _, w := range []string{"network is unreachable", "server misbehaving", "Temporary failure in name resolution"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	// A resolver that does not answer: "lookup HOST on IP:53: ... i/o
	// timeout" or "... connection refused".
	return strings.Contains(s, "lookup ") && strings.Contains(s, ":53") &&
		(strings.Contains(s, "i/o timeout") || strings.Contains(s, "connection refused"))
}

// needsSetup reports whether a run that did not complete the handshake
// waits for something only its user can supply.
func needsSetup(res *probe.Result) bool {
	s := res.Liveness.Status
	return !res.Liveness.HandshakeCompleted && (s == vocab.StatusNeedsConfiguration || s == vocab.StatusMissingCredentials)
}

var (
	// envName is an environment variable name as servers print them.
	envName = lazy(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)
	// credentialName is a variable name that names a credential.
	credentialName = lazy(`(?:KEY|TOKEN|SECRET|PASSWORD|PASS|CREDENTIALS?|AUTH|PAT|ID|USER(?:NAME)?|URL|HOST|ENDPOINT|ACCOUNT|PROJECT|ORG|TENANT|DSN)(?:_|$)`)
)

// Supply lists what the user of a needs_setup run has to supply: the
// inputs a plan left without a value, the variable names a server named
// when it stopped, the header or the OAuth authorization a remote asked
// for.
func Supply(res *probe.Result) []string {
	l := &res.Liveness
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) && len(out) < maxSupply {
			out = append(out, safe.Truncate(s, 120, safe.Ellipsis))
		}
	}
	remote := res.Target.URL != "" && len(res.Target.Command) == 0
	switch l.Status {
	case vocab.StatusNeedsConfiguration:
		// "required inputs without a value: A, B" (registry entries),
		// "unresolved references: A, B; give HINT" (client configs),
		// "mcpb bundle needs configuration: A, B".
		d := l.Detail
		if _, rest, ok := strings.Cut(d, ": "); ok {
			d = rest
		}
		d, hint, _ := strings.Cut(d, "; give ")
		for item := range strings.SplitSeq(d, ", ") {
			add(item)
		}
		if hint != "" {
			add("give " + hint)
		}
	case vocab.StatusMissingCredentials:
		switch {
		case remote && strings.Contains(l.Detail, "OAuth"):
			add("OAuth authorization: the server's WWW-Authenticate names its protected-resource metadata (resource_metadata); sign in with a client that runs the OAuth flow, or pass a token with --header \"Authorization: Bearer ...\"")
		case remote:
			add("a credential header: --header \"NAME: VALUE\" (usually Authorization)")
		}
		for _, n := range envName.FindAllString(l.Evidence+"\n"+l.Detail, -1) {
			if credentialName.MatchString(n) {
				add("environment variable " + n)
			}
		}
		if len(out) == 0 && l.Evidence != "" {
			add("the credential the server names: " + l.Evidence)
		}
	}
	return out
}

// authorItems counts the distinct findings (code and subject) an author
// has to act on and their worst severity.
func authorItems(fs []probe.Finding) (int, probe.Severity) {
	seen := map[[2]string]bool{}
	var worst probe.Severity
	for _, f := range fs {
		k := [2]string{f.Code, f.Subject}
		if seen[k] {
			continue
		}
		seen[k] = true
		if worst == "" || f.Severity.Rank() > worst.Rank() {
			worst = f.Severity
		}
	}
	return len(seen), worst
}
