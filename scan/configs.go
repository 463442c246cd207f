package scan

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/scan/source"
	"github.com/mcpvet/mcpvet/vocab"
)

// ExpandTriage makes t, loaded from the scan of set's distinct servers,
// report every config entry of set: each entry in config order with the
// run of the server probed for it, its line in its config, its client and
// (when set has several configs) its config, then the entries skipped
// with their reasons. It recounts t and recomputes its portfolio findings
// per client ([results.Triage.CheckPortfolio]).
func ExpandTriage(t *results.Triage, set *source.ConfigSet) {
	byKey := map[string]results.TriageServer{}
	for _, srv := range t.Servers {
		byKey[srv.Key] = srv
	}
	multi := 0
	for _, c := range set.Configs {
		if len(c.Plans) > 0 {
			multi++
		}
	}
	var servers []results.TriageServer
	t.Skipped = nil
	for _, c := range set.Configs {
		config := ""
		if multi > 1 {
			config = c.Found.Path
		}
		for _, pl := range c.Plans {
			probed := set.Probed[pl.Key]
			srv, ok := byKey[probed]
			if !ok {
				continue
			}
			srv.Key, srv.Name = pl.Key, pl.Name
			srv.Probed = ""
			if probed != pl.Key {
				srv.Probed = probed
			}
			srv.Line = source.KeyLine(c.Data, pl.Name)
			srv.Config, srv.Client = config, c.Found.Client
			srv.Project = projectOf(pl.Key, c.Found.Path)
			servers = append(servers, srv)
		}
		for _, sk := range c.Skipped {
			t.Skipped = append(t.Skipped, results.TriageSkipped{Config: config, Client: c.Found.Client, Name: sk.Name, Reason: sk.Reason})
		}
	}
	t.Servers = servers
	t.Recount()
	t.CheckPortfolio()
}

// projectOf returns the project of a per-project entry's key
// ("config:FILE#PROJECT#NAME"), or "".
func projectOf(key, file string) string {
	rest, ok := strings.CutPrefix(key, "config:"+file+"#")
	if !ok {
		return ""
	}
	project, _, ok := strings.Cut(rest, "#")
	if !ok {
		return ""
	}
	return project
}

// A RestoreError is a secret a resumed scan cannot obtain again: the
// message names the value and what to supply.
type RestoreError struct{ Msg string }

func (e *RestoreError) Error() string { return e.Msg }

// ConfigRestorer returns the [Options.Restore] of a resumed scan: it
// obtains again the secret values the stored plans lack, from the source
// each came from: the config file (read again as a scan reads it, with
// opts), the environment, or env and headers, the KEY=VALUE --env and
// --header flags given to the resume. What it cannot obtain is a
// *[RestoreError] naming the value and what to supply.
func ConfigRestorer(opts *source.ConfigOptions, env, headers []string) func(context.Context, *vocab.Plan) error {
	configs := map[string]map[string]*vocab.Plan{}
	configErr := map[string]error{}
	load := func(file string) (map[string]*vocab.Plan, error) {
		if m, ok := configs[file]; ok || configErr[file] != nil {
			return m, configErr[file]
		}
		set, err := source.LoadConfigSet(file, source.DiscoverEnv{}, opts)
		if err != nil {
			configErr[file] = err
			return nil, err
		}
		m := map[string]*vocab.Plan{}
		for _, c := range set.Configs {
			for i := range c.Plans {
				m[c.Plans[i].Key] = &c.Plans[i]
			}
		}
		configs[file] = m
		return m, nil
	}
	return func(_ context.Context, p *vocab.Plan) error {
		fresh := &vocab.Plan{Env: map[string]string{}, Headers: map[string]string{}}
		for k, from := range p.SecretFrom {
			kind, name, _ := strings.Cut(k, ":")
			put := func(v string) {
				if kind == "header" {
					fresh.Headers[name] = v
				} else {
					fresh.Env[name] = v
				}
			}
			switch {
			case strings.HasPrefix(from, "config:"):
				file := strings.TrimPrefix(from, "config:")
				m, err := load(file)
				if err != nil {
					return &RestoreError{fmt.Sprintf("--resume: target %q needs the value of %s from the config %s, which cannot be read again (%s); restore the file or start a new scan",
						p.Name, name, file, firstLine(err))}
				}
				if q := m[p.Key]; q != nil {
					if v, ok := q.Env[name]; ok && kind == "env" {
						put(v)
					}
					if v, ok := q.Headers[name]; ok && kind == "header" {
						put(v)
					}
				}
			case from == "flag:--env" || from == "flag:--header":
				kvs := env
				if from == "flag:--header" {
					kvs = headers
				}
				for _, kv := range kvs {
					if n, v, ok := strings.Cut(kv, "="); ok && n == name {
						put(v)
					}
				}
			case strings.HasPrefix(from, "env:"):
				if v, ok := os.LookupEnv(strings.TrimPrefix(from, "env:")); ok {
					put(v)
				}
			}
		}
		if err := p.Restore(fresh); err != nil {
			return &RestoreError{"--resume: " + err.Error()}
		}
		return nil
	}
}

// firstLine is the first line of err's message.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
