package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/scan"
	"github.com/mcpvet/mcpvet/scan/source"
	"github.com/mcpvet/mcpvet/scoring"
)

// runFlags are the flags of every command that launches servers.
type runFlags struct {
	db               string
	env              []string
	headers          []string
	sandbox          string
	allowNetwork     bool
	allowPrivate     bool
	serverTimeout    time.Duration
	installTimeout   time.Duration
	handshakeTimeout time.Duration
	protocolVersion  string
	noInject         bool
	exercise         bool
	cacheDir         string
	memory           int64
	processes        int
	cpuTime          time.Duration
	maxStdout        int64
	maxMessage       int
	policy           string
	expose           []string
	exposeRW         []string
	noTranslate      bool
	inputs           []string
	passEnv          []string
}

func (f *runFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "mcpvet.db", "SQLite database the results are stored in")
	fl.StringArrayVar(&f.env, "env", nil, "KEY=VALUE given to the server (repeatable); overrides the plan's values and canaries")
	fl.StringArrayVar(&f.headers, "header", nil, "KEY=VALUE HTTP header for URL targets (repeatable)")
	fl.StringVar(&f.sandbox, "sandbox", "auto", "isolation backend: auto, builtin, bwrap or none")
	fl.BoolVar(&f.allowNetwork, "allow-network", false, "let servers reach the network at run time (recorded with the results)")
	fl.BoolVar(&f.allowPrivate, "allow-private-network", false, "let URL targets from a registry or snapshot connect to loopback, private, link-local and metadata addresses (recorded with the results)")
	fl.DurationVar(&f.serverTimeout, "server-timeout", 2*time.Minute, "deadline for one server from launch to teardown (the package install has its own, --install-timeout)")
	fl.DurationVar(&f.installTimeout, "install-timeout", sandbox.DefaultInstallTimeout, "deadline for installing one package, before the server deadline starts")
	fl.DurationVar(&f.handshakeTimeout, "handshake-timeout", probe.DefaultHandshakeTimeout, "deadline for launch plus handshake")
	fl.StringVar(&f.protocolVersion, "protocol-version", "", "protocol version to ask for (default: the newest, with fallback)")
	fl.BoolVar(&f.noInject, "no-inject", false, "skip failure injection and the capability-gated calls (list and check only)")
	fl.BoolVar(&f.exercise, "exercise", false, "call each tool annotated readOnlyHint: true and openWorldHint: false once with arguments generated from its schema")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "install cache (default $XDG_CACHE_HOME/mcpvet)")
	fl.Int64Var(&f.memory, "memory", sandbox.DefaultMemoryBytes>>20, "memory limit of one server's process tree, in MiB")
	fl.IntVar(&f.processes, "max-processes", sandbox.DefaultProcesses, "process and thread limit of one server")
	fl.DurationVar(&f.cpuTime, "cpu-time", sandbox.DefaultCPUTime, "CPU time limit of one server")
	fl.Int64Var(&f.maxStdout, "max-stdout", sandbox.DefaultStdoutBytes>>20, "stdout a server may write in total, in MiB")
	fl.IntVar(&f.maxMessage, "max-message", sandbox.DefaultMessageBytes>>20, "size limit of one JSON-RPC message, in MiB")
	fl.StringVar(&f.policy, "policy", "", "verdict policy JSON file: minScore, fixSeverities, ignoreFindings (defaults in docs/rubric.md)")
	fl.StringArrayVar(&f.expose, "expose", nil, "host PATH local servers see read-only (repeatable); never /, $HOME or a credential store")
	fl.StringArrayVar(&f.exposeRW, "expose-rw", nil, "host folder local servers may write to, a scratch folder (repeatable)")
	fl.BoolVar(&f.noTranslate, "no-translate", false, "run launcher commands (npx -y, uvx, docker run) as written instead of installing their package first")
	registerEnumCompletion(cmd, "sandbox", "auto", "builtin", "bwrap", "none")
	registerEnumCompletion(cmd, "protocol-version", probe.KnownVersions...)
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
			if err := sandbox.CheckExpose(abs, []string{f.db}); err != nil {
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
	switch f.sandbox {
	case "auto", "builtin", "bwrap", "none":
	default:
		return nil, usagef("--sandbox %q: not a sandbox backend; use auto, builtin, bwrap or none", f.sandbox)
	}
	if f.protocolVersion != "" && !contains(probe.KnownVersions, f.protocolVersion) {
		return nil, usagef("--protocol-version %q: not a published MCP revision; use one of %s", f.protocolVersion, strings.Join(probe.KnownVersions, ", "))
	}
	if f.serverTimeout <= 0 || f.handshakeTimeout <= 0 {
		return nil, usagef("--server-timeout and --handshake-timeout must be positive durations such as 30s")
	}
	if f.installTimeout <= 0 {
		return nil, usagef("--install-timeout %s: must be a positive duration, such as 10m", f.installTimeout)
	}
	env, err := keyValues("--env", f.env)
	if err != nil {
		return nil, err
	}
	switch {
	case f.memory <= 0:
		return nil, usagef("--memory %d: must be a positive number of MiB, such as 1024", f.memory)
	case f.processes <= 0:
		return nil, usagef("--max-processes %d: must be at least 1, such as 256", f.processes)
	case f.cpuTime <= 0:
		return nil, usagef("--cpu-time %s: must be a positive duration, such as 60s", f.cpuTime)
	case f.maxStdout <= 0 || f.maxMessage <= 0:
		return nil, usagef("--max-stdout and --max-message must be positive numbers of MiB")
	}
	policy, err := loadPolicy(f.policy)
	if err != nil {
		return nil, err
	}
	expose, exposeRW, err := f.checkExposed()
	if err != nil {
		return nil, err
	}
	wd, _ := os.Getwd()
	var hidden []string
	if db, err := filepath.Abs(f.db); err == nil {
		hidden = []string{db}
	}
	return &scan.ProbeOptions{
		Policy: policy,
		Sandbox: &sandbox.Options{
			Backend:             f.sandbox,
			AllowNetwork:        f.allowNetwork,
			AllowPrivateNetwork: f.allowPrivate,
			CacheDir:            f.cacheDir,
			InstallTimeout:      f.installTimeout,
			Env:                 env,
			WorkDir:             wd,
			Expose:              expose,
			ExposeRW:            exposeRW,
			Hidden:              hidden,
			Limits: sandbox.Limits{
				MemoryBytes:  f.memory << 20,
				Processes:    f.processes,
				CPUTime:      f.cpuTime,
				Wall:         f.serverTimeout,
				StdoutBytes:  f.maxStdout << 20,
				MessageBytes: f.maxMessage << 20,
			},
		},
		Probe: probe.Options{
			HandshakeTimeout: f.handshakeTimeout,
			ProtocolVersion:  f.protocolVersion,
			Inject:           &probe.InjectOptions{Disabled: f.noInject},
			SkipBasics:       f.noInject,
			Exercise:         f.exercise,
		},
		Timeout: f.serverTimeout,
	}, nil
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// loadPolicy reads a --policy file; "" gives the default policy.
func loadPolicy(path string) (*scoring.Policy, error) {
	if path == "" {
		return scoring.DefaultPolicy(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--policy %q: %v; give the path of a policy JSON file", path, err)
	}
	p, err := scoring.LoadPolicy(data)
	if err != nil {
		return nil, usagef("--policy %q: %v", path, err)
	}
	return p, nil
}

// checkFailOn validates a --fail-on value.
func checkFailOn(v string) error {
	if v != "" && !contains(results.TriageFailOn, v) {
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
	)
	cmd := &cobra.Command{
		Use:   "probe [flags] (-- COMMAND [ARGS...] | URL | npm:NAME@VERSION | pypi:NAME==VERSION | oci:IMAGE)",
		Short: "Probe one MCP server and store the result",
		Example: `  mcpvet probe --allow-network -- npx -y @modelcontextprotocol/server-everything
  mcpvet probe npm:@modelcontextprotocol/server-memory@2026.1.26
  mcpvet probe https://example.com/mcp
  mcpvet probe --json --db results.db --env API_KEY=x --timeout 30s -- node server.js`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			plan, err := scan.ParseTarget(args)
			if err != nil {
				return usageError{err}
			}
			if !rf.noTranslate {
				// `probe -- npx -y pkg` runs as a config's entry would.
				_, notes, terr := source.Translate(plan)
				if terr != nil {
					notes = append(notes, terr.Error())
				}
				plan.Notes = append(plan.Notes, notes...)
			}
			headers, err := keyValues("--header", rf.headers)
			if err != nil {
				return err
			}
			plan.Headers = headers
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
			res, err := probeOne(cmd.Context(), plan, opts, rf.db, asJSON, output, stdout)
			if err != nil {
				return err
			}
			if err := gate.finish(plan, serverJSON, res, stderr); err != nil {
				return err
			}
			if failOn != "" && res.Verdict != nil && results.TriageAtOrBelow(res.Verdict.Decision, failOn) {
				return errFindings
			}
			return nil
		},
	}
	rf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "write the result as one JSON document")
	cmd.Flags().StringVarP(&output, "output", "o", "-", "write the report here (- is stdout)")
	cmd.Flags().StringVar(&serverJSON, "server-json", "", "registry server.json of the target, for declared-vs-observed checks")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when the verdict is at or below this: drop or fix")
	gate.register(cmd)
	registerEnumCompletion(cmd, "fail-on", results.TriageFailOn...)
	return cmd
}

func probeOne(ctx context.Context, plan *sandbox.Plan, opts *scan.ProbeOptions, dbPath string, asJSON bool, output string, stdout io.Writer) (*probe.Result, error) {
	// Open the database first: an unusable --db is reported before any
	// server is launched.
	st, err := results.Open(ctx, dbPath, nil)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	scanID, err := st.NewScan(ctx, results.ScanInfo{Kind: results.KindProbe, Source: plan.Source})
	if err != nil {
		return nil, err
	}
	if _, err := st.AddTargets(ctx, scanID, []sandbox.Plan{*plan}); err != nil {
		return nil, err
	}
	res, err := scan.Probe(ctx, plan, opts)
	if err != nil {
		_ = st.FinishScan(context.WithoutCancel(ctx), scanID, results.ScanFailed)
		return nil, fmt.Errorf("probing %s: %w", plan.Name, err)
	}
	if _, err := st.SaveRun(context.WithoutCancel(ctx), scanID, plan.Key, res); err != nil {
		return nil, err
	}
	status := results.ScanDone
	if ctx.Err() != nil {
		status = results.ScanInterrupted
	}
	if err := st.FinishScan(context.WithoutCancel(ctx), scanID, status); err != nil {
		return nil, err
	}
	err = writeOutput(output, stdout, func(w io.Writer) error {
		if asJSON {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}
		return report.WriteSummary(w, res)
	})
	if err == nil && status == results.ScanInterrupted {
		// The result shows what the server did before the interrupt; it
		// is stored, but it is not a whole probe.
		err = errProbeInterrupted
	}
	return res, err
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
