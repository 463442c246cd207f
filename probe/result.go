package probe

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// Result is everything one probe of one server found. Its JSON encoding is
// the `mcpvet probe --json` contract: fields are added, never renamed or
// removed.
type Result struct {
	Target    Target     `json:"target"`
	Liveness  Liveness   `json:"liveness"`
	Tools     []Tool     `json:"tools"`
	Prompts   []Prompt   `json:"prompts"`
	Resources []Resource `json:"resources"`
	// ResourceTemplates are listed with resources/templates/list.
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	Findings          []Finding          `json:"findings"`
	Calls             []Call             `json:"calls"`
	// Probes are the failure-injection calls and how each response graded.
	Probes []ProbeCall `json:"probes"`
	// Score is the server's actionability score (0-100), nil when no error
	// response was graded.
	Score *float64 `json:"score"`
	// Verdict is keep, fix or drop with the rules that decided it.
	Verdict *Verdict `json:"verdict,omitempty"`
	// RubricVersion identifies the grading rubric used for Probes and Score.
	RubricVersion string `json:"rubricVersion,omitempty"`

	// Received holds every message the server sent, in arrival order, for
	// the grader's secret search; it is not stored.
	Received []Message `json:"-"`
	// ReceivedDropped counts messages not kept in Received because of its
	// memory bound.
	ReceivedDropped int `json:"-"`
	// Client is what mcpvet declared as a client and how it answered the
	// server's requests (roots, sampling, elicitation).
	Client *ClientSide `json:"client,omitempty"`
	// Exercised are the successful tool calls of --exercise.
	Exercised []Exercise `json:"exercised,omitempty"`
	// ExerciseCalls is the declared budget of --exercise's tools/call
	// requests (0 when --exercise was off).
	ExerciseCalls int `json:"exerciseCalls,omitempty"`
	// Relisted is the tool list listed again after the calls of
	// --exercise (nil when it was not listed again): the poison checks
	// compare it with Tools, since a tool list that changes after the
	// first call within a session is a rug pull.
	Relisted []Tool `json:"-"`
	// OAuth is the OAuth readiness of a remote that answered 401
	// (check_oauth.go); nil when it did not.
	OAuth *OAuthReadiness `json:"oauth,omitempty"`
	// Context is what a client loads into a model's context from this
	// server, in o200k_base tokens ([MeasureContext]).
	Context *ContextCost `json:"context,omitempty"`
}

// Target says what was probed and how.
type Target struct {
	// Name is the registry or config name, or the command line.
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// Source is where the target came from: "cli", "registry", "config:FILE", ...
	Source string `json:"source"`
	// Transport is stdio, streamable-http or sse.
	Transport string   `json:"transport"`
	Command   []string `json:"command,omitempty"`
	// Launcher is the launcher a config named ("npx") when mcpvet ran its
	// package itself; Written is the command as the config wrote it.
	Launcher string   `json:"launcher,omitempty"`
	Written  []string `json:"written,omitempty"`
	URL      string   `json:"url,omitempty"`
	// InstalledVersion is the package version the sandbox installed, when
	// the plan named a dist-tag (latest) or no version.
	InstalledVersion string `json:"installedVersion,omitempty"`
	// SDK names the MCP SDK the installed package depends on, and
	// SDKEvidence how that is known ("the package depends on ...").
	SDK         string `json:"sdk,omitempty"`
	SDKEvidence string `json:"sdkEvidence,omitempty"`
	// Sandbox names the isolation backend that ran the server.
	Sandbox string `json:"sandbox,omitempty"`
	// Isolation records how the sandbox ran the server, when it ran one.
	Isolation *Isolation `json:"isolation,omitempty"`
}

// Isolation is the sandbox configuration a run had, so results say what
// they were measured under.
type Isolation struct {
	Backend string `json:"backend"`
	// Network is true when the server could reach the network at run time.
	Network bool `json:"network"`
	// Mechanisms lists what enforced isolation and limits ("pidns",
	// "cgroup1:memory", "rlimit:as", ...).
	Mechanisms []string `json:"mechanisms,omitempty"`
	// Limits in force; a negative value means the limit was disabled.
	MemoryBytes  int64 `json:"memoryBytes"`
	Processes    int   `json:"processes"`
	CPUTimeMs    int64 `json:"cpuTimeMs"`
	WallMs       int64 `json:"wallMs"`
	StdoutBytes  int64 `json:"stdoutBytes"`
	MessageBytes int   `json:"messageBytes"`
	// WorkDir is the host folder the server started in, when it was not
	// its private HOME; Home is its HOME when that was the real one
	// (sandbox none).
	WorkDir string `json:"workDir,omitempty"`
	Home    string `json:"home,omitempty"`
	// Exposed lists the host paths the server saw besides the system
	// folders, and why.
	Exposed []ExposedPath `json:"exposed,omitempty"`
	// Refused lists, one line each, the paths the server was not shown
	// although its config named them (a credential store, $HOME), and why.
	Refused []string `json:"refused,omitempty"`
}

// ExposedPath is a host path a sandboxed server saw.
type ExposedPath struct {
	Path     string `json:"path"`
	Writable bool   `json:"writable,omitempty"`
	// Why is cwd, argv, project, prefix, expose or expose-rw.
	Why string `json:"why"`
}

// Liveness is whether the server came up and what it said about itself.
type Liveness struct {
	Status vocab.Status `json:"status"`
	// HandshakeCompleted is true when initialize (or server/discover)
	// succeeded, whatever the status.
	HandshakeCompleted bool `json:"handshakeCompleted"`
	// Detail explains the status in one line.
	Detail          string      `json:"detail,omitempty"`
	ProtocolVersion string      `json:"protocolVersion,omitempty"`
	ServerInfo      *ServerInfo `json:"serverInfo,omitempty"`
	// Capabilities is the raw capabilities object the server declared.
	Capabilities      json.RawMessage `json:"capabilities,omitempty"`
	InstructionsBytes int             `json:"instructionsBytes"`
	// Instructions are the server instructions of the handshake, cut to
	// [MaxInstructions] bytes, kept so portfolio checks and diffs can
	// read them.
	Instructions string `json:"instructions,omitempty"`
	// Handshake is "initialize" or "server/discover".
	Handshake string  `json:"handshake,omitempty"`
	Timings   Timings `json:"timings"`
	// StderrTail is the last 4 KiB of the server's stderr.
	StderrTail string `json:"stderrTail,omitempty"`
	ExitCode   *int   `json:"exitCode,omitempty"`
	// StdoutNoise is the first non-protocol bytes seen on stdout.
	StdoutNoise string `json:"stdoutNoise,omitempty"`
	// Evidence is the text that decided the status (for example the stderr
	// line naming a missing credential).
	Evidence string `json:"evidence,omitempty"`
	// Environment, when set, says that the status reflects a limit of the
	// machine that ran the scan, not the server (for example "DNS resolves
	// no public name here"); the verdict is then not_assessed.
	Environment string `json:"environment,omitempty"`
}

// ServerInfo is the implementation the server named in the handshake.
type ServerInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Timings are durations in milliseconds.
type Timings struct {
	// StartMs is from launch to the first byte from the server.
	StartMs float64 `json:"startMs"`
	// HandshakeMs is from launch to the end of the handshake.
	HandshakeMs float64 `json:"handshakeMs"`
	// ListMs covers all list calls (and the basic calls, unless they ran
	// beside the injection's batch).
	ListMs float64 `json:"listMs"`
	// ProbeMs covers failure injection.
	ProbeMs float64 `json:"probeMs"`
	// TotalMs is the whole run including shutdown.
	TotalMs float64 `json:"totalMs"`
}

// Ms converts a duration to float milliseconds.
func Ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Tool is one tool as listed. Raw keeps the exact JSON the server sent.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Raw          json.RawMessage `json:"raw"`
	// SentBytes is the tool's size as sent when a member was cut at
	// [MaxItemField] (Raw is what was kept), else 0.
	SentBytes int `json:"sentBytes,omitempty"`
	// NeedsClientCapabilities is true for a tool the server lists only to
	// clients that declare capabilities (roots, sampling, elicitation):
	// a session declaring none did not list it. Known for HTTP targets.
	NeedsClientCapabilities bool `json:"needsClientCapabilities,omitempty"`
}

// Prompt is one prompt as listed.
type Prompt struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Arguments   json.RawMessage `json:"arguments,omitempty"`
	Raw         json.RawMessage `json:"raw"`
	// SentBytes is the prompt's size as sent when a member was cut at
	// [MaxItemField], else 0.
	SentBytes int `json:"sentBytes,omitempty"`
}

// Resource is one resource as listed.
type Resource struct {
	URI      string          `json:"uri"`
	Name     string          `json:"name"`
	MIMEType string          `json:"mimeType,omitempty"`
	Raw      json.RawMessage `json:"raw"`
	// SentBytes is the resource's size as sent when a member was cut at
	// [MaxItemField], else 0.
	SentBytes int `json:"sentBytes,omitempty"`
}

// ResourceTemplate is one resource template as listed.
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Raw         json.RawMessage `json:"raw"`
	// SentBytes is the template's size as sent when a member was cut at
	// [MaxItemField], else 0.
	SentBytes int `json:"sentBytes,omitempty"`
}

// Call is the telemetry of one request the scanner sent: the per-call log
// that is the primary debugging surface.
type Call struct {
	Seq    int    `json:"seq"`
	Method string `json:"method"`
	// Tool is the tool name for tools/call.
	Tool string `json:"tool,omitempty"`
	// InputHash is the first 16 hex digits of the SHA-256 of the params.
	InputHash   string  `json:"inputHash"`
	LatencyMs   float64 `json:"latencyMs"`
	OutputBytes int     `json:"outputBytes"`
	// ErrorCode is the JSON-RPC error code, if the response was an error.
	ErrorCode *int64 `json:"errorCode,omitempty"`
	// IsError is true for a tool result with isError set.
	IsError bool `json:"isError,omitempty"`
	// Outcome is "result", "error", "timeout" or "closed".
	Outcome string `json:"outcome"`
}

// ProbeCall is one failure-injection request and how its response graded.
type ProbeCall struct {
	// Kind names the injected failure (missing_required, wrong_type, ...).
	Kind   string `json:"kind"`
	Method string `json:"method"`
	Tool   string `json:"tool,omitempty"`
	// Param is the argument the probe made invalid, if any.
	Param string `json:"param,omitempty"`
	// Sent is the params object sent.
	Sent json.RawMessage `json:"sent"`
	// Class is protocol_error, tool_error, accepted, crash or hang.
	Class     string  `json:"class"`
	LatencyMs float64 `json:"latencyMs"`
	// Response is the raw result or error object, truncated.
	Response json.RawMessage `json:"response,omitempty"`
	// Text is the human-readable text the response carried.
	Text string `json:"text,omitempty"`
	// Elements are the graded rubric elements with their evidence.
	Elements []Element `json:"elements,omitempty"`
	Score    *float64  `json:"score"`
	// Destructive and OpenWorld record the target tool's annotations.
	Destructive bool `json:"destructive,omitempty"`
	OpenWorld   bool `json:"openWorld,omitempty"`
	// Retry is the one corrected call derived from this error response
	// and its outcome, when mcpvet may repeat the call ([Retry]).
	Retry *Retry `json:"retry,omitempty"`
}

// Element is one graded rubric element of an error response.
type Element struct {
	Name     string `json:"name"`
	Pass     bool   `json:"pass"`
	Evidence string `json:"evidence,omitempty"`
}

// Verdict is a decision (keep, fix or drop for an assessed server;
// needs_setup or not_assessed for one that was not) with who must act and
// the rules behind it.
type Verdict struct {
	Decision string `json:"decision"`
	// Actor is who must act: the server's author (fix, drop), the user
	// (needs_setup), the environment that ran the scan (not_assessed), or
	// nobody (keep). Results stored before the actor existed have none
	// recorded; [Verdict.Who] derives it from the decision.
	Actor vocab.Actor `json:"actor,omitempty"`
	// Supply lists what the user has to supply for needs_setup: variable
	// names, a header, OAuth authorization.
	Supply []string `json:"supply,omitempty"`
	// Cause says, for not_assessed, what this machine lacked; for drop,
	// why the server is not to be used.
	Cause string `json:"cause,omitempty"`
	// AuthorItems counts the distinct findings (code and subject) the
	// author has to act on, and WorstSeverity is the highest of their
	// severities; set for fix and drop.
	AuthorItems   int      `json:"authorItems,omitempty"`
	WorstSeverity Severity `json:"worstSeverity,omitempty"`
	// Advisories are notes that did not decide (an error score below the
	// policy's minScore on a server without findings to fix).
	Advisories []string `json:"advisories,omitempty"`
	// Rules are in the order they were evaluated; the first that fired
	// decided.
	Rules []Rule `json:"rules"`
}

// Who returns the verdict's actor, derived from the decision for a
// verdict stored without one (keep: none; fix and drop: author;
// needs_setup: user; not_assessed: environment).
func (v *Verdict) Who() vocab.Actor {
	if v == nil {
		return ""
	}
	if v.Actor != "" {
		return v.Actor
	}
	return ActorOf(v.Decision)
}

// ActorOf is the actor a decision implies.
func ActorOf(decision string) vocab.Actor {
	switch decision {
	case vocab.DecisionKeep:
		return vocab.ActorNone
	case vocab.DecisionFix, vocab.DecisionDrop:
		return vocab.ActorAuthor
	case vocab.DecisionNeedsSetup:
		return vocab.ActorUser
	case vocab.DecisionNotAssessed:
		return vocab.ActorEnvironment
	}
	return ""
}

// Words returns the verdict in a user's words: "usable", "usable, author
// has 3 items (worst: error)", "do not use: CAUSE", "needs setup: supply
// A, B", "not assessed: CAUSE".
func (v *Verdict) Words() string {
	if v == nil {
		return ""
	}
	switch v.Decision {
	case vocab.DecisionKeep:
		if len(v.Advisories) > 0 {
			return "usable (advisory: " + strings.Join(v.Advisories, "; ") + ")"
		}
		return "usable"
	case vocab.DecisionFix:
		if v.AuthorItems == 0 {
			return "usable, author has items"
		}
		items := "items"
		if v.AuthorItems == 1 {
			items = "item"
		}
		return fmt.Sprintf("usable, author has %d %s (worst: %s)", v.AuthorItems, items, v.WorstSeverity)
	case vocab.DecisionDrop:
		if v.Cause == "" {
			return "do not use"
		}
		return "do not use: " + v.Cause
	case vocab.DecisionNeedsSetup:
		if len(v.Supply) == 0 {
			return "needs setup"
		}
		return "needs setup: supply " + strings.Join(v.Supply, ", ")
	case vocab.DecisionNotAssessed:
		if v.Cause == "" {
			return "not assessed"
		}
		return "not assessed: " + v.Cause
	}
	return v.Decision
}

// Rule is one step of a verdict's trace.
type Rule struct {
	Name     string   `json:"name"`
	Fired    bool     `json:"fired"`
	Decision string   `json:"decision,omitempty"`
	Findings []string `json:"findings,omitempty"`
	Detail   string   `json:"detail,omitempty"`
}
