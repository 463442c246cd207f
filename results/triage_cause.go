package results

import (
	"strings"

	"github.com/mcpvet/mcpvet/internal/lazyre"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// exposeHint finds the flag the sandbox suggested for a path it did not
// show ("pass --expose /path").
var exposeHint = lazyre.New(`pass (--expose \S+)`)

// triageCauseStep returns the next step for a failed handshake whose cause
// the run's detail names (a path the sandbox did not show, a launcher that
// fetches without network, the run's own deadline, flags for unresolved
// references), or "" to fall back to the advice for the status.
func triageCauseStep(res *probe.Result) string {
	d := res.Liveness.Detail
	switch {
	case exposeHint.MatchString(d):
		return "the server needs a host path the sandbox does not show it: triage again with " + exposeHint.FindStringSubmatch(d)[1] +
			" (read-only; --expose-rw for a folder it writes to)"
	case strings.Contains(d, "exists on the host but is not exposed to the sandbox, and cannot be"):
		return "the server reads a credential store or your whole home folder at startup; point it at a copy of just the files it needs, and --expose that"
	case strings.Contains(d, "fetches its package at run time and the sandbox has no network"):
		return "let mcpvet install the package before launch (drop --no-translate, or probe npm:NAME@VERSION), or pass --allow-network"
	case strings.Contains(d, "before the run's deadline"):
		return "give the run more time: raise --timeout (the whole command) or --server-timeout (each server), which fired before the handshake deadline"
	case strings.Contains(d, "the run was interrupted"):
		return "run triage again and let it finish"
	case res.Liveness.Status == vocab.StatusNeedsConfiguration && strings.Contains(d, "; give --"):
		_, flags, _ := strings.Cut(d, "; give ")
		return "triage again with " + flags + " to fill in the entry's references"
	}
	return ""
}
