package sandbox

import "fmt"

// Pre-launch statuses carried by [LaunchError.Status].
const (
	StatusNeedsConfiguration = "needs_configuration"
	StatusRuntimeUnavailable = "runtime_unavailable"
	StatusPackageNotFound    = "package_not_found"
	StatusVersionNotFound    = "version_not_found"
	StatusInstallFailed      = "install_failed"
	StatusInvalidPlan        = "invalid_plan"
)

// A LaunchError is a pre-launch outcome: the server was not started for a
// reason that belongs to the server or its plan, not to mcpvet. Use
// errors.As to recognise it; any other error from [Launch] is an
// infrastructure failure.
type LaunchError struct {
	// Status is one of the Status constants.
	Status string
	// Detail says what went wrong, for people and agents.
	Detail string
	// Evidence holds supporting output, such as the last lines of an
	// installer's output.
	Evidence string
}

func (e *LaunchError) Error() string {
	if e.Detail == "" {
		return "launch: " + e.Status
	}
	return fmt.Sprintf("launch: %s: %s", e.Status, e.Detail)
}

func launchErrorf(status, format string, args ...any) *LaunchError {
	return &LaunchError{Status: status, Detail: fmt.Sprintf(format, args...)}
}
