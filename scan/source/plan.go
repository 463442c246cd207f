package source

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpvet/mcpvet/vocab"
)

// Registry types of a package.
const (
	RegistryNPM   = "npm"
	RegistryPyPI  = "pypi"
	RegistryOCI   = "oci"
	RegistryNuGet = "nuget"
	RegistryMCPB  = "mcpb"
	// RegistryRemote is the key under which [Stats] counts remotes.
	RegistryRemote = "remote"
)

// PlanOptions configure [Plans] and [Planner].
type PlanOptions struct {
	// AllVersions keeps entries that are not the latest version of their
	// server. By default only entries whose registry metadata says isLatest
	// are kept (the CLI's --latest-only); entries without registry metadata
	// are always kept.
	AllVersions bool
	// IncludeDeprecated keeps entries with status deprecated. Deleted
	// entries are always skipped.
	IncludeDeprecated bool
	// Values are the user's values for inputs, by environment variable,
	// header, argument (flag with or without dashes, or valueHint) or
	// template variable name. A publisher's fixed "value" wins over them.
	Values map[string]string
	// Source is [vocab.Plan.Source]; "registry" when empty.
	Source string
}

// Stats counts what [Plans] kept, skipped and built.
// Total = Kept + SkippedDeprecated + SkippedDeleted + SkippedNotLatest, and
// Plans = sum of PlansByRegistryType = sum of PlansByTransport.
type Stats struct {
	// Total is the number of entries seen.
	Total             int `json:"total"`
	Kept              int `json:"kept"`
	SkippedDeprecated int `json:"skippedDeprecated"`
	SkippedDeleted    int `json:"skippedDeleted"`
	SkippedNotLatest  int `json:"skippedNotLatest"`
	// NoTargets counts kept entries with neither packages nor remotes.
	NoTargets int `json:"noTargets"`

	// Plans is the number of plans built.
	Plans int `json:"plans"`
	// PlansByRegistryType counts plans by package registry type, remotes
	// under "remote".
	PlansByRegistryType map[string]int `json:"plansByRegistryType"`
	// PlansByTransport counts plans by transport (stdio, streamable-http,
	// sse); invalid transports count under their declared name.
	PlansByTransport map[string]int `json:"plansByTransport"`
	// NeedsConfiguration counts plans with required inputs without a value.
	NeedsConfiguration int `json:"needsConfiguration"`
	// Invalid counts plans refused for a structural problem (an unknown
	// registry type or transport, a missing identifier or URL).
	Invalid int `json:"invalid"`
}

// A Planner turns entries into plans one at a time, filtering and counting
// as it goes, so a crawl can be planned while it runs. A Planner is not safe
// for concurrent use.
type Planner struct {
	opts  PlanOptions
	stats Stats
}

// NewPlanner returns a planner; opts may be nil.
func NewPlanner(opts *PlanOptions) *Planner {
	p := &Planner{}
	if opts != nil {
		p.opts = *opts
	}
	p.stats.PlansByRegistryType = map[string]int{}
	p.stats.PlansByTransport = map[string]int{}
	return p
}

// Add filters e and returns its plans: nil when e is skipped (deleted,
// deprecated or not the latest version) or has no package and no remote.
func (p *Planner) Add(e Entry) []vocab.Plan {
	p.stats.Total++
	if o := e.Official; o != nil {
		switch {
		case o.Status == StatusDeleted:
			p.stats.SkippedDeleted++
			return nil
		case o.Status == StatusDeprecated && !p.opts.IncludeDeprecated:
			p.stats.SkippedDeprecated++
			return nil
		case !o.IsLatest && !p.opts.AllVersions:
			p.stats.SkippedNotLatest++
			return nil
		}
	}
	p.stats.Kept++
	plans := EntryPlans(e, &p.opts)
	if len(plans) == 0 {
		p.stats.NoTargets++
	}
	for _, pl := range plans {
		p.stats.Plans++
		kind := RegistryRemote
		if pl.Package != nil {
			kind = pl.Package.RegistryType
		}
		p.stats.PlansByRegistryType[kind]++
		p.stats.PlansByTransport[pl.Transport]++
		switch pl.Status {
		case vocab.StatusNeedsConfiguration:
			p.stats.NeedsConfiguration++
		case vocab.StatusInvalidPlan:
			p.stats.Invalid++
		}
	}
	return plans
}

// Stats returns the counts so far; the maps are copies.
func (p *Planner) Stats() Stats {
	s := p.stats
	s.PlansByRegistryType = cloneMap(s.PlansByRegistryType)
	s.PlansByTransport = cloneMap(s.PlansByTransport)
	return s
}

func cloneMap(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	maps.Copy(out, m)
	return out
}

// Plans filters entries and builds their plans, in entry order; opts may be
// nil.
func Plans(entries []Entry, opts *PlanOptions) ([]vocab.Plan, Stats) {
	p := NewPlanner(opts)
	var plans []vocab.Plan
	for _, e := range entries {
		plans = append(plans, p.Add(e)...)
	}
	return plans, p.Stats()
}

// EntryPlans builds the plans of one entry without filtering it: one per
// package, then one per remote. A plan whose required inputs lack values
// has Status needs_configuration; one with a structural problem has Status
// invalid_plan. opts may be nil.
func EntryPlans(e Entry, opts *PlanOptions) []vocab.Plan {
	var o PlanOptions
	if opts != nil {
		o = *opts
	}
	if o.Source == "" {
		o.Source = "registry"
	}
	id := e.ID()
	var plans []vocab.Plan
	for i, pkg := range e.Server.Packages {
		pl := packagePlan(pkg, &o)
		pl.Key = fmt.Sprintf("registry:%s#package:%d", id, i)
		pl.Name, pl.Version, pl.Source, pl.ServerJSON = e.Server.Name, e.Server.Version, o.Source, e.Raw
		plans = append(plans, pl)
	}
	for i, rem := range e.Server.Remotes {
		pl := remotePlan(rem, &o)
		pl.Key = fmt.Sprintf("registry:%s#remote:%d", id, i)
		pl.Name, pl.Version, pl.Source, pl.ServerJSON = e.Server.Name, e.Server.Version, o.Source, e.Raw
		plans = append(plans, pl)
	}
	return plans
}

var registryTypes = []string{RegistryNPM, RegistryPyPI, RegistryOCI, RegistryNuGet, RegistryMCPB}

// builder accumulates one plan.
type builder struct {
	resolver
	plan vocab.Plan
	// byName holds resolved argument and environment values, by name, for
	// package transport URL templates.
	byName map[string]string
	// declared holds every argument and environment variable name.
	declared map[string]bool
}

func newBuilder(o *PlanOptions) *builder {
	return &builder{resolver: resolver{values: o.Values}, byName: map[string]string{}, declared: map[string]bool{}}
}

func packagePlan(pkg Package, o *PlanOptions) vocab.Plan {
	b := newBuilder(o)
	b.plan.Package = &vocab.Package{
		RegistryType:    pkg.RegistryType,
		RegistryBaseURL: pkg.RegistryBaseURL,
		Identifier:      pkg.Identifier,
		Version:         pkg.Version,
		RuntimeHint:     pkg.RuntimeHint,
		FileSHA256:      pkg.FileSHA256,
	}
	if !slices.Contains(registryTypes, pkg.RegistryType) {
		b.invalid = append(b.invalid, fmt.Sprintf("registryType %q is not supported (want npm, pypi, oci, nuget or mcpb)", pkg.RegistryType))
	}
	if strings.TrimSpace(pkg.Identifier) == "" {
		b.invalid = append(b.invalid, "package has no identifier")
	}
	b.plan.Package.RuntimeArgs = b.arguments(pkg.RuntimeArguments, "runtime argument")
	b.plan.Args = b.arguments(pkg.PackageArguments, "argument")
	for _, ev := range pkg.EnvironmentVariables {
		b.env(ev)
	}
	t := pkg.Transport
	switch t.Type {
	case vocab.TransportStdio, "":
		b.plan.Transport = vocab.TransportStdio
		if t.Type == "" && t.URL != "" {
			b.invalid = append(b.invalid, `transport has a "url" but no "type"; want streamable-http or sse`)
		}
	case vocab.TransportStreamable, vocab.TransportSSE:
		b.plan.Transport = t.Type
		b.packageURL(t.URL)
		for _, h := range t.Headers {
			b.header(h)
		}
	default:
		b.plan.Transport = t.Type
		b.invalid = append(b.invalid, fmt.Sprintf("transport type %q is not supported (want stdio, streamable-http or sse)", t.Type))
	}
	return b.finish()
}

func remotePlan(t Transport, o *PlanOptions) vocab.Plan {
	b := newBuilder(o)
	b.plan.Transport = t.Type
	switch t.Type {
	case vocab.TransportStreamable, vocab.TransportSSE:
	default:
		b.invalid = append(b.invalid, fmt.Sprintf("remote type %q is not supported (want streamable-http or sse)", t.Type))
	}
	if t.URL == "" {
		b.invalid = append(b.invalid, "remote has no url")
	} else {
		u := replaceBraces(t.URL, func(name string) (string, bool) {
			v, ok := t.Variables[name]
			if !ok {
				return "", false
			}
			val, st := b.resolve(v, nil, "url variable {"+name+"}", name)
			if st == stateSecret {
				// A URL cannot carry a canary.
				b.missing = append(b.missing, "secret url variable {"+name+"}")
			} else if st == stateAbsent {
				b.missing = append(b.missing, "url variable {"+name+"}")
			}
			return val, true
		})
		b.setURL(u)
	}
	for _, h := range t.Headers {
		b.header(h)
	}
	return b.finish()
}

// arguments resolves runtime or package arguments into argv elements.
func (b *builder) arguments(args []Argument, kind string) []string {
	var argv []string
	for i, a := range args {
		typ := a.Type
		if typ == "" {
			// Seen in the registry: "type": "" on arguments that are
			// clearly one or the other.
			typ = "positional"
			if strings.HasPrefix(a.Name, "-") {
				typ = "named"
			}
		}
		switch typ {
		case "positional":
			label := kind + " " + strconv.Itoa(i)
			if a.ValueHint != "" {
				label = kind + " <" + a.ValueHint + ">"
			} else if a.Name != "" {
				label = kind + " <" + a.Name + ">"
			}
			val, st := b.resolve(a.Input, a.Variables, label, a.ValueHint, a.Name)
			b.noteArg(a, val, st)
			switch st {
			case stateValue:
				argv = append(argv, val)
			case stateSecret:
				if a.IsRequired {
					b.missing = append(b.missing, "secret "+label+" (an argument cannot carry a canary)")
				}
			}
		case "named":
			if a.Name == "" {
				b.invalid = append(b.invalid, fmt.Sprintf("%s %d is named but has no name", kind, i))
				continue
			}
			label := kind + " " + a.Name
			if isBareFlag(a, b.values) {
				argv = append(argv, a.Name)
				continue
			}
			val, st := b.resolve(a.Input, a.Variables, label, a.Name, strings.TrimLeft(a.Name, "-"))
			b.noteArg(a, val, st)
			switch st {
			case stateValue:
				argv = append(argv, a.Name, val)
			case stateSecret:
				if a.IsRequired {
					b.missing = append(b.missing, "secret "+label+" (an argument cannot carry a canary)")
				}
			}
		default:
			b.invalid = append(b.invalid, fmt.Sprintf("%s %d: type %q is not positional or named", kind, i, a.Type))
		}
	}
	return argv
}

// isBareFlag reports whether a named argument is a switch passed on its own,
// like docker's --rm and -i: no value, no default, no user value, and
// nothing that marks it as taking one (a format, choices, a value hint, a
// placeholder, or being secret). A named argument with format boolean and no
// value is a switch the user did not turn on, so it is left out.
func isBareFlag(a Argument, values map[string]string) bool {
	if a.Value != "" || a.Default != "" || a.IsSecret || a.Format != "" || len(a.Choices) > 0 ||
		a.ValueHint != "" || a.Placeholder != "" || len(a.Variables) > 0 {
		return false
	}
	_, user := values[a.Name]
	_, userBare := values[strings.TrimLeft(a.Name, "-")]
	return !user && !userBare
}

// noteArg records an argument's value for URL templates.
func (b *builder) noteArg(a Argument, val string, st inputState) {
	for _, n := range []string{a.ValueHint, a.Name, strings.TrimLeft(a.Name, "-")} {
		if n == "" {
			continue
		}
		b.declared[n] = true
		if st == stateValue {
			if _, ok := b.byName[n]; !ok {
				b.byName[n] = val
			}
		}
	}
}

func (b *builder) env(ev KeyValueInput) {
	if ev.Name == "" {
		if ev.Value == "" && ev.Default == "" && !ev.IsRequired {
			// Seen in the registry: {"name": ""} declares nothing.
			return
		}
		b.invalid = append(b.invalid, "environment variable has no name")
		return
	}
	b.declared[ev.Name] = true
	val, st := b.resolve(ev.Input, ev.Variables, "env "+ev.Name, ev.Name)
	switch st {
	case stateValue:
		if b.plan.Env == nil {
			b.plan.Env = map[string]string{}
		}
		b.plan.Env[ev.Name] = val
		b.byName[ev.Name] = val
		if ev.IsSecret {
			b.addSecret(ev.Name)
		}
	case stateSecret:
		b.addSecret(ev.Name)
	}
}

// header resolves a header of a remote or of a package's HTTP transport.
func (b *builder) header(h KeyValueInput) {
	if h.Name == "" {
		if h.Value == "" && h.Default == "" && !h.IsRequired {
			return
		}
		b.invalid = append(b.invalid, "header has no name")
		return
	}
	val, st := b.resolve(h.Input, h.Variables, "header "+h.Name, h.Name)
	switch st {
	case stateValue:
		if b.plan.Headers == nil {
			b.plan.Headers = map[string]string{}
		}
		b.plan.Headers[h.Name] = val
		if h.IsSecret {
			b.addSecret(vocab.SecretHeaderPrefix + h.Name)
		}
	case stateSecret:
		b.addSecret(vocab.SecretHeaderPrefix + h.Name)
	}
}

func (b *builder) addSecret(name string) {
	if !slices.Contains(b.plan.Secrets, name) {
		b.plan.Secrets = append(b.plan.Secrets, name)
	}
}

// packageURL fills a package transport's URL template from the package's
// arguments and environment variables.
func (b *builder) packageURL(tmpl string) {
	if tmpl == "" {
		b.invalid = append(b.invalid, "transport has no url")
		return
	}
	u := replaceBraces(tmpl, func(name string) (string, bool) {
		if v, ok := b.byName[name]; ok {
			return v, true
		}
		if v, ok := b.lookup(name); ok {
			return v, true
		}
		if b.declared[name] {
			b.missing = append(b.missing, "url variable {"+name+"}")
		}
		return "", false
	})
	b.setURL(u)
}

// setURL checks a URL after template substitution.
func (b *builder) setURL(u string) {
	b.plan.URL = u
	if left := braceNames(u); len(left) > 0 {
		for _, n := range left {
			label := "url variable {" + n + "}"
			if !slices.Contains(b.missing, label) {
				b.missing = append(b.missing, label+" (not declared)")
			}
		}
		return
	}
	pu, err := url.Parse(u)
	if err != nil {
		b.invalid = append(b.invalid, fmt.Sprintf("url %q does not parse: %v", excerpt([]byte(u), 100), stripURLError(err)))
		return
	}
	if (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		b.invalid = append(b.invalid, fmt.Sprintf("url %q: want an http or https URL", excerpt([]byte(u), 100)))
	}
}

func (b *builder) finish() vocab.Plan {
	switch {
	case len(b.invalid) > 0:
		b.plan.Status = vocab.StatusInvalidPlan
		b.plan.StatusDetail = strings.Join(b.invalid, "; ")
	case len(b.missing) > 0:
		b.plan.Status = vocab.StatusNeedsConfiguration
		b.plan.StatusDetail = "required inputs without a value: " + strings.Join(b.missing, ", ")
	}
	return b.plan
}
