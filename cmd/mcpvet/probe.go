package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/internal/timeline"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
	"github.com/mcpvet/mcpvet/scan"
	"github.com/mcpvet/mcpvet/scan/source"
	"github.com/mcpvet/mcpvet/vocab"
)

// runFlags are the flags of every command that launches servers.
type runFlags struct {
	// s are the settings of each server's run the flags set directly.
	s           scan.Settings
	db          string
	env         []string
	headers     []string
	policy      string
	expose      []string
	exposeRW    []string
	noTranslate bool
	inputs      []string
	passEnv     []string
}

func (f *runFlags) register(cmd *cobra.Command) {
	d := scan.DefaultSettings()
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "mcpvet.db", "SQLite database the results are stored in")
	fl.StringArrayVar(&f.env, "env", nil, "KEY=VALUE given to the server (repeatable); overrides the plan's values and canaries")
	fl.StringArrayVar(&f.headers, "header", nil, "KEY=VALUE HTTP header for URL targets (repeatable)")
	fl.StringVar(&f.s.Backend, "sandbox", d.Backend, "isolation backend: auto, builtin, bwrap or none")
	fl.BoolVar(&f.s.AllowNetwork, "allow-network", d.AllowNetwork, "let servers reach the network at run time (recorded with the results)")
	fl.BoolVar(&f.s.AllowPrivateNetwork, "allow-private-network", d.AllowPrivateNetwork, "let URL targets from a registry or snapshot connect to loopback, private, link-local and metadata addresses (recorded with the results)")
	fl.DurationVar(&f.s.ServerTimeout, "server-timeout", d.ServerTimeout, "deadline for one server from launch to teardown (the package install has its own, --install-timeout)")
	fl.DurationVar(&f.s.InstallTimeout, "install-timeout", d.InstallTimeout, "deadline for installing one package, before the server deadline starts")
	fl.DurationVar(&f.s.HandshakeTimeout, "handshake-timeout", d.HandshakeTimeout, "deadline for launch plus handshake")
	fl.StringVar(&f.s.ProtocolVersion, "protocol-version", d.ProtocolVersion, "protocol version to ask for (default: the newest, with fallback)")
	fl.BoolVar(&f.s.NoInject, "no-inject", d.NoInject, "skip failure injection and the capability-gated calls (list and check only)")
	fl.BoolVar(&f.s.NoRetry, "no-retry", d.NoRetry, "send no corrected call after an error (the first retry, on read-only closed-world tools only)")
	fl.BoolVar(&f.s.RetryUnsafe, "retry-unsafe", d.RetryUnsafe, "also send the corrected call to destructive, open-world and unannotated tools (it runs them, in the sandbox)")
	fl.BoolVar(&f.s.Exercise, "exercise", d.Exercise, "call each tool annotated readOnlyHint: true and openWorldHint: false once with the minimal arguments its schema accepts")
	fl.IntVar(&f.s.ExerciseCalls, "exercise-calls", scan.DefaultExerciseCalls, "budget of tools/call requests of --exercise (input-required rounds included)")
	fl.StringVar(&f.s.CacheDir, "cache-dir", d.CacheDir, "install cache (default $XDG_CACHE_HOME/mcpvet)")
	fl.Int64Var(&f.s.MemoryMiB, "memory", d.MemoryMiB, "memory limit of one server's process tree, in MiB")
	fl.IntVar(&f.s.Processes, "max-processes", d.Processes, "process and thread limit of one server")
	fl.DurationVar(&f.s.CPUTime, "cpu-time", d.CPUTime, "CPU time limit of one server")
	fl.Int64Var(&f.s.StdoutMiB, "max-stdout", d.StdoutMiB, "stdout a server may write in total, in MiB")
	fl.IntVar(&f.s.MessageMiB, "max-message", d.MessageMiB, "size limit of one JSON-RPC message, in MiB")
	fl.StringVar(&f.policy, "policy", "", "verdict policy JSON file: minScore, fixSeverities, ignoreFindings (defaults in docs/rubric.md)")
	fl.StringArrayVar(&f.expose, "expose", nil, "host PATH local servers see read-only (repeatable); never /, $HOME or a credential store")
	fl.StringArrayVar(&f.exposeRW, "expose-rw", nil, "host folder local servers may write to, a scratch folder (repeatable)")
	fl.BoolVar(&f.noTranslate, "no-translate", false, "run launcher commands (npx -y, uvx, docker run) as written instead of installing their package first")
	registerEnumCompletion(cmd, "sandbox", "auto", "builtin", "bwrap", "none")
	registerEnumCompletion(cmd, "protocol-version", vocab.ProtocolVersions...)
}

// registerConfigFlags adds the flags of commands that read client configs.
func (f *runFlags) registerConfigFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.inputs, "input", nil, "ID=VALUE for a config's ${input:ID} (repeatable)")
	fl.StringArrayVar(&f.passEnv, "pass-env", nil, "NAME of an environment variable a config's ${env:NAME} may read (repeatable); nothing else of your environment is used")
}

// checkExposed validates --expose and --expose-rw: each path exists and
// may be shown to a server.
func (f *runFlags) checkExposed() (expose, exposeRW []string, err error) {
	check := func(flag string, paths []string, dirOnly bool) ([]string, error) {
		var out []string
		for _, p := range paths {
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, usagef("%s %q: %v", flag, p, err)
			}
			fi, err := os.Stat(abs)
			if err != nil {
				return nil, usagef("%s %q: no such file or folder on this machine; give an existing path", flag, p)
			}
			if dirOnly && !fi.IsDir() {
				return nil, usagef("%s %q: not a folder; --expose-rw gives a writable scratch folder, use --expose for a file", flag, p)
			}
			if err := scan.CheckExpose(abs, []string{f.db}); err != nil {
				return nil, usagef("%s %q: %v", flag, p, err)
			}
			out = append(out, abs)
		}
		return out, nil
	}
	if expose, err = check("--expose", f.expose, false); err != nil {
		return nil, nil, err
	}
	if exposeRW, err = check("--expose-rw", f.exposeRW, true); err != nil {
		return nil, nil, err
	}
	return expose, exposeRW, nil
}

// configOptions returns how to read client configs under these flags.
func (f *runFlags) configOptions() (*source.ConfigOptions, error) {
	inputs, err := keyValues("--input", f.inputs)
	if err != nil {
		return nil, err
	}
	pass := map[string]bool{}
	for _, n := range f.passEnv {
		if n == "" || strings.ContainsAny(n, "= ") {
			return nil, usagef("--pass-env %q: give the name of one environment variable, such as GITHUB_TOKEN", n)
		}
		pass[n] = true
	}
	home, _ := os.UserHomeDir()
	vars := map[string]string{"userHome": home, "pathSeparator": string(filepath.Separator), "/": string(filepath.Separator)}
	return &source.ConfigOptions{
		Translate: !f.noTranslate,
		Inputs:    inputs,
		Variables: vars,
		LookupEnv: func(name string) (string, bool) {
			if !pass[name] {
				return "", false
			}
			return os.LookupEnv(name)
		},
	}, nil
}

// options validates the flags and builds the per-server options.
func (f *runFlags) options() (*scan.ProbeOptions, error) {
	s := f.s
	switch s.Backend {
	case "auto", "builtin", "bwrap", "none":
	default:
		return nil, usagef("--sandbox %q: not a sandbox backend; use auto, builtin, bwrap or none", s.Backend)
	}
	if s.ProtocolVersion != "" && !slices.Contains(vocab.ProtocolVersions, s.ProtocolVersion) {
		return nil, usagef("--protocol-version %q: not a published MCP revision; use one of %s", s.ProtocolVersion, strings.Join(vocab.ProtocolVersions, ", "))
	}
	if s.ServerTimeout <= 0 || s.HandshakeTimeout <= 0 {
		return nil, usagef("--server-timeout and --handshake-timeout must be positive durations such as 30s")
	}
	if s.InstallTimeout <= 0 {
		return nil, usagef("--install-timeout %s: must be a positive duration, such as 10m", s.InstallTimeout)
	}
	if s.ExerciseCalls < 1 || s.ExerciseCalls > scan.MaxExerciseCalls {
		return nil, usagef("--exercise-calls %d: give a number of calls from 1 to %d", s.ExerciseCalls, scan.MaxExerciseCalls)
	}
	env, err := keyValues("--env", f.env)
	if err != nil {
		return nil, err
	}
	switch {
	case s.MemoryMiB <= 0:
		return nil, usagef("--memory %d: must be a positive number of MiB, such as 1024", s.MemoryMiB)
	case s.Processes <= 0:
		return nil, usagef("--max-processes %d: must be at least 1, such as 256", s.Processes)
	case s.CPUTime <= 0:
		return nil, usagef("--cpu-time %s: must be a positive duration, such as 60s", s.CPUTime)
	case s.StdoutMiB <= 0 || s.MessageMiB <= 0:
		return nil, usagef("--max-stdout and --max-message must be positive numbers of MiB")
	}
	policy, err := scan.LoadPolicy(f.policy)
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return nil, usagef("--policy %q: %v; give the path of a policy JSON file", f.policy, err)
		}
		return nil, usagef("--policy %q: %v", f.policy, err)
	}
	expose, exposeRW, err := f.checkExposed()
	if err != nil {
		return nil, err
	}
	s.Env, s.Policy, s.Expose, s.ExposeRW = env, policy, expose, exposeRW
	if db, err := filepath.Abs(f.db); err == nil {
		s.Hidden = []string{db}
	}
	return s.ProbeOptions(), nil
}

func keyValues(flag string, kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("%s %q: not KEY=VALUE; write it as %s NAME=value", flag, kv, flag)
		}
		out[k] = v
	}
	return out, nil
}

// checkFailOn validates a --fail-on value.
func checkFailOn(v string) error {
	if v != "" && !slices.Contains(results.TriageFailOn, v) {
		return usagef("--fail-on %q: not a verdict threshold; use drop (fail on dropped servers) or fix (fail on servers to fix or drop)", v)
	}
	return nil
}

func newProbeCmd(stdout, stderr io.Writer, g *globalFlags) *cobra.Command {
	var (
		rf         runFlags
		asJSON     bool
		output     string
		serverJSON string
		failOn     string
		gate       gateFlags
		config     string
		server     string
	)
	cmd := &cobra.Command{
		Use:   "probe [flags] (-- COMMAND [ARGS...] | URL | npm:NAME@VERSION | pypi:NAME==VERSION | oci:IMAGE | --server NAME [--config FILE])",
		Short: "Probe one MCP server and store the result",
		Example: `  mcpvet probe --allow-network -- npx -y @modelcontextprotocol/server-everything
  mcpvet probe npm:@modelcontextprotocol/server-memory@2026.1.26
  mcpvet probe https://example.com/mcp
  mcpvet probe --config ~/.cursor/mcp.json --server memory
  mcpvet probe --json --db results.db --env API_KEY=x --timeout 30s -- node server.js`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var plan *vocab.Plan
			if config != "" || server != "" {
				// A config's entry, read as triage and scan --config read it.
				p, err := configEntry(config, server, args, &rf, stderr, g.quiet)
				if err != nil {
					return err
				}
				plan = p
			} else {
				p, err := scan.ParseTarget(args)
				if err != nil {
					return usageError{err}
				}
				if !rf.noTranslate {
					// `probe -- npx -y pkg` runs as a config's entry would.
					scan.TranslateLauncher(p)
				}
				plan = p
			}
			headers, err := keyValues("--header", rf.headers)
			if err != nil {
				return err
			}
			for k, v := range headers {
				if plan.Headers == nil {
					plan.Headers = map[string]string{}
				}
				plan.Headers[k] = v
			}
			if serverJSON != "" {
				data, err := os.ReadFile(serverJSON)
				if err != nil {
					return usagef("--server-json %q: %v; give the path of a registry server.json", serverJSON, err)
				}
				if !json.Valid(data) {
					return usagef("--server-json %q: not valid JSON; give a registry server.json", serverJSON)
				}
				plan.ServerJSON = data
			}
			opts, err := rf.options()
			if err != nil {
				return err
			}
			if err := checkFailOn(failOn); err != nil {
				return err
			}
			if err := gate.check(); err != nil {
				return err
			}
			if !g.quiet && isTerminal(stderr) {
				opts.Installing = installProgress(stderr)
			}
			return probeOne(cmd.Context(), plan, opts, probeOutput{db: rf.db, asJSON: asJSON, output: output, serverJSON: serverJSON, failOn: failOn}, &gate, stdout, stderr)
		},
	}
	rf.register(cmd)
	rf.registerConfigFlags(cmd)
	cmd.Flags().StringVar(&config, "config", "", "client config holding the --server entry (default: the configs found on this machine, as triage finds them)")
	cmd.Flags().StringVar(&server, "server", "", "probe this entry of the client config, as triage and scan --config run it")
	cmd.Flags().BoolVar(&asJSON, "json", false, "write the result as one JSON document")
	cmd.Flags().StringVarP(&output, "output", "o", "-", "write the report here (- is stdout)")
	cmd.Flags().StringVar(&serverJSON, "server-json", "", "registry server.json of the target, for declared-vs-observed checks")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when the verdict is at or below this: drop or fix")
	gate.register(cmd)
	registerEnumCompletion(cmd, "fail-on", results.TriageFailOn...)
	return cmd
}

// installProgress shows a package install on a terminal: what is being
// installed, then how long it took (a first install downloads; later ones
// reuse the cache).
func installProgress(w io.Writer) func(string) func(error, time.Duration) {
	return func(pkg string) func(error, time.Duration) {
		fmt.Fprintf(w, "mcpvet: installing %s into the cache (the first time downloads it; later probes reuse it)...", safe.Line(pkg))
		return func(err error, took time.Duration) {
			if err != nil {
				fmt.Fprintf(w, " failed after %s\n", took.Round(100*time.Millisecond))
				return
			}
			fmt.Fprintf(w, " done in %s\n", took.Round(100*time.Millisecond))
		}
	}
}

// configEntry returns the plan of the entry named server in config (or in
// the configs found on this machine when config is ""), read as triage
// reads it.
func configEntry(config, server string, args []string, rf *runFlags, stderr io.Writer, quiet bool) (*vocab.Plan, error) {
	if len(args) > 0 {
		return nil, usagef("--config and --server name the target; drop the arguments %q", strings.Join(args, " "))
	}
	if server == "" {
		return nil, usagef("--config %q: give the entry to probe with --server NAME", config)
	}
	copts, err := rf.configOptions()
	if err != nil {
		return nil, err
	}
	set, err := loadConfigSet(config, copts, stderr, quiet)
	if err != nil {
		return nil, err
	}
	pl, ok := set.Entry(server)
	if !ok {
		names := set.EntryNames()
		if len(names) > 12 {
			names = append(names[:12], "...")
		}
		return nil, usagef("--server %q: no such entry in %s; its entries are %s", server, set.Label(), strings.Join(names, ", "))
	}
	return &pl, nil
}

// probeOutput are the flags of `mcpvet probe` about what happens to the
// result.
type probeOutput struct {
	db, output, serverJSON, failOn string
	asJSON                         bool
}

// probeOne probes plan as a scan of one (scan.RunOne) stored in the
// database, writes the result, then applies the author gate and --fail-on.
func probeOne(ctx context.Context, plan *vocab.Plan, opts *scan.ProbeOptions, out probeOutput, gate *gateFlags, stdout, stderr io.Writer) error {
	// A --db path that cannot hold a database is reported before any
	// server is launched; the database itself (SQLite, migrations, its
	// integrity check) is opened while the package's install is checked
	// and the server starts (issue 25: probe cost), and a failure there
	// stops the probe before anything is stored.
	timeline.Mark("probe command starts")
	if err := results.CheckPath(out.db); err != nil {
		return err
	}
	type opened struct {
		st  *results.Store
		err error
	}
	openc := make(chan opened, 1)
	go func() {
		st, err := results.Open(ctx, out.db, nil)
		timeline.Mark("database open")
		openc <- opened{st, err}
	}()
	openStore := sync.OnceValues(func() (*results.Store, error) {
		o := <-openc
		return o.st, o.err
	})
	defer func() { timeline.Mark("database closed") }()
	defer func() {
		// Whether RunOne asked for it or not, the store is closed.
		if st, err := openStore(); err == nil {
			st.Close()
		}
	}()
	// The sandbox's availability check overlaps with the install check
	// and run conditions before the launch (issue 25: probe cost).
	scan.Prewarm(opts)
	res, err := scan.RunOne(ctx, plan, &scan.Options{OpenStore: func(context.Context) (*results.Store, error) { return openStore() },
		Probe: *opts, Info: results.ScanInfo{Kind: results.KindProbe, Source: plan.Source}})
	timeline.Mark("scan done (result stored)")
	interrupted := errors.Is(err, scan.ErrInterrupted)
	if err != nil && (!interrupted || res == nil) {
		return err
	}
	err = writeOutput(out.output, stdout, func(w io.Writer) error {
		if out.asJSON {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}
		return report.WriteSummary(w, res)
	})
	if err != nil {
		return err
	}
	if interrupted {
		// The result shows what the server did before the interrupt; it
		// is stored, but it is not a whole probe.
		return errProbeInterrupted
	}
	if gate.sarif != "" {
		f, err := os.Create(gate.sarif)
		if err != nil {
			return usagef("--sarif %q: %v; give a writable file path", gate.sarif, err)
		}
		werr := report.WriteProbeSARIF(f, plan.Key, res, gate.sarifOptions(plan, out.serverJSON))
		if err := errors.Join(werr, f.Close()); err != nil {
			return err
		}
	}
	failed := false
	switch {
	case gate.base != nil && gate.update:
		added, removed, err := gate.base.Update(gate.baseline, res)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return usagef("--baseline %q: %v; give a writable path", gate.baseline, err)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "mcpvet: wrote %s: %d findings newly accepted, %d no longer present; give each new one its reason\n", safe.Line(gate.baseline), added, removed)
	case gate.base != nil:
		gr := gate.base.Check(res, gate.maxScoreDrop)
		reportGate(stderr, gate.baseline, gr, gate.maxScoreDrop)
		failed = gr.Failed()
	}
	if l := gate.contextLimits(); !gate.update && (l.MaxTokens > 0 || l.MaxGrowthPct >= 0) {
		cg := scan.CheckContext(res, gate.base, l)
		reportContextGate(stderr, cg, l)
		failed = failed || cg.Failed()
	}
	if failed {
		return errFindings
	}
	if out.failOn != "" && res.Verdict != nil && results.TriageAtOrBelow(res.Verdict.Decision, out.failOn) {
		return errFindings
	}
	return nil
}

// errProbeInterrupted is a probe cut short by Ctrl-C or --timeout (exit 4).
var errProbeInterrupted error = partialError("the probe was interrupted; the partial result is stored and printed")

// writeOutput writes to stdout for "-" or creates the file, readable by
// its owner only (a report names servers, hosts and findings of the user's
// own configuration).
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) (err error) {
	if path == "" || path == "-" {
		return write(stdout)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return usagef("--output %q: %v; give a writable file path or - for stdout", path, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return write(f)
}
