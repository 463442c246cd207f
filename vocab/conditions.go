package vocab

// Conditions are the run conditions of a scan: what the machine that ran
// it could reach and run. A census report prints them first, since a
// server this machine could not reach or run is not assessed, and the
// verdicts of the others hold only under these conditions.
type Conditions struct {
	// CheckedAt is when the conditions were checked (RFC 3339, UTC).
	CheckedAt string `json:"checkedAt"`
	// DNS says whether public names resolve here.
	DNS DNSCondition `json:"dns"`
	// Indexes are the registries and package indexes the scan needs, each
	// with whether it answered.
	Indexes []IndexCondition `json:"indexes"`
	// ContainerEngine is the engine found (docker or podman, with its
	// path), or "" when none runs.
	ContainerEngine string `json:"containerEngine"`
	// Runtimes are the runtimes looked for on PATH.
	Runtimes []RuntimeCondition `json:"runtimes"`
	// Sandbox is the sandbox backend setting (auto, bwrap, builtin,
	// none); the backend each server ran under is in its result.
	Sandbox string `json:"sandbox"`
	// Network is true when servers may reach the network at run time
	// (--allow-network).
	Network bool `json:"network"`
}

// DNSCondition is whether names resolve here. A resolver that answers
// only for some names (a proxy's allow list) resolves Resolved and not
// Failed; PublicNames is false when none of the reference names outside
// the package registries resolves, and a remote whose name does not
// resolve is then not assessed.
type DNSCondition struct {
	PublicNames bool     `json:"publicNames"`
	Resolved    []string `json:"resolved"`
	Failed      []string `json:"failed"`
	Detail      string   `json:"detail,omitempty"`
}

// IndexCondition is one registry or package index and whether it
// answered (any HTTP answer counts).
type IndexCondition struct {
	// Name is "npm registry", "PyPI index", "MCP registry", ...
	Name     string `json:"name"`
	URL      string `json:"url"`
	Answered bool   `json:"answered"`
	// Detail is the HTTP status or the error.
	Detail string `json:"detail,omitempty"`
}

// RuntimeCondition is one runtime looked for on PATH.
type RuntimeCondition struct {
	Name  string `json:"name"`
	Found bool   `json:"found"`
}

// Answered reports whether the index named name answered; unknown is true
// when it was not checked.
func (c *Conditions) Answered(name string) (answered, known bool) {
	if c == nil {
		return false, false
	}
	for _, ix := range c.Indexes {
		if ix.Name == name {
			return ix.Answered, true
		}
	}
	return false, false
}
