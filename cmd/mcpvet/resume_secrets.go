package main

import (
	"context"
	"os"
	"strings"

	"github.com/mcpvet/mcpvet/scan/source"
	"github.com/mcpvet/mcpvet/vocab"
)

// secretRestorer obtains again, for a resumed scan, the secret values its
// stored plans lack, from the source each came from: the config file
// (read again), the environment, or the --env and --header flags given to
// `scan --resume`. What it cannot obtain stops the resume with one line
// naming the value and what to supply.
func secretRestorer(f *scanFlags) func(context.Context, *vocab.Plan) error {
	configs := map[string]map[string]*vocab.Plan{}
	configErr := map[string]error{}
	load := func(file string) (map[string]*vocab.Plan, error) {
		if m, ok := configs[file]; ok || configErr[file] != nil {
			return m, configErr[file]
		}
		fh, err := os.Open(file)
		if err != nil {
			configErr[file] = err
			return nil, err
		}
		defer fh.Close()
		plans, err := source.ReadConfig(fh, &source.ConfigOptions{File: file})
		if err != nil {
			configErr[file] = err
			return nil, err
		}
		m := map[string]*vocab.Plan{}
		for i := range plans {
			m[plans[i].Key] = &plans[i]
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
					return usagef("--resume: target %q needs the value of %s from the config %s, which cannot be read again (%s); restore the file or start a new scan",
						p.Name, name, file, reasonLine(err))
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
				kvs := f.env
				if from == "flag:--header" {
					kvs = f.headers
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
			return usagef("--resume: %v", err)
		}
		return nil
	}
}

// reasonLine is the first line of err.
func reasonLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
