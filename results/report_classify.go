package results

import (
	"path"
	"strings"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// Liveness groups: the census's partition of servers by how far they got.
// A server that completed the handshake is in GroupHandshake whatever its
// status (stdout pollution included); every other server is in the group
// of its status.
const (
	GroupHandshake          = "handshake_completed"
	GroupNeverStarted       = "never_started"
	GroupMissingCredentials = string(vocab.StatusMissingCredentials)
	GroupTimeout            = string(vocab.StatusHandshakeTimeout)
	GroupProtocolError      = string(vocab.StatusProtocolError)
	GroupNotInstallable     = "not_installable"
	GroupNeedsConfiguration = string(vocab.StatusNeedsConfiguration)
	GroupUnreachable        = string(vocab.StatusUnreachable)
	GroupOther              = "other"
)

// A LivenessGroup names a group, says what it means, and lists its
// statuses.
type LivenessGroup struct {
	Group    string
	Label    string
	Statuses []vocab.Status
}

// LivenessGroups lists the groups in report order. GroupOther holds
// stdout pollution without a completed handshake, sandbox limits and any
// status this build does not know.
var LivenessGroups = []LivenessGroup{
	{GroupHandshake, "completed the handshake", []vocab.Status{vocab.StatusOK, vocab.StatusStdoutPollution}},
	{GroupNeverStarted, "never started", []vocab.Status{vocab.StatusSpawnFailed, vocab.StatusExitedEarly}},
	{GroupMissingCredentials, "missing credentials", []vocab.Status{vocab.StatusMissingCredentials}},
	{GroupTimeout, "handshake timed out", []vocab.Status{vocab.StatusHandshakeTimeout}},
	{GroupProtocolError, "protocol error", []vocab.Status{vocab.StatusProtocolError}},
	{GroupNotInstallable, "not installable", []vocab.Status{vocab.StatusPackageNotFound, vocab.StatusVersionNotFound,
		vocab.StatusInstallFailed, vocab.StatusRuntimeUnavailable, vocab.StatusInvalidPlan}},
	{GroupNeedsConfiguration, "needs configuration", []vocab.Status{vocab.StatusNeedsConfiguration}},
	{GroupUnreachable, "unreachable (remote)", []vocab.Status{vocab.StatusUnreachable}},
	{GroupOther, "other", []vocab.Status{vocab.StatusLimitExceeded}},
}

var groupOfStatus = func() map[vocab.Status]string {
	m := map[vocab.Status]string{}
	// The handshake group is decided by HandshakeCompleted, not by status.
	for _, g := range LivenessGroups[1:] {
		for _, s := range g.Statuses {
			m[s] = g.Group
		}
	}
	return m
}()

// GroupOf returns the liveness group of a run.
func GroupOf(l probe.Liveness) string {
	if l.HandshakeCompleted {
		return GroupHandshake
	}
	if l.Status == vocab.StatusStdoutPollution {
		// Older results: noise instead of a handshake answer, which this
		// version calls protocol_error.
		return GroupProtocolError
	}
	if g, ok := groupOfStatus[l.Status]; ok {
		return g
	}
	return GroupOther
}

// Package types of [PackageType] besides the registry types (npm, pypi,
// oci, nuget, mcpb).
const (
	PackageRemote  = "remote"
	PackageCommand = "command"
)

// registryTypes are the package types a plan's command can name as its
// "TYPE:" prefix (scan.TargetOf writes "npm:NAME@VERSION" and so on).
var registryTypes = map[string]bool{"npm": true, "pypi": true, "oci": true, "nuget": true, "mcpb": true}

// launcherTypes maps package runners that take a package name to the
// registry they install from, for plans given as commands (client
// configs): `npx -y pkg` runs an npm package.
var launcherTypes = map[string]string{
	"npx": "npm", "bunx": "npm", "pnpx": "npm",
	"uvx": "pypi", "pipx": "pypi",
	"docker": "oci", "podman": "oci",
	"dnx": "nuget",
}

// PackageType tells how a target is distributed: the registry type of its
// plan ("npm", "pypi", "oci", "nuget", "mcpb"), taken from the "TYPE:"
// prefix of its command, or the registry of the package runner its
// command starts with (npx, uvx, docker, dnx, ...); "remote" for a URL
// target; "command" for any other local command.
func PackageType(t probe.Target) string {
	if len(t.Command) > 0 {
		first := t.Command[0]
		if typ, _, ok := strings.Cut(first, ":"); ok && registryTypes[typ] {
			return typ
		}
		if typ, ok := launcherTypes[strings.TrimSuffix(path.Base(first), ".cmd")]; ok {
			return typ
		}
		return PackageCommand
	}
	if t.URL != "" || t.Transport == "streamable-http" || t.Transport == "sse" {
		return PackageRemote
	}
	return PackageCommand
}

// SDK labels of [SDKOf].
const (
	SDKUnknown     = "unknown"
	SDKNoHandshake = "n/a (no handshake)"
)

// sdkRule recognises an SDK from the serverInfo name a server reports.
// Only defaults that an SDK fills in itself are used; a name a server
// author chose says nothing about the SDK behind it.
type sdkRule struct {
	sdk   string
	match func(name string) bool
	why   string
}

var sdkRules = []sdkRule{
	{"python: FastMCP", func(n string) bool {
		l := strings.ToLower(n)
		return l == "fastmcp" || strings.HasPrefix(l, "fastmcp-") || strings.HasPrefix(l, "fastmcp ")
	}, "FastMCP's default server name"},
	{"rust: rmcp", func(n string) bool { return n == "rmcp" }, "rmcp's default Implementation (its crate name)"},
	{"typescript: reference servers", func(n string) bool {
		return strings.HasPrefix(n, "mcp-servers/") || strings.HasPrefix(n, "example-servers/")
	}, "the modelcontextprotocol/servers naming scheme"},
}

// SDKOf guesses the SDK a server was built with from the serverInfo it
// sent, and says why. Most servers name themselves, which tells nothing:
// those are "unknown" rather than a guess from the package type. A run
// without a handshake is "n/a (no handshake)".
func SDKOf(l probe.Liveness) (sdk, evidence string) {
	if !l.HandshakeCompleted {
		return SDKNoHandshake, ""
	}
	if l.ServerInfo == nil {
		return SDKUnknown, "no serverInfo"
	}
	for _, r := range sdkRules {
		if r.match(l.ServerInfo.Name) {
			return r.sdk, "serverInfo.name " + quoteShort(l.ServerInfo.Name) + ": " + r.why
		}
	}
	return SDKUnknown, ""
}

// ProtocolKey is the breakdown key of a run's negotiated protocol version.
func ProtocolKey(l probe.Liveness) string {
	switch {
	case !l.HandshakeCompleted:
		return "none (no handshake)"
	case l.ProtocolVersion == "":
		return "unknown"
	}
	return safe.Truncate(l.ProtocolVersion, 64, safe.Ellipsis)
}

func quoteShort(s string) string { return `"` + safe.Truncate(s, 64, safe.Ellipsis) + `"` }

// elementMeanings says what passing each rubric element means, for report
// tables.
var elementMeanings = map[string]string{
	vocab.ElemChannel:        "signals the failure on the channel the protocol revision prescribes",
	vocab.ElemParam:          "names the offending parameter",
	vocab.ElemValueOrForm:    "states the value received or the form expected",
	vocab.ElemNextAction:     "names a next action the agent can execute",
	vocab.ElemCode:           "carries a stable machine-readable code",
	vocab.ElemRetryable:      "says whether retrying can help",
	vocab.ElemClosestMatches: "offers closest matches for an unknown name",
	vocab.ElemNoLeak:         "leaks no stack trace, path, host or secret",
	vocab.ElemBounded:        "stays within the token budget",
}

// hintCodes are the annotation hints whose omission the census rates, in
// report order, with the spec's key.
var hintCodes = []struct {
	hint, code string
	// writeOnly hints only apply to tools not marked read-only.
	writeOnly bool
}{
	{"readOnlyHint", probe.CodeMissingReadOnlyHint, false},
	{"destructiveHint", probe.CodeMissingDestructiveHint, true},
	{"idempotentHint", probe.CodeMissingIdempotentHint, true},
	{"openWorldHint", probe.CodeMissingOpenWorldHint, false},
}

// SDKOfResult is [SDKOf] with more evidence: a serverInfo default an SDK
// fills in comes first, then the SDK the installed package depends on
// (the sandbox looks in its node_modules or virtual environment), then
// the error format the server answered failure-injection probes with.
func SDKOfResult(res *probe.Result) (sdk, evidence string) {
	sdk, evidence = SDKOf(res.Liveness)
	if sdk != SDKUnknown {
		return sdk, evidence
	}
	if res.Target.SDK != "" {
		return safe.Truncate(res.Target.SDK, 64, safe.Ellipsis), safe.Truncate(res.Target.SDKEvidence, 200, safe.Ellipsis)
	}
	if s, why := sdkFromErrors(res); s != "" {
		return s, why
	}
	return sdk, evidence
}

// errorFormats are the texts SDKs put into the tool errors they make
// themselves (a call with invalid arguments, an unknown tool), not the
// server author.
var errorFormats = []struct {
	sdk, prefix, why string
}{
	{"typescript: official SDK", "MCP error -32602: ", `the TypeScript SDK's McpError text "MCP error -32602: ..."`},
	{"typescript: official SDK", "MCP error -32601: ", `the TypeScript SDK's McpError text "MCP error -32601: ..."`},
	{"python: official SDK or FastMCP", "Error executing tool ", `the Python SDK's tool error text "Error executing tool ..."`},
	{"python: official SDK or FastMCP", "Unknown tool: ", `the Python SDK's "Unknown tool: ..."`},
}

func sdkFromErrors(res *probe.Result) (sdk, evidence string) {
	for _, p := range res.Probes {
		for _, f := range errorFormats {
			if strings.HasPrefix(p.Text, f.prefix) {
				return f.sdk, "error format: " + f.why
			}
		}
	}
	return "", ""
}
