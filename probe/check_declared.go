package probe

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/internal/lazyre"
	"github.com/mcpvet/mcpvet/internal/safe"
)

// Finding codes of the declared-versus-observed check.
const (
	CodeServerJSONInvalid    = "declared/server_json_invalid"
	CodeDeclaredVersion      = "declared/version_mismatch"
	CodeDeclaredTransport    = "declared/transport_mismatch"
	CodeEnvVarUndeclared     = "declared/env_var_undeclared"
	CodeEnvVarNotRequired    = "declared/env_var_not_required"
	maxServerJSONBytes       = 1 << 20
	maxEnvVarFindings        = 10
	declaredSubject          = "server"
	declaredEnvPointer       = "/packages/environmentVariables"
	declaredVersionPointer   = "/version"
	declaredTransportPointer = "/packages/transport/type"
)

func init() {
	register(
		CatalogEntry{CodeServerJSONInvalid, SeverityWarn,
			"the registry metadata (server.json) could not be read",
			"publish a server.json that validates against the registry's server.schema.json"},
		CatalogEntry{CodeDeclaredVersion, SeverityWarn,
			"the version in the registry differs from the version the server reports in serverInfo",
			"report the released version in serverInfo.version (read it from the package manifest rather than hard-coding it)"},
		CatalogEntry{CodeDeclaredTransport, SeverityError,
			"the server answered on a transport its registry metadata does not declare",
			"declare the transport the server actually speaks (stdio, streamable-http or sse) in server.json"},
		CatalogEntry{CodeEnvVarUndeclared, SeverityError,
			"the server stopped asking for an environment variable its registry metadata does not declare",
			"list every environment variable the server needs under environmentVariables in server.json, with isRequired and isSecret"},
		CatalogEntry{CodeEnvVarNotRequired, SeverityWarn,
			"the server stopped asking for an environment variable its registry metadata declares as optional",
			`mark the variable "isRequired": true in server.json, or let the server start without it`},
	)
}

// serverJSONDoc is the part of a registry server.json the check reads.
type serverJSONDoc struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Packages []struct {
		RegistryType string `json:"registryType"`
		Identifier   string `json:"identifier"`
		Version      string `json:"version"`
		Transport    struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		} `json:"transport"`
		EnvironmentVariables []struct {
			Name       string `json:"name"`
			IsRequired bool   `json:"isRequired"`
		} `json:"environmentVariables"`
	} `json:"packages"`
	Remotes []struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	} `json:"remotes"`
}

// CheckDeclared compares what a server's registry metadata (serverJSON, a
// server.json document or a registry API entry {"server": {...}}) declares
// with what the probe observed in res: the version against
// serverInfo.version, the declared transports against the one the
// handshake completed on, and the declared environment variables against
// those the server named when it died (res.Liveness.Evidence and
// StderrTail). It returns nil when serverJSON is empty. Findings are sorted
// like [Checker.Check]'s.
func CheckDeclared(res *Result, serverJSON json.RawMessage) []Finding {
	if res == nil || len(bytes.TrimSpace(serverJSON)) == 0 {
		return nil
	}
	doc, err := parseServerJSON(serverJSON)
	if err != nil {
		return []Finding{NewFinding(CodeServerJSONInvalid, declaredSubject, "", safe.Truncate(string(serverJSON), MaxEvidence, safe.Ellipsis),
			"the server.json given for the target could not be read: %v", err)}
	}
	pkgs := matchingPackages(doc, res.Target)
	out := declaredVersionFindings(res, doc, pkgs)
	out = append(out, declaredTransportFindings(res, doc, pkgs)...)
	out = append(out, declaredEnvFindings(res, doc, pkgs)...)
	return sortUniqueFindings(out)
}

// declaredVersionFindings compares the registry's version, or the
// package's, with the serverInfo.version of a completed handshake.
func declaredVersionFindings(res *Result, doc *serverJSONDoc, pkgs []int) []Finding {
	l := res.Liveness
	if !l.HandshakeCompleted || l.ServerInfo == nil || l.ServerInfo.Version == "" {
		return nil
	}
	var out []Finding
	declared := map[string]bool{}
	var list []string
	add := func(v string) {
		if v != "" && !declared[normalVersion(v)] {
			declared[normalVersion(v)] = true
			list = append(list, v)
		}
	}
	// A dist-tag such as "latest" is not a version: what it meant is
	// the version the sandbox installed.
	addVersion := func(v string) {
		if isVersionTag(v) {
			v = res.Target.InstalledVersion
		}
		add(v)
	}
	addVersion(doc.Version)
	for _, i := range pkgs {
		addVersion(doc.Packages[i].Version)
	}
	if len(list) > 0 && !declared[normalVersion(l.ServerInfo.Version)] {
		out = append(out, NewFinding(CodeDeclaredVersion, declaredSubject, declaredVersionPointer, l.ServerInfo.Version,
			"server.json declares version %s but the server reports serverInfo.version %q; report the released version",
			strings.Join(list, " / "), l.ServerInfo.Version))
	}
	return out
}

// declaredTransportFindings checks that the transport the handshake
// completed on is declared.
func declaredTransportFindings(res *Result, doc *serverJSONDoc, pkgs []int) []Finding {
	l := res.Liveness
	if !l.HandshakeCompleted || res.Target.Transport == "" {
		return nil
	}
	var out []Finding
	var declared []string
	for _, i := range pkgs {
		if t := doc.Packages[i].Transport.Type; t != "" {
			declared = append(declared, t)
		}
	}
	if res.Target.Transport != "stdio" {
		matched := false
		for _, r := range doc.Remotes {
			if r.URL != "" && r.URL == res.Target.URL {
				declared, matched = append(declared, r.Type), true
			}
		}
		if !matched {
			for _, r := range doc.Remotes {
				declared = append(declared, r.Type)
			}
		}
	}
	slices.Sort(declared)
	declared = slices.Compact(declared)
	if len(declared) > 0 && !slices.Contains(declared, res.Target.Transport) {
		out = append(out, NewFinding(CodeDeclaredTransport, declaredSubject, declaredTransportPointer, res.Target.Transport,
			"server.json declares transport %s but the server completed the handshake over %s; declare the transport it speaks",
			strings.Join(declared, ", "), res.Target.Transport))
	}
	return out
}

// declaredEnvFindings reports the environment variables a server that
// died before the handshake asked for, when server.json does not declare
// them, or declares them optional.
func declaredEnvFindings(res *Result, doc *serverJSONDoc, pkgs []int) []Finding {
	l := res.Liveness
	if l.HandshakeCompleted {
		return nil
	}
	var out []Finding
	declared := map[string]bool{} // name -> isRequired
	for _, i := range pkgs {
		for _, e := range doc.Packages[i].EnvironmentVariables {
			declared[e.Name] = declared[e.Name] || e.IsRequired
		}
	}
	for i, name := range askedEnvVars(l.Evidence + "\n" + l.StderrTail) {
		if i == maxEnvVarFindings {
			break
		}
		req, ok := declared[name]
		switch {
		case !ok:
			out = append(out, NewFinding(CodeEnvVarUndeclared, declaredSubject, declaredEnvPointer, name,
				"the server stopped asking for %s, which server.json does not declare; add it under environmentVariables with \"isRequired\": true", name))
		case !req:
			out = append(out, NewFinding(CodeEnvVarNotRequired, declaredSubject, declaredEnvPointer, name,
				"the server stopped asking for %s, which server.json declares as optional; mark it \"isRequired\": true", name))
		}
	}
	return out
}

func parseServerJSON(data json.RawMessage) (*serverJSONDoc, error) {
	if len(data) > maxServerJSONBytes {
		return nil, declaredError("it is over 1 MiB")
	}
	// A UTF-8 byte order mark is common in registry dumps.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var wrapper struct {
		Server json.RawMessage `json:"server"`
	}
	if err := json.Unmarshal(data, &wrapper); err != nil {
		return nil, err
	}
	if firstNonSpace(wrapper.Server) == '{' {
		data = wrapper.Server
	}
	var doc serverJSONDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

type declaredError string

func (e declaredError) Error() string { return string(e) }

// matchingPackages returns the indexes of the packages the target runs:
// those whose identifier appears in the target's name or command line, or
// all of them when none does.
func matchingPackages(doc *serverJSONDoc, t Target) []int {
	var all, matched []int
	hay := t.Name + "\x00" + strings.Join(t.Command, "\x00")
	for i, p := range doc.Packages {
		all = append(all, i)
		if p.Identifier != "" && strings.Contains(hay, p.Identifier) {
			matched = append(matched, i)
		}
	}
	if len(matched) > 0 {
		return matched
	}
	return all
}

// isVersionTag reports whether v is a dist-tag (latest, next, beta) rather
// than a version: versions start with a digit, or v and a digit.
func isVersionTag(v string) bool {
	v = normalVersion(v)
	return v != "" && (v[0] < '0' || v[0] > '9')
}

func normalVersion(v string) string {
	return strings.TrimPrefix(strings.TrimSpace(strings.ToLower(v)), "v")
}

var (
	// envVarName matches an environment variable name with at least one
	// underscore (GITHUB_TOKEN, OPENAI_API_KEY).
	envVarName = lazyre.New(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)
	// envAsking matches the words of a line that asks for a variable.
	envAsking = lazyre.New(`(?i)\b(?:env|environment|variable|var|not set|missing|required|requires|must be (?:set|provided|specified|supplied|given)|please (?:set|provide)|export|undefined|is empty|not (?:provided|configured|found))\b|process\.env|os\.environ|getenv`)
)

// askedEnvVars returns, in order of first appearance, the environment
// variable names that text asks for: names on lines that also say the
// variable is missing or required. Error-code constants (ERR_...) are not
// variables.
func askedEnvVars(text string) []string {
	var out []string
	seen := map[string]bool{}
	for line := range strings.SplitSeq(text, "\n") {
		if !envAsking.MatchString(line) {
			continue
		}
		for _, m := range envVarName.FindAllString(line, -1) {
			if strings.HasPrefix(m, "ERR_") || strings.HasSuffix(m, "_NOT_FOUND") || seen[m] {
				continue
			}
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}
