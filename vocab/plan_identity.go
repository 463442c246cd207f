package vocab

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
)

// Identity returns what makes two plans the same server, whatever their
// entries are called and wherever they are written: what reaches the
// server. A remote is its transport, URL and headers; a local server its
// package or command, arguments, environment and secrets, and its working
// directory only where that can change what runs (a relative path in its
// command or arguments). Two config entries with one identity are probed
// once; a baseline scan's server is the current one with the same identity.
//
// Values removed by [Plan.Stored] are compared by name, so compare stored
// plans with stored plans.
func (p Plan) Identity() string {
	type ident struct {
		Transport string            `json:"t"`
		URL       string            `json:"u,omitempty"`
		Headers   map[string]string `json:"h,omitempty"`
		Command   string            `json:"c,omitempty"`
		Args      []string          `json:"a,omitempty"`
		Package   *Package          `json:"p,omitempty"`
		Env       map[string]string `json:"e,omitempty"`
		Secrets   []string          `json:"s,omitempty"`
		Dir       string            `json:"d,omitempty"`
		Status    Status            `json:"st,omitempty"`
	}
	id := ident{Transport: p.Transport, Status: p.Status}
	if p.Transport != TransportStdio && p.URL != "" {
		id.URL, id.Headers = p.URL, p.Headers
		if len(p.Secrets) > 0 {
			id.Secrets = sortedCopy(p.Secrets)
		}
	} else {
		id.Command, id.Args, id.Package, id.Env = p.Command, p.Args, p.Package, p.Env
		if len(p.Secrets) > 0 {
			id.Secrets = sortedCopy(p.Secrets)
		}
		if p.Dir != "" && dirMatters(p) {
			id.Dir = filepath.Clean(p.Dir)
		}
	}
	b, _ := json.Marshal(id) // maps marshal with sorted keys
	return string(b)
}

// dirMatters reports whether a local plan's working directory can change
// what runs: its command or one of its arguments is a relative path. An
// installed package's own command is mcpvet's; only its arguments count.
func dirMatters(p Plan) bool {
	if p.Package == nil && relativePath(p.Command, true) {
		return true
	}
	for _, a := range p.Args {
		if strings.HasPrefix(a, "-") {
			_, v, ok := strings.Cut(a, "=")
			if !ok {
				continue
			}
			a = v
		}
		if relativePath(a, false) {
			return true
		}
	}
	return false
}

// relativePath reports whether s names a path relative to the working
// directory. A command without a slash is looked up on PATH; an argument
// without one counts when it looks like a file (it has an extension) or is
// . or ..; URLs and npm scopes (@scope/name) are no paths.
func relativePath(s string, command bool) bool {
	switch {
	case s == "", filepath.IsAbs(s), strings.Contains(s, "://"), strings.HasPrefix(s, "@"), strings.HasPrefix(s, "~"):
		return false
	case s == "." || s == "..":
		return true
	case strings.Contains(s, "/"):
		return true
	case command:
		return false
	}
	ext := filepath.Ext(s)
	return len(ext) > 1 && len(ext) <= 5 && ext != s && strings.ContainsAny(ext, "abcdefghijklmnopqrstuvwxyz")
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
