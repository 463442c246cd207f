package probe

// Finding codes of the probe runner itself (liveness and protocol). The
// conformance checks register theirs in check_*.go.
const (
	CodeNotAlive        = "liveness/handshake_failed"
	CodeStdoutPollution = "liveness/stdout_pollution"
	CodeUnknownVersion  = "protocol/unknown_version"
	CodeListFailed      = "protocol/list_failed"
	CodeMalformedResult = "protocol/malformed_result"
	CodeCursorLoop      = "protocol/cursor_loop"
	CodePageCap         = "protocol/pagination_capped"
	CodeListTimeout     = "protocol/list_timeout"
)

func init() {
	register(
		CatalogEntry{CodeNotAlive, SeverityFatal,
			"the server did not complete the MCP handshake",
			"make the server start with no arguments beyond those it documents, answer initialize (or server/discover) within seconds, and name any missing configuration on stderr"},
		CatalogEntry{CodeStdoutPollution, SeverityError,
			"non-protocol bytes on stdout",
			"over stdio, stdout carries only newline-delimited JSON-RPC; send logs and banners to stderr"},
		CatalogEntry{CodeUnknownVersion, SeverityError,
			"the negotiated protocol version is not a published MCP revision",
			"answer initialize with one of the published revisions (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)"},
		CatalogEntry{CodeListFailed, SeverityError,
			"a list request for a declared capability failed",
			"answer tools/list, prompts/list and resources/list for every capability the server declares"},
		CatalogEntry{CodeMalformedResult, SeverityError,
			"a list result does not have the shape the protocol requires",
			"return the list result object of the specification (for example {\"tools\": [...], \"nextCursor\": \"...\"})"},
		CatalogEntry{CodeCursorLoop, SeverityError,
			"pagination returned a cursor it had already returned",
			"issue a new opaque nextCursor for each page and omit it on the last page"},
		CatalogEntry{CodePageCap, SeverityWarn,
			"pagination went on past the scanner's page or item cap",
			"keep lists to a size an agent can read; page through them with a finite cursor"},
		CatalogEntry{CodeListTimeout, SeverityError,
			"a list request got no answer in time",
			"answer list requests promptly; they should not wait on remote services"},
	)
	registerWhy(map[string]string{
		CodeUnknownVersion: specVersionNegotiation + ". Raised when the negotiated version is unpublished and when the client has to end the handshake because the initialize answer names one (then beside liveness/handshake_failed).",
		CodeCursorLoop:     `In pagination (2025-11-25, Utilities, Pagination) a nextCursor marks the position of the next page and its absence the end: a cursor returned again sends a client round forever. The repeating page's items that were already listed are counted once, so the loop is not reported a second time as duplicate names.`,
	})
}

// CodeSandboxWarning records that the server ran with weaker isolation than
// asked for (for example the "none" backend).
const CodeSandboxWarning = "sandbox/weak_isolation"

// CodeLauncherNote records what mcpvet did not reproduce of a launcher
// command in a config (an option it does not know, so the command ran as
// written); CodeVolumeRefused a docker volume mount it refused.
const (
	CodeLauncherNote  = "config/launcher_not_translated"
	CodeVolumeRefused = "config/volume_refused"
)

func init() {
	register(
		CatalogEntry{CodeLauncherNote, SeverityInfo,
			"a launcher command in the config was run as written instead of installed by mcpvet",
			"nothing for the server author; publish the package so that `npx -y NAME@VERSION` (or uvx, docker run) is all a config needs"},
		CatalogEntry{CodeVolumeRefused, SeverityWarn,
			"a docker volume mount in the config was refused: the container ran without host folders",
			"document which folder the server needs, and make it fail with a message naming it when it is missing"},
	)
}

func init() {
	register(CatalogEntry{CodeSandboxWarning, SeverityInfo,
		"the server ran without full isolation",
		"nothing for the server author; the scan's operator chose or had to use a weaker sandbox"})
}
