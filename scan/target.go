package scan

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpvet/mcpvet/scan/source"
	"github.com/mcpvet/mcpvet/vocab"
)

// ParseTarget turns the target of `mcpvet probe` into a launch plan:
//
//	https://host/mcp                 a streamable-HTTP server (SSE fallback)
//	sse+https://host/sse             a legacy SSE server
//	npm:NAME[@VERSION] [ARGS...]     an npm package, installed then run
//	pypi:NAME[==VERSION] [ARGS...]   a PyPI package, run with uvx
//	oci:IMAGE[:TAG] [ARGS...]        an OCI image, run with docker or podman
//	COMMAND [ARGS...]                a stdio command, as argv (no shell)
//
// args is everything after the flags (with or without a "--").
func ParseTarget(args []string) (*vocab.Plan, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("target: missing; give a command after --, a URL, or npm:NAME@VERSION")
	}
	first, rest := args[0], args[1:]
	plan := &vocab.Plan{Source: "cli", Name: strings.Join(args, " ")}
	switch {
	case strings.HasPrefix(first, "http://") || strings.HasPrefix(first, "https://") ||
		strings.HasPrefix(first, "sse+http://") || strings.HasPrefix(first, "sse+https://"):
		if len(rest) > 0 {
			return nil, fmt.Errorf("target %q: a URL takes no arguments, got %q", first, rest[0])
		}
		raw := strings.TrimPrefix(first, "sse+")
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("target %q: not a valid URL; use https://host/path", first)
		}
		plan.URL = raw
		plan.Transport = vocab.TransportStreamable
		if strings.HasPrefix(first, "sse+") {
			plan.Transport = vocab.TransportSSE
		}
		plan.Name = raw
	case strings.HasPrefix(first, "npm:"):
		name, ver := splitVersion(strings.TrimPrefix(first, "npm:"), "@")
		if name == "" {
			return nil, fmt.Errorf("target %q: missing package name; use npm:NAME@VERSION", first)
		}
		plan.Transport = vocab.TransportStdio
		plan.Package = &vocab.Package{RegistryType: "npm", Identifier: name, Version: ver}
		plan.Args = rest
		plan.Name, plan.Version = name, ver
	case strings.HasPrefix(first, "pypi:"):
		name, ver := splitVersion(strings.TrimPrefix(first, "pypi:"), "==")
		if name == "" {
			return nil, fmt.Errorf("target %q: missing package name; use pypi:NAME==VERSION", first)
		}
		plan.Transport = vocab.TransportStdio
		plan.Package = &vocab.Package{RegistryType: "pypi", Identifier: name, Version: ver}
		plan.Args = rest
		plan.Name, plan.Version = name, ver
	case strings.HasPrefix(first, "oci:"):
		image := strings.TrimPrefix(first, "oci:")
		if image == "" {
			return nil, fmt.Errorf("target %q: missing image; use oci:IMAGE:TAG", first)
		}
		plan.Transport = vocab.TransportStdio
		plan.Package = &vocab.Package{RegistryType: "oci", Identifier: image}
		plan.Args = rest
		plan.Name = image
	default:
		plan.Transport = vocab.TransportStdio
		plan.Command = first
		plan.Args = rest
	}
	if len(plan.Args) == 0 {
		plan.Args = nil
	}
	plan.Key = "cli:" + strings.Join(args, " ")
	return plan, nil
}

// splitVersion splits "name@1.2.3" (or "@scope/name@1.2.3") at the last sep
// that is not the first character.
func splitVersion(s, sep string) (name, version string) {
	i := strings.LastIndex(s, sep)
	if i <= 0 {
		return s, ""
	}
	return s[:i], s[i+len(sep):]
}

// TranslateLauncher rewrites a target whose command is a launcher (npx -y
// pkg, uvx, docker run) into the package it runs, installed before launch,
// as a client config's entry is (see [source.Translate]). What it refuses
// or cannot translate is added to the plan's notes, which the result
// reports as findings.
func TranslateLauncher(plan *vocab.Plan) {
	_, notes, err := source.Translate(plan)
	if err != nil {
		notes = append(notes, err.Error())
	}
	plan.Notes = append(plan.Notes, notes...)
}
