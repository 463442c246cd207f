package vocab

import "encoding/json"

// Transport kinds of a [Plan].
const (
	TransportStdio      = "stdio"
	TransportStreamable = "streamable-http"
	TransportSSE        = "sse"
)

// A Plan says how to launch one server. Plans come from the command line, a
// registry entry (one plan per package and per remote) or an MCP client
// config. Every string in a plan may come from a registry and is untrusted:
// it is passed as argv, never through a shell.
type Plan struct {
	// Key identifies the plan stably across scans (registry name, version,
	// package or remote index); it is what resume and sharding hash.
	Key string `json:"key"`
	// Name is the server's registry or config name.
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// Source is where the plan came from: "cli", "registry", "config:FILE".
	Source string `json:"source"`
	// Transport is one of the Transport constants.
	Transport string `json:"transport"`

	// Command and Args launch a stdio server directly (no install step).
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Dir is the folder a stdio server starts in (a config's "cwd");
	// relative to [Options.WorkDir].
	Dir string `json:"cwd,omitempty"`
	// Launcher, when set, is the launcher a config named ("npx") that was
	// translated into Package; Written is the command as written.
	Launcher string   `json:"launcher,omitempty"`
	Written  []string `json:"written,omitempty"`
	// Notes are what the plan's reader refused or could not reproduce (a
	// docker volume mount, a launcher option); they become findings.
	Notes []string `json:"notes,omitempty"`
	// Package, when set, is installed first and its entry point launched
	// with Args appended.
	Package *Package `json:"package,omitempty"`

	// URL and Headers reach a remote server.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// Env holds the variables the plan declares, with their values.
	Env map[string]string `json:"env,omitempty"`
	// Secrets names declared secret variables; each gets a unique canary
	// value per run unless Env or the user's overrides set it. An entry
	// that starts with [SecretHeaderPrefix] names an HTTP header of a
	// remote plan instead.
	Secrets []string `json:"secrets,omitempty"`

	// Status, when set, is a pre-launch outcome (for example
	// needs_configuration): the plan is recorded but not launched.
	Status Status `json:"status,omitempty"`
	// StatusDetail explains Status.
	StatusDetail string `json:"statusDetail,omitempty"`

	// ServerJSON is the registry's server.json for declared-vs-observed
	// checks, when known.
	ServerJSON json.RawMessage `json:"serverJson,omitempty"`

	// SecretFrom is set on a plan as stored (see [Plan.Stored]): for each
	// value removed from Env ("env:NAME") and Headers ("header:NAME"), where
	// it is to be obtained again ("config:FILE", "flag:--header", ...).
	SecretFrom map[string]string `json:"secretFrom,omitempty"`
}

// Package is a registry package to install before launch.
type Package struct {
	// RegistryType is npm, pypi, oci, nuget or mcpb.
	RegistryType    string `json:"registryType"`
	RegistryBaseURL string `json:"registryBaseUrl,omitempty"`
	Identifier      string `json:"identifier"`
	Version         string `json:"version,omitempty"`
	// RuntimeHint is the runtime the registry suggests (npx, uvx, docker, dnx).
	RuntimeHint string `json:"runtimeHint,omitempty"`
	// RuntimeArgs go to the runtime, before the package.
	RuntimeArgs []string `json:"runtimeArgs,omitempty"`
	// FileSHA256 is the expected digest of an mcpb bundle.
	FileSHA256 string `json:"fileSha256,omitempty"`
}

// SecretHeaderPrefix starts a [Plan.Secrets] entry that names an HTTP
// header of a remote plan ("header:Authorization") rather than an
// environment variable. The planners (scan/source) write such entries and
// the sandbox fills the header with a canary.
const SecretHeaderPrefix = "header:"
