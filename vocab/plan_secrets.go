package vocab

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Stored returns a copy of p fit to be written to a database: the values
// of Env and Headers of a plan the user configured (a config file, the
// command line) are removed, and SecretFrom records for each where it is
// to be obtained again; user info in the URL is dropped. Values of
// registry and snapshot plans are the registry's published defaults and
// stay. Canary values are never in a plan.
func (p Plan) Stored() Plan {
	if u, err := url.Parse(p.URL); err == nil && u.User != nil {
		u.User = nil
		p.URL = u.String()
	}
	if len(p.ServerJSON) > 0 && userinfo.Match(p.ServerJSON) {
		p.ServerJSON = userinfo.ReplaceAll(p.ServerJSON, []byte("://"))
	}
	if p.Untrusted() || (len(p.Env) == 0 && len(p.Headers) == 0) {
		return p
	}
	from := map[string]string{}
	maps.Copy(from, p.SecretFrom)
	src := p.Source
	if src == "cli" || src == "" {
		src = "flag"
	}
	p.Env = blankValues(p.Env, from, "env:", flagSource(src, "--env"))
	p.Headers = blankValues(p.Headers, from, SecretHeaderPrefix, flagSource(src, "--header"))
	p.SecretFrom = from
	return p
}

// userinfo matches the user info of a URL inside JSON text.
var userinfo = regexp.MustCompile(`://[^/@\s"\\]+@`)

func flagSource(src, flag string) string {
	if src == "flag" {
		return "flag:" + flag
	}
	return src
}

// Restore fills the values [Plan.Stored] removed from p with those of
// fresh, the same plan built again from its source, and clears
// SecretFrom. It returns an error naming the first value fresh lacks.
func (p *Plan) Restore(fresh *Plan) error {
	for _, k := range sortedKeys(p.SecretFrom) {
		kind, name, _ := strings.Cut(k, ":")
		var v string
		var ok bool
		switch kind {
		case "env":
			v, ok = fresh.Env[name]
		case "header":
			v, ok = fresh.Headers[name]
		}
		if !ok {
			return &MissingSecretError{Plan: p.Name, Name: k, From: p.SecretFrom[k]}
		}
		switch kind {
		case "env":
			p.Env[name] = v
		case "header":
			p.Headers[name] = v
		}
	}
	p.SecretFrom = nil
	return nil
}

// A MissingSecretError says which removed value of a stored plan could not
// be obtained again, and from where it was to come.
type MissingSecretError struct {
	Plan string
	// Name is "env:NAME" or "header:NAME".
	Name string
	From string
}

func (e *MissingSecretError) Error() string {
	kind, name, _ := strings.Cut(e.Name, ":")
	what := "environment variable " + name
	if kind == "header" {
		what = "header " + name
	}
	how := "give it again"
	switch {
	case strings.HasPrefix(e.From, "config:"):
		how = fmt.Sprintf("put it back in %s", strings.TrimPrefix(e.From, "config:"))
	case strings.HasPrefix(e.From, "flag:"):
		how = fmt.Sprintf("pass %s %s=VALUE again", strings.TrimPrefix(e.From, "flag:"), name)
	case strings.HasPrefix(e.From, "env:"):
		how = fmt.Sprintf("set %s in the environment", strings.TrimPrefix(e.From, "env:"))
	}
	return fmt.Sprintf("target %q needs the value of its %s, which is not stored (it came from %s): %s", e.Plan, what, e.From, how)
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// blankValues returns m with every value emptied, recording in from where
// each value came from (source, unless from already says), under
// prefix+name. A nil or empty m stays as it is.
func blankValues(m, from map[string]string, prefix, source string) map[string]string {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = ""
		if _, ok := from[prefix+k]; !ok {
			from[prefix+k] = source
		}
	}
	return out
}

// Untrusted reports whether p came from a registry or a snapshot of one:
// its arguments and URL were written by someone other than the user, so
// they must never expose a host path, and mcpvet's own process must not be
// made to connect to the user's private network with them. Plans the user
// named (on the command line, in their own config) are trusted and used as
// written.
func (p *Plan) Untrusted() bool { return FromRegistry(p.Source) }

// FromRegistry reports whether a plan's or a target's source is a registry
// or a snapshot of one ("registry", "registry:URL", "snapshot:FILE"), not
// the user's command line or config.
func FromRegistry(source string) bool {
	return source == "registry" || strings.HasPrefix(source, "registry:") || strings.HasPrefix(source, "snapshot:")
}
