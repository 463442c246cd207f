// Package sariftest is the one reading of a SARIF 2.1.0 log that the
// tests of results/report and cmd/mcpvet decode what mcpvet writes into:
// the parts of the format the writers fill in, declared apart from the
// writers' own types, so that a field a writer names wrongly fails a
// test instead of decoding back the same way. Only tests import it.
package sariftest

// Log is a SARIF log.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one run of a tool: its rules and its results.
type Run struct {
	Tool struct {
		Driver Driver `json:"driver"`
	} `json:"tool"`
	Results []Result `json:"results"`
}

// Driver names the tool and lists its rules.
type Driver struct {
	Name  string `json:"name"`
	Rules []Rule `json:"rules"`
}

// Rule is one reporting descriptor.
type Rule struct {
	ID               string  `json:"id"`
	ShortDescription Message `json:"shortDescription"`
	Help             Message `json:"help"`
}

// Message is a SARIF message (or multiformat message string) as text.
type Message struct {
	Text string `json:"text"`
}

// Result is one result of a run.
type Result struct {
	RuleID       string         `json:"ruleId"`
	RuleIndex    int            `json:"ruleIndex"`
	Level        string         `json:"level"`
	Message      Message        `json:"message"`
	Locations    []Location     `json:"locations"`
	Suppressions []Suppression  `json:"suppressions"`
	Properties   map[string]any `json:"properties"`
}

// Location is a result's physical location: the artifact and the line.
type Location struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine int `json:"startLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

// Suppression is a result's suppression, such as a baseline's.
type Suppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}
