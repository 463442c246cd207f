package sandbox

import (
	"fmt"

	"github.com/mcpvet/mcpvet/vocab"
)

// A LaunchError is a pre-launch outcome: the server was not started for a
// reason that belongs to the server or its plan, not to mcpvet. Use
// errors.As to recognise it; any other error from [Launch] is an
// infrastructure failure.
type LaunchError struct {
	// Status is one of the pre-launch statuses of [vocab.Statuses]
	// (needs_configuration, runtime_unavailable, package_not_found,
	// version_not_found, install_failed, invalid_plan).
	Status vocab.Status
	// Detail says what went wrong, for people and agents.
	Detail string
	// Evidence holds supporting output, such as the last lines of an
	// installer's output.
	Evidence string
}

func (e *LaunchError) Error() string {
	if e.Detail == "" {
		return "launch: " + string(e.Status)
	}
	return fmt.Sprintf("launch: %s: %s", e.Status, e.Detail)
}

func launchErrorf(status vocab.Status, format string, args ...any) *LaunchError {
	return &LaunchError{Status: status, Detail: fmt.Sprintf(format, args...)}
}
