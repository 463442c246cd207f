package vocab

// Status is the liveness outcome of one probe run. The values are stable: they
// are stored in databases and compared across scans, so a value never changes
// meaning once shipped. The README's "Liveness statuses" table is this list.
type Status string

// Liveness statuses. The first group is decided by the probe; the second by
// the launcher before a handshake is attempted (install, configuration,
// runtime); both end up in the same column.
const (
	// StatusOK: the handshake completed with clean stdout.
	StatusOK Status = "ok"
	// StatusSpawnFailed: the executable is missing or not runnable.
	StatusSpawnFailed Status = "spawn_failed"
	// StatusExitedEarly: the process ended before the handshake completed;
	// the exit code and the last 4 KiB of stderr are kept.
	StatusExitedEarly Status = "exited_early"
	// StatusMissingCredentials: the process exited (or refused the handshake)
	// with a message naming a key, token or environment variable.
	StatusMissingCredentials Status = "missing_credentials"
	// StatusHandshakeTimeout: no handshake answer within the deadline.
	StatusHandshakeTimeout Status = "handshake_timeout"
	// StatusProtocolError: the server answered, but not with valid JSON-RPC,
	// a well-formed result, or a protocol version the client supports.
	StatusProtocolError Status = "protocol_error"
	// StatusStdoutPollution: non-protocol bytes appeared on stdout before or
	// during the handshake, which completed anyway. (Noise without a
	// completed handshake is StatusProtocolError with a
	// liveness/stdout_pollution finding, so that each status means one
	// outcome.)
	StatusStdoutPollution Status = "stdout_pollution"
	// StatusUnreachable: a URL target could not be connected to, or
	// answered HTTP 404, 405 or 410 (no MCP endpoint) or 5xx.
	StatusUnreachable Status = "unreachable"

	// StatusNeedsConfiguration: the plan has required inputs without a value.
	StatusNeedsConfiguration Status = "needs_configuration"
	// StatusRuntimeUnavailable: the runtime the package needs (uvx, docker,
	// dnx, ...) is not installed or does not answer.
	StatusRuntimeUnavailable Status = "runtime_unavailable"
	// StatusPackageNotFound: the package registry answered 404 for the name.
	StatusPackageNotFound Status = "package_not_found"
	// StatusVersionNotFound: the name exists but not the version.
	StatusVersionNotFound Status = "version_not_found"
	// StatusInstallFailed: the installer failed for another reason.
	StatusInstallFailed Status = "install_failed"
	// StatusInvalidPlan: the plan carries a value that is refused before
	// anything runs (an invalid package name, an argument that looks like an
	// option injection).
	StatusInvalidPlan Status = "invalid_plan"
	// StatusLimitExceeded: the sandbox killed the server for exceeding a
	// resource limit before the handshake completed.
	StatusLimitExceeded Status = "limit_exceeded"
)

// StatusInfo documents one [Status].
type StatusInfo struct {
	Status  Status
	Meaning string
}

// Statuses lists every status with its meaning, in the order reports show them.
var Statuses = []StatusInfo{
	{StatusOK, "the handshake completed and stdout carried only protocol messages"},
	{StatusStdoutPollution, "non-protocol bytes on stdout before or during the handshake, which completed anyway"},
	{StatusSpawnFailed, "the executable is missing or cannot be run"},
	{StatusExitedEarly, "the process ended before the handshake; exit code and the last 4 KiB of stderr are kept"},
	{StatusMissingCredentials, "the server exited or refused with a message naming a key, token or environment variable"},
	{StatusHandshakeTimeout, "no answer to the handshake within the deadline"},
	{StatusProtocolError, "invalid JSON-RPC, a malformed result, an unsupported protocol version, or non-protocol bytes on stdout instead of a handshake answer"},
	{StatusUnreachable, "a URL target could not be connected to"},
	{StatusNeedsConfiguration, "the launch plan has required inputs without a value"},
	{StatusRuntimeUnavailable, "the runtime the package needs (uvx, docker, dnx, ...) is not available"},
	{StatusPackageNotFound, "the package registry does not know the package name"},
	{StatusVersionNotFound, "the package exists but not at the requested version"},
	{StatusInstallFailed, "the package could not be installed"},
	{StatusInvalidPlan, "the plan was refused before launch (invalid package name, injected option)"},
	{StatusLimitExceeded, "the sandbox killed the server for exceeding a resource limit before the handshake completed"},
}

// Alive reports whether the status means the server completed the handshake.
// Results from older versions used [StatusStdoutPollution] without a
// handshake too, so callers should use Liveness.HandshakeCompleted
// instead when they have it.
func (s Status) Alive() bool { return s == StatusOK }
